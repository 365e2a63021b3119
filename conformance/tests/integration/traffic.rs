//! Traffic judged on both sides (issue 36): the validating proxy, `audit`
//! over a HAR file and the reference server as a mock judge clients by one
//! code path (`traffic-rules`). Each client fault is caught by all three;
//! our bindings' requests are judged clean; server faults show passively,
//! through the proxy, while the suite runs through it.

use std::path::PathBuf;

use conformance::traffic::{ProxyOptions, audit, start_proxy};
use conformance_model::profile::Profile;
use conformance_suite::runner::RunOptions;
use reference_server::{Fault, Server, ServerOptions};
use traffic_rules::{Side, Tally};

const PROFILE: &str = include_str!("../../profiles/reference.yaml");
const SECRET: &str = "demo-secret-7Qx9";
const CATALOG_MODEL: &str = "8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3";

fn profile(base_url: &str) -> Profile {
    let mut p = Profile::from_yaml_str(PROFILE, "reference.yaml", &|_| None).expect("profile");
    p.base_url = base_url.to_owned();
    p
}

/// A client fault: the request it sends, and the one rule it breaks.
pub(crate) struct ClientFault {
    pub(crate) rule: &'static str,
    method: &'static str,
    target: String,
    headers: Vec<(&'static str, &'static str)>,
    body: &'static str,
}

pub(crate) fn client_faults() -> Vec<ClientFault> {
    let good = || {
        vec![
            ("X-Client-Id", "conformance-client"),
            ("X-Client-Secret", SECRET),
            ("Content-Type", "application/json"),
        ]
    };
    let authorize = format!("/v2/api/component/catalog/auth?modelUuid={CATALOG_MODEL}");
    vec![
        ClientFault {
            rule: "client/x-client-secret",
            method: "GET",
            target: "/v2/api/component/catalog/auth".into(),
            headers: vec![("X-Client-Id", "conformance-client")],
            body: "",
        },
        ClientFault {
            rule: "client/x-project-env",
            method: "GET",
            target: "/v2/api/component/catalog/auth".into(),
            headers: [good(), vec![("X-Project-Env", "prod")]].concat(),
            body: "",
        },
        ClientFault {
            rule: "client/fields",
            method: "POST",
            target: authorize.clone(),
            headers: good(),
            body: r#"{"account": "acme", "pin": "1234"}"#,
        },
        ClientFault {
            rule: "client/json-body",
            method: "POST",
            target: authorize.clone(),
            headers: good(),
            body: r#"{"account": "acme", "pin": 1234}{"account": "acme", "pin": 1234}"#,
        },
        ClientFault {
            rule: "client/model-uuid",
            method: "POST",
            target: "/v2/api/component/catalog/auth".into(),
            headers: good(),
            body: r#"{"account": "acme", "pin": 1234}"#,
        },
        ClientFault {
            rule: "client/x-auth-token",
            method: "GET",
            target: "/v2/api/component/users/auth".into(),
            headers: good(),
            body: "",
        },
        // The mistakes a first round of real clients showed (issue 46).
        ClientFault {
            rule: "client/json-media-type",
            method: "POST",
            target: authorize.clone(),
            headers: vec![
                ("X-Client-Id", "conformance-client"),
                ("X-Client-Secret", SECRET),
                ("Content-Type", "text/plain"),
            ],
            body: r#"{"account": "acme", "pin": 1234}"#,
        },
        ClientFault {
            rule: "client/ref-encoded-once",
            method: "GET",
            target: "/v2/api/component/%2563atalog/auth".into(),
            headers: good(),
            body: "",
        },
        // Two field lines: judged as the one line `dev, live` (RFC 9110 §5.3).
        ClientFault {
            rule: "client/x-project-env",
            method: "GET",
            target: "/v2/api/component/catalog/auth".into(),
            headers: [
                good(),
                vec![("X-Project-Env", "dev"), ("X-Project-Env", "live")],
            ]
            .concat(),
            body: "",
        },
        ClientFault {
            rule: "client/no-credential-in-url",
            method: "GET",
            target: format!("/v2/api/component/catalog/auth?client_secret={SECRET}"),
            headers: good(),
            body: "",
        },
    ]
}

async fn send(base: &str, f: &ClientFault) {
    let client = http_client();
    let mut req = client.request(
        f.method.parse().expect("a method"),
        format!("{base}{}", f.target),
    );
    for (n, v) in &f.headers {
        req = req.header(*n, *v);
    }
    req.body(f.body).send().await.expect("an answer");
}

