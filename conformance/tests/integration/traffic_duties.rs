//! The proxy as an intermediary, and `audit` over what real recorders
//! write (issue 46): what the server receives, byte for byte, through each
//! forwarding path; no secret the client sent in any report, whatever the
//! server echoes; SIGTERM ends as Ctrl-C; bad limits refused before the
//! listening line; a slow client's head timed out; a recording's control
//! characters escaped; a browser's recording (the page, `/favicon.ico`,
//! bodies left out) judged without false alarms.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;

const BIN: &str = env!("CARGO_BIN_EXE_conformance");
const PROFILE: &str = include_str!("../../profiles/reference.yaml");
const SECRET: &str = "demo-secret-7Qx9";
const CATALOG_MODEL: &str = "8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3";

fn fresh(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("conformance-duties-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

/// The shipped profile pointed at `base`, written to `dir`.
fn profile_file(dir: &Path, base: &str) -> PathBuf {
    let path = dir.join("profile.yaml");
    let text = PROFILE.replace(
        "base_url: http://127.0.0.1:8080",
        &format!("base_url: {base}"),
    );
    std::fs::write(&path, text).expect("profile");
    path
}

/// A server on 127.0.0.1 that keeps the bytes of each request it is sent
/// (its head, and a body of its Content-Length) and answers each with
/// `answer`, closing the connection.
fn recording_server(answer: &'static str) -> (String, mpsc::Receiver<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut head = Vec::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                if let Some((name, value)) = line.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
                head.extend_from_slice(line.as_bytes());
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            head.extend_from_slice(&body);
            let _ = stream.write_all(answer.as_bytes());
            let _ = tx.send(head);
        }
    });
    (base, rx)
}

/// A proxy binary in front of `base`, with `args`; its base URL once it
/// has said where it listens.
struct Proxy {
    child: std::process::Child,
    base: String,
}

impl Proxy {
    fn start(dir: &Path, base: &str, args: &[&str]) -> Proxy {
        let profile = profile_file(dir, base);
        let mut child = Command::new(BIN)
            .arg("proxy")
            .arg("--profile")
            .arg(&profile)
            .args(args)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("conformance proxy");
        let mut first = String::new();
        BufReader::new(child.stdout.as_mut().expect("stdout"))
            .read_line(&mut first)
            .expect("the listening line");
        let base = first
            .split_whitespace()
            .nth(2)
            .expect("listening on URL")
            .to_owned();
        Proxy { child, base }
    }

    fn addr(&self) -> String {
        self.base.trim_start_matches("http://").to_owned()
    }

    /// Sends SIGTERM and waits for the exit, with what it printed.
    fn terminate(mut self) -> (Option<i32>, String) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let mut rest = String::new();
        if let Some(out) = self.child.stdout.as_mut() {
            let _ = out.read_to_string(&mut rest);
        }
        let status = self.child.wait().expect("the proxy's exit");
        (status.code(), rest)
    }
}

/// `raw` written to `addr`, and what came back until the connection closed.
fn exchange(addr: &str, raw: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.write_all(raw).expect("send");
    let mut back = Vec::new();
    let _ = stream.read_to_end(&mut back);
    String::from_utf8_lossy(&back).into_owned()
}

const ANSWER: &str = "HTTP/1.1 200 OK\r\nX-Project-Uuid: 7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d\r\ncontent-TYPE: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";

