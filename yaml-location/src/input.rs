//! Reading an input file safely: a regular file only, never more than a
//! limit, and nothing of it echoed.
//!
//! Every tool of the workspace reads files a user names (a spec, a
//! profile, a baseline, a report, a fixture). A path may name something
//! that is not a file: a FIFO, whose `open` waits for a writer forever; a
//! device such as `/dev/zero`, which never ends; a directory. Such a path
//! is refused before it is opened (and, opened, checked once more on the
//! handle), and a regular file is read up to its limit plus one byte, so
//! that a file larger than the limit is refused without being read whole.

use std::io::Read;
use std::path::Path;

/// Why a file could not be read. Its `Display` names no content.
#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file: a FIFO, a socket, a device or a directory.
    NotAFile(&'static str),
    /// Larger than the limit (in bytes); nothing of it was kept.
    TooLarge(usize),
    /// The system's own error (missing, no permission, ...).
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotAFile(what) => write!(
                f,
                "it is {what}, not a regular file; name a file (nothing was read)"
            ),
            ReadError::TooLarge(limit) => write!(
                f,
                "it is larger than {}, the most read for it (nothing of it was used)",
                size(*limit)
            ),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<ReadError> for std::io::Error {
    /// For callers whose errors carry an `io::Error`: the system's own
    /// error as it was, the others as `InvalidInput` with their message.
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Io(e) => e,
            other => std::io::Error::new(std::io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

fn size(bytes: usize) -> String {
    if bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0 {
        format!("{} MiB", bytes / (1024 * 1024))
    } else {
        format!("{} KiB", bytes.div_ceil(1024))
    }
}

/// What a file that is not regular is, in words.
fn kind_of(meta: &std::fs::Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
        if kind.is_char_device() || kind.is_block_device() {
            return Some("a device");
        }
    }
    Some("not a regular file")
}

/// The regular file at `path`, opened for reading; anything else refused
/// without waiting. For a file read as a stream (a HAR recording) rather
/// than whole ([`read_limited`]).
///
/// The path is checked before it is opened (opening a FIFO for reading
/// waits for a writer), opened without waiting where the system allows it
/// (`O_NONBLOCK`, which changes nothing for a regular file: on Linux a
/// FIFO swapped in after the check opens at once instead of waiting), and
/// the handle checked again.
pub fn open_regular(path: &Path) -> Result<std::fs::File, ReadError> {
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if let Some(what) = kind_of(&meta) {
        return Err(ReadError::NotAFile(what));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK | O_NOCTTY.
        options.custom_flags(0o4000 | 0o400);
    }
    let file = options.open(path).map_err(ReadError::Io)?;
    // The same path may name something else by now.
    if let Some(what) = kind_of(&file.metadata().map_err(ReadError::Io)?) {
        return Err(ReadError::NotAFile(what));
    }
    Ok(file)
}

/// The bytes of the regular file at `path`, at most `limit` of them; a
/// byte-order mark at the start is dropped (editors write one; it is not
/// content).
pub fn read_limited(path: &Path, limit: usize) -> Result<Vec<u8>, ReadError> {
    let file = open_regular(path)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if meta.len() > limit as u64 {
        return Err(ReadError::TooLarge(limit));
    }
    let mut bytes = Vec::with_capacity((meta.len() as usize).min(limit) + 1);
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() > limit {
        return Err(ReadError::TooLarge(limit));
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    Ok(bytes)
}

/// [`read_limited`] as UTF-8 text; bytes that are not UTF-8 are named by
/// line and column (1-based) and their value in hex, nothing else.
pub fn read_text_limited(path: &Path, limit: usize) -> Result<String, TextError> {
    let bytes = read_limited(path, limit).map_err(TextError::Read)?;
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = before.iter().filter(|b| **b == b'\n').count() + 1;
        let start = before
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        let column = std::str::from_utf8(&before[start..]).map_or(1, |s| s.chars().count() + 1);
        TextError::NotUtf8 {
            line,
            column,
            byte: bytes[at],
        }
    })
}

/// Why a text file could not be read.
#[derive(Debug)]
pub enum TextError {
    Read(ReadError),
    /// The first byte that is not UTF-8, where it is.
    NotUtf8 {
        line: usize,
        column: usize,
        byte: u8,
    },
}

impl TextError {
    /// The line the error is on, when it has one.
    pub fn line(&self) -> Option<usize> {
        match self {
            TextError::NotUtf8 { line, .. } => Some(*line),
            TextError::Read(_) => None,
        }
    }
}

impl std::fmt::Display for TextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TextError::Read(e) => e.fmt(f),
            TextError::NotUtf8 { column, byte, .. } => write!(
                f,
                "not UTF-8 (byte 0x{byte:02X} at column {column}); save the file as UTF-8"
            ),
        }
    }
}

impl std::error::Error for TextError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("yaml-location-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn regular_files_are_read_with_their_bom_dropped() {
        let path = scratch("bom.yaml");
        std::fs::write(&path, "\u{feff}a: 1\n").unwrap();
        assert_eq!(read_text_limited(&path, 100).unwrap(), "a: 1\n");
    }

    #[test]
    fn too_large_is_refused_unread() {
        let path = scratch("big.yaml");
        std::fs::write(&path, "x".repeat(2000)).unwrap();
        assert!(matches!(
            read_limited(&path, 1024),
            Err(ReadError::TooLarge(1024))
        ));
        assert_eq!(read_limited(&path, 2000).unwrap().len(), 2000);
    }

    #[cfg(unix)]
    #[test]
    fn devices_fifos_and_directories_are_refused_at_once() {
        let start = std::time::Instant::now();
        let zero = read_limited(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(zero.to_string().contains("a device"), "{zero}");
        let dir = read_limited(&std::env::temp_dir(), 1024).unwrap_err();
        assert!(dir.to_string().contains("a directory"), "{dir}");
        let fifo = scratch("fifo");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = read_limited(&fifo, 1024).unwrap_err();
            assert!(e.to_string().contains("FIFO"), "{e}");
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn not_utf8_names_line_and_column_only() {
        let path = scratch("latin1.yaml");
        std::fs::write(&path, b"a: 1\nkey: caf\xe9\n").unwrap();
        let e = read_text_limited(&path, 100).unwrap_err();
        assert_eq!(e.line(), Some(2));
        assert_eq!(
            e.to_string(),
            "not UTF-8 (byte 0xE9 at column 9); save the file as UTF-8"
        );
    }
}
