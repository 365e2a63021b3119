//! A team's first day (issue 45): the profile `init` wrote is the one a
//! bare command uses; `init` takes what a profile's component takes; every
//! subcommand's help says what it does, and does it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use reference_server::{Server, ServerOptions};

const BIN: &str = env!("CARGO_BIN_EXE_conformance");

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .env("NO_COLOR", "1")
        .env_remove("CI");
    for (var, _) in std::env::vars() {
        if var.starts_with("CONFORMANCE_") || var.to_ascii_lowercase().ends_with("_proxy") {
            cmd.env_remove(var);
        }
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

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("conformance-day-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

/// The shipped profile of the reference server, its URL replaced.
fn shipped(url: &str) -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/profiles/reference.yaml"
    ))
    .expect("shipped profile");
    let line = text
        .lines()
        .find(|l| l.starts_with("base_url:"))
        .expect("base_url")
        .to_owned();
    text.replace(&line, &format!("base_url: {url}"))
}

/// Without --profile, the profile of the repository is found from a
/// sub-folder, named on the first line, and used (not the built-in
/// server); a named profile that does not exist is exit 2 in every
/// command that takes one.
#[test]
fn the_profile_init_writes_is_found() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt
        .block_on(Server::start(ServerOptions::default()))
        .expect("server");
    let repo = folder("found");
    std::fs::create_dir_all(repo.join(".git")).expect(".git");
    std::fs::create_dir_all(repo.join("conformance")).expect("dir");
    std::fs::write(
        repo.join("conformance/profile.yaml"),
        shipped(&server.base_url()),
    )
    .expect("profile");
    let sub = repo.join("services/api");
    std::fs::create_dir_all(&sub).expect("sub");
    let o = command(&sub, &["--only", "1/", "--no-snapshots"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.lines().next(),
        Some(
            "conformance: using the profile ../../conformance/profile.yaml (found from here; --profile FILE names another)"
        ),
        "{}",
        text(&o)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        !out.contains("embedded reference server"),
        "the user's server, not the built-in one: {out}"
    );
    assert!(out.contains(&server.base_url()), "{out}");
    let o = command(&sub, &["check-profile"]).output().expect("runs");
    assert!(
        text(&o).contains("Profile ../../conformance/profile.yaml:"),
        "{}",
        text(&o)
    );
    // Under CI, a found profile names the target: no refusal.
    let o = command(&sub, &["--only", "1/", "--no-snapshots"])
        .env("CI", "true")
        .output()
        .expect("runs");
    assert_ne!(o.status.code(), Some(2), "{}", text(&o));
    for args in [
        &["--profile", "missing.yaml"][..],
        &["check-profile", "--profile", "missing.yaml"],
        &["choices", "--profile", "missing.yaml"],
        &["proxy", "--profile", "missing.yaml"],
        &["audit", "--profile", "missing.yaml", "x.har"],
    ] {
        let o = command(&sub, args).output().expect("runs");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(
            text(&o).contains("--profile missing.yaml: no such file"),
            "{args:?}: {}",
            text(&o)
        );
    }
    // Outside any profile: proxy and audit say where they looked.
    let empty = folder("none");
    std::fs::create_dir_all(empty.join(".git")).expect(".git");
    for args in [&["proxy"][..], &["audit", "x.har"], &["check-profile"]] {
        let o = command(&empty, args).output().expect("runs");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(
            text(&o).contains("no conformance/profile.yaml or conformance.yaml from here up to the repository's root"),
            "{args:?}: {}",
            text(&o)
        );
    }
    rt.block_on(server.shutdown());
    let _ = std::fs::remove_dir_all(&repo);
    let _ = std::fs::remove_dir_all(&empty);
}

