//! The gate against servers it was not written with: six independent
//! implementations of the interface, written from the description alone
//! (`tests/independent/python_server.py`, Python's standard library;
//! `tests/independent/node_server.js`, Node's `node:http`;
//! `tests/independent/fastapi_server.py`, FastAPI's idioms;
//! `tests/independent/flask_server.py`, Flask's, and stateful: it records
//! the model each Authorize claims; `tests/independent/java_server/Server.java`,
//! the JDK's HTTP server, and `tests/independent/fastify_server/server.js`,
//! Fastify with its rate-limit, compression, helmet and CORS plugins: both
//! production-like, with a rate limit answered 429, claims kept per
//! environment, the replaced claim in the Authorize answer, compressed
//! answers), each making its own choices where the description is silent,
//! and some legal variants of them. Each is run as a new user would: the
//! conformance binary records snapshots with `--accept`, then runs again with
//! `CI=true` against them. A correct server passes both (exit 0).
//!
//! FastAPI, uvicorn and Flask come from the system's Python, else from the
//! tests' own virtual environment under `target/`, made on first use from
//! PyPI (`pytools`, pinned): where neither works, the test fails naming the
//! command that installs them, in CI or not. A test is skipped, saying so,
//! only when its runtime (`python3`, `node`, `java` with `javac`) or the
//! Fastify server's `node_modules` is missing (`.ci/setup` installs them);
//! under `CI=true` it fails instead. Every child is killed when its guard
//! drops, and every wait has a time limit, so a failure never leaves a
//! process behind or hangs.

use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a server may take to print its address (the Java server
/// compiles its source first: generous, so a busy machine does not fail it).
const START_LIMIT: Duration = Duration::from_secs(60);
/// How long one conformance run may take before it is killed (its own
/// `--deadline` is shorter, so it normally reports first).
const RUN_LIMIT: Duration = Duration::from_secs(180);
const RUN_DEADLINE: &str = "120s";
/// Generated bodies per component and operation: fewer than the default 32
/// keeps this file quick; the derived edge cases all still run.
const CASES: &str = "8";

/// One independent server and how it is started.
pub(crate) struct Server {
    /// The interpreter (`python3`, `node`, `java`): the test is skipped
    /// without it.
    pub(crate) program: &'static str,
    /// Arguments to the interpreter before the script.
    pub(crate) program_args: &'static [&'static str],
    /// The script, relative to `tests/independent/`.
    pub(crate) script: &'static str,
    /// Its profile, relative to `tests/independent/`.
    pub(crate) profile: &'static str,
    /// The variable the profile's `base_url` reads (`${VAR}`).
    pub(crate) url_var: &'static str,
    /// The secrets its profiles hold (client secret, tokens, secret body
    /// fields): none may appear in anything the runner writes.
    pub(crate) secrets: &'static [&'static str],
    /// How every token the server issues begins: none may appear either.
    pub(crate) issued_prefix: &'static str,
    /// What the script needs beyond its interpreter.
    pub(crate) needs: Needs,
    /// Under `CI=true`, a test of this server fails where it cannot run,
    /// instead of being skipped (`.ci/setup` installs what it needs).
    pub(crate) required_in_ci: bool,
}

const PYTHON: Server = Server {
    program: "python3",
    program_args: &[],
    script: "python_server.py",
    profile: "python.yaml",
    url_var: "PYTHON_SERVER_URL",
    secrets: &["py-secret-Zr4u", "ledger-token-py-7781", "open-sesame-1"],
    issued_prefix: "py-issued-",
    needs: Needs::Nothing,
    required_in_ci: true,
};

const NODE: Server = Server {
    program: "node",
    program_args: &[],
    script: "node_server.js",
    profile: "node.yaml",
    url_var: "NODE_SERVER_URL",
    secrets: &[
        "node-secret-Kp8w",
        "vault-token-node-4242",
        "correct-horse-battery",
    ],
    issued_prefix: "node-issued-",
    needs: Needs::Nothing,
    required_in_ci: true,
};

const FASTAPI: Server = Server {
    program: "python3",
    program_args: &[],
    script: "fastapi_server.py",
    profile: "fastapi.yaml",
    url_var: "FASTAPI_SERVER_URL",
    secrets: &["fa-secret-Wq3n", "users-token-fa-5150", "fa-horse-staple"],
    // It issues no token; the prefix is looked for all the same.
    issued_prefix: "fa-issued-",
    needs: Needs::Python(&["fastapi", "uvicorn"]),
    required_in_ci: true,
};