/// The broken rules of one side, by id.
fn broken(tally: &Tally, side: Side) -> Vec<&'static str> {
    tally
        .report(Some(side))
        .rules
        .into_iter()
        .filter(|r| r.violations > 0)
        .map(|r| r.id)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_client_fault_is_caught_by_the_proxy_the_mock_and_audit() {
    let server = Server::start(ServerOptions::default())
        .await
        .expect("server");
    let mut seen_by_proxy = Vec::new();
    let mut seen_by_mock = Vec::new();
    let mut entries = Vec::new();
    for f in client_faults() {
        // Through the proxy, to the reference server.
        let proxy = start_proxy(profile(&server.base_url()), ProxyOptions::default())
            .await
            .expect("proxy");
        send(&proxy.base_url(), &f).await;
        seen_by_proxy.push((f.rule, broken(&proxy.tally(), Side::Client)));
        proxy.stop();
        // Straight to a fresh reference server, the mock.
        let mock = Server::start(ServerOptions::default()).await.expect("mock");
        send(&mock.base_url(), &f).await;
        let judged: Vec<&str> = mock.violations().into_iter().map(|r| r.id).collect();
        seen_by_mock.push((f.rule, judged));
        mock.shutdown().await;
        entries.push(har_entry(&server.base_url(), &f));
    }
    for (rule, got) in seen_by_proxy.iter().chain(&seen_by_mock) {
        assert_eq!(got, &[*rule], "{rule}");
    }
    // The same exchanges recorded in a HAR file, judged by `audit`.
    let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": entries}});
    let path = scratch("faults.har");
    std::fs::write(&path, har.to_string()).expect("write");
    let tally = audit(&path, &profile(&server.base_url()), false).expect("a HAR");
    assert_eq!(tally.exchanges(), client_faults().len() as u64);
    let mut want: Vec<&str> = client_faults().iter().map(|f| f.rule).collect();
    want.sort();
    want.dedup();
    let mut got = broken(&tally, Side::Client);
    got.sort();
    assert_eq!(got, want);
    // Nothing secret in what the reports show.
    let text = tally.report(None).text() + &serde_json::to_string(&tally.report(None)).unwrap();
    assert!(!text.contains(SECRET) && !text.contains("1234"), "{text}");
    server.shutdown().await;
}

