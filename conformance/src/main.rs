//! `conformance`: the command-line shell over the `conformance` library.
//! Everything it does is in the library; this file parses flags, starts the
//! embedded reference server when no profile is given, prints, and exits
//! 0 (all MUST checks and snapshots pass), 1 (something failed) or 2 (a
//! usage or profile error, or a target that cannot be reached).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use conformance::catalogue::Level;
use conformance::catalogue::{markdown_table, plain_list};
use conformance::checks::catalogue;
use conformance::connect::{Connect, ConnectError};
use conformance::generate::Generation;
use conformance::profile::Profile;
use conformance::report::{human, junit};
use conformance::runner::{Plan, RunOptions, run};
use conformance::snapshot::{SnapshotOptions, SnapshotUpdate};
use conformance::target::Limits;

/// The shipped profile of the reference server's default fixture.
const SHIPPED_PROFILE: &str = include_str!("../profiles/reference.yaml");
const SHIPPED_PROFILE_NAME: &str = "conformance/profiles/reference.yaml";
const SHIPPED_SNAPSHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/profiles/snapshots");

#[derive(Parser)]
#[command(
    name = "conformance",
    version,
    about = "Checks a server against the Component Authentication Claims interface, rule by rule."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Print the check catalogue.
    List {
        /// As the Markdown table the README holds.
        #[arg(long)]
        markdown: bool,
    },
    /// Say which checks a profile lets run and what to add for the others,
    /// before any request is sent. Exit 0 when every MUST check can run,
    /// 1 when some cannot, 2 for a bad profile.
    CheckProfile {
        /// The profile (YAML).
        file: PathBuf,
        /// Only these checks: ids, id prefixes or sections.
        #[arg(long, value_delimiter = ',', value_name = "ID|SECTION")]
        only: Vec<String>,
        /// Leave out these checks: ids, id prefixes or sections.
        #[arg(long, value_delimiter = ',', value_name = "ID|SECTION")]
        skip: Vec<String>,
    },
    /// Ask the server what it chose where the description is silent
    /// (statuses of refusals and successes, where modelUuid travels, ...)
    /// and print it as a `choices:` block to paste into its profile. A run
    /// then holds the server to those choices at MUST level.
    Choices {
        /// The profile (YAML). Default: the embedded reference server and
        /// its shipped profile.
        #[arg(long, value_name = "FILE")]
        profile: Option<PathBuf>,
    },
}

#[derive(Args)]
struct RunArgs {
    /// Target profile (YAML). Default: start the reference server in-process
    /// and use the shipped profile.
    #[arg(long, value_name = "FILE")]
    profile: Option<PathBuf>,
    /// Snapshot folder. Default: `snapshots/` beside the profile.
    #[arg(long, value_name = "DIR")]
    snapshots: Option<PathBuf>,
    /// Run the rule checks only, without snapshot assertions.
    #[arg(long, conflicts_with_all = ["accept", "snapshots"])]
    no_snapshots: bool,
    /// Record new and changed snapshots (rule checks still judge).
    #[arg(long)]
    accept: bool,
    /// Run only these checks: ids, id prefixes or sections (repeat or comma-separate).
    #[arg(long, value_delimiter = ',', value_name = "ID|SECTION")]
    only: Vec<String>,
    /// Leave out these checks: ids, id prefixes or sections.
    #[arg(long, value_delimiter = ',', value_name = "ID|SECTION")]
    skip: Vec<String>,
    /// SHOULD failures fail the run too.
    #[arg(long)]
    strict: bool,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write a JSON report here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Per-request time-out, e.g. `5s`, `500ms` (default 5s).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    timeout: Option<Duration>,
    /// The whole run's deadline, e.g. `2m`, `90s`: checks not finished by
    /// then fail, saying so (default: none).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    deadline: Option<Duration>,
    /// Requests in flight at once (default 16).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    concurrency: Option<u16>,
    /// Requests started per second, at most, to stay under a server's rate
    /// limit (default: no limit).
    #[arg(long, value_name = "N", value_parser = parse_rate)]
    rate: Option<f64>,
    /// Times a 429 or 503 with Retry-After (up to 10 s) is waited for and
    /// re-sent, each one reported (default 2; 0: never).
    #[arg(long, value_name = "N")]
    retries: Option<u32>,
    /// Seed of the generated cases (default 2718, printed in the report):
    /// the same seed sends the same requests.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Generated bodies per component and operation (default 32).
    #[arg(long, value_name = "N")]
    cases: Option<u32>,
    /// Also trust the CA certificate(s) in this PEM file (a private CA).
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<PathBuf>,
    /// Client certificate (PEM) for servers that ask for one (mutual TLS).
    #[arg(long, value_name = "FILE", requires = "client_key")]
    client_cert: Option<PathBuf>,
    /// Private key (PEM) of --client-cert.
    #[arg(long, value_name = "FILE", requires = "client_cert")]
    client_key: Option<PathBuf>,
    /// A header a gateway in front of the server needs, `NAME:VALUE`
    /// (repeatable). Its value is treated as a secret: never printed.
    #[arg(long = "header", value_name = "NAME:VALUE")]
    headers: Vec<String>,
}

