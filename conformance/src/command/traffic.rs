//! `proxy` and `audit`: real traffic judged by the rules one exchange can
//! settle, through the validating proxy or from a HAR recording, the report
//! printed and written in every format asked for.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use conformance_model::profile::Profile;

use std::sync::{Arc, Mutex};

use super::{ConnectArgs, connect_from, fail, parse_duration};
use crate::formats::{ReportFiles, TrafficReports};
use crate::traffic::audit::judge_stream;
use crate::traffic::{Input, Known, lock};
use crate::{out, outln};
use traffic_rules::Tally;

/// The most threads `--threads` takes (a runtime's workers beyond the
/// machine's cores only take turns).
const MAX_THREADS: i64 = 64;

// `proxy`'s flags (no doc comment: clap would take it for the help).
#[derive(Args)]
pub struct ProxyArgs {
    /// Where to listen (default: a free port on 127.0.0.1, printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub listen: std::net::SocketAddr,
    /// Stop after this many exchanges (at least 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub exchanges: Option<u64>,
    /// Stop after this long, e.g. `10m`.
    #[arg(long = "for", value_parser = parse_duration, value_name = "DURATION")]
    pub duration: Option<Duration>,
    #[command(flatten)]
    pub reports: TrafficReports,
    /// How often the reports are written while running (default 10s).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub every: Option<Duration>,
    /// Exit 1 when a MUST rule was broken, or when no exchange came (a
    /// CI job driving a client through the proxy).
    #[arg(long)]
    pub gate: bool,
    /// Threads that forward and judge, 1 to 64 (default 1: one carries
    /// tens of thousands of exchanges a second, and leaves the other cores
    /// to the client and the server it usually shares a machine with).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS))]
    pub threads: u16,
    /// How long a client may take to send a request's head (its line and
    /// headers); a connection slower than that is closed.
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", default_value = "10s")]
    pub header_timeout: Duration,
    /// Judge requests outside the interface's paths too (a page, its
    /// scripts, `/favicon.ico`) as `client/path` violations; by default
    /// they are forwarded and counted, not judged.
    #[arg(long)]
    pub judge_other_paths: bool,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

/// `proxy` with its flags, forwarding to the server `profile` names.
pub fn proxy_main(profile: Option<PathBuf>, args: ProxyArgs) -> ExitCode {
    let Some(path) = profile else {
        return fail("proxy needs the server's profile: --profile FILE");
    };
    // Every report's path checked before the listening line.
    if let Err(e) = args.reports.0.check() {
        return fail(&e);
    }
    let connect = match connect_from(&args.connect) {
        Ok(c) => c,
        Err(e) => return fail(&e.to_string()),
    };
    let profile = match Profile::from_path(&path) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    let options = crate::traffic::ProxyOptions {
        listen: args.listen,
        max_exchanges: args.exchanges,
        duration: args.duration,
        connect,
        header_timeout: args.header_timeout,
        judge_other_paths: args.judge_other_paths,
        ..Default::default()
    };
    proxy(
        profile,
        options,
        args.reports.0,
        args.every,
        args.gate,
        args.threads,
    )
}

// `audit`'s arguments (no doc comment: clap would take it for the help).
#[derive(Args)]
pub struct AuditArgs {
    /// The recording: a HAR file, or NDJSON (one HAR entry a line); `-`
    /// reads either from standard input as it arrives.
    #[arg(value_name = "FILE|-")]
    pub har: PathBuf,
    #[command(flatten)]
    pub reports: TrafficReports,
    /// How often the reports are written while the recording is read
    /// (default 10s; a report to standard output is written once, at the
    /// end).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub every: Option<Duration>,
    /// Judge requests outside the interface's paths too (the page, its
    /// scripts, `/favicon.ico`) as `client/path` violations; by default
    /// they are counted, not judged.
    #[arg(long)]
    pub judge_other_paths: bool,
}

/// `audit`: the recording judged against the server `profile` names, the
/// reports written every `--every` while it is read and at its end (or at
/// Ctrl-C or SIGTERM, as the proxy's).
pub fn audit_main(profile: Option<PathBuf>, args: AuditArgs) -> ExitCode {
    let Some(path) = profile else {
        return fail("audit needs the server's profile: --profile FILE");
    };
    let outputs = args.reports.0;
    if let Err(e) = outputs.check() {
        return fail(&e);
    }
    let profile = match Profile::from_path(&path) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    let input = Input::from_arg(&args.har);
    let target = match &input {
        Input::Stdin => format!("traffic read from standard input (for {profile})"),
        Input::File(path) => format!("traffic recorded in {} (for {profile})", path.display()),
    };
    let knows = Known::new(&profile);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let (done, mut finished) = tokio::sync::oneshot::channel();
    {
        let tally = tally.clone();
        let other_paths = args.judge_other_paths;
        // Reading blocks (a pipe waits for its writer): its own thread,
        // which the process leaves behind when a signal ends it.
        std::thread::spawn(move || {
            let _ = done.send(judge_stream(&input, &knows, other_paths, &tally));
        });
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
    };
    let periodic = outputs.without_stdout();
    runtime.block_on(async move {
        let snapshot = || lock(&tally).clone();
        let mut sigterm = terminate_signal();
        let mut tick = tokio::time::interval(args.every.unwrap_or(Duration::from_secs(10)));
        tick.tick().await;
        loop {
            tokio::select! {
                read = &mut finished => {
                    match read {
                        Ok(Ok(_)) => break,
                        Ok(Err(e)) => return fail(&e),
                        Err(_) => return fail("the recording's reader stopped"),
                    }
                }
                // Ctrl-C; a handler that could not be set ends nothing.
                Ok(()) = tokio::signal::ctrl_c() => break,
                () = terminated(&mut sigterm) => break,
                _ = tick.tick() => {
                    if periodic.any() {
                        if let Err(e) = crate::formats::write_traffic(&periodic, &snapshot(), &target) {
                            return fail(&e);
                        }
                    }
                }
            }
        }
        report(&snapshot(), &target, &outputs, true)
    })
}

/// `proxy`: runs until its count, its time or Ctrl-C, writing the reports
/// as it goes.
pub fn proxy(
    profile: Profile,
    options: crate::traffic::ProxyOptions,
    outputs: ReportFiles,
    every: Option<Duration>,
    gate: bool,
    threads: u16,
) -> ExitCode {
    // One thread: the runtime is this thread (no worker to hand tasks to).
    let mut builder = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(usize::from(threads));
        b
    };
    let runtime = match builder.enable_all().build() {
        Ok(r) => r,
        Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
    };
    runtime.block_on(async move {
        let upstream = profile.to_string();
        let target = format!("traffic through the proxy to {upstream}");
        let mut running = match crate::traffic::start_proxy(profile, options).await {
            Ok(p) => p,
            Err(e) => return fail(&e),
        };
        // The first stdout line is a contract, as the reference server's;
        // on standard error where standard output is a report (`--json -`).
        let listening = format!(
            "listening on {} (forwarding to {upstream})",
            running.base_url()
        );
        if outputs.to_stdout() {
            eprintln!("{listening}");
        } else {
            outln!("{listening}");
            let _ = std::io::Write::flush(&mut std::io::stdout());
        }
        let periodic = outputs.without_stdout();
        let mut sigterm = terminate_signal();
        let mut tick = tokio::time::interval(every.unwrap_or(Duration::from_secs(10)));
        tick.tick().await;
        loop {
            tokio::select! {
                _ = running.finished() => break,
                // Ctrl-C; a handler that could not be set ends nothing.
                Ok(()) = tokio::signal::ctrl_c() => break,
                // How containers and CI stop a process: as Ctrl-C, the
                // final report written and the gate's code kept.
                () = terminated(&mut sigterm) => break,
                _ = tick.tick() => {
                    if periodic.any() {
                        if let Err(e) = crate::formats::write_traffic(&periodic, &running.tally(), &target) {
                            return fail(&e);
                        }
                    }
                }
            }
        }
        running.drain(Duration::from_secs(5)).await;
        report(&running.tally(), &target, &outputs, gate)
    })
}