/// A HAR entry of the fault's request (its answer left out: `audit` judges
/// the client's side of it).
pub(crate) fn har_entry(base: &str, f: &ClientFault) -> serde_json::Value {
    let headers: Vec<_> = f
        .headers
        .iter()
        .map(|(n, v)| serde_json::json!({"name": n, "value": v}))
        .collect();
    serde_json::json!({
        "request": {"method": f.method, "url": format!("{base}{}", f.target), "headers": headers,
                    "postData": {"mimeType": "application/json", "text": f.body}},
        "response": {"status": 0, "headers": [], "content": {}}
    })
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("conformance-traffic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    dir.join(name)
}

/// The generated bindings, as a client team calls the mock: no rule broken.
#[tokio::test(flavor = "multi_thread")]
async fn our_bindings_break_no_client_rule() {
    use component_auth_bindings::types::AuthFields;
    use component_auth_bindings::{Client, Defaults, Secret};
    let mock = Server::start(ServerOptions::default()).await.expect("mock");
    let client = Client::new(&format!("{}/v2/api", mock.base_url()))
        .expect("client")
        .with_defaults(Defaults {
            x_client_id: Some("conformance-client".into()),
            x_client_secret: Some(Secret::new(SECRET)),
            ..Defaults::default()
        });
    let mut fields = AuthFields::new();
    fields.insert("account".into(), "acme".into());
    fields.insert("pin".into(), 1234.into());
    client
        .authorize()
        .ref_("catalog")
        .model_uuid(CATALOG_MODEL)
        .body(fields.clone())
        .send()
        .await
        .expect("Authorize");
    client
        .auth_claims()
        .ref_("catalog")
        .body(fields)
        .send()
        .await
        .expect("Auth Claims");
    let report = mock.client_report();
    assert_eq!(report.exchanges, 2);
    assert_eq!(report.must_violations, 0, "{}", report.text());
    mock.shutdown().await;
}

/// The suite run through the proxy: the correct server breaks no server
/// rule; servers with faults one exchange can show break theirs,
/// passively, in the traffic the suite sends.
#[tokio::test(flavor = "multi_thread")]
async fn server_faults_show_through_the_proxy_while_the_suite_runs() {
    let cases: [(Option<Fault>, &[&str]); 5] = [
        (None, &[]),
        (
            Some(Fault::ErrorContentTypeNotJson),
            &["server/errors-are-envelopes"],
        ),
        (
            Some(Fault::ValidationAnswered400),
            &["server/validation-417"],
        ),
        (Some(Fault::ErrorCodeAsString), &["server/400-shape"]),
        (
            Some(Fault::ClientSecretOptional),
            &["server/refuses-what-a-client-must-not-send"],
        ),
    ];
    for (fault, want) in cases {
        let server = Server::start(ServerOptions {
            fault,
            ..ServerOptions::default()
        })
        .await
        .expect("server");
        let proxy = start_proxy(profile(&server.base_url()), ProxyOptions::default())
            .await
            .expect("proxy");
        let options = RunOptions {
            generation: conformance_suite::generate::Generation {
                cases: 4,
                ..Default::default()
            },
            ..RunOptions::default()
        };
        let _ = conformance::run(profile(&proxy.base_url()), &options).await;
        let got = broken(&proxy.tally(), Side::Server);
        for rule in want {
            assert!(got.contains(rule), "{fault:?}: {got:?}");
        }
        if fault.is_none() {
            assert!(
                got.is_empty(),
                "the correct server broke {got:?}:\n{}",
                proxy.tally().report(Some(Side::Server)).text()
            );
        }
        proxy.stop();
        server.shutdown().await;
    }
}

const BIN: &str = env!("CARGO_BIN_EXE_conformance");
const TOKEN: &str = "users-token-ada-0001";
const PASSWORD: &str = "correct-horse-battery";
const PIN: &str = "pin-secret-55";
const USERS_MODEL: &str = "5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01";

/// The shipped profile, pointed at `base`, written to `dir`.
pub(crate) fn profile_file(dir: &std::path::Path, base: &str) -> PathBuf {
    let path = dir.join("profile.yaml");
    std::fs::write(
        &path,
        PROFILE.replace(
            "base_url: http://127.0.0.1:8080",
            &format!("base_url: {base}"),
        ),
    )
    .expect("profile");
    path
}

pub(crate) fn fresh(name: &str) -> PathBuf {
    let dir = scratch(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

/// The line of the description that holds `text` (1-based), in the
/// section starting at heading `section`.
fn line_of(text: &str, section: &str) -> usize {
    let description = include_str!("../../../spec/interface-description.md");
    let start = description
        .lines()
        .position(|l| l.starts_with(&format!("## {section}")))
        .expect("the section");
    start
        + 1
        + description
            .lines()
            .skip(start)
            .position(|l| l.contains(text))
            .expect("the line")
}

fn html_escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A client's faults through `conformance proxy --gate`, as a CI job drives
/// a client through it: every report format is written; JUnit fails the
/// rule's test case, SARIF stands at the rule's sentence, HTML quotes it,
/// each violation is reproduced as a curl; the client's secret, token and
/// secret field values show in none of them, in any spelling.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_fault_through_the_proxy_is_reported_in_every_format_without_secrets() {
    use std::io::BufRead;
    let server = Server::start(ServerOptions::default())
        .await
        .expect("server");
    let dir = fresh("formats");
    let profile = profile_file(&dir, &server.base_url());
    let file = |name: &str| dir.join(name).to_str().expect("utf-8").to_owned();
    let mut child = std::process::Command::new(BIN)
        .args(["proxy", "--profile", profile.to_str().expect("utf-8")])
        .args(["--exchanges", "3", "--gate", "--every", "1s"])
        .args(["--json", &file("r.json"), "--junit", &file("r.xml")])
        .args(["--sarif", &file("r.sarif"), "--html", &file("r.html")])
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("conformance proxy");
    let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    out.read_line(&mut first).expect("the first line");
    let base = first
        .clone()
        .split_whitespace()
        .nth(2)
        .expect("listening on URL")
        .to_owned();
    // The bindings' builder: rustls with its provider set.
    let client = component_auth_bindings::client_builder()
        .no_proxy()
        .build()
        .expect("a client");
    let users = format!("{base}/v2/api/component/users/auth");
    let catalog = format!("{base}/v2/api/component/catalog/auth?modelUuid={CATALOG_MODEL}");
    // No X-Auth-Token to a component that requires auth.
    client
        .get(&users)
        .header("X-Client-Id", "conformance-client")
        .header("X-Client-Secret", SECRET)
        .send()
        .await
        .expect("an answer");
    // A field the component does not declare, beside the secret ones.
    client
        .post(format!("{users}?modelUuid={USERS_MODEL}"))
        .header("X-Client-Id", "conformance-client")
        .header("X-Client-Secret", SECRET)
        .header("X-Auth-Token", TOKEN)
        .header("Content-Type", "application/json")
        .body(format!(
            r#"{{"email": "ada@example.com", "password": "{PASSWORD}", "nickname": "ada"}}"#
        ))
        .send()
        .await
        .expect("an answer");
    // A secret field of the wrong type. The last exchange ends the proxy,
    // which still finishes its answer before it exits.
    let last = client
        .post(&catalog)
        .header("X-Client-Id", "conformance-client")
        .header("X-Client-Secret", SECRET)
        .header("Content-Type", "application/json")
        .body(format!(r#"{{"account": "acme", "pin": "{PIN}"}}"#))
        .send()
        .await
        .expect("the last exchange's answer");
    let body = last.text().await.expect("the last answer's whole body");
    assert!(body.contains("\"status\""), "{body}");
    let (status, stdout) = tokio::task::spawn_blocking(move || {
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut out, &mut rest).expect("stdout");
        (child.wait().expect("exit"), first + &rest)
    })
    .await
    .expect("joined");
    assert_eq!(status.code(), Some(1), "a MUST rule was broken:\n{stdout}");

    // JUnit: the rule's test case fails, with its sentence and a curl.
    let xml = std::fs::read_to_string(dir.join("r.xml")).expect("JUnit");
    // Observed traffic was sent by the client: no run's pace or seed.
    for property in ["seed", "cases", "timeout_ms", "concurrency"] {
        assert!(!xml.contains(&format!("name=\"{property}\"")), "{xml}");
    }
    let case = |id: &str| junit_case(&xml, id);
    let token = case("client/x-auth-token");
    assert!(token.contains("<failure"), "{token}");
    assert!(token.contains("reproduce: curl"), "{token}");
    assert!(token.contains("X-Auth-Token | string | only if the component requires auth"));
    assert!(case("client/fields").contains("<failure"));
    assert!(!case("client/x-client-secret").contains("<failure"));
    // SARIF: the result stands at the line of the sentence the rule quotes.
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.sarif")).expect("SARIF"))
            .expect("SARIF is JSON");
    // Beside a run's alerts in code scanning, not over them.
    assert_eq!(
        sarif["runs"][0]["automationDetails"]["id"],
        "conformance-traffic/"
    );
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let result = results
        .iter()
        .find(|r| r["ruleId"] == "client/x-auth-token")
        .expect("a result of the rule");
    let at = &result["locations"][0]["physicalLocation"];
    assert_eq!(
        at["artifactLocation"]["uri"],
        "spec/interface-description.md"
    );
    assert_eq!(
        at["region"]["startLine"].as_u64(),
        Some(line_of(
            "| X-Auth-Token | string | only if the component requires auth",
            "5"
        ) as u64)
    );
    // HTML: the quoted sentence, and the verdict.
    let html = std::fs::read_to_string(dir.join("r.html")).expect("HTML");
    assert!(html.contains(&html_escaped(traffic_rules::rules::AUTH_TOKEN.quote())));
    assert!(html.contains("FAILED") && html.contains("Observed traffic: 3 exchanges"));
    // JSON: every example has its reproduction.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).expect("JSON"))
            .expect("JSON");
    let fields = json["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["id"] == "client/fields")
        .expect("client/fields");
    assert_eq!(fields["violations"], 2);
    assert_eq!(fields["reproductions"].as_array().map(Vec::len), Some(2));
    // Nothing secret anywhere, in any spelling: each credential sent is its
    // variable.
    assert!(
        token.contains("x-client-secret: &apos;&quot;${CLIENT_SECRET}&quot;"),
        "{token}"
    );
    let mut shown = vec![("stdout".to_owned(), stdout)];
    for name in ["r.json", "r.xml", "r.sarif", "r.html"] {
        shown.push((
            name.to_owned(),
            std::fs::read_to_string(dir.join(name)).expect("read"),
        ));
    }
    for secret in [SECRET, TOKEN, PASSWORD, PIN] {
        for spelt in crate::cli::forms(secret) {
            for (name, text) in &shown {
                assert!(!text.contains(&spelt), "{name} shows {spelt:?} ({secret})");
            }
        }
    }
    // No temporary file is left beside the reports.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    server.shutdown().await;
}

/// The test case `id` of a JUnit report, to the next case or the end of
/// its suite (a passing case closes itself).
fn junit_case(xml: &str, id: &str) -> String {
    let at = xml
        .find(&format!("<testcase name=\"{id}\""))
        .unwrap_or_else(|| panic!("no test case {id}:\n{xml}"));
    let rest = &xml[at + 1..];
    let end = [rest.find("<testcase "), rest.find("</testsuite>")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
    xml[at..at + 1 + end].to_owned()
}

fn audit_cli(
    profile: &std::path::Path,
    har: &std::path::Path,
    junit: &std::path::Path,
) -> std::process::Output {
    std::process::Command::new(BIN)
        .args(["audit", "--profile", profile.to_str().expect("utf-8")])
        .arg(har)
        .arg("--junit")
        .arg(junit)
        .env("NO_COLOR", "1")
        .output()
        .expect("conformance audit")
}

/// `audit` exits as a run: 0 when the recorded traffic broke no MUST rule,
/// 1 when it broke one (or held no exchange: nothing proven), 2 for a file
/// that cannot be read; its reports are written as the proxy's are.
#[test]
fn audit_exits_as_a_run() {
    let dir = fresh("audit");
    let profile = profile_file(&dir, "http://127.0.0.1:8080");
    let junit = dir.join("r.xml");
    let har = |name: &str, entries: Vec<serde_json::Value>| {
        let path = dir.join(name);
        let log = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": entries}});
        std::fs::write(&path, log.to_string()).expect("write");
        path
    };
    let good = ClientFault {
        rule: "",
        method: "GET",
        target: "/v2/api/component/catalog/auth".into(),
        headers: vec![
            ("X-Client-Id", "conformance-client"),
            ("X-Client-Secret", SECRET),
        ],
        body: "",
    };
    let base = "http://127.0.0.1:8080";
    let clean = har("clean.har", vec![har_entry(base, &good)]);
    let out = audit_cli(&profile, &clean, &junit);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let xml = std::fs::read_to_string(&junit).expect("JUnit");
    assert!(xml.contains("<testcase name=\"client/x-client-secret\"") && !xml.contains("<failure"));
    let faults = har(
        "faults.har",
        client_faults().iter().map(|f| har_entry(base, f)).collect(),
    );
    let out = audit_cli(&profile, &faults, &junit);
    assert_eq!(out.status.code(), Some(1));
    let xml = std::fs::read_to_string(&junit).expect("JUnit");
    for f in client_faults() {
        assert!(junit_case(&xml, f.rule).contains("<failure"), "{}", f.rule);
    }
    let empty = har("empty.har", Vec::new());
    let out = audit_cli(&profile, &empty, &junit);
    assert_eq!(out.status.code(), Some(1), "no exchange: nothing proven");
    assert!(String::from_utf8_lossy(&out.stderr).contains("No exchange was judged"));
    let not_har = dir.join("not.har");
    std::fs::write(&not_har, "{\"log\": 7}").expect("write");
    for unreadable in [not_har, dir.join("missing.har")] {
        let out = audit_cli(&profile, &unreadable, &junit);
        assert_eq!(out.status.code(), Some(2), "{}", unreadable.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(unreadable.to_str().expect("utf-8")), "{err}");
    }
}

/// Without --gate the proxy exits 0 whatever it saw; with it, a proxy no
/// client went through proves nothing and exits 1. Its reports are
/// written all the same.
#[test]
fn a_gate_no_client_went_through_fails() {
    let dir = fresh("idle");
    let profile = profile_file(&dir, "http://127.0.0.1:9");
    let html = dir.join("r.html");
    let run = |gate: bool| {
        let mut cmd = std::process::Command::new(BIN);
        cmd.args(["proxy", "--profile", profile.to_str().expect("utf-8")])
            .args(["--for", "300ms", "--html"])
            .arg(&html);
        if gate {
            cmd.arg("--gate");
        }
        cmd.output().expect("conformance proxy")
    };
    assert_eq!(run(false).status.code(), Some(0));
    let out = run(true);
    assert_eq!(out.status.code(), Some(1));
    let page = std::fs::read_to_string(&html).expect("HTML");
    assert!(
        page.contains("Observed traffic: 0 exchanges") && page.contains("no exchange was seen")
    );
}

/// The README states what `coverage` says the proxy enforces.
#[test]
fn the_readme_says_what_the_proxy_enforces() {
    let line = conformance_suite::coverage::Coverage::of_description().traffic_line();
    let readme = include_str!("../../README.md").replace('\n', " ");
    assert!(readme.contains(&line), "the README does not say {line:?}");
}

/// An upstream on 127.0.0.1 that answers every request, as a JSON answer
/// with an X-Project-Uuid, with what `answer` makes of its headers and body.
async fn json_upstream(answer: fn(&hyper::HeaderMap, bytes::Bytes) -> bytes::Bytes) -> String {
    use http_body_util::BodyExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = hyper::service::service_fn(
                    move |req: hyper::Request<hyper::body::Incoming>| async move {
                        let (parts, body) = req.into_parts();
                        let body = body.collect().await?.to_bytes();
                        let body = answer(&parts.headers, body);
                        let mut resp = hyper::Response::new(http_body_util::Full::new(body));
                        for (n, v) in [
                            ("content-type", "application/json"),
                            ("x-project-uuid", "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d"),
                        ] {
                            resp.headers_mut()
                                .insert(n, hyper::header::HeaderValue::from_static(v));
                        }
                        Ok::<_, hyper::Error>(resp)
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    format!("http://{addr}")
}

/// An upstream that answers every request with its body, unchanged: what
/// reaches the server comes back to the client.
async fn echo_server() -> String {
    json_upstream(|_, body| body).await
}

/// A body over the proxy's 1 MiB cap is streamed through whole, both ways
/// (the echo gives it back): never cut on the wire, and reported as not
/// judged by the rules that read bodies rather than judged on a part.
#[tokio::test(flavor = "multi_thread")]
async fn a_body_over_the_cap_passes_whole_and_is_reported_not_judged() {
    let upstream = echo_server().await;
    // Plain `http://` goes through hyper's client; a base URL with
    // credentials through the bindings' (as `https://` does).
    let with_credentials = upstream.replace("http://", "http://user:pass@");
    for upstream in [upstream, with_credentials] {
        over_the_cap_through(&upstream).await;
    }
}

async fn over_the_cap_through(upstream: &str) {
    let proxy = start_proxy(profile(upstream), ProxyOptions::default())
        .await
        .expect("proxy");
    let cap = conformance::traffic::MAX_BODY;
    // A valid Authorize body but for its size, every byte distinct enough
    // that a lost or reordered chunk shows.
    let pad: String = (0..cap + cap / 2)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let body = format!(r#"{{"account": "acme", "pin": 1234, "pad": "{pad}"}}"#);
    assert!(body.len() > cap);
    let answer = http_client()
        .post(format!(
            "{}/v2/api/component/catalog/auth?modelUuid={CATALOG_MODEL}",
            proxy.base_url()
        ))
        .header("X-Client-Id", "conformance-client")
        .header("X-Client-Secret", SECRET)
        .header("Content-Type", "application/json")
        .body(body.clone())
        .send()
        .await
        .expect("an answer");
    assert_eq!(answer.status(), 200);
    let echoed = answer.bytes().await.expect("the body");
    assert_eq!(echoed.len(), body.len());
    assert!(echoed == body.as_bytes(), "the body changed on its way");
    let tally = proxy.tally();
    assert_eq!(tally.exchanges(), 1);
    assert_eq!(tally.bodies_not_judged(), 1);
    // The extra `pad` field would break client/fields were the body judged.
    assert!(broken(&tally, Side::Client).is_empty());
    assert!(broken(&tally, Side::Server).is_empty());
    let report = tally.report(None);
    assert!(
        report
            .text()
            .contains("1 exchange with a body not kept whole (over the 1 MiB cap")
    );
    assert_eq!(
        serde_json::to_value(&report).expect("json")["bodies_not_judged"],
        1
    );
    // The same body under the cap is judged: `pad` is no field of `catalog`.
    let small = r#"{"account": "acme", "pin": 1234, "pad": "x"}"#;
    let answer = http_client()
        .post(format!(
            "{}/v2/api/component/catalog/auth?modelUuid={CATALOG_MODEL}",
            proxy.base_url()
        ))
        .header("X-Client-Id", "conformance-client")
        .header("X-Client-Secret", SECRET)
        .header("Content-Type", "application/json")
        .body(small)
        .send()
        .await
        .expect("an answer");
    assert_eq!(answer.bytes().await.expect("the body"), small.as_bytes());
    let tally = proxy.tally();
    assert_eq!((tally.exchanges(), tally.bodies_not_judged()), (2, 1));
    assert_eq!(broken(&tally, Side::Client), ["client/fields"]);
    proxy.stop();
}

/// A request body that arrives in pieces (chunked, the second piece sent
/// only after the first has left) is forwarded as it comes and still
/// judged whole: the field fault split across the two pieces is caught,
/// and the server's answer comes back.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_fault_in_a_streamed_body_is_caught() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = Server::start(ServerOptions::default())
        .await
        .expect("server");
    let proxy = start_proxy(profile(&server.base_url()), ProxyOptions::default())
        .await
        .expect("proxy");
    let addr = proxy.base_url().trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    let (first, second) = (r#"{"account": "acme", "pi"#, r#"n": "1234"}"#);
    let head = format!(
        "POST /v2/api/component/catalog/auth?modelUuid={CATALOG_MODEL} HTTP/1.1\r\n\
         Host: {addr}\r\nX-Client-Id: conformance-client\r\nX-Client-Secret: {SECRET}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n\
         {:x}\r\n{first}\r\n",
        first.len()
    );
    stream.write_all(head.as_bytes()).await.expect("write");
    stream.flush().await.expect("flush");
    // Pacing only (nothing is timed): the pieces leave apart.
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let rest = format!("{:x}\r\n{second}\r\n0\r\n\r\n", second.len());
    stream.write_all(rest.as_bytes()).await.expect("write");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("read");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 417"), "{answer}");
    let tally = proxy.tally();
    assert_eq!((tally.exchanges(), tally.bodies_not_judged()), (1, 0));
    assert_eq!(broken(&tally, Side::Client), ["client/fields"]);
    assert!(broken(&tally, Side::Server).is_empty());
    proxy.stop();
    server.shutdown().await;
}

/// A client for the tests' own requests (the bindings' builder sets
/// rustls's provider, which reqwest needs).
fn http_client() -> reqwest::Client {
    component_auth_bindings::client_builder()
        .no_proxy()
        .build()
        .expect("a client")
}

/// An `https://` server with a private CA: the proxy trusts it through the
/// run's `--ca-cert`, adds a gateway's `--header` to what it forwards
/// (never judged as the client's), and without the CA answers 502 saying
/// how to trust it.
#[tokio::test(flavor = "multi_thread")]
async fn the_proxy_forwards_to_https_with_a_private_ca_and_a_gateway_header() {
    use conformance_wire::connect::Connect;
    let made =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).expect("a certificate");
    let (cert, key) = (made.cert.pem(), made.signing_key.serialize_pem());
    let server = Server::start(ServerOptions {
        tls: Some(
            reference_server::TlsConfig::from_pem(cert.as_bytes(), key.as_bytes())
                .expect("tls config"),
        ),
        ..Default::default()
    })
    .await
    .expect("server");
    assert!(server.base_url().starts_with("https://"));
    let good = ClientFault {
        rule: "",
        method: "GET",
        target: "/v2/api/component/catalog/auth".into(),
        headers: vec![
            ("X-Client-Id", "conformance-client"),
            ("X-Client-Secret", SECRET),
        ],
        body: "",
    };

    // Untrusted: the client is told why, the exchange judged on its side.
    let proxy = start_proxy(profile(&server.base_url()), ProxyOptions::default())
        .await
        .expect("proxy");
    let answer = http_client()
        .get(format!("{}{}", proxy.base_url(), good.target))
        .header("X-Client-Id", "conformance-client")
        .header("X-Client-Secret", SECRET)
        .send()
        .await
        .expect("an answer");
    assert_eq!(answer.status().as_u16(), 502);
    let why = answer.text().await.expect("a body");
    assert!(why.contains("--ca-cert"), "{why}");
    assert!(!why.contains(SECRET), "{why}");
    assert_eq!(proxy.tally().exchanges(), 1);
    proxy.stop();

    // Trusted through the profile's `ca_cert`, as a run trusts it.
    let ca = scratch("proxy-ca.pem");
    std::fs::write(&ca, &cert).expect("write the CA");
    let mut with_ca = profile(&server.base_url());
    with_ca.ca_cert = Some(ca.clone());
    let proxy = start_proxy(with_ca, ProxyOptions::default())
        .await
        .expect("proxy");
    let answer = http_client()
        .get(format!("{}{}", proxy.base_url(), good.target))
        .header("X-Client-Id", "conformance-client")
        .header("X-Client-Secret", SECRET)
        .send()
        .await
        .expect("an answer");
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(proxy.tally().exchanges(), 1);
    proxy.stop();

    // Trusted through --ca-cert: answers pass, a gateway header is added.
    let mut connect = Connect::default();
    connect.add_ca_file(&ca).expect("a PEM certificate");
    connect
        .add_header("X-Gateway-Key: gw-7Hq2")
        .expect("a header");
    let proxy = start_proxy(
        profile(&server.base_url()),
        ProxyOptions {
            connect,
            ..ProxyOptions::default()
        },
    )
    .await
    .expect("proxy");
    for _ in 0..3 {
        send(&proxy.base_url(), &good).await;
    }
    let tally = proxy.tally();
    assert_eq!(tally.exchanges(), 3);
    assert!(broken(&tally, Side::Client).is_empty());
    assert!(broken(&tally, Side::Server).is_empty());
    let report = tally.report(None).text();
    assert!(!report.contains("X-Gateway-Key"), "{report}");
    assert!(!report.contains("gw-7Hq2"), "{report}");
    proxy.stop();
    server.shutdown().await;
}

/// An upstream that answers with the request's headers as a JSON object
/// (name to its values): what reaches the server comes back to the client.
async fn headers_server() -> String {
    json_upstream(|headers, _| {
        let mut seen = serde_json::Map::new();
        for name in headers.keys() {
            let values: Vec<String> = headers
                .get_all(name)
                .iter()
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .collect();
            seen.insert(name.as_str().to_owned(), values.into());
        }
        bytes::Bytes::from(serde_json::to_vec(&seen).expect("json"))
    })
    .await
}

/// What the server receives through the proxy, through hyper's client
/// (`http://`) and the bindings' (a base URL with credentials): the
/// client's headers, the server's own Host, a gateway's `--header` where
/// the client sent none (the client's own wins), and no hop-by-hop header,
/// nor one a `Connection` header names.
#[tokio::test(flavor = "multi_thread")]
async fn the_server_gets_the_clients_headers_and_the_gateways_none_of_the_connections() {
    use conformance_wire::connect::Connect;
    let upstream = headers_server().await;
    let authority = upstream.trim_start_matches("http://").to_owned();
    let with_credentials = upstream.replace("http://", "http://user:pass@");
    for upstream in [upstream, with_credentials] {
        let mut connect = Connect::default();
        connect
            .add_header("X-Gateway-Key: gw-7Hq2")
            .expect("a header");
        connect.add_header("X-Tenant: gateway").expect("a header");
        let proxy = start_proxy(
            profile(&upstream),
            ProxyOptions {
                connect,
                ..ProxyOptions::default()
            },
        )
        .await
        .expect("proxy");
        let seen = http_client()
            .get(format!(
                "{}/v2/api/component/catalog/auth",
                proxy.base_url()
            ))
            .header("X-Client-Id", "conformance-client")
            .header("X-Client-Secret", SECRET)
            .header("X-Tenant", "client")
            .header("Connection", "keep-alive, X-Trace")
            .header("X-Trace", "abc")
            .send()
            .await
            .expect("an answer")
            .bytes()
            .await
            .expect("a body");
        let seen: serde_json::Value = serde_json::from_slice(&seen).expect("the headers as JSON");
        let one = |name: &str| seen[name][0].as_str().map(str::to_owned);
        assert_eq!(
            one("x-client-id").as_deref(),
            Some("conformance-client"),
            "{seen}"
        );
        assert_eq!(one("x-gateway-key").as_deref(), Some("gw-7Hq2"), "{seen}");
        assert_eq!(one("x-tenant").as_deref(), Some("client"), "{seen}");
        assert_eq!(one("host").as_deref(), Some(authority.as_str()), "{seen}");
        assert_eq!(one("x-trace"), None, "{seen}");
        assert_eq!(one("connection"), None, "{seen}");
        // The gateway's header is not the client's: never judged, never shown.
        let report = proxy.tally().report(None).text();
        assert!(!report.contains("gw-7Hq2"), "{report}");
        proxy.stop();
    }
}

/// A HEAD answer's Content-Length is the length its GET's body would have:
/// through the proxy it is the server's, as straight to the server.
#[tokio::test(flavor = "multi_thread")]
async fn a_head_answer_keeps_the_servers_content_length() {
    let upstream = headers_server().await;
    let proxy = start_proxy(profile(&upstream), ProxyOptions::default())
        .await
        .expect("proxy");
    let length = |base: String| async move {
        let answer = http_client()
            .head(format!("{base}/v2/api/component/catalog/auth"))
            .header("X-Client-Id", "conformance-client")
            .header("X-Client-Secret", SECRET)
            .send()
            .await
            .expect("an answer");
        answer
            .headers()
            .get("content-length")
            .map(|v| v.to_str().expect("text").to_owned())
    };
    let direct = length(upstream.clone()).await;
    let through = length(proxy.base_url()).await;
    assert!(
        direct.as_deref().is_some_and(|l| l != "0"),
        "straight to the server: {direct:?}"
    );
    assert_eq!(through, direct);
    proxy.stop();
}