pub(crate) const FLASK: Server = Server {
    program: "python3",
    program_args: &[],
    script: "flask_server.py",
    profile: "flask.yaml",
    url_var: "FLASK_SERVER_URL",
    secrets: &[
        "fl-secret-Hm7t",
        "vault-token-fl-3141",
        "fl-analytical-engine",
    ],
    issued_prefix: "fl-issued-",
    needs: Needs::Python(&["flask"]),
    required_in_ci: true,
};

/// What a server needs beyond its interpreter.
#[derive(Clone, Copy)]
pub(crate) enum Needs {
    Nothing,
    /// Python modules beyond the standard library the script imports.
    Python(&'static [&'static str]),
    /// npm packages, installed (`npm ci`) in the script's own folder.
    Node(&'static [&'static str]),
    /// A JDK, not only a JRE: `java Server.java` compiles the source first.
    Javac,
}

/// Java 17, the JDK only, launched from its source (no build step): a
/// token bucket of 200 requests a second per client, gzip, claims per
/// environment (none meaning `live`), the replaced claim in the Authorize
/// answer.
const JAVA: Server = Server {
    program: "java",
    // Compiled once per test binary (`java_classes`); the quick tier of
    // the JIT and the serial collector keep the server light.
    program_args: &["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"],
    script: "java_server/Server.java",
    profile: "java.yaml",
    url_var: "JAVA_SERVER_URL",
    secrets: &[
        "jv-secret-Qx9d",
        "ledger-token-jv-2718",
        "jv-ledger-passphrase",
    ],
    issued_prefix: "jv-issued-",
    needs: Needs::Javac,
    required_in_ci: true,
};

/// Fastify 5 with @fastify/rate-limit (200 a second per address),
/// @fastify/compress (br, gzip), @fastify/helmet and @fastify/cors: claims
/// per environment (none meaning `dev`), the replaced claim in the
/// Authorize answer, Fastify's own answers where Fastify answers.
const FASTIFY: Server = Server {
    program: "node",
    program_args: &[],
    script: "fastify_server/server.js",
    profile: "fastify.yaml",
    url_var: "FASTIFY_SERVER_URL",
    secrets: &[
        "fy-secret-Lm2v",
        "inv-token-fy-9001",
        "fy-inventory-api-key-77",
    ],
    // It issues no token; the prefix is looked for all the same.
    issued_prefix: "fy-issued-",
    needs: Needs::Node(&[
        "fastify",
        "@fastify/rate-limit",
        "@fastify/compress",
        "@fastify/helmet",
        "@fastify/cors",
        "ajv",
    ]),
    required_in_ci: true,
};

pub(crate) fn independent_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/independent")
}

/// A child process killed (and reaped) when dropped.
pub(crate) struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A fresh folder under the system's temporary folder, removed when dropped.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(label: &str) -> TempDir {
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

/// The program that runs `server` here: its interpreter, or for a Python
/// server with imports, a Python that has them ([`super::pytools`]); why
/// not, if it cannot (its program is not on the PATH, or what it needs
/// beyond it is not installed).
fn available(server: &Server) -> Result<PathBuf, String> {
    on_path(server.program)?;
    let quiet = |cmd: &mut Command| {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    match server.needs {
        Needs::Nothing => Ok(PathBuf::from(server.program)),
        // Never skipped: installed on first use, or a failure naming the fix.
        Needs::Python(modules) => match super::pytools::python_with(modules) {
            Ok(python) => Ok(python),
            Err(why) => panic!("{} cannot run: {why}", server.script),
        },
        Needs::Node(packages) => {
            let folder = independent_dir()
                .join(server.script)
                .parent()
                .expect("the script is in a folder")
                .to_path_buf();
            let list = packages
                .iter()
                .map(|p| format!("'{p}'"))
                .collect::<Vec<_>>()
                .join(",");
            let resolved = quiet(Command::new(server.program).current_dir(&folder).args([
                "-e",
                &format!("for (const p of [{list}]) require.resolve(p)"),
            ]));
            if resolved {
                Ok(PathBuf::from(server.program))
            } else {
                Err(format!(
                    "its npm packages are not installed (`npm ci` in {})",
                    folder.display()
                ))
            }
        }
        Needs::Javac => on_path("javac")
            .map(|()| PathBuf::from(server.program))
            .map_err(|why| {
                format!(
                    "{why}: `java Server.java` needs a JDK (`apt-get install default-jdk-headless`)"
                )
            }),
    }
}

/// Whether the tests run as CI runs them (`CI` set, and not `false` or `0`).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The program that runs the case `label` of `server`; `None` when it
/// cannot run here: skipped, saying so; under `CI=true` a server
/// `required_in_ci` fails the test instead.
pub(crate) fn program_for(server: &Server, label: &str) -> Option<PathBuf> {
    let why = match available(server) {
        Ok(program) => return Some(program),
        Err(why) => why,
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
    None
}

/// Starts `server` with `variants` on an ephemeral port; its guard and its
/// base URL (read from the first line it prints).
fn start(server: &Server, program: &Path, variants: &[&str], logs: &Path) -> (ChildGuard, String) {
    start_with(server, program, variants, &[], logs)
}

/// The folder of `server`'s compiled classes (its script is Java source),
/// compiled by `javac` at the first call of the test binary.
fn java_classes(server: &Server) -> String {
    static CLASSES: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    let compiled = CLASSES.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("java-server-{}", std::process::id()));
        let status = Command::new("javac")
            .args(["-nowarn", "-d"])
            .arg(&out)
            .arg(independent_dir().join(server.script))
            .status()
            .map_err(|e| format!("cannot run javac: {e}"))?;
        match status.success() {
            true => Ok(out.to_string_lossy().into_owned()),
            false => Err(format!("javac {} failed: {status}", server.script)),
        }
    });
    compiled.clone().unwrap_or_else(|why| panic!("{why}"))
}

