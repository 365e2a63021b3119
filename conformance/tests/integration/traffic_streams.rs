//! `audit` over streams (issue 46): NDJSON (one HAR entry a line) and HAR
//! from standard input judged exactly as from a file; an entry past the
//! cap not judged on its body, and saying so; a line that is no exchange
//! named by its number and counted, the lines after it judged; a stream
//! still open judged as it arrives, its reports written while it runs and
//! its verdict kept when SIGTERM ends it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::traffic::{client_faults, fresh, har_entry, profile_file};

const BIN: &str = env!("CARGO_BIN_EXE_conformance");
const BASE: &str = "http://127.0.0.1:8080";

/// `conformance audit SOURCE --json -` with `stdin` on standard input.
fn audit(profile: &Path, source: &str, stdin: Option<&[u8]>, extra: &[&str]) -> Output {
    let mut child = Command::new(BIN)
        .args([
            "audit",
            "--profile",
            profile.to_str().expect("utf-8"),
            source,
        ])
        .args(["--json", "-"])
        .args(extra)
        .env("NO_COLOR", "1")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("conformance audit");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("stdin");
        // Written from a thread: the child's output is read meanwhile.
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    child.wait_with_output().expect("audit ends")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The client faults' entries, and a clean one.
fn entries() -> Vec<serde_json::Value> {
    let mut entries: Vec<serde_json::Value> =
        client_faults().iter().map(|f| har_entry(BASE, f)).collect();
    entries.push(clean());
    entries
}

fn clean() -> serde_json::Value {
    serde_json::json!({
        "request": {"method": "GET", "url": format!("{BASE}/v2/api/component/catalog/auth"),
                    "headers": [{"name": "X-Client-Id", "value": "conformance-client"},
                                {"name": "X-Client-Secret", "value": "demo-secret-7Qx9"}]},
        "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"},
                     {"name": "X-Project-Uuid", "value": "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d"}],
                     "content": {"text": "{\"claims\": []}"}}
    })
}

fn har(entries: &[serde_json::Value]) -> String {
    serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}})
        .to_string()
}

fn ndjson(entries: &[serde_json::Value]) -> String {
    entries.iter().map(|e| format!("{e}\n")).collect()
}

/// The same exchanges as a HAR file, as NDJSON in a file, and each of the
/// two on standard input: one JSON report, one exit code, one human report
/// (on standard error, the JSON being standard output).
#[test]
fn ndjson_and_har_from_stdin_are_judged_as_from_a_file() {
    let dir = fresh("streams-same");
    let profile = profile_file(&dir, BASE);
    let entries = entries();
    let har_file = dir.join("traffic.har");
    std::fs::write(&har_file, har(&entries)).expect("har");
    let ndjson_file = dir.join("traffic.ndjson");
    std::fs::write(&ndjson_file, ndjson(&entries)).expect("ndjson");
    let from_file = audit(&profile, har_file.to_str().expect("utf-8"), None, &[]);
    assert_eq!(
        from_file.status.code(),
        Some(1),
        "{}",
        text(&from_file.stderr)
    );
    let report = text(&from_file.stdout);
    let json: serde_json::Value = serde_json::from_str(&report).expect("stdout is the JSON");
    assert_eq!(json["exchanges"], entries.len());
    for f in client_faults() {
        assert!(report.contains(f.rule), "{}", f.rule);
    }
    // The human report beside it, on standard error.
    assert!(text(&from_file.stderr).contains("MUST violation"));
    let others = [
        audit(&profile, ndjson_file.to_str().expect("utf-8"), None, &[]),
        audit(&profile, "-", Some(har(&entries).as_bytes()), &[]),
        audit(&profile, "-", Some(ndjson(&entries).as_bytes()), &[]),
    ];
    for other in others {
        assert_eq!(other.status.code(), Some(1));
        assert_eq!(text(&other.stdout), report);
        assert_eq!(text(&other.stderr), text(&from_file.stderr));
    }
}

