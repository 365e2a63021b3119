//! The one writer, on real files, links, devices and FIFOs: each case of
//! issue 50's table that the writer itself decides.

use std::path::{Path, PathBuf};

use file_writer::{Existing, Why, check, check_all, write, write_with};

/// A fresh folder of its own under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("file-writer-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|e| {
            e.unwrap_or_else(|e| panic!("{e}"))
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[cfg(unix)]
fn link(target: &Path, at: &Path) {
    std::os::unix::fs::symlink(target, at).unwrap_or_else(|e| panic!("{e}"));
}

#[cfg(unix)]
fn mkfifo(at: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(at)
        .status()
        .unwrap_or_else(|e| panic!("mkfifo: {e}"));
    assert!(status.success());
}

/// A new file is written whole; written again, it is replaced and keeps
/// its permission bits; nothing else is left in the folder.
#[test]
fn a_file_is_written_then_replaced_whole() {
    let dir = scratch("replace");
    let path = dir.join("r.json");
    write(&path, "the JSON report", "one").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), "one");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    write(&path, "the JSON report", "two").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), "two");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).map(|m| m.permissions().mode() & 0o777);
        assert_eq!(mode.unwrap_or_default(), 0o640);
    }
    assert_eq!(names(&dir), ["r.json"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Symbolic links planted where the tools used to put their temporary
/// files (`FILE.partial`, `.FILE.PID.tmp`, `FILE.rs.tmp`) and at a few
/// hundred names of the new form are never written through: their
/// targets keep their bytes, the links stay links.
#[cfg(unix)]
#[test]
fn a_link_planted_at_a_temporary_name_is_never_written_through() {
    let dir = scratch("planted");
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").unwrap_or_else(|e| panic!("{e}"));
    let mut planted = vec![
        "out.rs.tmp".to_owned(),
        "out.rs.partial".to_owned(),
        format!(".out.rs.{}.tmp", std::process::id()),
    ];
    planted.extend((0..300).map(|i| format!(".out.rs.{i:012}.tmp")));
    for name in &planted {
        link(&victim, &dir.join(name));
    }
    write(&dir.join("out.rs"), "the bindings", "code").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap_or_default(),
        "precious"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("out.rs")).unwrap_or_default(),
        "code"
    );
    for name in &planted {
        let meta = std::fs::symlink_metadata(dir.join(name)).unwrap_or_else(|e| panic!("{e}"));
        assert!(meta.file_type().is_symlink(), "{name}");
    }
    // Only the planted links, the victim and the file written.
    assert_eq!(names(&dir).len(), planted.len() + 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A symbolic link at the target's own name is replaced by the new file;
/// the file it pointed to keeps its bytes.
#[cfg(unix)]
#[test]
fn a_link_at_the_target_is_replaced_not_followed() {
    let dir = scratch("target-link");
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("r.html");
    link(&victim, &path);
    write(&path, "the HTML report", "<html>").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap_or_default(),
        "precious"
    );
    let meta = std::fs::symlink_metadata(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(meta.is_file());
    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), "<html>");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A character device, or a link to one, is written in place: `/dev/null`
/// stays a device, the link stays a link.
#[cfg(unix)]
#[test]
fn a_device_is_written_in_place_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("device");
    let path = dir.join("null");
    link(Path::new("/dev/null"), &path);
    write(&path, "the client report", "{}").unwrap_or_else(|e| panic!("{e}"));
    write(Path::new("/dev/null"), "the client report", "{}").unwrap_or_else(|e| panic!("{e}"));
    let meta = std::fs::symlink_metadata(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(meta.file_type().is_symlink());
    let null = std::fs::metadata("/dev/null").unwrap_or_else(|e| panic!("{e}"));
    assert!(null.file_type().is_char_device());
    assert!(file_writer::writes_in_place(&path));
    assert!(file_writer::writes_in_place(Path::new("-")));
    assert!(!file_writer::writes_in_place(&dir.join("r.json")));
    // A device cannot be "kept": init's mode refuses it.
    let e = write_with(&path, "it", b"x", Existing::Keep).expect_err("kept");
    assert!(matches!(e.why, Why::Exists), "{e}");
    assert_eq!(names(&dir), ["null"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A FIFO with a reader gets the bytes in place; one no process reads is
/// refused after the wait, saying so, instead of hanging.
#[cfg(unix)]
#[test]
fn a_fifo_is_written_in_place_and_one_without_reader_is_refused() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("fifo");
    let fifo = dir.join("pipe");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo))
    };
    write(&fifo, "the overlay", "overlay: 1.0.0\n").unwrap_or_else(|e| panic!("{e}"));
    let read = reader.join().unwrap_or_else(|_| panic!("reader"));
    assert_eq!(read.unwrap_or_default(), "overlay: 1.0.0\n");
    let e = write(&fifo, "the overlay", "again").expect_err("no reader");
    assert!(matches!(e.why, Why::NoReader), "{e}");
    assert!(
        e.to_string().contains("no process opened it for reading"),
        "{e}"
    );
    let meta = std::fs::symlink_metadata(&fifo).unwrap_or_else(|e| panic!("{e}"));
    assert!(meta.file_type().is_fifo());
    assert_eq!(names(&dir), ["pipe"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every path a command could not write is found before its work starts,
/// each failure naming the path and why.
#[test]
fn bad_paths_are_found_before_the_work_starts() {
    let dir = scratch("checks");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap_or_else(|e| panic!("{e}"));
    let cases: Vec<(PathBuf, &str)> = vec![
        (dir.clone(), "is a directory"),
        (dir.join("sub/"), "is a directory"),
        (dir.join("missing").join("r.json"), "does not exist"),
        (file.join("r.json"), "is not a folder"),
        (PathBuf::new(), "the path is empty"),
    ];
    for (path, says) in cases {
        let e = check(&path, "the JSON report").expect_err(&path.display().to_string());
        let text = e.to_string();
        assert!(
            text.starts_with(&format!(
                "{}: cannot write the JSON report: ",
                path.display()
            )),
            "{text}"
        );
        assert!(text.contains(says), "{path:?}: {text}");
    }
    assert!(check(&dir.join("new.json"), "the JSON report").is_ok());
    assert!(check(Path::new("-"), "the JSON report").is_ok());
    // Nothing was created by checking.
    assert_eq!(names(&dir), ["a-file"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder this process may not write into is refused up front (run as
/// root, which may write anywhere, the case cannot arise and is passed).
#[cfg(unix)]
#[test]
fn an_unwritable_folder_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("unwritable");
    let locked = dir.join("locked");
    std::fs::create_dir(&locked).unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555))
        .unwrap_or_else(|e| panic!("{e}"));
    let privileged = std::fs::write(locked.join("probe"), "x").is_ok();
    let checked = check(&locked.join("r.json"), "the SARIF report");
    if privileged {
        eprintln!("passed over: this process may write into a read-only folder (root)");
        assert!(checked.is_ok());
    } else {
        let e = checked.expect_err("unwritable");
        assert!(e.to_string().contains("is not writable"), "{e}");
    }
    let _ = std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two outputs of one command naming one file, however spelt (`./`, a
/// folder through a link, `-` and `/dev/stdout`), are refused: only the
/// last would be kept.
#[cfg(unix)]
#[test]
fn the_same_file_for_two_outputs_is_refused() {
    let dir = scratch("same");
    let path = dir.join("r.out");
    link(&dir, &dir.join("again"));
    let spellings = [
        path.clone(),
        dir.join(".").join("r.out"),
        dir.join("again").join("r.out"),
    ];
    for other in &spellings {
        let e = check_all([
            (Some(path.as_path()), "the JSON report"),
            (None, "the JUnit report"),
            (Some(other.as_path()), "the HTML report"),
        ])
        .expect_err("same file");
        let text = e.to_string();
        assert!(
            text.starts_with(&format!(
                "{}: cannot write the HTML report",
                other.display()
            )),
            "{text}"
        );
        assert!(text.contains("also where the JSON report goes"), "{text}");
    }
    let e = check_all([
        (Some(Path::new("-")), "the JSON report"),
        (Some(Path::new("/dev/stdout")), "the SARIF report"),
    ])
    .expect_err("stdout twice");
    assert!(matches!(e.why, Why::SameAs(_)), "{e}");
    assert!(
        check_all([
            (Some(path.as_path()), "the JSON report"),
            (Some(dir.join("r.html").as_path()), "the HTML report"),
        ])
        .is_ok()
    );
    assert_eq!(names(&dir), ["again"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `Existing::Keep` (init without --force) never replaces a file, and
/// leaves no temporary file when it refuses.
#[test]
fn keep_never_replaces_and_leaves_nothing() {
    let dir = scratch("keep");
    let path = dir.join("profile.yaml");
    write_with(&path, "the profile", b"new", Existing::Keep).unwrap_or_else(|e| panic!("{e}"));
    let e = write_with(&path, "the profile", b"newer", Existing::Keep).expect_err("kept");
    assert!(matches!(e.why, Why::Exists), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), "new");
    assert_eq!(names(&dir), ["profile.yaml"]);
    let _ = std::fs::remove_dir_all(&dir);
}