/// What the server receives through the proxy, byte for byte: the
/// client's header names in its letter case and its order, the server's
/// own Host where the client's stood, no hop-by-hop header; and the
/// server's names come back as it spelt them. Through the bindings' client
/// (a base URL with credentials) names go in title case.
#[test]
fn the_server_receives_the_clients_header_names_as_spelt_and_in_order() {
    let request = format!(
        "POST /v2/api/component/catalog/auth?modelUuid={CATALOG_MODEL} HTTP/1.1\r\n\
         x-CLIENT-id: conformance-client\r\n\
         Host: proxy.example\r\n\
         X-Client-Secret: {SECRET}\r\n\
         Connection: close, X-Trace\r\n\
         X-Trace: abc\r\n\
         content-type: application/json\r\n\
         X-Project-Env: dev\r\n\
         Content-Length: 29\r\n\r\n\
         {{\"account\":\"acme\",\"pin\":1234}}"
    );
    let (upstream, received) = recording_server(ANSWER);
    let authority = upstream.trim_start_matches("http://").to_owned();
    let dir = fresh("bytes");
    let proxy = Proxy::start(&dir, &upstream, &[]);
    let back = exchange(&proxy.addr(), request.as_bytes());
    let got = String::from_utf8(received.recv().expect("a request")).expect("text");
    assert_eq!(
        got,
        format!(
            "POST /v2/api/component/catalog/auth?modelUuid={CATALOG_MODEL} HTTP/1.1\r\n\
             x-CLIENT-id: conformance-client\r\n\
             Host: {authority}\r\n\
             X-Client-Secret: {SECRET}\r\n\
             content-type: application/json\r\n\
             X-Project-Env: dev\r\n\
             Content-Length: 29\r\n\r\n\
             {{\"account\":\"acme\",\"pin\":1234}}"
        )
    );
    assert!(back.starts_with("HTTP/1.1 200 OK\r\n"), "{back}");
    assert!(
        back.contains("\r\nX-Project-Uuid: ")
            && back.contains("\r\ncontent-TYPE: application/json"),
        "the server's spelling comes back: {back}"
    );
    let _ = proxy.terminate();

    // The bindings' client: title case, the client's order kept.
    let with_credentials = upstream.replace("http://", "http://user:pass@");
    let proxy = Proxy::start(&dir, &with_credentials, &[]);
    exchange(&proxy.addr(), request.as_bytes());
    let got = String::from_utf8(received.recv().expect("a request")).expect("text");
    let names: Vec<&str> = got
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':').map(|(n, _)| n))
        .filter(|n| n.to_ascii_lowercase().starts_with("x-") || *n == "Content-Type")
        .collect();
    assert_eq!(
        names,
        [
            "X-Client-Id",
            "X-Client-Secret",
            "Content-Type",
            "X-Project-Env"
        ],
        "{got}"
    );
    assert!(!got.to_ascii_lowercase().contains("x-trace"), "{got}");
    let _ = proxy.terminate();
}

/// SIGTERM (how containers and CI stop a process) ends the proxy as
/// Ctrl-C does: the final report printed and written, the gate's exit code
/// kept (1: a client broke a MUST rule).
#[test]
fn sigterm_writes_the_final_report_and_keeps_the_gate() {
    let (upstream, _received) = recording_server(ANSWER);
    let dir = fresh("sigterm");
    let json = dir.join("report.json");
    let proxy = Proxy::start(
        &dir,
        &upstream,
        &[
            "--gate",
            "--every",
            "1h",
            "--json",
            json.to_str().expect("utf-8"),
        ],
    );
    // No X-Client-Secret: a client's MUST violation.
    exchange(
        &proxy.addr(),
        b"GET /v2/api/component/catalog/auth HTTP/1.1\r\nHost: x\r\nX-Client-Id: c\r\nConnection: close\r\n\r\n",
    );
    let (code, printed) = proxy.terminate();
    assert_eq!(code, Some(1), "{printed}");
    assert!(printed.contains("client/x-client-secret"), "{printed}");
    let report = std::fs::read_to_string(&json).expect("the final report");
    assert!(report.contains("\"client/x-client-secret\""), "{report}");
}

/// Limits that cannot hold, and a report that could not be written, are
/// refused with exit 2 before the listening line.
#[test]
fn bad_limits_and_report_paths_are_refused_before_listening() {
    let dir = fresh("limits");
    let profile = profile_file(&dir, "http://127.0.0.1:9");
    let missing = dir.join("missing").join("r.json");
    for args in [
        vec!["--exchanges", "0"],
        vec!["--threads", "65535"],
        vec!["--threads", "0"],
        vec!["--json", missing.to_str().expect("utf-8")],
    ] {
        let out = Command::new(BIN)
            .arg("proxy")
            .arg("--profile")
            .arg(&profile)
            .args(&args)
            .output()
            .expect("conformance proxy");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stdout}");
        assert!(!stdout.contains("listening on"), "{args:?}: {stdout}");
    }
}

