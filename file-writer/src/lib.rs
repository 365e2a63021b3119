//! The one writer of every file the workspace's tools write: reports of
//! every format, the mock's client report, overlays, generated code,
//! profiles, baselines and workflows.
//!
//! # What it does
//!
//! - **A file** is written whole or not at all: the bytes go into a
//!   temporary file created *exclusively* (`O_CREAT | O_EXCL`, which never
//!   follows a symbolic link) under an unpredictable name beside the target
//!   (`.NAME.RANDOM.tmp`, in the same folder so the rename cannot cross
//!   file systems), flushed to disk, then renamed over the target. A reader
//!   sees the old file or the new one, never a part; a symbolic link
//!   planted where a temporary file might go is never written through,
//!   and a symbolic link at the target's own name is replaced, not
//!   followed (the file it points to is left as it was).
//! - **A character device or a FIFO** (`/dev/stdout`, `/dev/null`, a named
//!   pipe, `/dev/fd/N` of a shell's `>(...)`), or a symbolic link to one,
//!   is written in place: opened, written, never replaced by a regular
//!   file. `-` is standard output. A FIFO that no process reads is waited
//!   for [`FIFO_WAIT`], then refused (a plain `open` would wait forever).
//! - **Every output path is checked before the work starts**
//!   ([`check_all`]): its folder exists, is a folder and is writable; the
//!   path is not a directory, a block device or a socket; no two outputs
//!   of one command name the same file (it would keep only the last).
//!   Each failure names the path and why ([`WriteError`]); the tools exit
//!   2 on it. The same checks run again when the file is written, since
//!   the file system may have changed meanwhile.
//! - **Nothing is left behind**: on any error (a full disk, a failed
//!   rename, a target that appeared with [`Existing::Keep`]) the temporary
//!   file is removed before the error is returned.
//!
//! A new file gets the permissions a plain `create` would (0o666 less the
//! umask); a file replaced keeps its permission bits.
//!
//! Snapshots are the exception: insta writes them itself (the runner
//! checks their folder before a run starts, with [`check_folder`]).

use std::ffi::OsString;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a FIFO with no reader is waited for before it is refused:
/// 10 seconds, long enough for a reader started beside the tool (`cat
/// fifo &`) to open it, short enough that a forgotten FIFO ends the run
/// with a message instead of a hang.
pub const FIFO_WAIT: Duration = Duration::from_secs(10);

/// What to do when the target file exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Replace it (by a rename: never written through). Reports,
    /// generated code, overlays: what every tool does by default.
    Replace,
    /// Keep it and fail ([`Why::Exists`]), also when it appears while the
    /// file is written: `conformance init` without `--force`.
    Keep,
}

/// A file that could not be written (or will not be: [`check_all`]): its
/// path, what it was to hold, and why. Its `Display` is one line,
/// `PATH: cannot write WHAT: WHY`, with nothing of the content.
#[derive(Debug)]
pub struct WriteError {
    pub path: PathBuf,
    /// What the file was to hold, with its article: "the JSON report".
    pub what: String,
    pub why: Why,
}

/// Why a file cannot be written.
#[derive(Debug)]
pub enum Why {
    /// An empty path.
    Empty,
    /// The path names a directory (or ends with `/`).
    IsDirectory,
    /// Something that is neither a file, a character device nor a FIFO: a
    /// block device or a socket.
    Unwritable(&'static str),
    /// The folder the file goes in does not exist.
    NoFolder(PathBuf),
    /// What should be its folder is not a folder.
    NotAFolder(PathBuf),
    /// The folder is not writable (permissions, a read-only file system).
    FolderNotWritable(PathBuf, std::io::Error),
    /// Another output of the same command names the same file.
    SameAs(String),
    /// The file exists and [`Existing::Keep`] was asked.
    Exists,
    /// A FIFO no process opened for reading within [`FIFO_WAIT`].
    NoReader,
    /// The system's own error while writing (a full disk, ...).
    Io(std::io::Error),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: cannot write {}: {}",
            self.path.display(),
            self.what,
            self.why
        )
    }
}