fn parse_rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!(
            "`{s}` is not a positive number of requests per second"
        )),
    }
}

/// A duration as humantime reads it (`5s`, `500ms`, `2m`, `1m 30s`); a bare
/// number is seconds. At most a day: a longer time-out is a typo.
fn parse_duration(s: &str) -> Result<Duration, String> {
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::List { markdown }) => {
            let all = catalogue();
            print!(
                "{}",
                if markdown {
                    markdown_table(&all)
                } else {
                    plain_list(&all)
                }
            );
            return ExitCode::SUCCESS;
        }
        Some(Command::CheckProfile { file, only, skip }) => {
            return check_profile(&file, only, skip);
        }
        Some(Command::Choices { profile }) => {
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
            {
                Ok(r) => r,
                Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
            };
            return runtime.block_on(print_choices(profile));
        }
        None => {}
    }
    // insta reads its mode from the environment: set it now, while this is
    // the only thread, before the async runtime starts its workers.
    if !cli.run.no_snapshots {
        let update = SnapshotUpdate::from_flags(cli.run.accept, SnapshotUpdate::ci_from_env());
        // SAFETY: no other thread has started: the runtime is built below.
        if let Err(e) = unsafe { conformance::snapshot::configure(update) } {
            return fail(&e.to_string());
        }
        conformance::snapshot::quiet_snapshot_panics();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
    };
    runtime.block_on(run_cli(cli.run))
}

