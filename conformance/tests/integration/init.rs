//! A new server team, from `conformance init` to a green `CI=true` gate:
//! their own server (the reference server serving the team's fixture, over
//! real HTTP on an ephemeral port of 127.0.0.1), their secrets in
//! environment variables, the profile and workflow `init` writes, the
//! snapshots recorded once, then the gate as the workflow runs it (the
//! action's `run.sh`, with the workflow's inputs).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use reference_server::{Fixture, Server, ServerOptions};

const BIN: &str = env!("CARGO_BIN_EXE_conformance");

/// The team's server: its own clients, components, models and tokens.
const FIXTURE: &str = r#"
project_uuid: 2b7e1c5a-9d3f-4e8a-b1c2-d3e4f5a6b7c8
clients:
  - id: billing-ci
    secret: s3cr3t-billing-client-91
components:
  - uuid: 4f1a2b3c-5d6e-4f70-8a9b-0c1d2e3f4a5b
    name: Invoices
    tag: invoices
    requires_auth: true
    settings:
      auth:
        - name: login
          type: string
          required: true
        - name: password
          type: string
          required: true
          min_length: 8
          secret: true
    models:
      - uuid: 6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e
        fields:
          login: ops
          password: invoices-pw-7731
    tokens:
      - token: invoices-token-ops-5521
        model: 6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e
  - uuid: 7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d
    name: Billing UI
    tag: billing-ui
    requires_auth: false
    settings:
      auth:
        - name: account
          type: string
          required: true
          min_length: 2
        - name: pin
          type: integer
          required: true
          secret: true
    models:
      - uuid: 1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f
        fields:
          account: acme
          pin: 8642
"#;