impl std::error::Error for WriteError {}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Empty => write!(f, "the path is empty"),
            Why::IsDirectory => write!(f, "it is a directory; name a file"),
            Why::Unwritable(what) => write!(
                f,
                "it is {what}; name a file, a character device such as /dev/stdout, a FIFO, or -"
            ),
            Why::NoFolder(dir) => write!(
                f,
                "its folder {} does not exist (create it first)",
                dir.display()
            ),
            Why::NotAFolder(dir) => write!(f, "{} is not a folder", dir.display()),
            Why::FolderNotWritable(dir, e) => {
                write!(f, "its folder {} is not writable ({e})", dir.display())
            }
            Why::SameAs(other) => write!(
                f,
                "it is also where {other} goes; name a different file for each"
            ),
            Why::Exists => write!(f, "it exists (it was kept; nothing was written over it)"),
            Why::NoReader => write!(
                f,
                "it is a FIFO and no process opened it for reading within {} s",
                FIFO_WAIT.as_secs()
            ),
            Why::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Where the bytes for a path go.
#[derive(Debug)]
enum Place {
    /// Standard output: `-`, or a path that names the same open file.
    Stdout,
    /// A character device or a FIFO, opened and written.
    Device { path: PathBuf, fifo: bool },
    /// A file of `dir`, through a temporary file and a rename.
    File {
        dir: PathBuf,
        name: OsString,
        /// The permission bits of the file replaced, if one is.
        mode: Option<u32>,
    },
}

/// Two outputs are the same when they name one node (a device, a FIFO,
/// standard output) or one name in one folder.
#[derive(Debug, PartialEq, Eq)]
enum Key {
    Node(u64, u64),
    Name(PathBuf),
    Stdout,
}

impl WriteError {
    fn new(path: &Path, what: &str, why: Why) -> Self {
        WriteError {
            path: path.to_owned(),
            what: what.to_owned(),
            why,
        }
    }
}

/// Checks `path` as an output: what [`write()`] would find wrong before
/// writing anything.
pub fn check(path: &Path, what: &str) -> Result<(), WriteError> {
    place(path)
        .map(|_| ())
        .map_err(|why| WriteError::new(path, what, why))
}

/// Checks every output of one command before its work starts: each as
/// [`check`] does, and no two naming the same file. `None`s (outputs not
/// asked for) are passed over. The first failure is returned.
pub fn check_all<'a>(
    outputs: impl IntoIterator<Item = (Option<&'a Path>, &'a str)>,
) -> Result<(), WriteError> {
    let mut seen: Vec<(Key, &str)> = Vec::new();
    for (path, what) in outputs {
        let Some(path) = path else { continue };
        let place = place(path).map_err(|why| WriteError::new(path, what, why))?;
        if let Some(key) = key(&place) {
            if let Some((_, other)) = seen.iter().find(|(k, _)| *k == key) {
                return Err(WriteError::new(
                    path,
                    what,
                    Why::SameAs((*other).to_owned()),
                ));
            }
            seen.push((key, what));
        }
    }
    Ok(())
}

/// Checks a folder that a tool will write files into itself (insta's
/// snapshots): it is a folder and writable, or it does not exist and its
/// nearest existing ancestor is a writable folder (it will be created).
pub fn check_folder(dir: &Path, what: &str) -> Result<(), WriteError> {
    let fail = |why| WriteError::new(dir, what, why);
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => writable(dir).map_err(fail),
        Ok(_) => Err(fail(Why::NotAFolder(dir.to_owned()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut up = dir.parent();
            while let Some(parent) = up {
                let parent = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
                match std::fs::metadata(parent) {
                    Ok(m) if m.is_dir() => return writable(parent).map_err(fail),
                    Ok(_) => return Err(fail(Why::NotAFolder(parent.to_owned()))),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => up = parent.parent(),
                    Err(e) => return Err(fail(Why::Io(e))),
                }
            }
            Err(fail(Why::NoFolder(dir.to_owned())))
        }
        Err(e) => Err(fail(Why::Io(e))),
    }
}

/// Whether `path` is written in place (`-`, a character device, a FIFO)
/// rather than replaced: a tool that rewrites a file as it goes (the
/// mock's client report, every second) writes such a path once, at the
/// end, since a reader of a device or a pipe would get every version one
/// after the other.
pub fn writes_in_place(path: &Path) -> bool {
    matches!(place(path), Ok(Place::Stdout | Place::Device { .. }))
}

/// Writes `bytes` to `path` ([`Existing::Replace`]): see the crate's doc.
pub fn write(path: &Path, what: &str, bytes: impl AsRef<[u8]>) -> Result<(), WriteError> {
    write_with(path, what, bytes.as_ref(), Existing::Replace)
}

/// Writes `bytes` to `path`, doing with a file that exists what `existing`
/// says.
pub fn write_with(
    path: &Path,
    what: &str,
    bytes: &[u8],
    existing: Existing,
) -> Result<(), WriteError> {
    let fail = |why| WriteError::new(path, what, why);
    match place(path).map_err(fail)? {
        Place::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)
                .and_then(|()| out.flush())
                .map_err(|e| fail(Why::Io(e)))
        }
        Place::Device { .. } if existing == Existing::Keep => Err(fail(Why::Exists)),
        Place::Device { path: node, fifo } => {
            let mut file = open_in_place(&node, fifo).map_err(fail)?;
            file.write_all(bytes)
                .and_then(|()| file.flush())
                .map_err(|e| fail(Why::Io(e)))
        }
        Place::File { dir, name, mode } => {
            replace_file(&dir, &name, mode, bytes, existing).map_err(fail)
        }
    }
}