fn fail(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

async fn run_cli(args: RunArgs) -> ExitCode {
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
    let mut connect = match connect_from(&args) {
        Ok(c) => c,
        Err(e) => return fail(&e.to_string()),
    };

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

    let options = RunOptions {
        only: args.only,
        skip: args.skip,
        strict: args.strict,
        limits,
        connect,
        deadline: args.deadline,
        generation: Generation {
            seed: args.seed.unwrap_or(Generation::default().seed),
            cases: args.cases.unwrap_or(Generation::default().cases),
        },
        snapshots: (!args.no_snapshots).then(|| SnapshotOptions {
            dir: args.snapshots.unwrap_or(default_snapshots),
            update,
        }),
    };
    let result = run(profile, &options).await;
    if let Some(server) = server {
        server.shutdown().await;
    }
    let report = match result {
        Ok(r) => r,
        Err(e) => return fail(&e.to_string()),
    };

    if let Some(path) = &args.junit {
        match junit::render(&report) {
            Ok(xml) => {
                if let Err(e) = std::fs::write(path, xml) {
                    return fail(&format!(
                        "cannot write the JUnit report {}: {e}",
                        path.display()
                    ));
                }
            }
            Err(e) => return fail(&format!("cannot render the JUnit report: {e}")),
        }
    }
    if let Some(path) = &args.json {
        if let Err(e) = std::fs::write(path, report.to_json()) {
            return fail(&format!(
                "cannot write the JSON report {}: {e}",
                path.display()
            ));
        }
    }
    print!("{}", human::render(&report, human::Style::from_env()));
    ExitCode::from(u8::try_from(report.exit_code()).unwrap_or(1))
}

/// `choices`: what the server was seen to choose, as a `choices:` block.
async fn print_choices(path: Option<PathBuf>) -> ExitCode {
    let (profile, server) = match load_or_embedded(path.as_deref()).await {
        Ok(p) => p,
        Err(code) => return code,
    };
    let options = RunOptions {
        connect: Connect {
            no_proxy: server.is_some(),
            ..Connect::default()
        },
        ..RunOptions::default()
    };
    let seen = conformance::observe::observe(profile, &options).await;
    if let Some(server) = server {
        server.shutdown().await;
    }
    match seen {
        Ok(choices) => {
            println!("# What the server was seen to choose where the description is silent.");
            println!("# Paste into its profile; a run then holds it to these at MUST level.");
            print!("{}", choices.to_yaml());
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e.to_string()),
    }
}

/// The profile at `path`, or the shipped one with the reference server
/// started in-process (and returned, to be shut down).
async fn load_or_embedded(
    path: Option<&Path>,
) -> Result<(Profile, Option<reference_server::RunningServer>), ExitCode> {
    match path {
        Some(path) => Profile::from_path(path)
            .map(|p| (p, None))
            .map_err(|e| fail(&e.to_string())),
        None => {
            let env = |name: &str| std::env::var(name).ok();
            let mut profile = Profile::from_yaml_str(SHIPPED_PROFILE, SHIPPED_PROFILE_NAME, &env)
                .map_err(|e| fail(&e.to_string()))?;
            let server =
                reference_server::Server::start(reference_server::ServerOptions::default())
                    .await
                    .map_err(|e| fail(&format!("cannot start the reference server: {e}")))?;
            profile.base_url = server.base_url();
            Ok((profile, Some(server)))
        }
    }
}

/// `check-profile`: the plan for a profile, printed; nothing is sent.
fn check_profile(file: &Path, only: Vec<String>, skip: Vec<String>) -> ExitCode {
    let profile = match Profile::from_path(file) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    let options = RunOptions {
        only,
        skip,
        ..RunOptions::default()
    };
    let plan = Plan::new(&profile, &options);
    if plan.runnable.is_empty() && plan.skipped.is_empty() {
        return fail("--only/--skip selected no check (see `conformance list`)");
    }
    let must = |c: &&conformance::catalogue::Check| c.level == Level::Must;
    let skipped_must = plan.skipped.iter().map(|(c, _)| c).filter(must).count();
    println!("Profile {}: {profile}", file.display());
    println!(
        "{} checks: {} can run, {} cannot ({skipped_must} of them MUST)",
        plan.runnable.len() + plan.skipped.len(),
        plan.runnable.len(),
        plan.skipped.len()
    );
    let mut needs: Vec<_> = plan.skipped.iter().map(|(_, n)| *n).collect();
    needs.sort();
    needs.dedup();
    for need in needs {
        let ids: Vec<&str> = plan
            .skipped
            .iter()
            .filter(|(_, n)| *n == need)
            .map(|(c, _)| c.id.as_str())
            .collect();
        println!();
        println!("Cannot run: {} ({} checks)", need.reason(), ids.len());
        println!("  To run them, {}.", need.remedy());
        for id in ids {
            println!("  - {id}");
        }
    }
    if skipped_must == 0 {
        println!();
        println!("Every selected MUST check can run.");
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The connection settings the flags give.
fn connect_from(args: &RunArgs) -> Result<Connect, ConnectError> {
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

/// `snapshots/` beside the profile file.
fn snapshots_beside(profile: &Path) -> PathBuf {
    profile
        .parent()
        .map_or_else(|| PathBuf::from("snapshots"), |d| d.join("snapshots"))
}
