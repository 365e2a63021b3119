//! A new server team, from `conformance init` to a green action run:
//! their own server (the reference server serving the team's fixture, over
//! real HTTP on an ephemeral port of 127.0.0.1), their secrets in
//! environment variables, the profile and workflow `init` writes (linted
//! with actionlint, as is action.yml), the snapshots recorded once, then
//! the workflow's steps as GitHub would run them: its "Start the server"
//! script, then the action's own steps from action.yml (the installer,
//! from a local release with its SHA256SUMS, and `run.sh`) with the
//! workflow's inputs and secrets, unedited.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
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

const ACTION: &str = "acme/component-auth-conformance@v0.1.0";
const GATEWAY_KEY: &str = "G4w-gateway-key-5521";

fn init_args(url: &str) -> Vec<String> {
    [
        "init",
        "--base-url",
        url,
        "--client-id",
        "billing-ci",
        "--client-secret-env",
        "BILLING_CLIENT_SECRET",
        "--action",
        ACTION,
        "--start",
        "true",
        "--component",
        r#"{name: Invoices, tag: invoices, uuid: 4f1a2b3c-5d6e-4f70-8a9b-0c1d2e3f4a5b, requires_auth: true, auth_token: "${INVOICES_TOKEN}", authorize: {model_uuid: 6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e, valid_body: {login: ops, password: "${INVOICES_PASSWORD}"}, invalid_body: {login: 7}}}"#,
        "--component",
        r#"{name: Billing UI, tag: billing-ui, uuid: 7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d, authorize: {model_uuid: 1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f, valid_body: {account: acme, pin: "${BILLING_UI_PIN:json}"}}, fields: {account: {type: string, required: true, min_length: 2}, pin: {type: integer, required: true, secret: true}}}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// A folder that is a git repository (init writes only inside one).
fn git_repo(name: &str) -> PathBuf {
    let repo = std::env::temp_dir().join(format!("conformance-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&repo);
    std::fs::create_dir_all(&repo).expect("repo dir");
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .expect("git runs");
    assert!(git.success(), "git init");
    std::fs::canonicalize(&repo).expect("canonical")
}

/// `${{ ... }}` in a workflow or action value, as GitHub would expand it
/// for these steps: `inputs.X` from `with:` (else the input's default),
/// `secrets.CONFORMANCE_X` from the team's secrets. Anything else fails
/// the test: a step that needs more is not run as written.
fn expand(value: &str, inputs: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("closed expression") + start;
        let expr = rest[start + 3..end].trim();
        let value = if let Some(name) = expr.strip_prefix("secrets.CONFORMANCE_") {
            ENV.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
                .unwrap_or_else(|| panic!("no secret CONFORMANCE_{name}"))
        } else if let Some((input, fallback)) = expr.split_once(" || ") {
            let name = input.trim().strip_prefix("inputs.").expect("an input");
            match inputs.get(name).filter(|v| !v.is_empty()) {
                Some(v) => v.clone(),
                None if fallback.trim() == "github.action_repository" => {
                    ACTION.split('@').next().unwrap_or_default().to_owned()
                }
                None => panic!("cannot evaluate {expr}"),
            }
        } else if let Some(name) = expr.strip_prefix("inputs.") {
            inputs.get(name).cloned().unwrap_or_default()
        } else {
            panic!("the test cannot evaluate `{expr}`")
        };
        out.push_str(&value);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A step's `env:` mapping, expanded.
fn step_env(step: &serde_yaml::Value, inputs: &BTreeMap<String, String>) -> Vec<(String, String)> {
    step["env"]
        .as_mapping()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let v = match v {
                        serde_yaml::Value::String(s) => s.clone(),
                        other => serde_yaml::to_string(other).unwrap().trim().to_owned(),
                    };
                    (k.as_str().unwrap().to_owned(), expand(&v, inputs))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Runs a step's `run:` script as GitHub runs bash steps (`bash -eo
/// pipefail`), in `dir`, with `env`.
fn run_step(script: &str, dir: &Path, env: &[(String, String)]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(dir)
        .stdin(Stdio::null())
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
    cmd.envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    cmd.output().expect("bash runs")
}

/// A release as GitHub serves one: files of `dir` over HTTP on 127.0.0.1,
/// each request answered whole, then the connection closed. Its thread
/// ends with the test process.
fn serve_files(dir: PathBuf) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            // The rest of the request's head.
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                header.clear();
            }
            let path = line
                .split(' ')
                .nth(1)
                .unwrap_or("/")
                .trim_start_matches('/');
            let file = (!path.contains("..")).then(|| dir.join(path));
            let mut stream = stream;
            match file.and_then(|f| std::fs::read(f).ok()) {
                Some(body) => {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(&body);
                }
                None => {
                    let _ = stream.write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    );
                }
            }
        }
    });
    url
}