/// As [`start`], with `extra` arguments to the script.
pub(crate) fn start_with(
    server: &Server,
    program: &Path,
    variants: &[&str],
    extra: &[&str],
    logs: &Path,
) -> (ChildGuard, String) {
    let mut cmd = Command::new(program);
    cmd.args(server.program_args);
    match server.script.strip_suffix(".java") {
        // Compiled once for the whole test binary, not at each start:
        // `java Server.java` spent seconds of both cores in javac every
        // time, and the Java tests start it a dozen times.
        Some(_) => cmd.args(["-cp", &java_classes(server), "Server"]),
        None => cmd.arg(independent_dir().join(server.script)),
    };
    cmd.args(["--port", "0"])
        .args(extra)
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
pub(crate) struct Run {
    pub(crate) status: Option<ExitStatus>,
    pub(crate) output: String,
}

impl Run {
    pub(crate) fn passed(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    pub(crate) fn describe(&self) -> String {
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
pub(crate) fn conformance_named(
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
    let Some(program) = program_for(server, &label) else {
        return;
    };
    let dir = TempDir::new(&format!("{}-{label}", server.program));
    let snapshots = dir.0.join("snapshots");
    let profile = profile_for(profile, edit, &dir.0);
    let (_server, url) = start(server, &program, variants, &dir.0);
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
    let Some(program) = program_for(server, fault) else {
        return;
    };
    let dir = TempDir::new(&format!("{}-{fault}", server.program));
    let profile = independent_dir().join(server.profile);
    let (_server, url) = start(server, &program, &[fault], &dir.0);
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
    deterministic_at_any_concurrency(&FLASK, RUNS_EACH, false);
}

/// The same against one process of `server`: recorded once, then `runs_each`
/// CI runs at each of [`CONCURRENCIES`]. For a server that limits its rate
/// (`limited`), how many answers were limited and re-sent depends on timing
/// as latency does: the report's `pace` and any count of limited or re-sent
/// answers in its `summary` are left out of the comparison; every verdict
/// stays in it.
fn deterministic_at_any_concurrency(server: &Server, runs_each: usize, limited: bool) {
    let label = "determinism at concurrency 1, 16, 64";
    let Some(program) = program_for(server, label) else {
        return;
    };
    let dir = TempDir::new(&format!("{}-determinism", server.program));
    let snapshots = dir.0.join("snapshots");
    let profile = independent_dir().join(server.profile);
    let (mut child, url) = start(server, &program, &[], &dir.0);
    let accept = conformance(server, &profile, &url, &snapshots, false, &dir.0);
    assert!(
        accept.passed(),
        "{}: --accept {}\n{}",
        server.script,
        accept.describe(),
        accept.output
    );
    let recorded = crate::determinism::files_under(&snapshots);
    assert!(!recorded.is_empty(), "--accept recorded no snapshot");

    let mut failures = Vec::new();
    let mut reports = Vec::new();
    for concurrency in CONCURRENCIES {
        for round in 1..=runs_each {
            let name = format!("ci-concurrency-{concurrency}-run-{round}");
            let run = conformance_named(
                server,
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
            let report = dir.0.join(format!("{name}.json"));
            if limited {
                without_limit_counts(&report);
            }
            reports.push((name.clone(), report));
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
        child.0.try_wait().ok().flatten().is_none(),
        "{} ended during the runs; its stderr: {}",
        server.script,
        fs::read_to_string(dir.0.join("server.stderr")).unwrap_or_default()
    );
    let leaked = leaks(server, &dir.0);
    assert!(leaked.is_empty(), "secrets written: {}", leaked.join(", "));
    assert_eq!(runs, CONCURRENCIES.len() * runs_each);
    assert!(
        failures.is_empty(),
        "{runs} CI runs against one {} process did not all give the first run's verdict \
         ({} problem(s)):\n{}",
        server.script,
        failures.len(),
        failures.join("\n\n")
    );
}

/// Rewrites the `--json` report at `path` without what a rate limit makes
/// vary run to run: `pace` (the pace kept and the requests re-sent), and
/// every count in `summary` whose name speaks of limits or re-sending. A
/// missing or unreadable report is left as it is (the comparison reports it).
fn without_limit_counts(path: &Path) {
    let Ok(bytes) = fs::read(path) else {
        return;
    };
    let Ok(mut report) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return;
    };
    if let Some(top) = report.as_object_mut() {
        top.remove("pace");
        if let Some(summary) = top.get_mut("summary").and_then(|s| s.as_object_mut()) {
            summary.retain(|k, _| {
                !(k.contains("limit") || k.contains("retr") || k.contains("resent"))
            });
        }
    }
    fs::write(
        path,
        serde_json::to_vec_pretty(&report).expect("serialise a report"),
    )
    .expect("rewrite a report");
}

// --- the Java server (JDK only; a rate limit, state, environments, gzip) -------

/// The checks that the faults of the two production-like servers break.
/// The runner of issue 33 judges every limit answer as an error answer and
/// sends `Accept-Encoding` on a probe set that includes refusals: a limiter
/// outside the envelope and a compressed refusal without its Content-Type
/// both fail `answers/errors-are-envelopes`. A claim made in `dev` and read
/// in `live` fails the check that claims a component's two models in the
/// two environments and reads each back (its id is this constant).
const ENVELOPE_CHECK: &str = "answers/errors-are-envelopes";
const ENV_LEAK_CHECK: &str = "state/environments";
/// A limit answer outside the envelope.
const LIMIT_CHECK: &str = "answers/limit-answers-are-envelopes";

/// As written: modelUuid in the query parameter `model_uuid`, every choice
/// declared; a run at the default concurrency meets its rate limit (429,
/// Retry-After), Authorize answers carry the claim they replaced, no
/// X-Project-Env means `live`.
#[test]
fn java_server_as_written() {
    record_then_ci(&JAVA, &[], Edit::AsWritten);
}

/// No `choices:`: each of the server's choices may only warn.
#[test]
fn java_server_with_choices_undeclared() {
    record_then_ci(&JAVA, &[], Edit::NoChoices);
}

/// Adopted in two commands (`conformance choices` pasted in, then
/// record-then-CI), with legal choices of its own switched on: modelUuid in
/// the header X-Model-Uuid, the limit answered 503 (a server shedding load,
/// Retry-After as ever), every answer streamed chunked.
#[test]
fn java_server_adopted_in_two_commands() {
    record_then_ci(
        &JAVA,
        &["model-header", "limit-503", "chunked"],
        Edit::Observed,
    );
}

/// Claims kept without their environment: made in `dev`, read in `live`.
#[test]
fn java_server_fault_env_leak_is_caught() {
    fault_caught(&JAVA, "fault-env-leak", ENV_LEAK_CHECK);
}

/// The rate limiter answering `text/plain` without X-Project-Uuid.
#[test]
fn java_server_fault_limit_text_is_caught() {
    fault_caught(&JAVA, "fault-limit-text", LIMIT_CHECK);
}

/// A gzipped answer without its Content-Type.
#[test]
fn java_server_fault_compressed_no_content_type_is_caught() {
    fault_caught(&JAVA, "fault-compressed-no-content-type", ENVELOPE_CHECK);
}

/// A token Authorize issued for one component taken for every component.
#[test]
fn java_server_fault_token_any_component_is_caught() {
    fault_caught(&JAVA, "fault-token-any-component", "near-miss/x-auth-token");
}

/// A body that breaks the field rules answered 400 (a framework's
/// "validation failed" page made JSON), not 417.
#[test]
fn java_server_fault_validation_400_is_caught() {
    fault_caught(
        &JAVA,
        "fault-validation-400",
        "validation/authorize/invalid-body",
    );
}

/// One Java process, recorded once, then CI at concurrency 1, 16 and 64:
/// one verdict, whatever the rate limit and the claims earlier runs left.
#[test]
fn java_server_deterministic_at_any_concurrency() {
    deterministic_at_any_concurrency(&JAVA, 1, true);
}

// --- the Fastify server (rate-limit, compress, helmet, cors) ---------------------

/// As written: modelUuid in the header X-Model-Id, every choice declared;
/// @fastify/rate-limit's 429s, @fastify/compress's br and gzip, helmet's
/// headers, Fastify's own 404 outside /v2/api, no X-Project-Env meaning `dev`.
#[test]
fn fastify_server_as_written() {
    record_then_ci(&FASTIFY, &[], Edit::AsWritten);
}

/// No `choices:`: each of the server's choices may only warn.
#[test]
fn fastify_server_with_choices_undeclared() {
    record_then_ci(&FASTIFY, &[], Edit::NoChoices);
}

/// Adopted in two commands (`conformance choices` pasted in, then
/// record-then-CI), with legal choices of its own switched on: modelUuid in
/// the query parameter `modelUuid`, the limit kept per X-Client-Id (the
/// wrong ids the checks send each get a window of their own).
#[test]
fn fastify_server_adopted_in_two_commands() {
    record_then_ci(
        &FASTIFY,
        &["model-query", "limit-by-client"],
        Edit::Observed,
    );
}

/// Claims kept without their environment: made in `dev`, read in `live`.
#[test]
fn fastify_server_fault_env_leak_is_caught() {
    fault_caught(&FASTIFY, "fault-env-leak", ENV_LEAK_CHECK);
}

/// @fastify/rate-limit's answer turned into `text/plain` without
/// X-Project-Uuid.
#[test]
fn fastify_server_fault_limit_text_is_caught() {
    fault_caught(&FASTIFY, "fault-limit-text", LIMIT_CHECK);
}

/// A compressed answer whose Content-Type an onSend hook removed.
#[test]
fn fastify_server_fault_compressed_no_content_type_is_caught() {
    fault_caught(&FASTIFY, "fault-compressed-no-content-type", ENVELOPE_CHECK);
}

/// Bodies validated with type coercion, as Fastify's own Ajv does: "7"
/// taken for 7.
#[test]
fn fastify_server_fault_ajv_coerce_is_caught() {
    fault_caught(
        &FASTIFY,
        "fault-ajv-coerce",
        "fields/breaking-bodies-fail-validation",
    );
}

/// No `frameworkErrors`: a ref Fastify cannot decode (`%FF%FE`) answered
/// with Fastify's own 400, outside the envelope.
#[test]
fn fastify_server_fault_framework_errors_is_caught() {
    fault_caught(&FASTIFY, "fault-framework-errors", "near-miss/odd-refs");
}

/// One Fastify process, recorded once, then CI at concurrency 1, 16 and
/// 64: one verdict, whatever the rate limit and the claims earlier runs left.
#[test]
fn fastify_server_deterministic_at_any_concurrency() {
    deterministic_at_any_concurrency(&FASTIFY, 1, true);
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
    let Some(program) = program_for(&FLASK, "overlay") else {
        return;
    };
    let dir = TempDir::new("flask-overlay");
    let (_server, url) = start(&FLASK, &program, &[], &dir.0);
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
pub(crate) fn built_externs(dir: &Path) -> Vec<Vec<String>> {
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
            .take(8)
            .map(|(_, p)| p)
            .collect::<Vec<_>>()
    };
    let probe = dir.join("probe.rs");
    fs::write(
        &probe,
        // The serde whose derives the runtime's own traits accept (one
        // build of the folder may be another's, e.g. a build script's).
        "#[derive(::serde::Serialize, ::serde::Deserialize)]\npub struct P(u8);\npub use ::client_runtime::{set_bearer, impl_new};\npub fn r() { let _ = tokio::runtime::Builder::new_current_thread().enable_all().build(); }\npub fn s(p: &P, t: &::client_runtime::Secret) -> (String, String) { (::client_runtime::serde_json::to_string(p).unwrap(), ::client_runtime::serde_json::to_string(t).unwrap()) }\npub fn d() -> P { ::client_runtime::serde_json::from_str(\"1\").unwrap() }\n",
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