/// A client that sends its request's head a byte at a time and never ends
/// it is cut off after `--header-timeout`: the connection closes (the test
/// waits as long as it takes; it only asserts that it ends).
#[test]
fn a_client_that_never_finishes_its_head_is_cut_off() {
    let (upstream, _received) = recording_server(ANSWER);
    let dir = fresh("slow");
    let proxy = Proxy::start(&dir, &upstream, &["--header-timeout", "1s"]);
    let mut stream = TcpStream::connect(proxy.addr()).expect("connect");
    stream
        .write_all(b"GET /v2/api/component/catalog/auth HTTP/1.1\r\nX-Cl")
        .expect("send");
    // Ends by the proxy's hand (EOF or reset), not by this test's.
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    let text = String::from_utf8_lossy(&rest);
    assert!(!text.contains("200 OK"), "{text}");
    let _ = proxy.terminate();
}

/// `audit` over a HAR, with its reports in every format.
fn audit(
    dir: &Path,
    har: &serde_json::Value,
    extra: &[&str],
) -> (Option<i32>, String, Vec<String>) {
    let profile = profile_file(dir, "http://127.0.0.1:8080");
    let path = dir.join("traffic.har");
    std::fs::write(&path, har.to_string()).expect("har");
    let files: Vec<PathBuf> = ["r.json", "r.xml", "r.sarif", "r.html"]
        .iter()
        .map(|f| dir.join(f))
        .collect();
    let out = Command::new(BIN)
        .arg("audit")
        .arg("--profile")
        .arg(&profile)
        .arg(&path)
        .args(["--json", files[0].to_str().expect("utf-8")])
        .args(["--junit", files[1].to_str().expect("utf-8")])
        .args(["--sarif", files[2].to_str().expect("utf-8")])
        .args(["--html", files[3].to_str().expect("utf-8")])
        .args(extra)
        .env("NO_COLOR", "1")
        .output()
        .expect("conformance audit");
    let reports = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap_or_default())
        .collect();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        reports,
    )
}

fn header(name: &str, value: &str) -> serde_json::Value {
    serde_json::json!({"name": name, "value": value})
}

/// A server that echoes the client's secret (in X-Project-Uuid, in its
/// Content-Type, percent-encoded, in another letter case): the secret
/// shows in no report, in no format, in no spelling.
#[test]
fn a_secret_the_server_echoes_is_in_no_report() {
    let dir = fresh("echo");
    let entries: Vec<serde_json::Value> = [SECRET.to_owned(), SECRET.to_uppercase(), SECRET.replace('-', "%2D")]
        .iter()
        .map(|echoed| {
            serde_json::json!({
                "request": {"method": "GET", "url": "http://h/v2/api/component/catalog/auth",
                            "headers": [header("X-Client-Id", "conformance-client"), header("X-Client-Secret", SECRET)]},
                "response": {"status": 401, "headers": [header("X-Project-Uuid", echoed), header("Content-Type", &format!("text/{echoed}"))],
                             "content": {"text": format!("{{\"secret\":\"{echoed}\"}}")}}
            })
        })
        .collect();
    let har = serde_json::json!({"log": {"entries": entries}});
    let (code, printed, reports) = audit(&dir, &har, &[]);
    assert_eq!(code, Some(1), "{printed}");
    assert!(
        printed.contains("server/x-project-uuid-is-a-uuid"),
        "{printed}"
    );
    for text in reports.iter().chain([&printed]) {
        assert!(!text.is_empty());
        let lower = text.to_lowercase();
        assert!(
            !lower.contains("demo-secret") && !lower.contains("demo%2dsecret"),
            "{text}"
        );
    }
}

