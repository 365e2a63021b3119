//! The gate against servers it was not written with: four independent
//! implementations of the interface, written from the description alone
//! (`tests/independent/python_server.py`, Python's standard library;
//! `tests/independent/node_server.js`, Node's `node:http`;
//! `tests/independent/fastapi_server.py`, FastAPI's idioms;
//! `tests/independent/flask_server.py`, Flask's, and stateful: it records
//! the model each Authorize claims), each making its own choices where the
//! description is silent, and some legal variants of them. Each is run as a new user would: the conformance binary records
//! snapshots with `--accept`, then runs again with `CI=true` against them.
//! A correct server passes both (exit 0).
//!
//! A test is skipped, saying so, only when `python3` or `node` is not on the
//! PATH, or FastAPI and uvicorn, or Flask, cannot be imported (`.ci/setup`
//! installs them); under `CI=true` a Flask test fails instead. Every child is killed when its guard drops, and every wait has a
//! time limit, so a failure never leaves a process behind or hangs.

use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a server may take to print its address.
const START_LIMIT: Duration = Duration::from_secs(15);
/// How long one conformance run may take before it is killed (its own
/// `--deadline` is shorter, so it normally reports first).
const RUN_LIMIT: Duration = Duration::from_secs(180);
const RUN_DEADLINE: &str = "120s";
/// Generated bodies per component and operation: fewer than the default 32
/// keeps this file quick; the derived edge cases all still run.
const CASES: &str = "8";

/// One independent server and how it is started.
struct Server {
    /// The interpreter (`python3`, `node`): the test is skipped without it.
    program: &'static str,
    /// The script, relative to `tests/independent/`.
    script: &'static str,
    /// Its profile, relative to `tests/independent/`.
    profile: &'static str,
    /// The variable the profile's `base_url` reads (`${VAR}`).
    url_var: &'static str,
    /// The secrets its profiles hold (client secret, tokens, secret body
    /// fields): none may appear in anything the runner writes.
    secrets: &'static [&'static str],
    /// How every token the server issues begins: none may appear either.
    issued_prefix: &'static str,
    /// Python modules beyond the standard library the script imports.
    imports: &'static [&'static str],
    /// Under `CI=true`, a test of this server fails where it cannot run,
    /// instead of being skipped (`.ci/setup` installs what it needs).
    required_in_ci: bool,
}

const PYTHON: Server = Server {
    program: "python3",
    script: "python_server.py",
    profile: "python.yaml",
    url_var: "PYTHON_SERVER_URL",
    secrets: &["py-secret-Zr4u", "ledger-token-py-7781", "open-sesame-1"],
    issued_prefix: "py-issued-",
    imports: &[],
    required_in_ci: true,
};

const NODE: Server = Server {
    program: "node",
    script: "node_server.js",
    profile: "node.yaml",
    url_var: "NODE_SERVER_URL",
    secrets: &[
        "node-secret-Kp8w",
        "vault-token-node-4242",
        "correct-horse-battery",
    ],
    issued_prefix: "node-issued-",
    imports: &[],
    required_in_ci: true,
};

const FASTAPI: Server = Server {
    program: "python3",
    script: "fastapi_server.py",
    profile: "fastapi.yaml",
    url_var: "FASTAPI_SERVER_URL",
    secrets: &["fa-secret-Wq3n", "users-token-fa-5150", "fa-horse-staple"],
    // It issues no token; the prefix is looked for all the same.
    issued_prefix: "fa-issued-",
    imports: &["fastapi", "uvicorn"],
    required_in_ci: true,
};

const FLASK: Server = Server {
    program: "python3",
    script: "flask_server.py",
    profile: "flask.yaml",
    url_var: "FLASK_SERVER_URL",
    secrets: &[
        "fl-secret-Hm7t",
        "vault-token-fl-3141",
        "fl-analytical-engine",
    ],
    issued_prefix: "fl-issued-",
    imports: &["flask"],
    required_in_ci: true,
};

fn independent_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/independent")
}

/// A child process killed (and reaped) when dropped.
struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A fresh folder under the system's temporary folder, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let label: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "conformance-independent-{label}-{}-{}-{nanos}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        fs::create_dir_all(&path).expect("create a temporary folder");
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// `true` when `program` can be started; the reason it cannot otherwise.
fn on_path(program: &str) -> Result<(), String> {
    match Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(_) => Ok(()),
        Err(e) => Err(format!("`{program}` cannot be started ({e})")),
    }
}

