//! `reference-server`: the command-line shell over the library. Parses
//! flags, loads the fixture, serves until SIGINT or SIGTERM.
//!
//! Exit codes: 0 after a clean shutdown, 1 when the address cannot be bound,
//! 2 for a bad flag, a broken fixture or a bad TLS certificate or key.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use std::time::Duration;

use reference_server::{
    DEFAULT_BODY_BUDGET_WAIT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_INFLIGHT_BODY_BYTES, Fault,
    Fixture, Server, ServerOptions, TlsConfig, Variant,
};

/// `println!` where standard output may be closed (a supervisor that read
/// the listening line and closed the pipe, `--list-faults | head`): the
/// write's error is dropped, where `println!` would panic and stop the server.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// A real HTTP implementation of the Component Authentication Claims interface.
#[derive(Parser, Debug)]
#[command(name = "reference-server", version)]
struct Cli {
    /// Port to listen on; 0 picks a free one (printed on the first line).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on. Default loopback: this server is for tests.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// Fixture file (YAML). Default: the shipped fixtures/default.yaml.
    #[arg(long, value_name = "FILE")]
    fixture: Option<PathBuf>,
    /// Break one rule of the interface on purpose (see --list-faults).
    #[arg(long, value_name = "NAME")]
    fault: Option<Fault>,
    /// Print every fault with the section and rule it breaks, then exit.
    #[arg(long)]
    list_faults: bool,
    /// Choose otherwise than spec/README.md where the description is
    /// silent (see --list-variants); repeat for several.
    #[arg(long = "variant", value_name = "NAME")]
    variants: Vec<Variant>,
    /// Print every variant with what it changes and the section that
    /// allows it, then exit.
    #[arg(long)]
    list_variants: bool,
    /// No access log on stderr (for benchmarks).
    #[arg(long)]
    quiet: bool,
    /// Serve HTTPS with this certificate chain (PEM, leaf first).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Connections served at once; more wait to be accepted.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS,
          value_parser = at_least_one)]
    max_connections: usize,
    /// Request-body bytes held at once across all connections; a request
    /// whose body does not fit within 5 s is answered 503 with Retry-After.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_INFLIGHT_BODY_BYTES,
          value_parser = at_least_one)]
    max_inflight_body_bytes: usize,
    /// Wait this many milliseconds before every answer (a slow server).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    latency: u64,
    /// As a client team's mock: write here (JSON) every rule of the
    /// description its clients' requests broke, each with its section,
    /// quote, count and first examples (nothing secret). Written at start,
    /// each second the count changes and at exit (SIGINT, SIGTERM).
    #[arg(long, value_name = "FILE")]
    client_report: Option<PathBuf>,
}

fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.list_faults {
        list_faults();
        return ExitCode::SUCCESS;
    }
    if cli.list_variants {
        list_variants();
        return ExitCode::SUCCESS;
    }
    if let Some((a, b)) = Variant::first_conflict(&cli.variants) {
        eprintln!(
            "reference-server: --variant {a} and --variant {b} conflict: they choose differently for one thing"
        );
        return ExitCode::from(2);
    }
    let fixture = match &cli.fixture {
        Some(path) => match Fixture::from_path(path) {
            Ok(fixture) => fixture,
            Err(e) => {
                eprintln!("reference-server: broken fixture: {e}");
                return ExitCode::from(2);
            }
        },
        None => Fixture::default_fixture(),
    };
    let tls = match (&cli.tls_cert, &cli.tls_key) {
        (Some(cert), Some(key)) => match TlsConfig::from_pem_files(cert, key) {
            Ok(tls) => Some(tls),
            Err(e) => {
                eprintln!("reference-server: bad TLS certificate or key: {e}");
                return ExitCode::from(2);
            }
        },
        // clap requires both or neither.
        _ => None,
    };
    if tls.is_some() && cli.fault == Some(Fault::HeaderNamesCaseSensitive) {
        eprintln!(
            "reference-server: the fault `header-names-case-sensitive` reads the raw request head, \
             which TLS encrypts: run it without --tls-cert"
        );
        return ExitCode::from(2);
    }
    if !cli.quiet {
        // One line per request on stderr: method, path, status and request
        // id only (the library never logs headers or bodies, so no secret).
        use tracing_subscriber::layer::SubscriberExt as _;
        use tracing_subscriber::util::SubscriberInitExt as _;
        let _ = tracing_subscriber::registry()
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(std::io::stderr)
                    .with_ansi(false),
            )
            .with(
                tracing_subscriber::filter::Targets::new()
                    .with_target("reference_server", tracing::Level::INFO),
            )
            .try_init();
    }
    let options = ServerOptions {
        fixture,
        fault: cli.fault,
        variants: cli.variants,
        addr: SocketAddr::new(cli.host, cli.port),
        tls,
        max_connections: cli.max_connections,
        max_inflight_body_bytes: cli.max_inflight_body_bytes,
        body_budget_wait: DEFAULT_BODY_BUDGET_WAIT,
        latency: Duration::from_millis(cli.latency),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("reference-server: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(serve(options, cli.client_report))
}

async fn serve(options: ServerOptions, client_report: Option<PathBuf>) -> ExitCode {
    let addr = options.addr;
    let fault = options.fault;
    let variants = options.variants.clone();
    // Handlers go in before the listening line: a supervisor that signals
    // as soon as it reads the line must find them there.
    let signals = match Signals::install() {
        Ok(signals) => signals,
        Err(e) => {
            eprintln!("reference-server: cannot install signal handlers: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The report's path is checked before the server starts (exit 2).
    if let Some(path) = &client_report {
        if let Err(e) = file_writer::check(path, "the client report") {
            eprintln!("reference-server: {e}");
            return ExitCode::from(2);
        }
    }
    let in_place = client_report
        .as_deref()
        .is_some_and(file_writer::writes_in_place);
    let server = match Server::start(options).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("reference-server: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Written before the listening line, so a path that cannot be written
    // is said at start (not found missing after the clients' tests), and a
    // script that read the line finds the file.
    // A device or a FIFO (`/dev/stdout`) gets the report once, on exit:
    // before the listening line it would break that line's contract, and
    // a reader of a pipe would get every version one after the other.
    let mut written = None;
    if let Some(path) = client_report.as_ref().filter(|_| !in_place) {
        if let Err(e) = write_client_report(path, &server, &mut written) {
            eprintln!("reference-server: {e}");
            server.shutdown().await;
            return ExitCode::from(2);
        }
    }
    // The first stdout line is a contract: scripts wait for it to learn the port.
    outln!("listening on {}", server.base_url());
    let _ = std::io::stdout().flush();
    if let Some(fault) = fault {
        eprintln!(
            "reference-server: fault `{fault}` (section {}): {}",
            fault.section(),
            fault.rule()
        );
    }
    for variant in variants {
        eprintln!(
            "reference-server: variant `{variant}` (section {}): {}",
            variant.section(),
            variant.changes()
        );
    }
    let Some(path) = client_report else {
        signals.wait().await;
        server.shutdown().await;
        return ExitCode::SUCCESS;
    };
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
    let wait = signals.wait();
    tokio::pin!(wait);
    loop {
        tokio::select! {
            () = &mut wait => break,
            _ = tick.tick(), if !in_place => {
                if let Err(e) = write_client_report(&path, &server, &mut written) {
                    eprintln!("reference-server: {e}");
                }
            }
        }
    }
    let report = server.client_report();
    server.shutdown().await;
    written = None;
    let mut code = ExitCode::SUCCESS;
    if let Err(e) = write_report(&path, &report, &mut written) {
        eprintln!("reference-server: {e}");
        code = ExitCode::FAILURE;
    }
    if report.must_violations > 0 {
        eprint!(
            "reference-server: the clients broke rules of the description:\n{}",
            report.text()
        );
    }
    code
}

/// Writes the clients' report where its exchange count changed since the
/// last write.
fn write_client_report(
    path: &std::path::Path,
    server: &reference_server::RunningServer,
    written: &mut Option<u64>,
) -> Result<(), String> {
    write_report(path, &server.client_report(), written)
}

/// Writes `report` to `path` whole (the workspace's one writer: a
/// temporary file renamed over it, so a reader never sees half; a device
/// written in place), unless `written` says it holds this count.
fn write_report(
    path: &std::path::Path,
    report: &traffic_rules::tally::Report,
    written: &mut Option<u64>,
) -> Result<(), String> {
    if *written == Some(report.exchanges) {
        return Ok(());
    }
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| format!("cannot write the client report: {e}"))?;
    file_writer::write(path, "the client report", text + "\n").map_err(|e| e.to_string())?;
    *written = Some(report.exchanges);
    Ok(())
}

/// SIGINT and SIGTERM, registered up front.
#[cfg(unix)]
struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn install() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    async fn wait(mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
        }
    }
}

/// Ctrl-C only, where there are no Unix signals.
#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn install() -> std::io::Result<Self> {
        Ok(Signals)
    }

    async fn wait(self) {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn list_faults() {
    let width = Fault::ALL.iter().map(|f| f.name().len()).max().unwrap_or(0);
    for fault in Fault::ALL {
        outln!(
            "{:width$}  §{:<4} {}",
            fault.name(),
            fault.section(),
            fault.rule()
        );
    }
}

/// One line each: name, section, what it changes, and the spec/README.md
/// choice it departs from.
fn list_variants() {
    let width = Variant::ALL
        .iter()
        .map(|v| v.name().len())
        .max()
        .unwrap_or(0);
    for variant in Variant::ALL {
        outln!(
            "{:width$}  §{:<4} {} Departs from {}.",
            variant.name(),
            variant.section(),
            variant.changes(),
            variant.departs_from()
        );
    }
}