/// The asset name the installer asks for on this machine.
fn asset() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x86_64",
        "aarch64" => "aarch64",
        other => panic!("no release asset for {other}"),
    };
    let system = if cfg!(target_os = "macos") {
        "apple-darwin"
    } else {
        "unknown-linux-musl"
    };
    format!("conformance-{arch}-{system}")
}

/// action.yml's composite steps as a workflow actionlint reads (it lints
/// workflows, not action metadata): the inputs as a reusable workflow's.
fn action_as_workflow(action: &serde_yaml::Value) -> String {
    let mut inputs = serde_yaml::Mapping::new();
    for (name, _) in action["inputs"].as_mapping().expect("inputs") {
        let mut input = serde_yaml::Mapping::new();
        input.insert("type".into(), "string".into());
        input.insert("required".into(), false.into());
        inputs.insert(name.clone(), input.into());
    }
    let workflow = serde_yaml::to_value(serde_json::json!({
        "name": "action.yml",
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    }))
    .expect("workflow");
    serde_yaml::to_string(&workflow).expect("yaml")
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
    let repo = git_repo("init");
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
        &format!("BASE_URL={url} conformance --profile conformance/profile.yaml --accept"),
        "Exit 0: every MUST check can run, so the action's check-profile step passes",
    ] {
        assert!(
            said.contains(expected),
            "{expected:?} missing from:\n{said}"
        );
    }
    let profile = std::fs::read_to_string(repo.join("conformance/profile.yaml")).expect("profile");
    for expected in [
        "base_url: ${BASE_URL}\n",
        "client_secret: ${BILLING_CLIENT_SECRET}",
        "auth_token: ${INVOICES_TOKEN}",
        "      password: ${INVOICES_PASSWORD}\n",
        "  fields:\n    account:\n",
        "\nchoices:\n  model_uuid: query\n",
    ] {
        assert!(
            profile.contains(expected),
            "{expected:?} missing from:\n{profile}"
        );
    }
    assert!(
        !profile.contains(&url),
        "the URL is the workflow's, not the profile's"
    );
    let workflow_path = repo.join(".github/workflows/conformance.yml");
    let workflow = std::fs::read_to_string(&workflow_path).expect("workflow");
    assert!(
        workflow
            .starts_with("# The conformance gate of this server, written by `conformance init`"),
        "{workflow}"
    );
    assert!(
        !workflow.contains("OWNER") && !workflow.contains("Copy to"),
        "{workflow}"
    );
    let parsed: serde_yaml::Value = serde_yaml::from_str(&workflow).expect("workflow is YAML");
    let job = &parsed["jobs"]["conformance"];
    assert_eq!(job["permissions"]["checks"].as_str(), Some("write"));
    assert_eq!(job["env"]["BASE_URL"].as_str(), Some(url.as_str()));
    let steps = job["steps"].as_sequence().expect("steps");
    let step = |name: &str| {
        steps
            .iter()
            .find(|s| s["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("no step {name}"))
    };
    let gate = step("Conformance (release gate)");
    assert_eq!(gate["uses"].as_str(), Some(ACTION));
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

    // actionlint: the written workflow, action.yml's steps, the release.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let action: serde_yaml::Value = serde_yaml::from_str(
        &std::fs::read_to_string(root.join("action.yml")).expect("action.yml"),
    )
    .expect("action.yml is YAML");
    let action_workflow = repo.join("action-as-workflow.yml");
    std::fs::write(&action_workflow, action_as_workflow(&action)).expect("write");
    let example = root.join("docs/ci-example.yml");
    if let Err(found) =
        crate::pytools::actionlint(&[&workflow_path, &action_workflow, &example], &[])
    {
        panic!("actionlint: {found}");
    }
    std::fs::remove_file(&action_workflow).expect("remove");
    // Its runner labels are older than the release's runners: not judged.
    if let Err(found) = crate::pytools::actionlint(
        &[&root.join(".github/workflows/release.yml")],
        &["runner-label"],
    ) {
        panic!("actionlint: {found}");
    }

    // Again: nothing is overwritten without --force.
    let again = command(&repo, &args)
        .envs(ENV.iter().copied())
        .output()
        .expect("runs");
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(text(&again).contains("exists; pass --force to replace it"));

    // Record the snapshots once, as the team would on their machine, with
    // the command init printed; it says what CI will do.
    let accept = command(
        &repo,
        &["--profile", "conformance/profile.yaml", "--accept"],
    )
    .envs(ENV.iter().copied())
    .env("BASE_URL", &url)
    .output()
    .expect("runs");
    assert_eq!(accept.status.code(), Some(0), "{}", text(&accept));
    assert!(
        text(&accept).contains(
            "In CI: the action would pass once the snapshots this run recorded are committed"
        ),
        "{}",
        text(&accept)
    );
    outputs.push(text(&accept));

    // The workflow as GitHub runs it: the job's env, then each step.
    let job_env: Vec<(String, String)> = step_env(job, &BTreeMap::new());
    let start = step("Start the server");
    let mut env = job_env.clone();
    env.extend(step_env(start, &BTreeMap::new()));
    let started = run_step(start["run"].as_str().expect("run"), &repo, &env);
    assert!(
        started.status.success(),
        "Start the server: {}",
        text(&started)
    );

    // The action's steps (action.yml), with the workflow's `with:` (a
    // local release stands in for GitHub's: `base-url` is the action's
    // input for a mirror).
    let release = repo.join("target-release");
    std::fs::create_dir_all(&release).expect("release dir");
    std::fs::copy(BIN, release.join(asset())).expect("copy binary");
    let sum = Command::new("sha256sum")
        .arg(asset())
        .current_dir(&release)
        .output()
        .expect("sha256sum");
    std::fs::write(release.join("SHA256SUMS"), &sum.stdout).expect("sums");
    let mut inputs: BTreeMap<String, String> = BTreeMap::new();
    for (name, input) in action["inputs"].as_mapping().expect("inputs") {
        let default = input["default"].as_str().unwrap_or_default().to_owned();
        inputs.insert(name.as_str().unwrap().to_owned(), default);
    }
    for (name, value) in gate["with"].as_mapping().expect("with") {
        inputs.insert(
            name.as_str().unwrap().to_owned(),
            value.as_str().unwrap().to_owned(),
        );
    }
    inputs.insert("base-url".into(), serve_files(release.clone()));
    // A gateway's header, as a team passes one: run.sh never prints its value.
    inputs.insert(
        "args".into(),
        format!("--header X-Gateway-Key:{GATEWAY_KEY}"),
    );
    let runner = repo.join("runner");
    std::fs::create_dir_all(&runner).expect("runner dir");
    let github = [
        ("GITHUB_ACTION_PATH", root.display().to_string()),
        ("GITHUB_OUTPUT", runner.join("output").display().to_string()),
        ("GITHUB_PATH", runner.join("path").display().to_string()),
        ("RUNNER_TEMP", runner.display().to_string()),
        ("NO_COLOR", "1".to_owned()),
    ];
    let mut path_dirs = String::new();
    let mut gate_said = String::new();
    for s in action["runs"]["steps"].as_sequence().expect("steps") {
        let mut env = job_env.clone();
        env.extend(github.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        env.extend(step_env(gate, &inputs));
        env.extend(step_env(s, &inputs));
        let path = format!("{path_dirs}{}", std::env::var("PATH").unwrap_or_default());
        env.push(("PATH".to_owned(), path));
        let ran = run_step(s["run"].as_str().expect("run"), &repo, &env);
        let said = text(&ran);
        assert!(
            ran.status.success(),
            "{}: {said}",
            s["name"].as_str().unwrap_or("step")
        );
        outputs.push(said);
        gate_said = String::from_utf8_lossy(&ran.stdout).into_owned();
        path_dirs = std::fs::read_to_string(runner.join("path"))
            .unwrap_or_default()
            .lines()
            .map(|l| format!("{l}:"))
            .collect();
    }
    assert!(
        path_dirs.starts_with(&runner.join("conformance-bin").display().to_string()),
        "the installer put its folder on GITHUB_PATH: {path_dirs}"
    );
    let last = gate_said.lines().last().unwrap_or_default().to_owned();
    // Skipped, if anything: the checks a `fields:` declaration would add
    // (SHOULD until declared), never a MUST check.
    assert!(
        last.contains(" checks: ") && last.contains(", 0 failed, ") && !last.contains("MUST"),
        "{last}"
    );
    let printed = outputs.last().cloned().unwrap_or_default();
    assert!(printed.contains("--header X-Gateway-Key:***"), "{printed}");
    for out in &outputs {
        assert!(!out.contains(GATEWAY_KEY), "the gateway key was printed");
    }
    for report in [
        "conformance-junit.xml",
        "conformance-report.json",
        "conformance.sarif",
    ] {
        assert!(repo.join(report).is_file(), "{report} written");
    }

    // No secret in anything written or printed.
    for file in files_under(&repo) {
        if file.starts_with(repo.join(".git"))
            || file.starts_with(&release)
            || file.starts_with(&runner)
        {
            continue;
        }
        outputs.push(std::fs::read_to_string(&file).unwrap_or_default());
    }
    for (var, secret) in ENV.iter().chain([&("GATEWAY_KEY", GATEWAY_KEY)]) {
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

/// The README's example leaves out `invalid_body`: init says, by its exit
/// code and in words, that CI would fail, and so does a run.
#[test]
fn init_and_a_run_say_what_ci_will_do() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt
        .block_on(Server::start(ServerOptions {
            fixture: Fixture::from_yaml_str(FIXTURE, "billing.yaml").expect("fixture"),
            ..ServerOptions::default()
        }))
        .expect("the team's server starts");
    let url = server.base_url();
    let repo = git_repo("init-verdict");
    let mut args = init_args(&url);
    // No invalid_body: the 417 checks cannot run.
    args[12] = args[12].replace(", invalid_body: {login: 7}", "");
    assert!(!args[12].contains("invalid_body"), "{}", args[12]);
    args.truncate(13);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let init = command(&repo, &args)
        .envs(ENV.iter().copied())
        .output()
        .expect("runs");
    let said = text(&init);
    assert_eq!(init.status.code(), Some(1), "{said}");
    assert!(
        said.contains("Exit 1: some MUST checks cannot run"),
        "{said}"
    );
    assert!(said.contains("CI fails until the profile has it"), "{said}");
    let profile = std::fs::read_to_string(repo.join("conformance/profile.yaml")).expect("profile");
    // Observed all the same, from the 417 of the Authorize without
    // modelUuid, as the check that holds the choice judges it.
    assert!(
        profile.contains("\n  validation_items: spec\n"),
        "{profile}"
    );
    let run = command(
        &repo,
        &["--profile", "conformance/profile.yaml", "--accept"],
    )
    .envs(ENV.iter().copied())
    .env("BASE_URL", &url)
    .output()
    .expect("runs");
    assert!(
        text(&run).contains("In CI: the action would fail before the gate:"),
        "{}",
        text(&run)
    );
    rt.block_on(server.shutdown());
    let _ = std::fs::remove_dir_all(&repo);
}

/// init writes regular files inside the repository only: never through a
/// link, never outside, the workflow where GitHub runs it (from a
/// subfolder too), every value quoted for YAML.
#[test]
fn init_writes_only_inside_the_repository() {
    let repo = git_repo("init-files");
    let outside = std::env::temp_dir().join(format!("conformance-outside-{}", std::process::id()));
    let _ = std::fs::remove_file(&outside);
    let base = |dir: &Path, extra: &[&str]| {
        let mut args = vec![
            "init",
            "--no-observe",
            "--base-url",
            "http://127.0.0.1:9",
            "--client-id",
            "c",
            "--component",
            "{name: A, tag: a, uuid: 4f1a2b3c-5d6e-4f70-8a9b-0c1d2e3f4a5b}",
        ];
        if !extra.contains(&"--action") {
            args.extend_from_slice(&["--action", ACTION]);
        }
        args.extend_from_slice(extra);
        command(dir, &args)
            .env("CLIENT_SECRET", "s3cr3t-value-1")
            .output()
            .expect("runs")
    };
    // A dangling link where the profile goes: refused, its target not made.
    std::fs::create_dir_all(repo.join("conformance")).expect("dir");
    std::os::unix::fs::symlink(&outside, repo.join("conformance/profile.yaml")).expect("link");
    for force in [&[][..], &["--force"][..]] {
        let o = base(&repo, force);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains("symbolic link"), "{}", text(&o));
        assert!(!outside.exists(), "written through a link");
    }
    std::fs::remove_file(repo.join("conformance/profile.yaml")).expect("unlink");
    for (extra, expected) in [
        (&["--dir", "../x"][..], "is outside the repository"),
        (&["--dir", "/tmp"][..], "is outside the repository"),
        (&["--workflow", "ci.yml"][..], "GitHub runs only"),
        (
            &["--workflow", "conformance/profile.yaml"][..],
            "GitHub runs only",
        ),
        (
            &["--action", "OWNER/component-auth-conformance@v0.1.0"][..],
            "placeholder",
        ),
    ] {
        let o = base(&repo, extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", text(&o));
        assert!(text(&o).contains(expected), "{extra:?}: {}", text(&o));
    }
    assert!(!repo.join("conformance/profile.yaml").exists());
    // From a subfolder, a --dir that YAML would misread: the workflow at the
    // root's .github/workflows/, the path quoted.
    let sub = repo.join("server");
    std::fs::create_dir_all(&sub).expect("sub");
    let o = base(&sub, &["--dir", "conf #1: [ci]"]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    let workflow =
        std::fs::read_to_string(repo.join(".github/workflows/conformance.yml")).expect("workflow");
    let parsed: serde_yaml::Value = serde_yaml::from_str(&workflow).expect("YAML");
    let gate = parsed["jobs"]["conformance"]["steps"]
        .as_sequence()
        .expect("steps")
        .iter()
        .find(|s| s["name"].as_str() == Some("Conformance (release gate)"))
        .expect("gate")
        .clone();
    assert_eq!(
        gate["with"]["profile"].as_str(),
        Some("server/conf #1: [ci]/profile.yaml")
    );
    assert!(sub.join("conf #1: [ci]/profile.yaml").is_file());
    assert!(
        workflow.contains("# server/conf #1: [ci]/profile.yaml` prints them"),
        "no stale comment: {workflow}"
    );
    assert!(!sub.join(".github").exists());
    // The server starts in the folder init ran in.
    let start = parsed["jobs"]["conformance"]["steps"]
        .as_sequence()
        .expect("steps")
        .iter()
        .find(|s| s["name"].as_str() == Some("Start the server"))
        .expect("start");
    assert_eq!(start["working-directory"].as_str(), Some("server"));
    let _ = std::fs::remove_dir_all(&repo);
}

/// A credential by its name is written as a `${VAR}`, never as itself; a
/// `--base-url` with a credential in its query is neither written nor
/// printed.
#[test]
fn credentials_are_never_written() {
    let repo = git_repo("init-credentials");
    let o = command(
        &repo,
        &[
            "init",
            "--no-observe",
            "--base-url",
            "http://127.0.0.1:9",
            "--client-id",
            "c",
            "--action",
            ACTION,
            "--component",
            "{name: A, tag: a, uuid: 4f1a2b3c-5d6e-4f70-8a9b-0c1d2e3f4a5b, authorize: {model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01, valid_body: {login: ops, apiKey: k-77-secret-key, client_secret: cs-88-secret, otp: 123456}}}",
        ],
    )
    .env("CLIENT_SECRET", "s3cr3t-value-1")
    .output()
    .expect("runs");
    let said = text(&o);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{said}");
    let profile = std::fs::read_to_string(repo.join("conformance/profile.yaml")).expect("profile");
    for (secret, var) in [
        ("k-77-secret-key", "${A_APIKEY}"),
        ("cs-88-secret", "${A_CLIENT_SECRET}"),
        ("123456", "${A_OTP:json}"),
    ] {
        assert!(
            !profile.contains(secret) && !said.contains(secret),
            "{secret}"
        );
        assert!(profile.contains(var), "{var} in {profile}");
        assert!(said.contains("is a credential by its name"), "{said}");
    }
    let o = command(
        &repo,
        &[
            "init",
            "--no-observe",
            "--base-url",
            "https://gw.example.com/x?api_key=Qz-9911-key",
            "--client-id",
            "c",
            "--action",
            ACTION,
            "--component",
            "{name: A, tag: a, uuid: 4f1a2b3c-5d6e-4f70-8a9b-0c1d2e3f4a5b}",
            "--force",
        ],
    )
    .output()
    .expect("runs");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("`api_key`, a credential by its name"),
        "{}",
        text(&o)
    );
    assert!(!text(&o).contains("Qz-9911-key"));
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
            "--component 1: `uuid` is not a uuid; expected a uuid",
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

/// `--base-url '${VAR}'`, as a profile takes it: the profile reads `VAR`,
/// the workflow sets it from the secret `CONFORMANCE_VAR` and waits for it.
#[test]
fn a_base_url_from_a_variable() {
    let repo = git_repo("init-base-var");
    let o = command(
        &repo,
        &[
            "init",
            "--no-observe",
            "--base-url",
            "${STAGING_URL}",
            "--client-id",
            "${CLIENT_ID}",
            "--action",
            ACTION,
            "--component",
            "{name: A, tag: a, uuid: \"${A_UUID}\"}",
        ],
    )
    .env("STAGING_URL", "https://staging.example.com")
    .env("CLIENT_ID", "ci")
    .env("A_UUID", "4f1a2b3c-5d6e-4f70-8a9b-0c1d2e3f4a5b")
    .env("CLIENT_SECRET", "s3cr3t-value-1")
    .output()
    .expect("runs");
    let said = text(&o);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{said}");
    assert!(said.contains("CONFORMANCE_STAGING_URL"), "{said}");
    // A URL and a uuid are no secrets: the repository's variables.
    assert!(
        said.contains("add the variables (not secrets: they hold none) CONFORMANCE_STAGING_URL"),
        "{said}"
    );
    // The value is the user's to set: the next command does not repeat it.
    assert!(!said.contains("STAGING_URL=https"), "{said}");
    let profile = std::fs::read_to_string(repo.join("conformance/profile.yaml")).expect("profile");
    assert!(profile.contains("base_url: ${STAGING_URL}\n"), "{profile}");
    assert!(profile.contains("  uuid: ${A_UUID}\n"), "{profile}");
    let workflow =
        std::fs::read_to_string(repo.join(".github/workflows/conformance.yml")).expect("workflow");
    let parsed: serde_yaml::Value = serde_yaml::from_str(&workflow).expect("YAML");
    let job = &parsed["jobs"]["conformance"];
    assert_eq!(
        job["env"]["STAGING_URL"].as_str(),
        Some("${{ vars.CONFORMANCE_STAGING_URL }}")
    );
    assert!(workflow.contains("\"$STAGING_URL/\""), "{workflow}");
    let gate = job["steps"]
        .as_sequence()
        .expect("steps")
        .iter()
        .find(|s| s["name"].as_str() == Some("Conformance (release gate)"))
        .expect("gate");
    for var in ["CLIENT_ID", "CLIENT_SECRET", "A_UUID"] {
        assert!(gate["env"][var].is_string(), "{var} in the gate's env");
    }
    let _ = std::fs::remove_dir_all(&repo);
}