/// Why `server` cannot run here, if it cannot: its program is not on the
/// PATH, or a module it imports is not installed.
fn available(server: &Server) -> Result<(), String> {
    on_path(server.program)?;
    if server.imports.is_empty() {
        return Ok(());
    }
    let imported = Command::new(server.program)
        .args(["-c", &format!("import {}", server.imports.join(", "))])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    match imported {
        Ok(s) if s.success() => Ok(()),
        _ => Err(format!(
            "{} cannot be imported (`python3 -m pip install {}`)",
            server.imports.join(" and "),
            server.imports.join(" ")
        )),
    }
}

/// Whether the tests run as CI runs them (`CI` set, and not `false` or `0`).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// `true` when the case `label` of `server` cannot run here: skipped, saying
/// so; under `CI=true` a server `required_in_ci` fails the test instead.
fn unavailable(server: &Server, label: &str) -> bool {
    let Err(why) = available(server) else {
        return false;
    };
    if server.required_in_ci && in_ci() {
        panic!(
            "{} ({label}) cannot run under CI=true: {why}; `.ci/setup` installs it",
            server.script
        );
    }
    println!(
        "SKIPPED {} ({label}): {why}; install it to run this target",
        server.script
    );
    true
}

/// Starts `server` with `variants` on an ephemeral port; its guard and its
/// base URL (read from the first line it prints).
fn start(server: &Server, variants: &[&str], logs: &Path) -> (ChildGuard, String) {
    let mut cmd = Command::new(server.program);
    cmd.arg(independent_dir().join(server.script))
        .args(["--port", "0"])
        .env_remove("INDEP_VARIANTS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(File::create(logs.join("server.stderr")).expect("server log"));
    for v in variants {
        cmd.args(["--variant", v]);
    }
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {} {}: {e}", server.program, server.script));
    let stdout = child.stdout.take().expect("piped stdout");
    let guard = ChildGuard(child);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(START_LIMIT).unwrap_or_else(|_| {
        panic!(
            "{} {} printed no address within {START_LIMIT:?}; its stderr: {}",
            server.program,
            server.script,
            fs::read_to_string(logs.join("server.stderr")).unwrap_or_default()
        )
    });
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| {
            panic!(
                "{}'s first line is not `listening on URL`: {line:?}; its stderr: {}",
                server.script,
                fs::read_to_string(logs.join("server.stderr")).unwrap_or_default()
            )
        })
        .to_owned();
    (guard, url)
}

/// One conformance run: its exit status (`None` when it was killed at the
/// time limit) and everything it printed.
struct Run {
    status: Option<ExitStatus>,
    output: String,
}