/// The temporary file, written, flushed and renamed; removed (by its drop)
/// on every error.
fn replace_file(
    dir: &Path,
    name: &std::ffi::OsStr,
    mode: Option<u32>,
    bytes: &[u8],
    existing: Existing,
) -> Result<(), Why> {
    // The name's first 64 characters: a long name plus the random part
    // must stay within a file name's 255 bytes.
    let shown: String = name.to_string_lossy().chars().take(64).collect();
    let prefix = format!(".{shown}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp").rand_bytes(12);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(mode.unwrap_or(0o666)));
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut temp = builder.tempfile_in(dir).map_err(Why::Io)?;
    temp.write_all(bytes)
        .and_then(|()| temp.flush())
        .and_then(|()| temp.as_file().sync_all())
        .map_err(Why::Io)?;
    let target = dir.join(name);
    let placed = match existing {
        Existing::Replace => temp.persist(&target),
        Existing::Keep => temp.persist_noclobber(&target),
    };
    match placed {
        Ok(_) => Ok(()),
        // The error holds the temporary file: dropping it removes it.
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Err(Why::Exists),
        Err(e) => Err(Why::Io(e.error)),
    }
}

/// Where `path`'s bytes would go, or why they cannot.
fn place(path: &Path) -> Result<Place, Why> {
    let raw = path.as_os_str();
    if raw == "-" {
        return Ok(Place::Stdout);
    }
    if raw.is_empty() {
        return Err(Why::Empty);
    }
    let mut mode = None;
    match std::fs::symlink_metadata(path) {
        Ok(own) => {
            // Followed: `/dev/stdout` is a link to `/proc/self/fd/1`.
            let followed = if own.file_type().is_symlink() {
                std::fs::metadata(path).ok()
            } else {
                Some(own.clone())
            };
            if let Some(meta) = &followed {
                if meta.is_dir() {
                    return Err(Why::IsDirectory);
                }
                // A link to this process's standard output (`/dev/stdout`
                // when the output goes to a regular file): written through
                // the handle, never the link replaced.
                if own.file_type().is_symlink() && is_stdout(meta) {
                    return Ok(Place::Stdout);
                }
                if let Some(place) = special(path, meta)? {
                    return Ok(place);
                }
            }
            if own.is_file() {
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    mode = Some(own.permissions().mode() & 0o7777);
                }
            }
            // A regular file, a link to one, a dangling link: the name is
            // replaced, nothing is written through a link.
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            let dir = folder_of(path);
            return Err(Why::NotAFolder(dir));
        }
        Err(e) => return Err(Why::Io(e)),
    }
    // `out/` or `..` names a folder, never a file.
    let ends_with_slash = raw.as_encoded_bytes().ends_with(b"/")
        || (cfg!(windows) && raw.as_encoded_bytes().ends_with(b"\\"));
    let Some(name) = path.file_name().filter(|_| !ends_with_slash) else {
        return Err(Why::IsDirectory);
    };
    let dir = folder_of(path);
    match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(Why::NotAFolder(dir)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Why::NoFolder(dir)),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            return Err(Why::NotAFolder(dir));
        }
        Err(e) => return Err(Why::Io(e)),
    }
    writable(&dir)?;
    Ok(Place::File {
        dir,
        name: name.to_owned(),
        mode,
    })
}