/// Every subcommand's help is its own (no run option such as
/// `--embedded` where the subcommand refuses it), the commands without a
/// profile take no --profile, and a run's options are refused beside a
/// subcommand.
#[test]
fn each_subcommand_has_its_own_help() {
    let dir = folder("help");
    for (sub, takes_profile) in [
        ("list", false),
        ("check-profile", true),
        ("init", false),
        ("choices", true),
        ("diff", false),
        ("coverage", false),
        ("proxy", true),
        ("audit", true),
        ("completions", false),
    ] {
        let o = command(&dir, &[sub, "--help"]).output().expect("runs");
        assert_eq!(o.status.code(), Some(0), "{sub}: {}", text(&o));
        let help = String::from_utf8_lossy(&o.stdout);
        assert!(
            help.contains(&format!("Usage: conformance {sub}")),
            "{sub}: {help}"
        );
        assert_eq!(help.contains("--profile"), takes_profile, "{sub}: {help}");
        if sub != "choices" {
            assert!(!help.contains("--embedded"), "{sub}: {help}");
        }
        assert!(
            !help.contains("the built-in reference server is started"),
            "{sub}: {help}"
        );
        if takes_profile && sub != "choices" {
            // What the help claims of a missing profile, it does.
            assert!(help.contains("none found"), "{sub}: {help}");
        }
    }
    for args in [
        &["list", "--profile", "x.yaml"][..],
        &["coverage", "--profile", "x.yaml"],
        &["diff", "--profile", "x.yaml", "a.json", "b.json"],
        &["--strict", "list"],
    ] {
        let o = command(&dir, args).output().expect("runs");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    }
    let o = command(&dir, &["completions", "bash"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let script = String::from_utf8_lossy(&o.stdout);
    assert!(
        script.contains("_conformance") && script.contains("check-profile"),
        "{script}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--json -` is the report alone on standard output (the human report
/// on standard error); options come from `CONFORMANCE_*` variables, an
/// empty one meaning not given (as the action passes its inputs).
#[test]
fn reports_to_standard_output_and_options_from_the_environment() {
    let dir = folder("stdout");
    let o = command(
        &dir,
        &[
            "--embedded",
            "--only",
            "1/",
            "--no-snapshots",
            "--json",
            "-",
        ],
    )
    .output()
    .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let json: serde_json::Value =
        serde_json::from_slice(&o.stdout).expect("standard output is the JSON report alone");
    assert!(json["summary"].is_object(), "{json}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("checks:"));
    assert!(!dir.join("-").exists(), "no file named -");
    let o = command(&dir, &["--embedded", "--only", "1/", "--no-snapshots"])
        .env("CONFORMANCE_JUNIT", "-")
        .env("CONFORMANCE_SNAPSHOTS", "")
        .env("CONFORMANCE_STRICT", "false")
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).starts_with("<?xml"),
        "{}",
        text(&o)
    );
    let o = command(&dir, &["--embedded", "--only", "1/"])
        .env("CONFORMANCE_SEED", "not-a-number")
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `init` outside a git repository, without --action: the profile takes
/// a component's `second_model` and `secret_fields` as a profile does,
/// trusts the private CA (copied beside it), and the workflow builds the
/// runner from source at the revision named; the profile it wrote is the
/// one a bare `check-profile` finds, and every MUST check (the
/// environments check too) can run.
#[test]
fn init_takes_what_a_profile_takes() {
    let dir = folder("init-any");
    let ca = dir.join("outside-ca.pem");
    std::fs::write(
        &ca,
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    )
    .expect("ca");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).expect("work");
    let component = r#"{name: Users, tag: users, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11, requires_auth: true, auth_token: "${USERS_TOKEN}", secret_fields: [password, memo], authorize: {model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01, valid_body: {email: ada@example.com, password: "${USERS_PASSWORD}", memo: m-77-private}, invalid_body: {email: 7}, second_model: {model_uuid: 7c3e8a34-8a47-4f0e-b3a6-2a9d2f9c7e02}}}"#;
    let ca_arg = ca.display().to_string();
    let o = command(
        &work,
        &[
            "init",
            "--no-observe",
            "--base-url",
            "https://127.0.0.1:9",
            "--client-id",
            "c",
            "--source",
            "https://github.com/acme/component-auth-conformance@0123456789abcdef",
            "--ca-cert",
            &ca_arg,
            "--component",
            component,
            "--component",
            "{name: Open, tag: open, uuid: 4f1a2b3c-5d6e-4f70-8a9b-0c1d2e3f4a5b}",
        ],
    )
    .env("CLIENT_SECRET", "s3cr3t-value-1")
    .env("USERS_TOKEN", "tok-1")
    .env("USERS_PASSWORD", "pw-1")
    .output()
    .expect("runs");
    let said = text(&o);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{said}");
    assert!(said.contains("not inside a git repository"), "{said}");
    assert!(said.contains("builds the runner from source"), "{said}");
    assert!(!said.contains("m-77-private"), "{said}");
    let profile = std::fs::read_to_string(work.join("conformance/profile.yaml")).expect("profile");
    for expected in [
        "    second_model:\n      model_uuid: 7c3e8a34-8a47-4f0e-b3a6-2a9d2f9c7e02\n",
        "  secret_fields:\n  - password\n  - memo\n",
        "memo: ${USERS_MEMO}",
        "\nca_cert: ca.pem\n",
    ] {
        assert!(profile.contains(expected), "{expected:?} in {profile}");
    }
    assert!(!profile.contains("m-77-private"), "{profile}");
    assert!(work.join("conformance/ca.pem").is_file());
    let workflow =
        std::fs::read_to_string(work.join(".github/workflows/conformance.yml")).expect("workflow");
    let parsed: serde_yaml::Value = serde_yaml::from_str(&workflow).expect("YAML");
    let steps = parsed["jobs"]["conformance"]["steps"]
        .as_sequence()
        .expect("steps");
    let step = |name: &str| {
        steps
            .iter()
            .find(|s| s["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("no step {name}: {workflow}"))
    };
    let install = step("Install conformance (from source, pinned)");
    assert_eq!(
        install["env"]["RUNNER_REV"].as_str(),
        Some("0123456789abcdef")
    );
    assert_eq!(
        step("Start the server")["env"]["CA_CERT"].as_str(),
        Some("conformance/ca.pem")
    );
    assert!(workflow.contains("--cacert \"$GITHUB_WORKSPACE/$CA_CERT\""));
    let gate = step("Conformance (release gate)");
    assert_eq!(
        gate["env"]["USERS_MEMO"].as_str(),
        Some("${{ secrets.CONFORMANCE_USERS_MEMO }}")
    );
    // The profile init wrote is the one a bare command finds; with it,
    // the environments check can run.
    let o = command(&work, &["check-profile"])
        .env("BASE_URL", "https://127.0.0.1:9")
        .env("CLIENT_SECRET", "s3cr3t-value-1")
        .env("USERS_TOKEN", "tok-1")
        .env("USERS_PASSWORD", "pw-1")
        .env("USERS_MEMO", "m-77-private")
        .output()
        .expect("runs");
    let said = text(&o);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{said}");
    assert!(
        said.contains("using the profile conformance/profile.yaml"),
        "{said}"
    );
    assert!(said.contains("Profile conformance/profile.yaml:"), "{said}");
    assert!(!said.contains("state/environments"), "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}
