//! A client written outside this workspace, from the description alone
//! (`tests/independent/python_client.py`, Python's standard library), is
//! judged as a client team in any language would judge theirs: through
//! `conformance proxy --gate` (the binary) and against the reference server
//! as its mock. Written correctly it breaks no rule; each mistake it can be
//! told to make is named by its rule, by both, and by nothing else.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use reference_server::{Server, ServerOptions};

const PROFILE: &str = include_str!("../../profiles/reference.yaml");
const SECRET: &str = "demo-secret-7Qx9";

fn client() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/independent/python_client.py")
}

/// Runs the client against `base_url`; it exits 0 once every request got
/// an answer.
fn run_client(base_url: &str, mode: &str) {
    let out = Command::new("python3")
        .arg(client())
        .args([base_url, mode])
        .output()
        .unwrap_or_else(|e| panic!("python3: {e}"));
    assert!(out.status.success(), "the client ({mode}): {out:?}");
}

/// Each mode and the one rule it breaks.
const MODES: [(&str, Option<&str>); 6] = [
    ("none", None),
    ("no-secret", Some("client/x-client-secret")),
    ("prod-env", Some("client/x-project-env")),
    ("pin-as-string", Some("client/fields")),
    ("two-json-texts", Some("client/json-body")),
    ("no-model-uuid", Some("client/model-uuid")),
];

#[tokio::test(flavor = "multi_thread")]
async fn a_python_client_is_judged_by_the_mock_and_through_the_proxy() {
    let dir = std::env::temp_dir().join(format!("conformance-foreign-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    for (mode, rule) in MODES {
        let expected: Vec<&str> = rule.into_iter().collect();

        // The reference server as the client's mock.
        let mock = Server::start(ServerOptions::default()).await.expect("mock");
        let url = mock.base_url();
        tokio::task::spawn_blocking(move || run_client(&url, mode))
            .await
            .expect("client");
        let broken: Vec<&str> = mock.violations().into_iter().map(|r| r.id).collect();
        assert_eq!(broken, expected, "the mock, client mode {mode}");
        mock.shutdown().await;

        // The proxy binary in front of a reference server, gating.
        let server = Server::start(ServerOptions::default())
            .await
            .expect("server");
        let profile = dir.join(format!("{mode}.yaml"));
        let yaml = PROFILE.replace(
            "base_url: http://127.0.0.1:8080",
            &format!("base_url: {}", server.base_url()),
        );
        std::fs::write(&profile, yaml).expect("profile");
        let json = dir.join(format!("{mode}.json"));
        let (status, printed) = tokio::task::spawn_blocking({
            let (profile, json) = (profile.clone(), json.clone());
            move || {
                let mut proxy = Command::new(env!("CARGO_BIN_EXE_conformance"))
                    .arg("proxy")
                    .arg("--profile")
                    .arg(&profile)
                    .args(["--exchanges", "3", "--gate", "--json"])
                    .arg(&json)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("conformance proxy");
                let mut stdout = BufReader::new(proxy.stdout.take().expect("stdout"));
                let mut line = String::new();
                stdout.read_line(&mut line).expect("the listening line");
                let listening = line
                    .strip_prefix("listening on ")
                    .and_then(|rest| rest.split_whitespace().next())
                    .unwrap_or_else(|| panic!("first line: {line:?}"))
                    .to_owned();
                run_client(&listening, mode);
                let mut printed = String::new();
                stdout.read_to_string(&mut printed).expect("the report");
                (proxy.wait_with_output().expect("the proxy's exit"), printed)
            }
        })
        .await
        .expect("proxy");
        let gate = if rule.is_some() { 1 } else { 0 };
        assert_eq!(
            status.status.code(),
            Some(gate),
            "proxy --gate, mode {mode}: {status:?}"
        );
        let text = std::fs::read_to_string(&json).expect("the proxy's report");
        let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let broken: Vec<&str> = report["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .filter(|r| r["violations"].as_u64() > Some(0))
            .filter_map(|r| r["id"].as_str())
            .collect();
        assert_eq!(broken, expected, "the proxy, client mode {mode}: {text}");
        for output in [
            text.as_str(),
            &printed,
            &String::from_utf8_lossy(&status.stderr),
        ] {
            assert!(!output.contains(SECRET), "the secret in {output}");
        }
        server.shutdown().await;
    }
    let _ = std::fs::remove_dir_all(&dir);
}