/// `audit` of a committed recording (`tests/recordings`), its stdout.
fn audit_recording(dir: &Path, name: &str) -> (Option<i32>, String) {
    let profile = profile_file(dir, "http://127.0.0.1:8080");
    let har = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/recordings")
        .join(name);
    let out = Command::new(BIN)
        .arg("audit")
        .arg("--profile")
        .arg(&profile)
        .arg(&har)
        .env("NO_COLOR", "1")
        .output()
        .expect("conformance audit");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A browser's recording: Chromium driven through the DevTools protocol,
/// recorded by chrome-har (`tests/recordings/record.sh`; the page is
/// `page.html`, its calls answered by the reference server). Its shapes:
/// the page and `/favicon.ico` beside the calls, a JSON body as `params`
/// without `text`, each header listed twice, answers without bodies. The
/// correct page exits 0; the page with a mistake (a JSON body sent with
/// no Content-Type, so as text/plain) exits 1 naming it. Then the same
/// shapes written by hand: `--judge-other-paths` judges the page as
/// `client/path`, a missing secret is named, and header names with ESC,
/// NUL and a bidi override are printed escaped.
#[test]
fn a_browsers_recording_of_a_correct_page_exits_0() {
    let dir = fresh("browser");
    let (code, printed) = audit_recording(&dir, "chromium-correct.har");
    assert_eq!(code, Some(0), "{printed}");
    assert!(
        printed.contains("3 exchanges judged by") && printed.contains("0 MUST violations"),
        "{printed}"
    );
    assert!(
        printed.contains("2 exchanges outside the interface's paths"),
        "{printed}"
    );
    let (code, printed) = audit_recording(&dir, "chromium-mistake.har");
    assert_eq!(code, Some(1), "{printed}");
    assert!(printed.contains("client/json-media-type"), "{printed}");
    assert!(printed.contains("1 MUST violation\n"), "{printed}");
    let call = |method: &str,
                target: &str,
                headers: Vec<serde_json::Value>,
                post: Option<serde_json::Value>| {
        let mut request = serde_json::json!({"method": method, "url": format!("http://127.0.0.1:8080{target}"), "headers": headers});
        if let Some(post) = post {
            request["postData"] = post;
        }
        serde_json::json!({
            "request": request,
            "response": {"status": 200, "headers": [header("content-type", "application/json"),
                         header("x-project-uuid", "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d")],
                         "content": {"size": 58, "mimeType": "application/json"}}
        })
    };
    let creds = || {
        vec![
            header(":authority", "127.0.0.1:8080"),
            header("x-client-id", "conformance-client"),
            header("x-client-secret", SECRET),
            header("content-type", "application/json"),
        ]
    };
    let page = serde_json::json!({
        "request": {"method": "GET", "url": "http://127.0.0.1:8080/", "headers": [header("accept", "text/html")]},
        "response": {"status": 200, "headers": [header("content-type", "text/html")], "content": {"size": 512}}
    });
    let favicon = serde_json::json!({
        "request": {"method": "GET", "url": "http://127.0.0.1:8080/favicon.ico", "headers": []},
        "response": {"status": 404, "headers": [header("content-type", "text/plain")], "content": {"size": 9}}
    });
    let json_params = serde_json::json!({"mimeType": "application/json",
        "params": [{"name": "{\"account\":\"acme\",\"pin\":1234}", "value": ""}]});
    let good = vec![
        page.clone(),
        favicon.clone(),
        call("GET", "/v2/api/component/catalog/auth", creds(), None),
        call(
            "POST",
            &format!("/v2/api/component/catalog/auth?modelUuid={CATALOG_MODEL}"),
            creds(),
            Some(json_params.clone()),
        ),
    ];
    let (code, printed, _) = audit(&dir, &serde_json::json!({"log": {"entries": good}}), &[]);
    assert_eq!(code, Some(0), "{printed}");
    assert!(
        printed.contains("2 exchanges outside the interface's paths"),
        "{printed}"
    );
    let (code, printed, _) = audit(
        &dir,
        &serde_json::json!({"log": {"entries": [page.clone(), favicon.clone(), call("GET", "/v2/api/component/catalog/auth", creds(), None)]}}),
        &["--judge-other-paths"],
    );
    assert_eq!(code, Some(1), "{printed}");
    assert!(printed.contains("client/path"), "{printed}");
    // A mistake in the same recording: no X-Client-Secret, and a header
    // name a terminal would obey.
    let mut bad = creds();
    bad.retain(|h| h["name"] != "x-client-secret");
    bad.push(header("x-\u{1b}[31mred\u{0}\u{202e}", "1"));
    let (code, printed, _) = audit(
        &dir,
        &serde_json::json!({"log": {"entries": [page, favicon, call("GET", "/v2/api/component/catalog/auth", bad, None)]}}),
        &[],
    );
    assert_eq!(code, Some(1), "{printed}");
    assert!(printed.contains("client/x-client-secret"), "{printed}");
    assert!(
        !printed.contains('\u{1b}') && !printed.contains('\u{0}') && !printed.contains('\u{202e}'),
        "{printed:?}"
    );
    assert!(
        printed.contains("\\u{1b}[31mred\\u{0}\\u{202e}"),
        "{printed}"
    );
}
