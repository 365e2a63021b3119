//! `conformance`: the command-line shell over the `conformance` library.
//! Everything it does is in the library; this file parses flags, starts the
//! embedded reference server when no profile is given, prints, and exits
//! 0 (all MUST checks and snapshots pass), 1 (something failed) or 2 (a
//! usage or profile error, or a target that cannot be reached).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use conformance_model::profile::Profile;
use conformance_report::report::{Report, html, human, junit, sarif};
use conformance_suite::baseline::{Baseline, Date};
use conformance_suite::catalogue::Level;
use conformance_suite::catalogue::{markdown_table, plain_list};
use conformance_suite::checks::catalogue;
use conformance_suite::generate::Generation;
use conformance_suite::runner::{Plan, RunOptions};
use conformance_suite::snapshot::{SnapshotOptions, SnapshotUpdate};
use conformance_wire::connect::{Connect, ConnectError};
use conformance_wire::target::Limits;

/// mimalloc: the proxy allocates a little per exchange (the observed
/// request and answer, hyper's buffers); mimalloc's thread-local free
/// lists serve it for less CPU than the system allocator's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The shipped profile of the reference server's default fixture.
const SHIPPED_PROFILE: &str = include_str!("../profiles/reference.yaml");
const SHIPPED_PROFILE_NAME: &str = "conformance/profiles/reference.yaml";
/// `print!` where standard output may be closed (`conformance ... | head`):
/// the write's error is dropped, so the run still writes its report files
/// and exits with its verdict, where `print!` would panic.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

/// `println!` where standard output may be closed (see `out!`).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

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
    /// Print the check catalogue; a check observed traffic judges too
    /// (`proxy`, `audit`) is marked `[traffic: RULE]`.
    List {
        /// As the Markdown table the README holds.
        #[arg(long)]
        markdown: bool,
    },
    /// Say which checks a profile lets run and what to add for the others,
    /// before any request is sent. Exit 0 when every MUST check can run,
    /// 1 when some cannot, 2 for a bad profile.
    CheckProfile {
        /// The profile, given without `--profile` (kept for older scripts).
        #[arg(value_name = "FILE", hide = true)]
        file: Option<PathBuf>,
        /// Only these checks: ids, id prefixes or sections.
        #[arg(long, value_delimiter = ',', value_name = "ID|SECTION")]
        only: Vec<String>,
        /// Leave out these checks: ids, id prefixes or sections.
        #[arg(long, value_delimiter = ',', value_name = "ID|SECTION")]
        skip: Vec<String>,
    },
    /// Start gating your server: write a profile (secrets as `${VAR}`s),
    /// observe the server's choices and paste them in, say what the profile
    /// lets run (check-profile), and write a CI workflow that uses this
    /// repository's action. Asks on a terminal for what the flags leave out.
    /// Exit 0 when every MUST check can run, 1 when some cannot, 2 for a
    /// bad answer or a server that cannot be reached.
    Init(InitArgs),
    /// Ask the server what it chose where the description is silent
    /// (statuses of refusals and successes, where modelUuid travels, ...)
    /// and print it as a `choices:` block to paste into its profile. A run
    /// then holds the server to those choices at MUST level.
    Choices {
        /// Ask the built-in reference server, started in-process, with its
        /// shipped profile (what no `--profile` means outside CI).
        #[arg(long)]
        embedded: bool,
        #[command(flatten)]
        connect: ConnectArgs,
        /// Per-request time-out, e.g. `5s`, `500ms` (default 5s).
        #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
        timeout: Option<Duration>,
        /// The deadline of the whole observation, e.g. `2m`, `90s`: when it
        /// passes, nothing is printed and the exit code is 2 (default: none).
        #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
        deadline: Option<Duration>,
        /// Also write the choices as an OpenAPI Overlay 1.0 document to
        /// FILE, for `generator spec/openapi.yaml --overlay FILE`: where
        /// modelUuid travels, the statuses, and the success bodies' shape
        /// inferred from the answers (the issued token a password).
        #[arg(long, value_name = "FILE")]
        overlay: Option<PathBuf>,
    },
    /// What changed between two runs (their `--json` reports): regressions,
    /// fixes, checks added or removed, snapshot changes, latency. Exit 1 on
    /// a regression (a check that did not fail before and fails now), else 0.
    Diff {
        /// The earlier run's JSON report.
        old: PathBuf,
        /// The later run's JSON report.
        new: PathBuf,
        /// As Markdown, for a pull-request comment.
        #[arg(long)]
        markdown: bool,
    },
    /// Every sentence of the interface description that states a
    /// requirement, with the checks that enforce it and the traffic rules
    /// that enforce it on observed exchanges (`proxy`, `audit`), and those
    /// no check enforces.
    Coverage {
        /// As Markdown.
        #[arg(long)]
        markdown: bool,
    },
    /// Listen, forward every exchange to the profile's server unchanged,
    /// and judge both sides of each by the description's rules one exchange
    /// can settle (a client's credentials, X-Project-Env, JSON, fields,
    /// modelUuid; a server's envelopes, X-Project-Uuid, 417s). Prints the
    /// report on exit (Ctrl-C, --exchanges, --for) and writes it in every
    /// format asked for, on exit and every --every. Exit 0; with --gate,
    /// exit 1 when a MUST rule was broken or no exchange came (nothing
    /// proven); 2 for a bad profile or address.
    Proxy {
        /// Where to listen (default: a free port on 127.0.0.1, printed).
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
        listen: std::net::SocketAddr,
        /// Stop after this many exchanges.
        #[arg(long, value_name = "N")]
        exchanges: Option<u64>,
        /// Stop after this long, e.g. `10m`.
        #[arg(long = "for", value_parser = parse_duration, value_name = "DURATION")]
        duration: Option<Duration>,
        #[command(flatten)]
        reports: TrafficReports,
        /// How often the reports are written while running (default 10s).
        #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
        every: Option<Duration>,
        /// Exit 1 when a MUST rule was broken, or when no exchange came (a
        /// CI job driving a client through the proxy).
        #[arg(long)]
        gate: bool,
        /// Threads that forward and judge (default 1: one carries tens of
        /// thousands of exchanges a second, and leaves the other cores to
        /// the client and the server it usually shares a machine with).
        #[arg(long, value_name = "N", default_value_t = 1,
              value_parser = clap::value_parser!(u16).range(1..))]
        threads: u16,
        #[command(flatten)]
        connect: ConnectArgs,
    },
    /// Judge recorded traffic: every exchange of a HAR 1.2 file (a
    /// browser's, mitmproxy's, schemathesis's), by the rules the proxy
    /// uses, the reports in every format asked for. Exit codes as for a
    /// run: 0 when no MUST rule was broken, 1 when one was (or the file
    /// held no exchange: nothing proven), 2 for a file that cannot be read
    /// or a bad profile.
    Audit {
        /// The HAR file.
        har: PathBuf,
        #[command(flatten)]
        reports: TrafficReports,
    },
}