/// A 3 MiB request body and a 3 MiB refusal, in a HAR and in NDJSON: the
/// exchange is judged on its headers (a missing secret is still named),
/// not on its bodies (neither the wrong field type in the request nor the
/// refusal's envelope), and the report says so.
#[test]
fn an_entry_past_the_cap_is_not_judged_on_its_body_and_says_so() {
    let dir = fresh("streams-cap");
    let profile = profile_file(&dir, BASE);
    let pad = "x".repeat(3 << 20);
    let big = serde_json::json!({
        "request": {"method": "POST",
                    "url": format!("{BASE}/v2/api/component/catalog/auth?modelUuid=8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3"),
                    "headers": [{"name": "X-Client-Id", "value": "conformance-client"},
                                {"name": "Content-Type", "value": "application/json"}],
                    "postData": {"mimeType": "application/json",
                                 "text": format!("{{\"account\": \"acme\", \"pin\": \"1234\", \"pad\": \"{pad}\"}}")}},
        "response": {"status": 401, "headers": [{"name": "Content-Type", "value": "application/json"},
                     {"name": "X-Project-Uuid", "value": "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d"}],
                     "content": {"text": format!("{{\"pad\": \"{pad}\"}}")}}
    });
    for input in [
        har(std::slice::from_ref(&big)),
        ndjson(std::slice::from_ref(&big)),
    ] {
        let out = audit(&profile, "-", Some(input.as_bytes()), &[]);
        let json: serde_json::Value =
            serde_json::from_str(&text(&out.stdout)).expect("stdout is the JSON");
        assert_eq!(json["exchanges"], 1);
        assert_eq!(json["bodies_not_judged"], 1);
        let broken: Vec<&str> = json["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .filter(|r| r["violations"].as_u64() > Some(0))
            .filter_map(|r| r["id"].as_str())
            .collect();
        assert_eq!(broken, ["client/x-client-secret"], "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("1 exchange with a body not kept whole (over the 1 MiB cap"),
            "{}",
            text(&out.stderr)
        );
    }
}

/// A line that is no exchange is named by its number on standard error
/// and in the report, counted, and the lines after it are judged; the
/// exit code is the exchanges' verdict. A stream that begins with neither
/// HAR nor NDJSON, and a HAR cut short, exit 2 naming standard input.
#[test]
fn a_bad_line_is_named_by_its_number_and_the_rest_judged() {
    let dir = fresh("streams-bad-line");
    let profile = profile_file(&dir, BASE);
    let input = format!(
        "{}\n{{\"request\": {{\"method\": \"GET\"}}}}\n\x1b[31mnot json\n{}\n",
        clean(),
        clean()
    );
    let out = audit(&profile, "-", Some(input.as_bytes()), &[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("standard input: line 2: not an exchange") && err.contains("`url`"),
        "{err}"
    );
    assert!(
        err.contains("standard input: line 3: not an exchange"),
        "{err}"
    );
    assert!(!err.contains('\u{1b}'), "escaped: {err:?}");
    assert!(
        err.contains("2 lines of the recording not read as an exchange"),
        "{err}"
    );
    let json: serde_json::Value = serde_json::from_str(&text(&out.stdout)).expect("JSON");
    assert_eq!(json["exchanges"], 2);
    assert_eq!(json["unreadable_lines"], 2);
    assert!(
        json["unreadable"][0]
            .as_str()
            .is_some_and(|l| l.starts_with("line 2: ")),
        "{json}"
    );
    for broken in [
        "GET / HTTP/1.1\n".to_owned(),
        har(&entries())[..200].to_owned(),
    ] {
        let out = audit(&profile, "-", Some(broken.as_bytes()), &[]);
        assert_eq!(out.status.code(), Some(2), "{broken}");
        assert!(
            text(&out.stderr).contains("standard input"),
            "{}",
            text(&out.stderr)
        );
    }
}

fn json_report(path: &PathBuf) -> Option<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// A stream still open (a log being appended to): its exchanges are judged
/// as they arrive and the report file rewritten while it runs; SIGTERM
/// ends it as Ctrl-C, with the final report and the gate's code.
#[cfg(unix)]
#[test]
fn a_stream_is_judged_as_it_arrives_and_sigterm_keeps_the_verdict() {
    let dir = fresh("streams-open");
    let profile = profile_file(&dir, BASE);
    let report = dir.join("r.json");
    let mut child = Command::new(BIN)
        .args(["audit", "--profile", profile.to_str().expect("utf-8"), "-"])
        .args([
            "--json",
            report.to_str().expect("utf-8"),
            "--every",
            "200ms",
        ])
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("conformance audit -");
    let mut stdin = child.stdin.take().expect("stdin");
    let faults = client_faults();
    let lines = format!("{}\n{}\n", clean(), har_entry(BASE, &faults[0]));
    stdin.write_all(lines.as_bytes()).expect("written");
    stdin.flush().expect("flushed");
    // Standard input stays open: the report shows both exchanges only if
    // they were judged as they came. Waited for, not timed.
    let mut seen = None;
    for _ in 0..1200 {
        seen = json_report(&report).filter(|r| r["exchanges"] == 2);
        if seen.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let seen = seen.expect("the report written while the stream is open");
    assert_eq!(seen["must_violations"], 1);
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let out = child.wait_with_output().expect("audit ends");
    drop(stdin);
    assert_eq!(out.status.code(), Some(1), "the gate's code kept");
    assert!(text(&out.stdout).contains(faults[0].rule));
    assert_eq!(
        json_report(&report).map(|r| r["exchanges"].clone()),
        Some(2.into())
    );
}

/// `proxy --json -`: standard output is the JSON report alone, written once
/// at the end; the listening line and the human report go to standard
/// error, as a run's do.
#[test]
fn a_report_to_stdout_leaves_stdout_to_the_report() {
    use std::io::{BufRead, BufReader, Read};
    let dir = fresh("streams-proxy-stdout");
    // Nothing listens there: the exchange is answered 502 and judged on
    // the client's side.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", closed.local_addr().expect("addr"));
    drop(closed);
    let profile = profile_file(&dir, &base);
    let mut child = Command::new(BIN)
        .args(["proxy", "--profile", profile.to_str().expect("utf-8")])
        .args(["--exchanges", "1", "--every", "100ms", "--json", "-"])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("conformance proxy");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("a line");
    let addr = line
        .strip_prefix("listening on http://")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("{line}"))
        .to_owned();
    let mut stream = std::net::TcpStream::connect(&addr).expect("connect");
    stream
        .write_all(b"GET /v2/api/component/catalog/auth HTTP/1.1\r\nHost: x\r\nX-Client-Id: c\r\nConnection: close\r\n\r\n")
        .expect("sent");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let out = child.wait_with_output().expect("proxy ends");
    let mut rest = String::new();
    let _ = stderr.read_to_string(&mut rest);
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("standard output is the JSON report alone");
    assert_eq!(json["exchanges"], 1, "{}", text(&out.stdout));
    assert!(rest.contains("client/x-client-secret"), "{rest}");
}
