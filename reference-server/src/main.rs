//! `reference-server`: the command-line shell over the library. Parses
//! flags, loads the fixture, serves until SIGINT or SIGTERM.
//!
//! Exit codes: 0 after a clean shutdown, 1 when the address cannot be bound,
//! 2 for a bad flag or a broken fixture.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use reference_server::{Fault, Fixture, Server, ServerOptions};

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
    /// No access log on stderr (for benchmarks).
    #[arg(long)]
    quiet: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.list_faults {
        list_faults();
        return ExitCode::SUCCESS;
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
        addr: SocketAddr::new(cli.host, cli.port),
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
    runtime.block_on(serve(options))
}

async fn serve(options: ServerOptions) -> ExitCode {
    let addr = options.addr;
    let fault = options.fault;
    // Handlers go in before the listening line: a supervisor that signals
    // as soon as it reads the line must find them there.
    let signals = match Signals::install() {
        Ok(signals) => signals,
        Err(e) => {
            eprintln!("reference-server: cannot install signal handlers: {e}");
            return ExitCode::FAILURE;
        }
    };
    let server = match Server::start(options).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("reference-server: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The first stdout line is a contract: scripts wait for it to learn the port.
    println!("listening on {}", server.base_url());
    let _ = std::io::stdout().flush();
    if let Some(fault) = fault {
        eprintln!(
            "reference-server: fault `{fault}` (section {}): {}",
            fault.section(),
            fault.rule()
        );
    }
    signals.wait().await;
    server.shutdown().await;
    ExitCode::SUCCESS
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
        println!(
            "{:width$}  §{:<4} {}",
            fault.name(),
            fault.section(),
            fault.rule()
        );
    }
}