#[cfg(unix)]
type Terminate = Option<tokio::signal::unix::Signal>;
#[cfg(not(unix))]
type Terminate = ();

/// SIGTERM, listened for from now on (where the platform has it).
fn terminate_signal() -> Terminate {
    #[cfg(unix)]
    {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok()
    }
}

/// Resolves at the next SIGTERM; never where there is none.
async fn terminated(signal: &mut Terminate) {
    #[cfg(unix)]
    if let Some(signal) = signal {
        // `None`: no signal can come any more; that ends nothing either.
        if signal.recv().await.is_some() {
            return;
        }
    }
    let _ = signal;
    std::future::pending::<()>().await
}

/// Prints a traffic report and writes it in every format asked for;
/// where it gates, the exit code a run's report of it would have (1 on a
/// MUST violation, or when no exchange was judged). Where a report goes to
/// standard output (`--json -`), the human report goes to standard error,
/// as a run's does.
pub fn report(tally: &Tally, target: &str, outputs: &ReportFiles, gate: bool) -> ExitCode {
    let text = tally.report(None).text();
    if outputs.to_stdout() {
        eprint!("{text}");
    } else {
        out!("{text}");
    }
    if tally.exchanges() == 0 {
        eprintln!("No exchange was judged: nothing is proven (a gate fails).");
    }
    if let Err(e) = crate::formats::write_traffic(outputs, tally, target) {
        return fail(&e);
    }
    if gate {
        ExitCode::from(crate::traffic_report::exit_code(tally, target))
    } else {
        ExitCode::SUCCESS
    }
}
