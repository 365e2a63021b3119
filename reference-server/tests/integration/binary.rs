//! The binary as a user runs it: the listening line, signals, exit codes,
//! and logs that never show a secret.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_reference-server");

fn spawn(args: &[&str]) -> (Child, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
    let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    let mut first = String::new();
    BufReader::new(stdout)
        .read_line(&mut first)
        .unwrap_or_else(|e| panic!("reading stdout: {e}"));
    (child, first)
}

/// One HTTP/1.1 request on its own connection; the whole answer as text.
fn request(port: &str, head: &str, body: &str) -> String {
    let mut stream =
        TcpStream::connect(format!("127.0.0.1:{port}")).unwrap_or_else(|e| panic!("{e}"));
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap_or_else(|e| panic!("{e}"));
    let raw = format!(
        "{head}Host: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(raw.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut out = String::new();
    stream
        .read_to_string(&mut out)
        .unwrap_or_else(|e| panic!("{e}"));
    out
}

fn terminate(child: &mut Child, signal: &str) -> std::process::ExitStatus {
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap_or_else(|e| panic!("kill: {e}"));
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(status) = child.try_wait().unwrap_or_else(|e| panic!("{e}")) {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server did not stop on {signal}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn port_of(first_line: &str) -> String {
    let rest = first_line
        .strip_prefix("listening on http://127.0.0.1:")
        .unwrap_or_else(|| panic!("first line was {first_line:?}"));
    assert!(rest.ends_with('\n'));
    rest.trim_end().to_owned()
}

#[test]
fn prints_the_listening_line_serves_and_stops_on_sigterm_without_leaking_secrets() {
    let (mut child, first) = spawn(&["--port", "0"]);
    let port = port_of(&first);
    assert_ne!(port, "0");

    let ok = request(
        &port,
        "GET /v2/api/component/users/auth HTTP/1.1\r\nX-Client-Id: conformance-client\r\n\
         X-Client-Secret: demo-secret-7Qx9\r\nX-Auth-Token: users-token-ada-0001\r\n",
        "",
    );
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    let failing = [
        (
            "GET /v2/api/component/users/auth HTTP/1.1\r\nX-Client-Id: conformance-client\r\n\
          X-Client-Secret: wrong-secret-Zz1\r\n",
            "",
        ),
        (
            "GET /v2/api/component/users/auth HTTP/1.1\r\nX-Client-Id: conformance-client\r\n\
          X-Client-Secret: demo-secret-7Qx9\r\nX-Auth-Token: stolen-token-Yy2\r\n",
            "",
        ),
        (
            "POST /v2/api/component/users/auth?modelUuid=5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01 HTTP/1.1\r\n\
          X-Client-Id: conformance-client\r\nX-Client-Secret: demo-secret-7Qx9\r\nX-Auth-Token: users-token-ada-0001\r\n",
            r#"{"email":"ada@example.com","password":"guessed-pass-Xx3"}"#,
        ),
    ];
    for (head, body) in failing {
        let answer = request(&port, head, body);
        assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
        for secret in [
            "demo-secret-7Qx9",
            "wrong-secret-Zz1",
            "stolen-token-Yy2",
            "guessed-pass-Xx3",
            "correct-horse",
        ] {
            assert!(!answer.contains(secret), "{secret} echoed in {answer}");
        }
    }

    let status = terminate(&mut child, "-TERM");
    assert!(status.success(), "exit status {status}");
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut stdout);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    assert!(
        stderr.contains("status=401"),
        "the access log is missing: {stderr}"
    );
    let output = format!("{first}{stdout}{stderr}");
    for secret in [
        "demo-secret-7Qx9",
        "users-token-ada-0001",
        "correct-horse",
        "wrong-secret-Zz1",
        "stolen-token-Yy2",
        "guessed-pass-Xx3",
    ] {
        assert!(
            !output.contains(secret),
            "{secret} in the output:\n{output}"
        );
    }
}

#[test]
fn stops_cleanly_on_sigint_and_reports_its_fault() {
    let (mut child, first) = spawn(&["--port", "0", "--fault", "live-rejected", "--quiet"]);
    port_of(&first);
    let status = terminate(&mut child, "-INT");
    assert!(status.success(), "exit status {status}");
    let mut stderr = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    assert!(stderr.contains("live-rejected"), "{stderr}");
}

#[test]
fn a_broken_fixture_exits_2_naming_file_line_and_key() {
    let dir = std::env::temp_dir().join(format!("reference-server-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("broken.yaml");
    let text =
        include_str!("../../fixtures/default.yaml").replacen("tag: catalog", "tag: users", 1);
    std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{e}"));
    let output = Command::new(BIN)
        .args(["--port", "0", "--fixture"])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("tag: users"))
        .nth(1)
        .map(|(i, _)| i + 1);
    let want = format!(
        "{}:{}: components[1].tag: ",
        path.display(),
        line.unwrap_or(0)
    );
    assert!(stderr.contains(&want), "wanted {want:?} in {stderr:?}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!stderr.contains("panicked"));
}

#[test]
fn list_faults_and_bad_flags() {
    let output = Command::new(BIN)
        .arg("--list-faults")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    for fault in reference_server::Fault::ALL {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{} ", fault.name())));
        let line = line.unwrap_or_else(|| panic!("{fault} not listed"));
        assert!(
            line.contains(&format!("§{}", fault.section())) && line.contains(&fault.rule()),
            "{line}"
        );
    }
    let output = Command::new(BIN)
        .arg("--list-variants")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    let variants = reference_server::Variant::ALL;
    assert_eq!(text.lines().count(), variants.len(), "{text}");
    for (variant, line) in variants.iter().zip(text.lines()) {
        assert!(line.starts_with(&format!("{} ", variant.name())), "{line}");
        for part in [variant.changes(), variant.departs_from()] {
            assert!(line.contains(part), "{line}");
        }
        assert!(line.contains(&format!("§{}", variant.section())), "{line}");
    }
    // An unknown name lists the valid ones; two that conflict exit 2.
    let output = Command::new(BIN)
        .args(["--variant", "no-such-variant"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no-such-variant") && stderr.contains("valid: missing-credential-401"));
    let output = Command::new(BIN)
        .args([
            "--variant",
            "model-uuid-header",
            "--variant",
            "model-uuid-body",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("conflict"), "{stderr}");
    // Variants are served, and said on stderr.
    let (mut child, first) = spawn(&[
        "--port",
        "0",
        "--variant",
        "env-default-live",
        "--variant",
        "opaque-request-id",
    ]);
    let port = port_of(&first);
    let ok = request(
        &port,
        "GET /v2/api/component/catalog/auth HTTP/1.1\r\nX-Client-Id: conformance-client\r\n\
         X-Client-Secret: demo-secret-7Qx9\r\n",
        "",
    );
    assert!(
        ok.contains("\"env\":\"live\"") && ok.contains("x-request-id: req-"),
        "{ok}"
    );
    assert!(terminate(&mut child, "-TERM").success());
    let output = Command::new(BIN)
        .args(["--fault", "no-such-fault"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no-such-fault"));
    // Huge caps are taken (clamped), not a panic.
    let (mut child, first) = spawn(&[
        "--port",
        "0",
        "--max-connections",
        "18446744073709551615",
        "--max-inflight-body-bytes",
        "18446744073709551615",
    ]);
    let port = port_of(&first);
    let ok = request(
        &port,
        "GET /v2/api/component/catalog/auth HTTP/1.1\r\nX-Client-Id: conformance-client\r\n\
         X-Client-Secret: demo-secret-7Qx9\r\n",
        "",
    );
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    assert!(terminate(&mut child, "-TERM").success());
    for (flag, value) in [
        ("--max-connections", "0"),
        ("--max-inflight-body-bytes", "0"),
        ("--max-connections", "many"),
        ("--latency", "soon"),
    ] {
        let output = Command::new(BIN)
            .args(["--port", "0", flag, value])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(stderr.contains(flag), "{flag} {value}: {stderr}");
    }
}

/// As a client team's mock, the binary writes what its clients broke: a
/// request without X-Client-Secret and one with `X-Project-Env: prod` are
/// each named by their rule, a correct request by none, and no secret the
/// clients sent is in the file.
#[test]
fn client_report_names_each_rule_the_clients_broke_and_no_secret() {
    let dir = std::env::temp_dir().join(format!("reference-server-clients-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("clients.json");
    let (mut child, first) = spawn(&[
        "--port",
        "0",
        "--quiet",
        "--client-report",
        path.to_str().unwrap_or_else(|| panic!("a UTF-8 path")),
    ]);
    let port = port_of(&first);
    // Written before any request.
    let at_start: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}")))
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(at_start["exchanges"], 0);
    for head in [
        "GET /v2/api/component/orders/auth HTTP/1.1\r\nX-Client-Id: conformance-client\r\n\
         X-Client-Secret: demo-secret-7Qx9\r\n",
        "GET /v2/api/component/orders/auth HTTP/1.1\r\nX-Client-Id: conformance-client\r\n",
        "GET /v2/api/component/orders/auth HTTP/1.1\r\nX-Client-Id: conformance-client\r\n\
         X-Client-Secret: demo-secret-7Qx9\r\nX-Project-Env: prod\r\n",
    ] {
        request(&port, head, "");
    }
    let status = terminate(&mut child, "-TERM");
    assert!(status.success(), "{status:?}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let report: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(report["exchanges"], 3, "{text}");
    let broken: Vec<&str> = report["rules"]
        .as_array()
        .unwrap_or_else(|| panic!("{text}"))
        .iter()
        .filter(|r| r["violations"].as_u64() > Some(0))
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(
        broken,
        ["client/x-client-secret", "client/x-project-env"],
        "{text}"
    );
    assert_eq!(report["must_violations"], 2, "{text}");
    for secret in ["demo-secret-7Qx9", "DEMO-SECRET-7QX9", "demo%2Dsecret"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report path that cannot be written is said at start, exit 2, before
/// a client's tests run against a mock that would lose what they broke.
#[test]
fn an_unwritable_client_report_exits_2_at_start() {
    let output = Command::new(BIN)
        .args([
            "--port",
            "0",
            "--client-report",
            "/nonexistent-dir/clients.json",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("/nonexistent-dir/clients.json: cannot write the client report"),
        "{stderr}"
    );
}

/// A fresh folder of this process under the system's temporary folder.
fn scratch_folder(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("reference-server-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

fn names_in(dir: &std::path::Path) -> Vec<String> {
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

/// The client report through the workspace's one writer (issue 50): a link
/// planted at its old temporary name (`FILE.partial`) is never written
/// through, and the report is a regular file beside it.
#[cfg(unix)]
#[test]
fn a_link_planted_at_the_reports_old_temporary_name_is_not_followed() {
    let dir = scratch_folder("planted");
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(&victim, dir.join("clients.json.partial"))
        .unwrap_or_else(|e| panic!("{e}"));
    let report = dir.join("clients.json");
    let (mut child, first) = spawn(&[
        "--port",
        "0",
        "--client-report",
        report.to_str().unwrap_or_default(),
    ]);
    let _ = port_of(&first);
    let status = terminate(&mut child, "-TERM");
    assert!(status.success(), "{status:?}");
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap_or_default(),
        "precious"
    );
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("{e}"));
    assert!(text.contains("\"exchanges\": 0"), "{text}");
    assert_eq!(
        names_in(&dir),
        ["clients.json", "clients.json.partial", "victim"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--client-report /dev/null` (here a link to it) is written in place:
/// the link stays a link, `/dev/null` a device, and the listening line is
/// still the first line.
#[cfg(unix)]
#[test]
fn a_client_report_to_a_device_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch_folder("device");
    let null = dir.join("null");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap_or_else(|e| panic!("{e}"));
    let (mut child, first) = spawn(&[
        "--port",
        "0",
        "--client-report",
        null.to_str().unwrap_or_default(),
    ]);
    let _ = port_of(&first);
    let status = terminate(&mut child, "-TERM");
    assert!(status.success(), "{status:?}");
    let meta = std::fs::symlink_metadata(&null).unwrap_or_else(|e| panic!("{e}"));
    assert!(meta.file_type().is_symlink());
    let device = std::fs::metadata("/dev/null").unwrap_or_else(|e| panic!("{e}"));
    assert!(device.file_type().is_char_device());
    assert_eq!(names_in(&dir), ["null"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A write that fails for want of space (here the file-size limit of the
/// process, `ulimit -f 0`, which fails every write as a full disk does)
/// exits 2 naming the report, and leaves no temporary file behind.
#[cfg(unix)]
#[test]
fn a_full_disk_leaves_no_temporary_file() {
    let dir = scratch_folder("full");
    let report = dir.join("clients.json");
    let output = Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f 0; exec \"$@\"", "sh", BIN])
        .args([
            "--port",
            "0",
            "--client-report",
            report.to_str().unwrap_or_default(),
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "{}: cannot write the client report",
            report.display()
        )),
        "{stderr}"
    );
    assert!(names_in(&dir).is_empty(), "{:?}", names_in(&dir));
    let _ = std::fs::remove_dir_all(&dir);
}