/// The team's secrets, as their CI would hold them.
const ENV: &[(&str, &str)] = &[
    ("BILLING_CLIENT_SECRET", "s3cr3t-billing-client-91"),
    ("INVOICES_TOKEN", "invoices-token-ops-5521"),
    ("INVOICES_PASSWORD", "invoices-pw-7731"),
    ("BILLING_UI_PIN", "8642"),
];

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .env("NO_COLOR", "1")
        .env_remove("CI");
    for var in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn init_args(url: &str) -> Vec<String> {
    [
        "init",
        "--base-url",
        url,
        "--client-id",
        "billing-ci",
        "--client-secret-env",
        "BILLING_CLIENT_SECRET",
        "--component",
        r#"{name: Invoices, tag: invoices, uuid: 4f1a2b3c-5d6e-4f70-8a9b-0c1d2e3f4a5b, requires_auth: true, token_env: INVOICES_TOKEN, model_uuid: 6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e, valid_body: {login: ops, password: "${INVOICES_PASSWORD}"}, invalid_body: {login: 7}}"#,
        "--component",
        r#"{name: Billing UI, tag: billing-ui, uuid: 7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d, model_uuid: 1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f, valid_body: {account: acme, pin: "${BILLING_UI_PIN:json}"}}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_new_team_goes_from_init_to_a_green_ci_run() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt
        .block_on(Server::start(ServerOptions {
            fixture: Fixture::from_yaml_str(FIXTURE, "billing.yaml").expect("fixture"),
            ..ServerOptions::default()
        }))
        .expect("the team's server starts");
    let url = server.base_url();
    let repo = std::env::temp_dir().join(format!("conformance-init-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&repo);
    std::fs::create_dir_all(&repo).expect("repo dir");
    let args = init_args(&url);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut outputs = Vec::new();

    // init: profile, observed choices, the plan, the workflow.
    let init = command(&repo, &args)
        .envs(ENV.iter().copied())
        .output()
        .expect("runs");
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let said = text(&init);
    for expected in [
        "Wrote conformance/profile.yaml",
        "Observed the server's choices",
        "Every selected MUST check can run.",
        "CONFORMANCE_INVOICES_PASSWORD",
        "conformance --profile conformance/profile.yaml --accept",
    ] {
        assert!(
            said.contains(expected),
            "{expected:?} missing from:\n{said}"
        );
    }
    let profile = std::fs::read_to_string(repo.join("conformance/profile.yaml")).expect("profile");
    for expected in [
        "client_secret: ${BILLING_CLIENT_SECRET}",
        "auth_token: ${INVOICES_TOKEN}",
        "\"password\":\"${INVOICES_PASSWORD}\"",
        "\nchoices:\n  model_uuid: query\n",
    ] {
        assert!(
            profile.contains(expected),
            "{expected:?} missing from:\n{profile}"
        );
    }
    let workflow =
        std::fs::read_to_string(repo.join(".github/workflows/conformance.yml")).expect("workflow");
    let parsed: serde_yaml::Value = serde_yaml::from_str(&workflow).expect("workflow is YAML");
    let gate = parsed["jobs"]["conformance"]["steps"]
        .as_sequence()
        .expect("steps")
        .iter()
        .find(|s| s["name"].as_str() == Some("Conformance (release gate)"))
        .expect("the gate step");
    assert!(
        gate["uses"]
            .as_str()
            .is_some_and(|u| u.contains("component-auth-conformance@v"))
    );
    assert_eq!(
        gate["with"]["profile"].as_str(),
        Some("conformance/profile.yaml")
    );
    for (var, _) in ENV {
        assert_eq!(
            gate["env"][*var].as_str(),
            Some(format!("${{{{ secrets.CONFORMANCE_{var} }}}}").as_str()),
            "{var}"
        );
    }
    outputs.push(said);

    // Again: nothing is overwritten without --force.
    let again = command(&repo, &args)
        .envs(ENV.iter().copied())
        .output()
        .expect("runs");
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(text(&again).contains("exists; pass --force to replace it"));

    // Record the snapshots once, as the team would on their machine.
    let accept = command(
        &repo,
        &["--profile", "conformance/profile.yaml", "--accept"],
    )
    .envs(ENV.iter().copied())
    .output()
    .expect("runs");
    assert_eq!(accept.status.code(), Some(0), "{}", text(&accept));
    outputs.push(text(&accept));

    // The gate, as the workflow runs it: the action's script, its inputs.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.github/action/run.sh");
    let bin_dir = Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ci = Command::new("bash")
        .arg(&script)
        .current_dir(&repo)
        .stdin(Stdio::null())
        .envs(ENV.iter().copied())
        .env("PATH", path)
        .env("CI", "true")
        .env("NO_COLOR", "1")
        .env("CONFORMANCE_PROFILE", "conformance/profile.yaml")
        .env("CONFORMANCE_BASELINE", "conformance/known-failures.yaml")
        .env("CONFORMANCE_JSON", "report.json")
        .output()
        .expect("run.sh runs");
    let said = text(&ci);
    assert_eq!(ci.status.code(), Some(0), "{said}");
    let last = String::from_utf8_lossy(&ci.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    // Skipped, if anything: the checks a `fields:` declaration would add
    // (SHOULD until declared), never a MUST check.
    assert!(
        last.contains(" checks: ")
            && last.contains(", 0 failed, ")
            && !last.contains("MUST")
            && last.ends_with(", 0 failed"),
        "{last}"
    );
    outputs.push(said);

    // No secret in anything written or printed.
    for file in files_under(&repo) {
        outputs.push(std::fs::read_to_string(&file).unwrap_or_default());
    }
    for (var, secret) in ENV {
        if secret.len() < 6 {
            continue; // a 4-digit pin is found in unrelated numbers
        }
        for out in &outputs {
            assert!(
                !out.contains(secret),
                "{var}'s value was written or printed"
            );
        }
    }
    rt.block_on(server.shutdown());
    let _ = std::fs::remove_dir_all(&repo);
}

#[test]
fn init_refuses_a_bad_answer_with_one_message() {
    let dir = std::env::temp_dir().join(format!("conformance-init-bad-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    for (args, expected) in [
        (
            vec!["init", "--client-id", "c", "--component", "{name: A}"],
            "init needs --base-url URL (not given, and stdin is not a terminal to ask on)",
        ),
        (
            vec![
                "init",
                "--base-url",
                "http://127.0.0.1:9",
                "--client-id",
                "c",
                "--component",
                "{name: A, tag: a, uuid: nope}",
            ],
            "--component 1: `uuid` is not a uuid; expected the component's uuid",
        ),
        (
            vec![
                "init",
                "--base-url",
                "127.0.0.1:9",
                "--client-id",
                "c",
                "--component",
                "{name: A, tag: a, uuid: 4f1a2b3c-5d6e-4f70-8a9b-0c1d2e3f4a5b}",
            ],
            "--base-url: expected the server's URL, http:// or https://",
        ),
    ] {
        let o = command(&dir, &args).output().expect("runs");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "one message: {err}");
        assert!(err.contains(expected), "{err}");
    }
    assert!(
        !dir.join("conformance").exists(),
        "nothing is written for a bad answer"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
