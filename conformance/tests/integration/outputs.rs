//! Every file the runner writes goes through the workspace's one writer
//! (issue 50), seen from the command line: the same path for two reports
//! refused before any work, a device written in place, a link at the
//! target replaced and never followed, `choices --overlay` to a link and to
//! a FIFO no process reads, `audit` of a FIFO refused at once.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_conformance");
const PROFILE: &str = include_str!("../../profiles/reference.yaml");

fn fresh(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("conformance-outputs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The command's output; killed (and the test failed) if it has not ended
/// after `guard`, so that a hang is a failure, not a stuck test run.
fn run(command: &mut Command, guard: Duration) -> Output {
    let mut child = command
        .env("NO_COLOR", "1")
        .env_remove("CI")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("conformance");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > guard {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} did not end: it hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// A profile and an empty HAR recording in `dir`.
fn profile_and_har(dir: &Path) -> (PathBuf, PathBuf) {
    let profile = dir.join("profile.yaml");
    std::fs::write(&profile, PROFILE).expect("profile");
    let har = dir.join("empty.har");
    let log =
        r#"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": []}}"#;
    std::fs::write(&har, log).expect("har");
    (profile, har)
}

/// One path for two reports (it silently kept the last, HTML) is refused
/// before any work, by `audit` and by a run, naming the path and the other
/// report; a report's folder that does not exist too. Nothing is written.
#[test]
fn one_path_for_two_reports_is_refused_before_any_work() {
    let dir = fresh("same");
    let (profile, har) = profile_and_har(&dir);
    let report = dir.join("report.out");
    let audit = run(
        Command::new(BIN)
            .arg("audit")
            .arg("--profile")
            .arg(&profile)
            .arg(&har)
            .arg("--json")
            .arg(&report)
            .arg("--html")
            .arg(&report),
        Duration::from_secs(120),
    );
    assert_eq!(audit.status.code(), Some(2), "{audit:?}");
    let stderr = String::from_utf8_lossy(&audit.stderr);
    assert!(
        stderr.contains(&format!(
            "{}: cannot write the HTML report",
            report.display()
        )) && stderr.contains("also where the JSON report goes"),
        "{stderr}"
    );
    // A run: refused before the embedded server starts or a request is sent.
    let missing = dir.join("no").join("r.sarif");
    for (flags, says) in [
        (
            vec![
                "--junit",
                report.to_str().expect("utf-8"),
                "--json",
                report.to_str().expect("utf-8"),
            ],
            "also where the JUnit report goes",
        ),
        (
            vec!["--sarif", missing.to_str().expect("utf-8")],
            "does not exist",
        ),
        (
            vec!["--write-baseline", dir.to_str().expect("utf-8")],
            "is a directory",
        ),
    ] {
        let out = run(
            Command::new(BIN).arg("--embedded").args(&flags),
            Duration::from_secs(120),
        );
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{flags:?}: {stderr}");
        assert!(out.stdout.is_empty(), "a report was printed: {out:?}");
    }
    assert_eq!(names(&dir), ["empty.har", "profile.yaml"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `audit`'s reports: to `/dev/stdout` in place (the JSON on standard
/// output), to a link to `/dev/null` in place (the link stays), to a link
/// planted at the report's name replaced (its target keeps its bytes).
#[cfg(unix)]
#[test]
fn audit_reports_go_in_place_to_devices_and_never_through_links() {
    use std::os::unix::fs::FileTypeExt;
    let dir = fresh("audit");
    let (profile, har) = profile_and_har(&dir);
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").expect("victim");
    let planted = dir.join("r.sarif");
    std::os::unix::fs::symlink(&victim, &planted).expect("link");
    let null = dir.join("null");
    std::os::unix::fs::symlink("/dev/null", &null).expect("link");
    let out = run(
        Command::new(BIN)
            .arg("audit")
            .arg("--profile")
            .arg(&profile)
            .arg(&har)
            .args(["--json", "/dev/stdout", "--sarif"])
            .arg(&planted)
            .arg("--html")
            .arg(&null),
        Duration::from_secs(120),
    );
    // No exchange: nothing proven, exit 1; the reports are written.
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\"rules\""), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&victim).expect("victim"),
        "precious"
    );
    assert!(
        std::fs::symlink_metadata(&planted)
            .expect("sarif")
            .is_file()
    );
    assert!(
        std::fs::read_to_string(&planted)
            .expect("sarif")
            .contains("\"version\": \"2.1.0\"")
    );
    assert!(
        std::fs::symlink_metadata(&null)
            .expect("null")
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::metadata("/dev/null")
            .expect("null")
            .file_type()
            .is_char_device()
    );
    assert_eq!(
        names(&dir),
        ["empty.har", "null", "profile.yaml", "r.sarif", "victim"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `audit` of a FIFO no process writes (it waited forever) is refused at
/// once, saying what the path is.
#[cfg(unix)]
#[test]
fn audit_of_a_fifo_is_refused_at_once() {
    let dir = fresh("audit-fifo");
    let (profile, _) = profile_and_har(&dir);
    let fifo = dir.join("traffic.har");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    let out = run(
        Command::new(BIN)
            .arg("audit")
            .arg("--profile")
            .arg(&profile)
            .arg(&fifo),
        Duration::from_secs(120),
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}: cannot read the recording", fifo.display()))
            && stderr.contains("FIFO"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `choices --overlay`: a link at the overlay's name is replaced, never
/// written through; a FIFO no process reads (it hung) ends the command
/// with exit 2 saying so, once the wait for a reader has passed.
#[cfg(unix)]
#[test]
fn choices_overlay_never_writes_through_a_link_nor_hangs_on_a_fifo() {
    let dir = fresh("choices");
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").expect("victim");
    let overlay = dir.join("server.overlay.yaml");
    std::os::unix::fs::symlink(&victim, &overlay).expect("link");
    let fifo = dir.join("fifo.overlay.yaml");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    let out = run(
        Command::new(BIN)
            .args(["choices", "--embedded", "--overlay"])
            .arg(&overlay),
        Duration::from_secs(300),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&victim).expect("victim"),
        "precious"
    );
    assert!(
        std::fs::symlink_metadata(&overlay)
            .expect("overlay")
            .is_file()
    );
    assert!(
        std::fs::read_to_string(&overlay)
            .expect("overlay")
            .contains("overlay: 1.0.0")
    );
    let out = run(
        Command::new(BIN)
            .args(["choices", "--embedded", "--overlay"])
            .arg(&fifo),
        Duration::from_secs(300),
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}: cannot write the overlay", fifo.display()))
            && stderr.contains("no process opened it for reading"),
        "{stderr}"
    );
    assert_eq!(
        names(&dir),
        ["fifo.overlay.yaml", "server.overlay.yaml", "victim"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
