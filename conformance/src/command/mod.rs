//! The commands of `conformance`, one module each: what `main.rs`
//! dispatches to once clap has parsed the flags. Each takes its flags as
//! parsed and returns the exit code: 0 passed, 1 something failed, 2 a
//! usage or profile error, or a target that cannot be reached.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use conformance_suite::snapshot::SnapshotUpdate;
use conformance_wire::connect::{Connect, ConnectError};

pub mod check_profile;
pub mod choices;
pub mod coverage;
pub mod diff;
pub mod embedded;
pub mod list;
pub mod run;
pub mod target;
pub mod traffic;

/// `print!` where standard output may be closed (`conformance ... | head`):
/// the write's error is dropped, so the run still writes its report files
/// and exits with its verdict, where `print!` would panic.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

/// `println!` where standard output may be closed (see `out!`).
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Says `message` on standard error, escaped for the terminal; exit 2.
pub fn fail(message: &str) -> ExitCode {
    // A message may hold a crafted id or value: escaped for the terminal.
    eprintln!(
        "error: {}",
        conformance_report::report::escape::terminal(message)
    );
    ExitCode::from(2)
}

/// Drops the `CONFORMANCE_*` variables that are set but empty, before
/// clap reads the options from them: the action passes every input as
/// one (`CONFORMANCE_SNAPSHOTS: ${{ inputs.snapshots }}`), empty where the
/// input is not given, which means "not given", not an empty path.
pub fn drop_empty_settings() {
    let empty: Vec<std::ffi::OsString> = std::env::vars_os()
        .filter(|(k, v)| k.to_string_lossy().starts_with("CONFORMANCE_") && v.is_empty())
        .map(|(k, _)| k)
        .collect();
    for name in empty {
        // SAFETY: called first thing in `main`, before any other thread.
        unsafe { std::env::remove_var(name) };
    }
}

/// Under CI a run names its target: a forgotten `--profile` would test the
/// built-in reference server and pass on nothing of the user's. Outside
/// CI no `--profile` means the built-in server, as `--embedded` does.
pub fn target_given(profile: bool, embedded: bool) -> Result<(), ExitCode> {
    if profile || embedded || !SnapshotUpdate::ci_from_env() {
        return Ok(());
    }
    Err(fail(
        "CI is set and no --profile names the server to test: this would test the built-in reference server, not yours. Pass --profile FILE (your server's profile), or --embedded if you mean the built-in reference server",
    ))
}

/// How to reach the server: what runs, `init` and `choices` all take.
#[derive(Args)]
pub struct ConnectArgs {
    /// Also trust the CA certificate(s) in this PEM file (a private CA).
    #[arg(long, value_name = "FILE", env = "CONFORMANCE_CA_CERT")]
    pub ca_cert: Option<PathBuf>,
    /// Client certificate (PEM) for servers that ask for one (mutual TLS).
    #[arg(long, value_name = "FILE", requires = "client_key")]
    pub client_cert: Option<PathBuf>,
    /// Private key (PEM) of --client-cert.
    #[arg(long, value_name = "FILE", requires = "client_cert")]
    pub client_key: Option<PathBuf>,
    /// A header a gateway in front of the server needs, `NAME:VALUE`
    /// (repeatable). Its value is treated as a secret: never printed.
    #[arg(long = "header", value_name = "NAME:VALUE")]
    pub headers: Vec<String>,
}

/// The connection settings the flags give.
pub fn connect_from(args: &ConnectArgs) -> Result<Connect, ConnectError> {
    let mut connect = Connect::default();
    if let Some(ca) = &args.ca_cert {
        connect.add_ca_file(ca)?;
    }
    connect.set_identity(args.client_cert.as_deref(), args.client_key.as_deref())?;
    for h in &args.headers {
        connect.add_header(h)?;
    }
    Ok(connect)
}

/// A positive number of requests per second (`--rate`).
pub fn parse_rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!(
            "`{s}` is not a positive number of requests per second"
        )),
    }
}

/// A duration as humantime reads it (`5s`, `500ms`, `2m`, `1m 30s`); a bare
/// number is seconds. At most a day: a longer time-out is a typo.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let parsed = match s.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 => {
            Ok(Duration::from_secs_f64(secs))
        }
        Ok(_) => Err(()),
        Err(_) => humantime::parse_duration(s).map_err(|_| ()),
    };
    match parsed {
        Ok(d) if !d.is_zero() && d <= Duration::from_secs(86_400) => Ok(d),
        _ => Err(format!("`{s}` is not a duration such as 5s, 500ms or 2m")),
    }
}