/// The reports of `proxy` and `audit`: the formats of a run, the same flags.
#[derive(Args)]
struct TrafficReports {
    /// Write the report as JSON here (each rule's count, examples and
    /// reproductions).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write a JUnit XML report here: one test case per rule.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write a SARIF 2.1.0 report here: each broken rule at the line of the
    /// description it quotes.
    #[arg(long, value_name = "FILE")]
    sarif: Option<PathBuf>,
    /// Write one self-contained HTML report here.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

impl TrafficReports {
    fn outputs(self) -> conformance::traffic_report::Outputs {
        conformance::traffic_report::Outputs {
            json: self.json,
            junit: self.junit,
            sarif: self.sarif,
            html: self.html,
        }
    }
}

#[derive(Args)]
struct InitArgs {
    /// The server's URL (with any path prefix before /v2/api).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The X-Client-Id the runner sends.
    #[arg(long, value_name = "ID")]
    client_id: Option<String>,
    /// The environment variable that holds the client secret.
    #[arg(long, value_name = "VAR")]
    client_secret_env: Option<String>,
    /// A component, as a YAML mapping (repeatable): `{name: Users, tag:
    /// users, uuid: UUID, requires_auth: true, token_env: USERS_TOKEN,
    /// model_uuid: UUID, valid_body: {email: a@example.com, password:
    /// "${USERS_PASSWORD}"}}`; `token_env` names the variable that holds a
    /// token of the component; `model_uuid` and `valid_body` (a model and
    /// the fields that authorize it) run the Authorize checks;
    /// `invalid_body` the 417 ones.
    #[arg(long = "component", value_name = "YAML")]
    components: Vec<String>,
    /// The action the workflow's gate step uses, `owner/name@ref`: the
    /// repository that publishes this runner's action, and a release tag
    /// (or commit) of it. A placeholder is refused.
    #[arg(long, value_name = "OWNER/NAME@REF")]
    action: Option<String>,
    /// The command that starts your server in CI (the workflow's "Start
    /// the server" step runs it, then waits for $BASE_URL). None for a
    /// server that runs elsewhere (staging).
    #[arg(long, value_name = "COMMAND")]
    start: Option<String>,
    /// Where the profile, its snapshots and its baseline go (inside the
    /// repository).
    #[arg(long, value_name = "DIR", default_value = "conformance")]
    dir: PathBuf,
    /// Where the CI workflow goes: a file of the repository root's
    /// .github/workflows/ (default .github/workflows/conformance.yml there,
    /// wherever init runs).
    #[arg(long, value_name = "FILE")]
    workflow: Option<PathBuf>,
    /// Replace files that exist (regular files only, never through a link).
    #[arg(long)]
    force: bool,
    /// Do not ask the server (write the profile without `choices:`).
    #[arg(long)]
    no_observe: bool,
    /// Per-request time-out of the observation, e.g. `5s` (default 5s).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    timeout: Option<Duration>,
    #[command(flatten)]
    connect: ConnectArgs,
}

/// How to reach the server: what runs, `init` and `choices` all take.
#[derive(Args)]
struct ConnectArgs {
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

#[derive(Args)]
struct RunArgs {
    /// Target profile (YAML): the server to test. Without it (and outside
    /// CI) the built-in reference server is started in-process with the
    /// shipped profile; under `CI=true` a run without it is refused
    /// (exit 2): pass `--embedded` to mean the built-in server.
    #[arg(long, value_name = "FILE", global = true)]
    profile: Option<PathBuf>,
    /// Test the built-in reference server, started in-process on an
    /// ephemeral port of 127.0.0.1, with the shipped profile and snapshots.
    #[arg(long, conflicts_with = "profile")]
    embedded: bool,
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
    /// Write a SARIF 2.1.0 report here (GitHub code scanning): each failure
    /// at the line of the description it enforces.
    #[arg(long, value_name = "FILE")]
    sarif: Option<PathBuf>,
    /// Write one self-contained HTML report here.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Known failures (YAML): listed checks that fail are KNOWN and do not
    /// fail the run until their entry expires.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write the entries for this run's failures here (reason and expiry to
    /// fill in; what --baseline said of them is kept).
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
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
    /// re-sent, each one reported (default 8; 0: never).
    #[arg(long, value_name = "N")]
    retries: Option<u32>,
    /// Seed of the generated cases (default 2718, printed in the report):
    /// the same seed sends the same requests.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Generated bodies per component and operation (default 32).
    #[arg(long, value_name = "N")]
    cases: Option<u32>,
    #[command(flatten)]
    connect: ConnectArgs,
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
            out!(
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
            let Some(file) = cli.run.profile.or(file) else {
                return fail("check-profile needs the profile: --profile FILE");
            };
            return check_profile(&file, only, skip);
        }
        Some(Command::Init(args)) => return init(args),
        Some(Command::Choices {
            embedded,
            connect,
            timeout,
            deadline,
            overlay,
        }) => {
            let profile = cli.run.profile;
            if profile.is_some() && embedded {
                return fail(
                    "--profile and --embedded: name one target, your server's profile or the built-in server",
                );
            }
            if let Err(code) = target_given(profile.is_some(), embedded) {
                return code;
            }
            let connect = match connect_from(&connect) {
                Ok(c) => c,
                Err(e) => return fail(&e.to_string()),
            };
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
            {
                Ok(r) => r,
                Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
            };
            return runtime.block_on(print_choices(profile, connect, timeout, deadline, overlay));
        }
        Some(Command::Diff { old, new, markdown }) => return diff(&old, &new, markdown),
        Some(Command::Proxy {
            listen,
            exchanges,
            duration,
            reports,
            every,
            gate,
            threads,
            connect,
        }) => {
            let Some(path) = cli.run.profile else {
                return fail("proxy needs the server's profile: --profile FILE");
            };
            let reports = reports.outputs();
            if let Err(e) = reports.check() {
                return fail(&e);
            }
            let connect = match connect_from(&connect) {
                Ok(c) => c,
                Err(e) => return fail(&e.to_string()),
            };
            let profile = match Profile::from_path(&path) {
                Ok(p) => p,
                Err(e) => return fail(&e.to_string()),
            };
            let options = conformance::traffic::ProxyOptions {
                listen,
                max_exchanges: exchanges,
                duration,
                connect,
                ..Default::default()
            };
            return proxy(profile, options, reports, every, gate, threads);
        }
        Some(Command::Audit { har, reports }) => {
            let Some(path) = cli.run.profile else {
                return fail("audit needs the server's profile: --profile FILE");
            };
            let reports = reports.outputs();
            if let Err(e) = reports.check() {
                return fail(&e);
            }
            let profile = match Profile::from_path(&path) {
                Ok(p) => p,
                Err(e) => return fail(&e.to_string()),
            };
            let target = format!("traffic recorded in {} (for {profile})", har.display());
            return match conformance::traffic::audit(&har, &profile) {
                Ok(tally) => traffic_report(&tally, &target, &reports, true),
                Err(e) => fail(&e),
            };
        }
        Some(Command::Coverage { markdown }) => {
            let coverage = conformance_suite::coverage::Coverage::of_description();
            out!(
                "{}",
                if markdown {
                    coverage.markdown()
                } else {
                    coverage.text()
                }
            );
            return ExitCode::SUCCESS;
        }
        None => {}
    }
    // insta reads its mode from the environment: set it now, while this is
    // the only thread, before the async runtime starts its workers.
    if !cli.run.no_snapshots {
        let update = SnapshotUpdate::from_flags(cli.run.accept, SnapshotUpdate::ci_from_env());
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
    if let Err(code) = target_given(cli.run.profile.is_some(), cli.run.embedded) {
        return code;
    }
    runtime.block_on(run_cli(cli.run))
}

fn fail(message: &str) -> ExitCode {
    // A message may hold a crafted id or value: escaped for the terminal.
    eprintln!(
        "error: {}",
        conformance_report::report::escape::terminal(message)
    );
    ExitCode::from(2)
}

/// Under CI a run names its target: a forgotten `--profile` would test the
/// built-in reference server and pass on nothing of the user's. Outside
/// CI no `--profile` means the built-in server, as `--embedded` does.
fn target_given(profile: bool, embedded: bool) -> Result<(), ExitCode> {
    if profile || embedded || !SnapshotUpdate::ci_from_env() {
        return Ok(());
    }
    Err(fail(
        "CI is set and no --profile names the server to test: this would test the built-in reference server, not yours. Pass --profile FILE (your server's profile), or --embedded if you mean the built-in reference server",
    ))
}

async fn run_cli(args: RunArgs) -> ExitCode {
    // Every file this run writes, checked before any request is sent.
    if let Err(e) = file_writer::check_all([
        (args.junit.as_deref(), "the JUnit report"),
        (args.json.as_deref(), "the JSON report"),
        (args.sarif.as_deref(), "the SARIF report"),
        (args.html.as_deref(), "the HTML report"),
        (args.write_baseline.as_deref(), "the baseline"),
    ]) {
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
    for (path, what, text) in [
        (
            &args.sarif,
            "the SARIF report",
            sarif::render as fn(&_) -> String,
        ),
        (&args.html, "the HTML report", html::render),
    ] {
        if let Some(path) = path {
            if let Err(e) = file_writer::write(path, what, text(&report)) {
                return fail(&e.to_string());
            }
        }
    }

    if let Some(path) = &args.junit {
        match junit::render(&report) {
            Ok(xml) => {
                if let Err(e) = file_writer::write(path, "the JUnit report", xml) {
                    return fail(&e.to_string());
                }
            }
            Err(e) => return fail(&format!("cannot render the JUnit report: {e}")),
        }
    }
    if let Some(path) = &args.json {
        if let Err(e) = file_writer::write(path, "the JSON report", report.to_json()) {
            return fail(&e.to_string());
        }
    }
    out!("{}", human::render(&report, human::Style::from_env()));
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

/// `diff`: what changed between two JSON reports.
fn diff(old: &Path, new: &Path, markdown: bool) -> ExitCode {
    let read = |path: &Path| conformance_report::diff::RunRecord::from_path(path);
    let (old_run, new_run) = match (read(old), read(new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => return fail(&e.to_string()),
    };
    let changes = conformance_report::diff::diff(&old_run, &new_run);
    out!(
        "{}",
        if markdown {
            changes.markdown()
        } else {
            changes.text()
        }
    );
    if changes.regressions.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `choices`: what the server was seen to choose, as a `choices:` block.
async fn print_choices(
    path: Option<PathBuf>,
    mut connect: Connect,
    timeout: Option<Duration>,
    deadline: Option<Duration>,
    overlay: Option<PathBuf>,
) -> ExitCode {
    if let Err(e) = file_writer::check_all([(overlay.as_deref(), "the overlay")]) {
        return fail(&e.to_string());
    }
    let (profile, server) = match load_or_embedded(path.as_deref()).await {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mut limits = Limits::default();
    if let Some(t) = timeout {
        limits.timeout = t;
    }
    let options = RunOptions {
        limits,
        connect: {
            connect.no_proxy |= server.is_some();
            connect
        },
        deadline,
        ..RunOptions::default()
    };
    let second_model = profile.components.iter().any(|c| {
        c.authorize
            .as_ref()
            .is_some_and(|a| a.second_model.is_some())
    });
    let seen = conformance_suite::observe::observe_within_samples(profile.clone(), &options).await;
    let pace = match &seen {
        Ok(_) => conformance_suite::observe::pace(profile, &options).await,
        Err(_) => Ok(None),
    };
    if let Some(server) = server {
        server.shutdown().await;
    }
    match (seen, pace) {
        (Ok((choices, samples)), Ok(pace)) => {
            if let Some(file) = &overlay {
                let document = conformance_suite::overlay::overlay(&choices, &samples);
                let text = match serde_yaml::to_string(&document) {
                    Ok(text) => text,
                    Err(e) => return fail(&format!("cannot write the overlay: {e}")),
                };
                let header = "# The server's choices where the description is silent, as an OpenAPI Overlay:\n# cargo run -p generator -- spec/openapi.yaml --overlay THIS_FILE --out src/bindings.rs\n";
                if let Err(e) = file_writer::write(file, "the overlay", format!("{header}{text}")) {
                    return fail(&e.to_string());
                }
            }
            outln!("# What the server was seen to choose where the description is silent.");
            outln!("# Paste into its profile; a run then holds it to these at MUST level.");
            out!("{}", choices.to_yaml());
            if let Some(rate) = pace {
                out!("{}", rate_line(rate));
            }
            if !second_model {
                outln!(
                    "# Environments are state: give a component a second model the server takes\n# (`authorize.second_model: {{ model_uuid: UUID, valid_body: {{...}} }}`), and the run\n# claims one model in `dev`, the other in `live`, and reads each back (state/environments)."
                );
            }
            ExitCode::SUCCESS
        }
        (Err(e), _) | (_, Err(e)) => fail(&e.to_string()),
    }
}

/// `proxy`: runs until its count, its time or Ctrl-C, writing the reports
/// as it goes.
fn proxy(
    profile: Profile,
    options: conformance::traffic::ProxyOptions,
    outputs: conformance::traffic_report::Outputs,
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
        let mut running = match conformance::traffic::start_proxy(profile, options).await {
            Ok(p) => p,
            Err(e) => return fail(&e),
        };
        // The first stdout line is a contract, as the reference server's.
        outln!(
            "listening on {} (forwarding to {upstream})",
            running.base_url()
        );
        let _ = std::io::Write::flush(&mut std::io::stdout());
        let mut tick = tokio::time::interval(every.unwrap_or(Duration::from_secs(10)));
        tick.tick().await;
        loop {
            tokio::select! {
                _ = running.finished() => break,
                _ = tokio::signal::ctrl_c() => break,
                _ = tick.tick() => {
                    if outputs.any() {
                        if let Err(e) = outputs.write(&running.tally(), &target) {
                            return fail(&e);
                        }
                    }
                }
            }
        }
        running.drain(Duration::from_secs(5)).await;
        traffic_report(&running.tally(), &target, &outputs, gate)
    })
}

/// Prints a traffic report and writes it in every format asked for;
/// where it gates, the exit code a run's report of it would have (1 on a
/// MUST violation, or when no exchange was judged).
fn traffic_report(
    tally: &traffic_rules::Tally,
    target: &str,
    outputs: &conformance::traffic_report::Outputs,
    gate: bool,
) -> ExitCode {
    out!("{}", tally.report(None).text());
    if tally.exchanges() == 0 {
        eprintln!("No exchange was judged: nothing is proven (a gate fails).");
    }
    if let Err(e) = outputs.write(tally, target) {
        return fail(&e);
    }
    if gate {
        ExitCode::from(conformance::traffic_report::exit_code(tally, target))
    } else {
        ExitCode::SUCCESS
    }
}

/// The profile's `rate:` for a server seen to limit its clients, with why.
fn rate_line(rate: f64) -> String {
    format!(
        "# The server limited a burst of requests (429, or 503 with Retry-After): a run\n# starts no more than this many a second (a top-level key, beside `choices:`).\nrate: {rate}\n"
    )
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
    match plan_text(file, &profile, only, skip) {
        Ok((text, every_must)) => {
            out!("{text}");
            if every_must {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(message) => fail(&message),
    }
}

/// What `check-profile` prints for `profile`, and whether every selected
/// MUST check can run.
fn plan_text(
    file: &Path,
    profile: &Profile,
    only: Vec<String>,
    skip: Vec<String>,
) -> Result<(String, bool), String> {
    use std::fmt::Write as _;
    let options = RunOptions {
        only,
        skip,
        ..RunOptions::default()
    };
    let plan = Plan::new(profile, &options);
    if plan.runnable.is_empty() && plan.skipped.is_empty() {
        return Err("--only/--skip selected no check (see `conformance list`)".to_owned());
    }
    let must = |c: &&conformance_suite::catalogue::Check| c.level_for(profile) == Level::Must;
    let skipped_must = plan.skipped.iter().map(|(c, _)| c).filter(must).count();
    let mut out = String::new();
    let _ = writeln!(out, "Profile {}: {profile}", file.display());
    let _ = writeln!(
        out,
        "{} checks: {} can run, {} cannot ({skipped_must} of them MUST)",
        plan.runnable.len() + plan.skipped.len(),
        plan.runnable.len(),
        plan.skipped.len()
    );
    let declared: Vec<String> = profile
        .components
        .iter()
        .filter_map(|c| {
            let n = c.fields.as_ref()?.0.len();
            Some(format!(
                "{} ({n} field{})",
                c.name,
                if n == 1 { "" } else { "s" }
            ))
        })
        .collect();
    if !declared.is_empty() {
        let _ = writeln!(
            out,
            "Declared auth settings: {}: every generated body of theirs has a known verdict (fields/*)",
            declared.join(", ")
        );
    }
    let mut needs: Vec<_> = plan.skipped.iter().map(|(_, n)| *n).collect();
    needs.sort();
    needs.dedup();
    for need in needs {
        let ids: Vec<&str> = plan
            .skipped
            .iter()
            .filter(|(_, n)| *n == need)
            .map(|(c, _)| c.id)
            .collect();
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "Cannot run: {} ({} check{})",
            need.reason(),
            ids.len(),
            if ids.len() == 1 { "" } else { "s" }
        );
        let _ = writeln!(out, "  To run them, {}.", need.remedy());
        for id in ids {
            let _ = writeln!(out, "  - {id}");
        }
    }
    if skipped_must == 0 {
        let _ = writeln!(out);
        let _ = writeln!(out, "Every selected MUST check can run.");
    }
    Ok((out, skipped_must == 0))
}

/// Asks `question` on the terminal (stderr), when stdin is one; `None`
/// otherwise, or for an empty answer.
fn ask(question: &str) -> Option<String> {
    use std::io::{BufRead, IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        return None;
    }
    eprint!("{question}: ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).ok()?;
    let line = line.trim().to_owned();
    (!line.is_empty()).then_some(line)
}

/// A flag's value, else the answer to `question`, else an error naming
/// the flag.
fn given_or_asked(value: Option<String>, flag: &str, question: &str) -> Result<String, String> {
    value.or_else(|| ask(question)).ok_or_else(|| {
        format!("init needs {flag} (not given, and stdin is not a terminal to ask on)")
    })
}

/// Components asked one by one on a terminal, as `--component` takes them.
fn ask_components() -> Vec<String> {
    let mut out = Vec::new();
    while let Some(name) = ask(&format!(
        "Component {} name (empty: no more)",
        out.len() + 1
    )) {
        let field = |q: &str| ask(q).unwrap_or_default();
        let tag = field("  its tag");
        let uuid = field("  its uuid");
        let requires_auth = field("  requires auth? (y/n)")
            .to_ascii_lowercase()
            .starts_with('y');
        let mut yaml = format!(
            "{{name: {}, tag: {}, uuid: {}, requires_auth: {requires_auth}",
            serde_json::Value::from(name),
            serde_json::Value::from(tag),
            serde_json::Value::from(uuid)
        );
        if requires_auth {
            let var = field("  the environment variable that holds one of its tokens");
            yaml.push_str(&format!(", token_env: {}", serde_json::Value::from(var)));
        }
        if let Some(model) = ask("  a model uuid for Authorize (empty: none)") {
            let body = field(
                "  the fields that authorize it, as YAML (secrets as \"${VAR}\"), e.g. {email: a@example.com, password: \"${USERS_PASSWORD}\"}",
            );
            yaml.push_str(&format!(
                ", model_uuid: {}, valid_body: {body}",
                serde_json::Value::from(model)
            ));
            if let Some(invalid) = ask(
                "  a body that fails its validation, as YAML (runs the 417 checks, which CI's check-profile needs), e.g. {email: 7}",
            ) {
                yaml.push_str(&format!(", invalid_body: {invalid}"));
            }
        }
        yaml.push('}');
        out.push(yaml);
    }
    out
}

/// The action `init` writes when no `--action` is given: this package's
/// repository at this release, unless it is still a placeholder.
fn default_action() -> Option<String> {
    let repo = env!("CARGO_PKG_REPOSITORY");
    let path = repo.strip_prefix("https://github.com/")?;
    let action = format!(
        "{}@{}",
        path.trim_end_matches('/'),
        conformance::init::VERSION_TAG
    );
    conformance::init::check_action(&action).ok()?;
    Some(action)
}

/// `init`: answers, then the profile with the observed choices and the
/// plan, then the files (all or nothing), then what to do next.
fn init(args: InitArgs) -> ExitCode {
    use conformance::init::{self as i, Answers, ComponentAnswer};
    let answers = (|| -> Result<Answers, String> {
        let base_url = given_or_asked(args.base_url, "--base-url URL", "The server's base URL")?;
        let client_id = given_or_asked(
            args.client_id,
            "--client-id ID",
            "The client id (X-Client-Id)",
        )?;
        let client_secret_env = args
            .client_secret_env
            .or_else(|| {
                ask("The environment variable that holds the client secret [CLIENT_SECRET]")
            })
            .unwrap_or_else(|| "CLIENT_SECRET".to_owned());
        let texts = if args.components.is_empty() {
            ask_components()
        } else {
            args.components
        };
        let components = texts
            .iter()
            .enumerate()
            .map(|(i, text)| ComponentAnswer::parse(text, &format!("--component {}", i + 1)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let mut answers = Answers {
            base_url,
            client_id,
            client_secret_env,
            components,
            action: String::new(),
            start: args.start.unwrap_or_default(),
        };
        answers.check_but_action().map_err(|e| e.to_string())?;
        answers.action = match args.action.or_else(default_action) {
            Some(a) => a,
            None => given_or_asked(
                None,
                "--action OWNER/NAME@REF (the GitHub repository that publishes this runner's action, and its release tag)",
                "The action the workflow uses (OWNER/NAME@REF)",
            )?,
        };
        answers.check().map_err(|e| e.to_string())?;
        Ok(answers)
    })();
    let mut answers = match answers {
        Ok(a) => a,
        Err(e) => return fail(&e),
    };
    // Credentials by their name are never written: each becomes a ${VAR},
    // which init's own requests read from what was given.
    let mut given: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for c in &mut answers.components {
        for p in c.protect() {
            eprintln!(
                "warning: component `{}`: `valid_body.{}` is a credential by its name: written as `${{{}}}`, not as its value (the profile is committed); set {} locally and the repository secret CONFORMANCE_{} in CI",
                p.component, p.field, p.variable, p.variable, p.variable
            );
            given.insert(p.variable, p.value);
        }
    }

    // Where the files go: inside the repository's root, found by git.
    let located = (|| -> Result<_, conformance::init::InitError> {
        let cwd = std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .map_err(|e| {
                conformance::init::InitError(format!("cannot read the current folder: {e}"))
            })?;
        let root = i::repo_root(&cwd)?;
        let dir = i::inside(&root, &cwd, &args.dir, "--dir")?;
        let workflow = match &args.workflow {
            None => PathBuf::from(".github/workflows/conformance.yml"),
            Some(w) => {
                let rel = i::inside(&root, &cwd, w, "--workflow")?;
                let in_workflows = rel.parent() == Some(Path::new(".github/workflows"));
                let yaml = matches!(
                    rel.extension().and_then(|e| e.to_str()),
                    Some("yml" | "yaml")
                );
                if !in_workflows || !yaml {
                    return Err(conformance::init::InitError(format!(
                        "--workflow: GitHub runs only the .yml and .yaml files of {}/.github/workflows/ (not its subfolders); expected a file there",
                        root.display()
                    )));
                }
                rel
            }
        };
        Ok((root, dir, workflow))
    })();
    let (root, dir, workflow_rel) = match located {
        Ok(l) => l,
        Err(e) => return fail(&e.to_string()),
    };
    let profile_rel = dir.join("profile.yaml");
    let baseline_rel = dir.join("known-failures.yaml");
    if workflow_rel == profile_rel || workflow_rel == baseline_rel {
        return fail(&format!(
            "--workflow: {} is a file init writes itself (the profile or the baseline); expected another",
            i::slashed(&workflow_rel)
        ));
    }
    // Here and again when writing: a file that appears meanwhile is kept.
    for rel in [&profile_rel, &baseline_rel, &workflow_rel] {
        if let Err(e) = i::refuse_existing(&root, rel, args.force) {
            return fail(&e.to_string());
        }
    }
    let shown_profile = i::slashed(&profile_rel);
    let workflow = match answers.workflow_yaml(&shown_profile, &i::slashed(&baseline_rel)) {
        Ok(w) => w,
        Err(e) => return fail(&e.to_string()),
    };

    // init's own requests: the URL given, the credentials given.
    let base_var = answers.base_url_var();
    let base_value = match answers.base_url_value(&|name| std::env::var(name).ok()) {
        Ok(v) => v,
        Err(e) => return fail(&e.to_string()),
    };
    given.insert(base_var.clone(), base_value.clone());
    let env = |name: &str| {
        given
            .get(name)
            .cloned()
            .or_else(|| std::env::var(name).ok())
    };
    let mut profile_text = answers.profile_yaml();
    let parse = |text: &str| Profile::from_yaml_str(text, &shown_profile, &env);
    let profile = match parse(&profile_text) {
        Ok(p) => p,
        Err(e) => {
            return fail(&format!(
                "{e}\n(nothing is written: set the variables the profile reads, then run init again)"
            ));
        }
    };
    let observed = if args.no_observe {
        false
    } else {
        let connect = match connect_from(&args.connect) {
            Ok(c) => c,
            Err(e) => return fail(&e.to_string()),
        };
        let mut limits = Limits::default();
        if let Some(t) = args.timeout {
            limits.timeout = t;
        }
        let runtime = match tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
        {
            Ok(r) => r,
            Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
        };
        let options = RunOptions {
            limits,
            connect,
            ..RunOptions::default()
        };
        let seen = runtime.block_on(conformance_suite::observe::observe(
            profile.clone(),
            &options,
        ));
        let pace = runtime
            .block_on(conformance_suite::observe::pace(profile, &options))
            .ok()
            .flatten();
        match seen {
            Ok(choices) => {
                profile_text = i::with_choices(&profile_text, &choices.to_yaml());
                if let Some(rate) = pace {
                    profile_text.push_str(&rate_line(rate));
                }
                true
            }
            Err(e) => {
                return fail(&format!(
                    "{e}\n(nothing is written: start the server and run init again, or pass --no-observe to write the profile without `choices:`)"
                ));
            }
        }
    };
    let profile = match parse(&profile_text) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    let (plan, every_must) =
        match plan_text(Path::new(&shown_profile), &profile, Vec::new(), Vec::new()) {
            Ok(p) => p,
            Err(e) => return fail(&e),
        };

    for (rel, text) in [
        (&profile_rel, profile_text.as_str()),
        (
            &baseline_rel,
            "# Known failures (see conformance/README.md, baselines): none yet.\n[]\n",
        ),
        (&workflow_rel, workflow.as_str()),
    ] {
        if let Err(e) = i::write_file(&root, rel, text, args.force) {
            return fail(&e.to_string());
        }
    }
    let vars = answers.variables();
    outln!(
        "Wrote {shown_profile}: the server's URL from ${base_var}{}.",
        if vars.is_empty() {
            String::new()
        } else {
            format!(", secrets from ${} at run time", vars.join(", $"))
        }
    );
    if observed {
        outln!(
            "Observed the server's choices and pasted them into the profile (read them before committing)."
        );
    } else {
        outln!(
            "Not observed (--no-observe): the profile has no `choices:`; `conformance choices --profile {shown_profile}` prints them."
        );
    }
    outln!();
    out!("{plan}");
    outln!();
    outln!(
        "Wrote {} (no known failures) and {} (uses {}).",
        i::slashed(&baseline_rel),
        i::slashed(&workflow_rel),
        answers.action
    );
    if !vars.is_empty() {
        let secrets: Vec<String> = vars
            .iter()
            .map(|v| format!("CONFORMANCE_{v} (the value of ${v})"))
            .collect();
        outln!(
            "In the repository's settings, add the secrets {}.",
            secrets.join(", ")
        );
    }
    let local_url = if answers.base_url_secrets_only() {
        String::new()
    } else {
        format!("{base_var}={} ", shell_word(&base_value))
    };
    if answers.start.is_empty() && is_loopback(&base_value) {
        eprintln!(
            "warning: the server is on this machine and no --start names the command that starts it in CI: the workflow's \"Start the server\" step waits 30 s for ${base_var} and fails; run init again with --start CMD --force, or set START in that step"
        );
    }
    outln!("Next: record the snapshots, review and commit them with the profile and the workflow:");
    outln!("  {local_url}conformance --profile {shown_profile} --accept");
    if every_must {
        outln!(
            "Exit 0: every MUST check can run, so the action's check-profile step passes; the gate then passes when the server does."
        );
        ExitCode::SUCCESS
    } else {
        outln!(
            "Exit 1: some MUST checks cannot run (\"Cannot run\" above says what to add). The action runs check-profile first, so CI fails until the profile has it; `conformance check-profile --profile {shown_profile}` says when it does."
        );
        ExitCode::from(1)
    }
}

/// `value` as one word for a POSIX shell.
fn shell_word(value: &str) -> String {
    if value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c))
    {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', "'\\''"))
    }
}

/// Whether a URL's host is this machine (the workflow must start it).
fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?']).next().unwrap_or_default();
    let host = host.rsplit_once(':').map_or(host, |(h, p)| {
        if p.chars().all(|c| c.is_ascii_digit()) {
            h
        } else {
            host
        }
    });
    matches!(host, "localhost" | "127.0.0.1" | "[::1]" | "0.0.0.0") || host.starts_with("127.")
}

/// The connection settings the flags give.
fn connect_from(args: &ConnectArgs) -> Result<Connect, ConnectError> {
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
