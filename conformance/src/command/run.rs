//! A run (`conformance` with no subcommand): the checks against the target
//! the profile names (or the built-in server), the reports in every format
//! asked for, the human report on standard output, and the gate's exit
//! code; outside CI, what CI would say of the same profile.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use conformance_model::profile::Profile;
use conformance_report::report::{Report, human};
use conformance_suite::baseline::{Baseline, Date};
use conformance_suite::catalogue::Level;
use conformance_suite::generate::Generation;
use conformance_suite::runner::{Plan, RunOptions};
use conformance_suite::snapshot::{SnapshotOptions, SnapshotUpdate};
use conformance_wire::transport::Limits;

use super::embedded::{SHIPPED_PROFILE, SHIPPED_PROFILE_NAME, SHIPPED_SNAPSHOTS};
use super::{ConnectArgs, connect_from, fail, parse_duration, parse_rate, target_given};
use crate::formats::RunReports;
use crate::out;

#[derive(Args)]
pub struct RunArgs {
    /// Target profile (YAML): the server to test. Default:
    /// conformance/profile.yaml, then conformance.yaml, looked for from
    /// here up to the repository's root (the first line on standard error
    /// names the one used). Only where none is found, and outside CI, the
    /// built-in reference server is tested; under `CI=true` that is
    /// refused (exit 2): pass `--embedded` to mean it. A FILE that does
    /// not exist is exit 2.
    #[arg(long, value_name = "FILE", env = "CONFORMANCE_PROFILE")]
    pub profile: Option<PathBuf>,
    /// Test the built-in reference server, started in-process on an
    /// ephemeral port of 127.0.0.1, with the shipped profile and snapshots.
    #[arg(long, conflicts_with = "profile")]
    pub embedded: bool,
    /// Snapshot folder. Default: `snapshots/` beside the profile.
    #[arg(long, value_name = "DIR", env = "CONFORMANCE_SNAPSHOTS")]
    pub snapshots: Option<PathBuf>,
    /// Run the rule checks only, without snapshot assertions.
    #[arg(long, conflicts_with_all = ["accept", "snapshots"])]
    pub no_snapshots: bool,
    /// Record new and changed snapshots (rule checks still judge).
    #[arg(long)]
    pub accept: bool,
    /// Run only these checks: ids, id prefixes or sections (repeat or comma-separate).
    #[arg(long, value_delimiter = ',', value_name = "ID|SECTION")]
    pub only: Vec<String>,
    /// Leave out these checks: ids, id prefixes or sections.
    #[arg(long, value_delimiter = ',', value_name = "ID|SECTION")]
    pub skip: Vec<String>,
    /// SHOULD failures fail the run too.
    #[arg(long, env = "CONFORMANCE_STRICT")]
    pub strict: bool,
    /// The reports, one flag per format (`conformance::formats`).
    #[command(flatten)]
    pub reports: RunReports,
    /// Known failures (YAML): listed checks that fail are KNOWN and do not
    /// fail the run until their entry expires.
    #[arg(long, value_name = "FILE", env = "CONFORMANCE_BASELINE")]
    pub baseline: Option<PathBuf>,
    /// Write the entries for this run's failures here (reason and expiry to
    /// fill in; what --baseline said of them is kept).
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Per-request time-out, e.g. `5s`, `500ms` (default 5s).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", env = "CONFORMANCE_TIMEOUT")]
    pub timeout: Option<Duration>,
    /// The whole run's deadline, e.g. `2m`, `90s` (default 10m): a check
    /// not finished by then is not judged, saying so, and a server's limit
    /// whose wait would end after it stops the run's sending at once (exit
    /// 3 where nothing failed). While a run waits, a progress line goes to
    /// standard error every 10 s.
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", env = "CONFORMANCE_DEADLINE")]
    pub deadline: Option<Duration>,
    /// Requests in flight at once (default 16).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..), env = "CONFORMANCE_CONCURRENCY")]
    pub concurrency: Option<u16>,
    /// Requests started per second, at most, to stay under a server's rate
    /// limit (default: no limit).
    #[arg(long, value_name = "N", value_parser = parse_rate, env = "CONFORMANCE_RATE")]
    pub rate: Option<f64>,
    /// Times a 429 or 503 with Retry-After is waited for (as long as the
    /// wait ends before the deadline) and re-sent, each one reported
    /// (default 8; 0: never). A request with no answer within --timeout is
    /// sent 3 times in all, fewer in flight after each time-out, before
    /// its check is not judged.
    #[arg(long, value_name = "N")]
    pub retries: Option<u32>,
    /// Seed of the generated cases (default 2718, printed in the report):
    /// the same seed sends the same requests.
    #[arg(long, value_name = "N", env = "CONFORMANCE_SEED")]
    pub seed: Option<u64>,
    /// Generated bodies per component and operation (default 32).
    #[arg(long, value_name = "N")]
    pub cases: Option<u32>,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

/// Runs with `args`: sets insta's mode while this is the only thread,
/// starts the async runtime, and runs.
pub fn main(args: RunArgs) -> ExitCode {
    // insta reads its mode from the environment: set it now, while this is
    // the only thread, before the async runtime starts its workers.
    if !args.no_snapshots {
        let update = SnapshotUpdate::from_flags(args.accept, SnapshotUpdate::ci_from_env());
        // SAFETY: no other thread has started: the runtime is built below.
        if let Err(e) = unsafe { conformance_suite::snapshot::configure(update) } {
            return fail(&e.to_string());
        }
        conformance_suite::snapshot::quiet_snapshot_panics();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
    };
    let mut args = args;
    if !args.embedded {
        match super::target::resolve(args.profile.take()) {
            Ok(found) => args.profile = found,
            Err(code) => return code,
        }
    }
    if let Err(code) = target_given(args.profile.is_some(), args.embedded) {
        return code;
    }
    if args.profile.is_none() {
        eprintln!(
            "conformance: testing the built-in reference server (no --profile, and no {} from here up to the repository's root)",
            super::target::CANDIDATES.join(" or ")
        );
    }
    runtime.block_on(run_cli(args))
}

async fn run_cli(args: RunArgs) -> ExitCode {
    // Every file this run writes, checked before any request is sent.
    let mut named: Vec<(Option<&Path>, String)> = args
        .reports
        .0
        .iter()
        .map(|(f, p)| (Some(p.as_path()), format!("the {} report", f.name)))
        .collect();
    named.push((args.write_baseline.as_deref(), "the baseline".to_owned()));
    if let Err(e) = file_writer::check_all(named.iter().map(|(p, w)| (*p, w.as_str()))) {
        return fail(&e.to_string());
    }
    if let (Some(dir), true) = (&args.snapshots, args.accept) {
        if let Err(e) = file_writer::check_folder(dir, "the snapshots") {
            return fail(&e.to_string());
        }
    }
    let mut limits = Limits::default();
    if let Some(t) = args.timeout {
        limits.timeout = t;
    }
    if let Some(n) = args.concurrency {
        limits.concurrency = usize::from(n);
    }
    limits.rate = args.rate;
    if let Some(n) = args.retries {
        limits.retries = n;
    }
    let update = SnapshotUpdate::from_flags(args.accept, SnapshotUpdate::ci_from_env());
    let mut connect = match connect_from(&args.connect) {
        Ok(c) => c,
        Err(e) => return fail(&e.to_string()),
    };

    // A bad baseline is found before any request is sent.
    let baseline = match &args.baseline {
        Some(path) => match Baseline::from_path(path) {
            Ok(b) => Some(b),
            Err(e) => return fail(&e.to_string()),
        },
        None => None,
    };

    let profile_name = args
        .profile
        .as_ref()
        .map_or(SHIPPED_PROFILE_NAME.to_owned(), |p| p.display().to_string());
    let (profile, default_snapshots, server) = match &args.profile {
        Some(path) => match Profile::from_path(path) {
            Ok(p) => (p, snapshots_beside(path), None),
            Err(e) => return fail(&e.to_string()),
        },
        None => {
            let env = |name: &str| std::env::var(name).ok();
            let mut profile =
                match Profile::from_yaml_str(SHIPPED_PROFILE, SHIPPED_PROFILE_NAME, &env) {
                    Ok(p) => p,
                    Err(e) => return fail(&e.to_string()),
                };
            let server =
                match reference_server::Server::start(reference_server::ServerOptions::default())
                    .await
                {
                    Ok(s) => s,
                    Err(e) => return fail(&format!("cannot start the reference server: {e}")),
                };
            profile.base_url = server.base_url();
            // In this process, on loopback: no proxy stands between.
            connect.no_proxy = true;
            (profile, PathBuf::from(SHIPPED_SNAPSHOTS), Some(server))
        }
    };

    // The profile's private CA, as --ca-cert would add it.
    if let Some(ca) = &profile.ca_cert {
        if let Err(e) = connect.add_ca_file(ca) {
            return fail(&format!("the profile's `ca_cert`: {e}"));
        }
    }
    let options = RunOptions {
        only: args.only,
        skip: args.skip,
        strict: args.strict,
        limits,
        connect,
        deadline: args.deadline,
        progress: true,
        generation: Generation {
            seed: args.seed.unwrap_or(Generation::default().seed),
            cases: args.cases.unwrap_or(Generation::default().cases),
        },
        snapshots: (!args.no_snapshots).then(|| SnapshotOptions {
            dir: args.snapshots.unwrap_or(default_snapshots),
            update,
        }),
    };
    // Outside CI, a run with the user's profile says what CI would do.
    let ci_verdict = args
        .profile
        .as_deref()
        .map(|path| ci_verdict(path, &profile, args.accept, args.no_snapshots));
    let definitions = conformance_wire::curl::definitions(&profile, &profile_name);
    let result = conformance_suite::runner::run(profile, &options).await;
    let embedded = server.is_some();
    if let Some(server) = server {
        server.shutdown().await;
    }
    let mut run = match result {
        Ok(r) => r,
        Err(e) => return fail(&e.to_string()),
    };
    if embedded {
        // The first line says what was tested, whoever reads the report.
        run.target = format!("the embedded reference server, {}", run.target);
    }
    // The verdict is whole before the report shows it: the baseline marks
    // what it lists, and the gate decides from these results.
    if let Some(baseline) = &baseline {
        conformance_suite::baseline::apply(&mut run, baseline, Date::today());
    }
    let mut report = Report::of(run);
    report.define_reproduction_variables(definitions);
    if let Some(path) = &args.write_baseline {
        let text = conformance_suite::baseline::write(&report.run, baseline.as_ref());
        if let Err(e) = file_writer::write(path, "the baseline", text) {
            return fail(&e.to_string());
        }
    }
    for (format, path) in args.reports.0.iter() {
        let text = match (format.run)(&report) {
            Ok(text) => text,
            Err(e) => return fail(&e),
        };
        if let Err(e) = file_writer::write(path, &format!("the {} report", format.name), text) {
            return fail(&e.to_string());
        }
    }
    if args.reports.0.to_stdout() {
        // Standard output is the report asked for (`--json -`): the human
        // report goes beside it, on standard error.
        eprint!("{}", human::render(&report, human::Style::from_env()));
    } else {
        out!("{}", human::render(&report, human::Style::from_env()));
    }
    let exit = report.run.exit_code();
    if let (Some(verdict), false) = (&ci_verdict, SnapshotUpdate::ci_from_env()) {
        eprintln!("{}", verdict(exit));
    }
    ExitCode::from(u8::try_from(exit).unwrap_or(1))
}

/// What the action would say of this profile, for a run outside CI: it
/// runs `check-profile` first (every MUST check must be able to run), then
/// the gate with `CI=true` (a missing or changed snapshot fails).
fn ci_verdict(
    path: &Path,
    profile: &Profile,
    accept: bool,
    no_snapshots: bool,
) -> Box<dyn Fn(i32) -> String> {
    let options = RunOptions::default();
    let plan = Plan::new(profile, &options);
    let must = plan
        .skipped
        .iter()
        .filter(|(c, _)| c.level_for(profile) == Level::Must)
        .count();
    let shown = path.display().to_string();
    Box::new(move |exit: i32| {
        if must > 0 {
            format!(
                "In CI: the action would fail before the gate: {must} MUST check{} cannot run with this profile, and its check-profile step exits 1 (`conformance check-profile --profile {shown}` says what to add)",
                if must == 1 { "" } else { "s" }
            )
        } else if exit != 0 {
            format!("In CI: the action would fail: this run exits {exit}")
        } else if accept {
            "In CI: the action would pass once the snapshots this run recorded are committed beside the profile".to_owned()
        } else if no_snapshots {
            "In CI: the action checks snapshots too (no --no-snapshots there): run with --accept once and commit them".to_owned()
        } else {
            "In CI: the action would pass (check-profile passes; this run passed)".to_owned()
        }
    })
}

/// `snapshots/` beside the profile file.
fn snapshots_beside(profile: &Path) -> PathBuf {
    profile
        .parent()
        .map_or_else(|| PathBuf::from("snapshots"), |d| d.join("snapshots"))
}