/// The folder a file of `path` goes in (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// A character device or a FIFO at `path` (followed): written in place.
/// A block device or a socket: refused. Anything else: `None`.
#[cfg(unix)]
/// Whether `meta` is the file this process's standard output is.
#[cfg(unix)]
fn is_stdout(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(out) = rustix::fs::fstat(std::io::stdout()) else {
        return false;
    };
    // `st_dev` and `st_ino` are u64 here, narrower on some systems.
    #[allow(clippy::unnecessary_cast)]
    let (dev, ino) = (out.st_dev as u64, out.st_ino as u64);
    dev == meta.dev() && ino == meta.ino()
}

#[cfg(not(unix))]
fn is_stdout(_: &std::fs::Metadata) -> bool {
    false
}

#[cfg(unix)]
fn special(path: &Path, meta: &std::fs::Metadata) -> Result<Option<Place>, Why> {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    if !(kind.is_char_device() || kind.is_fifo() || kind.is_block_device() || kind.is_socket()) {
        return Ok(None);
    }
    // The same open file as standard output (`/dev/stdout`, `/dev/fd/1`,
    // the terminal it is on): written through the handle this process
    // has, which works for a socket too.
    if is_stdout(meta) {
        return Ok(Some(Place::Stdout));
    }
    if kind.is_block_device() {
        return Err(Why::Unwritable("a block device"));
    }
    if kind.is_socket() {
        return Err(Why::Unwritable("a socket"));
    }
    if kind.is_char_device() {
        writable_node(path)?;
    }
    Ok(Some(Place::Device {
        path: path.to_owned(),
        fifo: kind.is_fifo(),
    }))
}

#[cfg(not(unix))]
fn special(_: &Path, meta: &std::fs::Metadata) -> Result<Option<Place>, Why> {
    if meta.is_file() {
        Ok(None)
    } else {
        Err(Why::Unwritable("not a regular file"))
    }
}

/// The identity two outputs are compared by.
fn key(place: &Place) -> Option<Key> {
    match place {
        Place::Stdout => Some(Key::Stdout),
        Place::Device { path, .. } => node(path),
        Place::File { dir, name, .. } => {
            let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
            Some(Key::Name(dir.join(name)))
        }
    }
}

#[cfg(unix)]
fn node(path: &Path) -> Option<Key> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path)
        .ok()
        .map(|m| Key::Node(m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn node(path: &Path) -> Option<Key> {
    Some(Key::Name(std::fs::canonicalize(path).ok()?))
}

/// The folder takes new files (by the permissions of this process; a
/// read-only file system too).
#[cfg(unix)]
fn writable(dir: &Path) -> Result<(), Why> {
    use rustix::fs::Access;
    rustix::fs::access(dir, Access::WRITE_OK | Access::EXEC_OK)
        .map_err(|e| Why::FolderNotWritable(dir.to_owned(), e.into()))
}

#[cfg(not(unix))]
fn writable(dir: &Path) -> Result<(), Why> {
    match std::fs::metadata(dir) {
        Ok(m) if m.permissions().readonly() => Err(Why::FolderNotWritable(
            dir.to_owned(),
            std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        )),
        _ => Ok(()),
    }
}

#[cfg(unix)]
fn writable_node(path: &Path) -> Result<(), Why> {
    rustix::fs::access(path, rustix::fs::Access::WRITE_OK).map_err(|e| Why::Io(e.into()))
}

/// A character device or a FIFO opened for writing, never created. A FIFO
/// is opened without waiting (`O_NONBLOCK`: an open with no reader fails
/// at once), again every 50 ms for [`FIFO_WAIT`], then its writes made
/// blocking again, so a slow reader slows the writer instead of failing it.
#[cfg(unix)]
fn open_in_place(path: &Path, fifo: bool) -> Result<std::fs::File, Why> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if !fifo {
        options.custom_flags(OFlags::NOCTTY.bits() as i32);
        return options.open(path).map_err(Why::Io);
    }
    options.custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32);
    let start = std::time::Instant::now();
    loop {
        match options.open(path) {
            Ok(file) => {
                let flags = rustix::fs::fcntl_getfl(&file).map_err(|e| Why::Io(e.into()))?;
                rustix::fs::fcntl_setfl(&file, flags - OFlags::NONBLOCK)
                    .map_err(|e| Why::Io(e.into()))?;
                return Ok(file);
            }
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) => {
                if start.elapsed() >= FIFO_WAIT {
                    return Err(Why::NoReader);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(Why::Io(e)),
        }
    }
}

#[cfg(not(unix))]
fn open_in_place(path: &Path, _fifo: bool) -> Result<std::fs::File, Why> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(Why::Io)
}