impl Run {
    fn passed(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    fn describe(&self) -> String {
        match self.status {
            Some(s) => match s.code() {
                Some(code) => format!("exit {code}"),
                None => format!("ended by a signal ({s})"),
            },
            None => format!("killed after {RUN_LIMIT:?}"),
        }
    }
}

/// Runs the conformance binary against `url`; `ci` runs it as CI does
/// (`CI=true`, no `--accept`), otherwise it records with `--accept`.
fn conformance(
    server: &Server,
    profile: &Path,
    url: &str,
    snapshots: &Path,
    ci: bool,
    logs: &Path,
) -> Run {
    let name = if ci { "ci" } else { "accept" };
    conformance_named(server, profile, url, snapshots, ci, logs, name, &[])
}

/// As [`conformance`], its output and reports named after `name` (in
/// `logs`: `NAME.out`, `NAME.json`, `NAME.xml`), with `extra` arguments.
#[allow(clippy::too_many_arguments)]
fn conformance_named(
    server: &Server,
    profile: &Path,
    url: &str,
    snapshots: &Path,
    ci: bool,
    logs: &Path,
    name: &str,
    extra: &[&str],
) -> Run {
    let out_path = logs.join(format!("{name}.out"));
    let out = File::create(&out_path).expect("run log");
    let err = out.try_clone().expect("run log");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_conformance"));
    cmd.arg("--profile")
        .arg(profile)
        .arg("--snapshots")
        .arg(snapshots)
        .args(["--deadline", RUN_DEADLINE, "--cases", CASES])
        .arg("--json")
        .arg(logs.join(format!("{name}.json")))
        .arg("--junit")
        .arg(logs.join(format!("{name}.xml")))
        .args(extra)
        .env(server.url_var, url)
        .env("NO_COLOR", "1")
        .env_remove("CI")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    if ci {
        cmd.env("CI", "true");
    } else {
        cmd.arg("--accept");
    }
    let mut child = ChildGuard(cmd.spawn().expect("start the conformance binary"));
    let started = Instant::now();
    let status = loop {
        match child.0.try_wait().expect("wait for the conformance binary") {
            Some(status) => break Some(status),
            None if started.elapsed() > RUN_LIMIT => break None,
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    drop(child);
    Run {
        status,
        output: fs::read_to_string(&out_path).unwrap_or_default(),
    }
}

/// How a case changes its server's profile.
#[derive(Clone, Copy)]
enum Edit {
    /// The profile as written, its `choices:` included.
    AsWritten,
    /// Choices changed, each `(key, value)` replacing the profile's
    /// `  key: …` line (a variant chose otherwise).
    Set(&'static [(&'static str, &'static str)]),
    /// Without its `choices:` section: every choice is then ours, held at
    /// SHOULD level, so the server's own choices may warn but never fail.
    NoChoices,
    /// Without its `choices:` section, and with what `conformance choices`
    /// observes of the running server pasted in instead: the two commands a
    /// team adopts the gate with.
    Observed,
}

/// The profile to run: `file` (in `tests/independent/`) as written, or a
/// copy of it changed by `edit`.
fn profile_for(file: &str, edit: Edit, dir: &Path) -> PathBuf {
    let own = independent_dir().join(file);
    let text = fs::read_to_string(&own).expect("read the profile");
    let changed = match edit {
        Edit::AsWritten => return own,
        Edit::Set(choices) => text
            .lines()
            .map(|line| {
                // A choice is indented two spaces (a component's
                // `authorize.model_uuid` six).
                let key = line.strip_prefix("  ").and_then(|l| l.split_once(": "));
                match key.and_then(|(k, _)| choices.iter().find(|(c, _)| *c == k)) {
                    Some((k, v)) => format!("  {k}: {v}"),
                    None => line.to_owned(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Edit::NoChoices | Edit::Observed => {
            let mut in_choices = false;
            text.lines()
                .filter(|line| {
                    if line.starts_with("choices:") {
                        in_choices = true;
                    } else if !line.starts_with(' ') {
                        in_choices = false;
                    }
                    !in_choices
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
    };
    assert_ne!(changed, text, "{file}: the edit changed nothing");
    let path = dir.join(file);
    fs::write(&path, changed + "\n").expect("write the profile");
    path
}

/// Runs `conformance choices` against the server at `url` and appends what
/// it prints (a `choices:` section) to `profile`, as its output says to.
fn paste_observed_choices(server: &Server, profile: &Path, url: &str, logs: &Path) {
    let out_path = logs.join("choices.out");
    let err_path = logs.join("choices.err");
    let mut child = ChildGuard(
        Command::new(env!("CARGO_BIN_EXE_conformance"))
            .arg("choices")
            .arg("--profile")
            .arg(profile)
            .env(server.url_var, url)
            .stdin(Stdio::null())
            .stdout(File::create(&out_path).expect("choices output"))
            .stderr(File::create(&err_path).expect("choices log"))
            .spawn()
            .expect("start conformance choices"),
    );
    let started = Instant::now();
    let status = loop {
        match child.0.try_wait().expect("wait for conformance choices") {
            Some(status) => break status,
            None if started.elapsed() > RUN_LIMIT => {
                panic!("conformance choices did not end within {RUN_LIMIT:?}")
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    drop(child);
    let observed = fs::read_to_string(&out_path).unwrap_or_default();
    assert!(
        status.success() && observed.contains("choices:"),
        "conformance choices: {status}; it printed {observed:?}; stderr: {}",
        fs::read_to_string(&err_path).unwrap_or_default()
    );
    let mut text = fs::read_to_string(profile).expect("read the profile");
    text.push_str(&observed);
    fs::write(profile, text).expect("write the profile");
}

/// Every place a secret of `server` (as written, or a near miss of it the
/// runner sends: its last character removed, its letter case flipped) or a
/// token it issued appears in what the runner wrote under `dir` (snapshots,
/// output, JSON and JUnit reports; not the server's own log, nor the
/// profile copy, which holds them by design).
fn leaks(server: &Server, dir: &Path) -> Vec<String> {
    let mut forms: Vec<String> = vec![server.issued_prefix.to_owned()];
    for secret in server.secrets {
        let flipped: String = secret
            .chars()
            .map(|c| {
                if c.is_ascii_lowercase() {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect();
        for form in [secret.to_string(), flipped] {
            // Without its last character: also finds the whole secret.
            let mut cut = form.clone();
            cut.pop();
            forms.push(cut);
        }
    }
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            for entry in fs::read_dir(&path)
                .expect("read a temporary folder")
                .flatten()
            {
                pending.push(entry.path());
            }
        } else if path.file_name().is_some_and(|n| n != "server.stderr")
            && path.extension().is_none_or(|e| e != "yaml")
        {
            let text = String::from_utf8_lossy(&fs::read(&path).unwrap_or_default()).into_owned();
            for form in &forms {
                if text.contains(form.as_str()) {
                    found.push(format!("{}: `{form}`", path.display()));
                }
            }
        }
    }
    found.sort();
    found
}

/// Records then runs as CI against `server` started with `variants`, with
/// its own profile; panics with both reports unless both runs exit 0.
fn record_then_ci(server: &Server, variants: &[&str], edit: Edit) {
    record_then_ci_with(server, server.profile, variants, edit);
}

/// As [`record_then_ci`], with the profile `profile` (a variant that needs
/// the profile to say something else).
fn record_then_ci_with(server: &Server, profile: &str, variants: &[&str], edit: Edit) {
    let mut label = if variants.is_empty() {
        "as written".to_owned()
    } else {
        variants.join("+")
    };
    match edit {
        Edit::AsWritten => {}
        Edit::Set(choices) => {
            for (k, v) in choices {
                label.push_str(&format!(", {k}: {v}"));
            }
        }
        Edit::NoChoices => label.push_str(", no choices declared"),
        Edit::Observed => label.push_str(", choices as `conformance choices` observed them"),
    }
    if unavailable(server, &label) {
        return;
    }
    let dir = TempDir::new(&format!("{}-{label}", server.program));
    let snapshots = dir.0.join("snapshots");
    let profile = profile_for(profile, edit, &dir.0);
    let (_server, url) = start(server, variants, &dir.0);
    if let Edit::Observed = edit {
        paste_observed_choices(server, &profile, &url, &dir.0);
    }
    let accept = conformance(server, &profile, &url, &snapshots, false, &dir.0);
    let ci = conformance(server, &profile, &url, &snapshots, true, &dir.0);
    let leaked = leaks(server, &dir.0);
    if !(accept.passed() && ci.passed() && leaked.is_empty()) {
        panic!(
            "{} ({label}) does not pass record-then-CI: --accept {}, CI=true {}; \
             secrets written: {}\n\
             ===== conformance --accept =====\n{}\n\
             ===== CI=true conformance =====\n{}",
            server.script,
            accept.describe(),
            ci.describe(),
            if leaked.is_empty() {
                "none".to_owned()
            } else {
                leaked.join(", ")
            },
            accept.output,
            ci.output
        );
    }
}

/// Runs the suite once (recording) against `server` started with `fault`
/// (a bug, or a variant its profile does not declare); panics unless the
/// run fails (exit 1) with `check` among its failed MUST checks: the gate
/// still has teeth on a server that made choices other than ours.
fn fault_caught(server: &Server, fault: &str, check: &str) {
    if unavailable(server, fault) {
        return;
    }
    let dir = TempDir::new(&format!("{}-{fault}", server.program));
    let profile = independent_dir().join(server.profile);
    let (_server, url) = start(server, &[fault], &dir.0);
    let run = conformance(
        server,
        &profile,
        &url,
        &dir.0.join("snapshots"),
        false,
        &dir.0,
    );
    let failed = format!("FAIL  MUST   {check} ");
    assert!(
        run.status.and_then(|s| s.code()) == Some(1) && run.output.contains(&failed),
        "{} with `{fault}`: expected exit 1 with `{check}` failed, got {}\n{}",
        server.script,
        run.describe(),
        run.output
    );
}

// --- the Python server ----------------------------------------------------

/// As written: modelUuid in the `X-Model-Uuid` header, every choice declared.
#[test]
fn python_server_as_written() {
    record_then_ci(&PYTHON, &[], Edit::AsWritten);
}

/// modelUuid in the query; the other choices as written (X-Request-Id and
/// ETag on every answer, neither defined by the description).
#[test]
fn python_server_model_uuid_in_query() {
    record_then_ci(
        &PYTHON,
        &["model-query"],
        Edit::Set(&[("model_uuid", "query")]),
    );
}

/// HTTP/1.0 (a connection per answer), a GET without a body refused as
/// validation, bodies with fields of their own beyond the documented
/// shapes, an unknown ref 400, a missing credential 403, a 1 KiB body limit.
#[test]
fn python_server_with_other_legal_choices() {
    record_then_ci(
        &PYTHON,
        &[
            "no-keep-alive",
            "get-body-required",
            "extra-fields",
            "unknown-ref-400",
            "missing-credential-403",
            "tiny-body-limit",
        ],
        Edit::Set(&[
            ("unknown_ref", "400"),
            ("missing_credential", "403"),
            ("body_limit", "1024"),
        ]),
    );
}

/// A server that drifts from a choice its profile declares (an unknown ref
/// 400 where the profile says 404) fails on that choice, at MUST level.
#[test]
fn python_server_drifting_from_its_choices_is_caught() {
    fault_caught(&PYTHON, "unknown-ref-400", "choices/unknown-ref");
}

/// Error messages that repeat the credentials and token received: bad
/// practice, but nothing in the description forbids it, and the runner
/// promises to scrub every secret from what it writes.
#[test]
fn python_server_echoing_credentials() {
    record_then_ci(&PYTHON, &["echo-credentials"], Edit::AsWritten);
}

/// A query parameter the server does not read refused as validation (417);
/// modelUuid in its declared header, so a correct run sends no query.
#[test]
fn python_server_refusing_unknown_query_parameters() {
    record_then_ci(&PYTHON, &["strict-query"], Edit::AsWritten);
}

/// modelUuid in a body field.
#[test]
fn python_server_model_uuid_in_body() {
    record_then_ci(
        &PYTHON,
        &["model-body"],
        Edit::Set(&[("model_uuid", "\"body:modelUuid\"")]),
    );
}

/// One token valid for two components (the description has a single
/// `<AUTH_TOKEN>`): the profile gives it to both.
#[test]
fn python_server_one_token_for_two_components() {
    record_then_ci_with(
        &PYTHON,
        "python-shared-token.yaml",
        &["shared-token"],
        Edit::AsWritten,
    );
}

/// No `choices:` (modelUuid in the query, where ours is): each of the
/// server's other choices differs from ours and may only warn.
#[test]
fn python_server_with_choices_undeclared() {
    record_then_ci(&PYTHON, &["model-query"], Edit::NoChoices);
}

/// Adopted in two commands: `conformance choices` on a profile without
/// choices, its output pasted in, then record-then-CI (modelUuid in a body
/// field, an unknown ref 400, a missing credential 403).
#[test]
fn python_server_adopted_in_two_commands() {
    record_then_ci(
        &PYTHON,
        &["model-body", "unknown-ref-400", "missing-credential-403"],
        Edit::Observed,
    );
}

/// A secret compared with `starts_with`.
#[test]
fn python_server_fault_secret_prefix_is_caught() {
    fault_caught(&PYTHON, "fault-secret-prefix", "near-miss/x-client-secret");
}

// --- the Node server ----------------------------------------------------------

#[test]
fn node_server_as_written() {
    record_then_ci(&NODE, &[], Edit::AsWritten);
}

/// X-Project-Uuid on every answer, an ETag, a uuid without hyphens taken
/// for the same component, names and tags matched in their own letter case,
/// answers sent chunked, an unknown ref refused as validation (417), an
/// Authorize without Content-Type refused (415).
#[test]
fn node_server_with_other_legal_choices() {
    record_then_ci(
        &NODE,
        &[
            "xpu-always",
            "etag",
            "uuid-compact",
            "refs-exact",
            "chunked",
            "unknown-ref-417",
            "strict-content-type",
        ],
        Edit::Set(&[("unknown_ref", "417")]),
    );
}

/// No `choices:`: each of the server's choices may only warn.
#[test]
fn node_server_with_choices_undeclared() {
    record_then_ci(&NODE, &[], Edit::NoChoices);
}

/// Adopted in two commands (an unknown ref 417, Authorize without
/// Content-Type 415, answers chunked).
#[test]
fn node_server_adopted_in_two_commands() {
    record_then_ci(
        &NODE,
        &["unknown-ref-417", "strict-content-type", "chunked"],
        Edit::Observed,
    );
}

/// `DEV` taken for `dev`.
#[test]
fn node_server_fault_env_case_is_caught() {
    fault_caught(&NODE, "fault-env-case", "near-miss/x-project-env");
}

/// A framework's HTML page for another method on the path.
#[test]
fn node_server_fault_html_405_is_caught() {
    fault_caught(&NODE, "fault-html-405", "answers/errors-are-envelopes");
}

/// FastAPI's idioms where the description is silent: every validation error
/// a 417 whose items echo the input (a body nested 300 levels deep comes
/// back 304 deep: JSON all the same), a 400 for a body that is not JSON, no
/// body limit of its own.
#[test]
fn fastapi_server_as_written() {
    record_then_ci(&FASTAPI, &[], Edit::AsWritten);
}

/// Without its choices declared: ours at SHOULD level, warnings only.
#[test]
fn fastapi_server_with_choices_undeclared() {
    record_then_ci(&FASTAPI, &[], Edit::NoChoices);
}

/// The two commands a team adopts the gate with.
#[test]
fn fastapi_server_adopted_in_two_commands() {
    record_then_ci(&FASTAPI, &[], Edit::Observed);
}

// --- the Flask server (stateful) ------------------------------------------------

/// Flask's idioms where the description is silent (modelUuid in the JSON
/// body, 401 for a missing credential and 403 for a wrong one, 417 for an
/// unknown model or X-Project-Env, Authorize 201, a token checked where none
/// is required, a GET body not read), and state: each Authorize records its
/// model as the one Auth Claims returns for that component and environment,
/// and issues a token that stays valid.
#[test]
fn flask_server_as_written() {
    record_then_ci(&FLASK, &[], Edit::AsWritten);
}

/// No `choices:` (modelUuid in the query, where ours is): each of the
/// server's other choices differs from ours and may only warn.
#[test]
fn flask_server_with_choices_undeclared() {
    record_then_ci(&FLASK, &["model-query"], Edit::NoChoices);
}

/// modelUuid in the query; the other choices as written.
#[test]
fn flask_server_model_uuid_in_query() {
    record_then_ci(
        &FLASK,
        &["model-query"],
        Edit::Set(&[("model_uuid", "query")]),
    );
}

/// The two commands a team adopts the gate with.
#[test]
fn flask_server_adopted_in_two_commands() {
    record_then_ci(&FLASK, &[], Edit::Observed);
}

/// Auth Claims that forgets the recorded claim for a ref given by its tag
/// (`claim: null` by tag, the model by name and uuid).
#[test]
fn flask_server_fault_tag_forgets_claim_is_caught() {
    fault_caught(&FLASK, "fault-tag-forgets-claim", "refs/same-component");
}

/// A client secret compared as a prefix: anything appended is taken.
#[test]
fn flask_server_fault_secret_suffix_is_caught() {
    fault_caught(&FLASK, "fault-secret-suffix", "near-miss/x-client-secret");
}

/// Concurrency levels of the determinism test, and runs at each.
const CONCURRENCIES: [&str; 3] = ["1", "16", "64"];
const RUNS_EACH: usize = 3;

/// Determinism at any concurrency against a server with state: one Flask
/// process, never restarted, recorded once, then run as CI at concurrency
/// 1, 16 and 64, several times each. Every run exits 0, leaves the
/// snapshots as recorded, and writes a `--json` report byte-identical to
/// the first run's once timings are removed: no verdict, snapshot or count
/// depends on which of two concurrent requests landed first, nor on what
/// earlier runs left recorded in the server.
#[test]
fn flask_server_deterministic_at_any_concurrency() {
    let label = "determinism at concurrency 1, 16, 64";
    if unavailable(&FLASK, label) {
        return;
    }
    let dir = TempDir::new("flask-determinism");
    let snapshots = dir.0.join("snapshots");
    let profile = independent_dir().join(FLASK.profile);
    let (mut server, url) = start(&FLASK, &[], &dir.0);
    let accept = conformance(&FLASK, &profile, &url, &snapshots, false, &dir.0);
    assert!(
        accept.passed(),
        "flask_server.py: --accept {}\n{}",
        accept.describe(),
        accept.output
    );
    let recorded = crate::determinism::files_under(&snapshots);
    assert!(!recorded.is_empty(), "--accept recorded no snapshot");

    let mut failures = Vec::new();
    let mut reports = Vec::new();
    for concurrency in CONCURRENCIES {
        for round in 1..=RUNS_EACH {
            let name = format!("ci-concurrency-{concurrency}-run-{round}");
            let run = conformance_named(
                &FLASK,
                &profile,
                &url,
                &snapshots,
                true,
                &dir.0,
                &name,
                &["--concurrency", concurrency],
            );
            if !run.passed() {
                failures.push(format!("{name}: {}\n{}", run.describe(), run.output));
            }
            reports.push((name.clone(), dir.0.join(format!("{name}.json"))));
        }
    }
    let runs = reports.len();
    failures.extend(crate::determinism::differing_reports(&reports));
    let after = crate::determinism::files_under(&snapshots);
    if after != recorded {
        let changed: Vec<String> = recorded
            .keys()
            .chain(after.keys())
            .filter(|p| recorded.get(*p) != after.get(*p))
            .map(|p| p.display().to_string())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        failures.push(format!(
            "CI runs changed the recorded snapshots: {}",
            changed.join(", ")
        ));
    }
    assert!(
        server.0.try_wait().ok().flatten().is_none(),
        "the Flask server ended during the runs; its stderr: {}",
        fs::read_to_string(dir.0.join("server.stderr")).unwrap_or_default()
    );
    let leaked = leaks(&FLASK, &dir.0);
    assert!(leaked.is_empty(), "secrets written: {}", leaked.join(", "));
    assert_eq!(runs, CONCURRENCIES.len() * RUNS_EACH);
    assert!(
        failures.is_empty(),
        "{} of {runs} CI runs against one Flask server were not the first run's:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// A client team calling the Flask server, which chose otherwise where the
/// description is silent (Authorize 201, modelUuid in the body, bodies of
/// its own shape): `conformance choices --overlay` writes its choices as
/// an OpenAPI Overlay, the generator lays it over the spec, and the
/// bindings it writes, compiled into a program, call the server and get
/// typed answers: `Created` for Authorize with the issued token a
/// `Secret` (a type check: the program does not compile otherwise), `Ok`
/// for Auth Claims with the claim Authorize recorded.
#[test]
fn flask_server_bindings_from_its_overlay_decode_its_answers() {
    if unavailable(&FLASK, "overlay") {
        return;
    }
    let dir = TempDir::new("flask-overlay");
    let (_server, url) = start(&FLASK, &[], &dir.0);
    let overlay = dir.0.join("flask.overlay.yaml");
    let choices = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .arg("choices")
        .arg("--profile")
        .arg(independent_dir().join(FLASK.profile))
        .arg("--overlay")
        .arg(&overlay)
        .arg("--deadline")
        .arg(RUN_DEADLINE)
        .env(FLASK.url_var, &url)
        .stdin(Stdio::null())
        .output()
        .expect("run conformance choices");
    assert!(
        choices.status.success(),
        "conformance choices --overlay: {}",
        String::from_utf8_lossy(&choices.stderr)
    );
    let written = fs::read_to_string(&overlay).expect("the overlay is written");
    for secret in FLASK.secrets.iter().chain([&FLASK.issued_prefix]) {
        assert!(!written.contains(secret), "the overlay holds {secret}");
    }
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml");
    let options = generator::Options {
        overlays: vec![overlay.clone()],
        ..Default::default()
    };
    let code = generator::generate_with_options(&spec, &options)
        .unwrap_or_else(|e| panic!("the generator refused the overlay: {e}\n{written}"))
        .code;
    fs::write(dir.0.join("bindings.rs"), &code).expect("write the bindings");
    let program = format!(
        r#"
#![deny(warnings)]
#[allow(dead_code, clippy::all)]
mod bindings;
use bindings::{{AuthClaimsResponse, AuthorizeResponse, Client, Defaults}};

fn main() {{
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {{
        let mut defaults = Defaults::default();
        defaults.x_client_id = Some("flask-client".into());
        defaults.x_client_secret = Some("fl-secret-Hm7t".into());
        let client = Client::new("{url}/v2/api").unwrap().with_defaults(defaults);
        let mut fields = client_runtime::serde_json::Map::new();
        fields.insert("device".into(), "probe-7".into());
        fields.insert("sample_rate".into(), 50.into());
        fields.insert("modelUuid".into(), "f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9".into());
        let answer = client.authorize().ref_("telemetry").body(fields).send().await.unwrap();
        let printed = format!("{{answer:?}}");
        let AuthorizeResponse::Created(created) = answer else {{ panic!("Authorize: {{printed}}") }};
        let token: &client_runtime::Secret = &created.body.token;
        assert!(!token.expose().is_empty() && !printed.contains(token.expose()));
        let answer = client.auth_claims().ref_("telemetry").send().await.unwrap();
        let AuthClaimsResponse::Ok(ok) = &answer else {{ panic!("Auth Claims: {{answer:?}}") }};
        println!("Authorize: Created; Auth Claims: Ok, {{}}", ok.body.env);
    }});
}}
"#
    );
    fs::write(dir.0.join("main.rs"), program).expect("write the program");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut tried = Vec::new();
    // The folder may hold several builds of tokio: the one reqwest was
    // built with is the one whose runtime reqwest finds.
    for externs in built_externs(&dir.0) {
        let built = Command::new(&rustc)
            .args([
                "--edition=2024",
                "--crate-type=bin",
                "--crate-name=flask_client",
            ])
            .args(["-C", "debuginfo=0", "--error-format=short"])
            .arg("-o")
            .arg(dir.0.join("flask_client"))
            .args(&externs)
            .arg("main.rs")
            .current_dir(&dir.0)
            .output()
            .expect("rustc runs");
        assert!(
            built.status.success(),
            "the client does not compile:\n{}",
            String::from_utf8_lossy(&built.stderr)
        );
        let ran = Command::new(dir.0.join("flask_client"))
            .output()
            .expect("run the client");
        let said = String::from_utf8_lossy(&ran.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&ran.stderr).into_owned();
        if stderr.contains("no reactor running") {
            tried.push(stderr);
            continue;
        }
        assert!(
            ran.status.success() && said.contains("Authorize: Created; Auth Claims: Ok"),
            "{said}{stderr}"
        );
        return;
    }
    panic!("no build of tokio in the deps folder is reqwest's: {tried:?}");
}

/// `--extern` arguments for the runtime, serde and tokio from this test
/// binary's `deps` folder: the newest builds with which a probe (a serde
/// derive, the runtime's client, a tokio runtime) compiles, as the folder
/// can hold builds with other features; one set per build of tokio.
fn built_externs(dir: &Path) -> Vec<Vec<String>> {
    let deps = std::env::current_exe()
        .expect("the test binary")
        .parent()
        .expect("its folder")
        .to_owned();
    let newest = |krate: &str| {
        let prefix = format!("lib{krate}-");
        let mut found: Vec<(SystemTime, PathBuf)> = fs::read_dir(&deps)
            .expect("the deps folder")
            .filter_map(|e| {
                let e = e.ok()?;
                let name = e.file_name().into_string().ok()?;
                (name.starts_with(&prefix) && name.ends_with(".rlib"))
                    .then(|| Some((e.metadata().ok()?.modified().ok()?, e.path())))?
            })
            .collect();
        found.sort_by(|a, b| b.cmp(a));
        found
            .into_iter()
            .take(4)
            .map(|(_, p)| p)
            .collect::<Vec<_>>()
    };
    let probe = dir.join("probe.rs");
    fs::write(
        &probe,
        "#[derive(::serde::Serialize)]\npub struct P(u8);\npub use ::client_runtime::{set_bearer, impl_new};\npub fn r() { let _ = tokio::runtime::Builder::new_current_thread().enable_all().build(); }\n",
    )
    .expect("write the probe");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut sets = Vec::new();
    for tokio in newest("tokio") {
        'found: for runtime in newest("client_runtime") {
            for serde in newest("serde") {
                let externs = vec![
                    format!("-Ldependency={}", deps.display()),
                    format!("--extern=client_runtime={}", runtime.display()),
                    format!("--extern=serde={}", serde.display()),
                    format!("--extern=tokio={}", tokio.display()),
                ];
                let ok = Command::new(&rustc)
                    .args(["--edition=2024", "--crate-type=lib", "--emit=metadata"])
                    .arg(format!("--out-dir={}", dir.join("probe-out").display()))
                    .args(&externs)
                    .arg(&probe)
                    .output()
                    .is_ok_and(|o| o.status.success());
                if ok {
                    sets.push(externs);
                    break 'found;
                }
            }
        }
    }
    assert!(
        !sets.is_empty(),
        "no build of client-runtime, serde and tokio in {}",
        deps.display()
    );
    sets
}
