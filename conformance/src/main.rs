//! `conformance`: the command-line shell over the `conformance` library.
//! Everything it does is in the library; this file parses flags, starts the
//! embedded reference server when no profile is given, prints, and exits
//! 0 (all MUST checks and snapshots pass), 1 (something failed) or 2 (a
//! usage or profile error, or a target that cannot be reached).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use conformance::baseline::{Baseline, Date};
use conformance::catalogue::Level;
use conformance::catalogue::{markdown_table, plain_list};
use conformance::checks::catalogue;
use conformance::connect::{Connect, ConnectError};
use conformance::generate::Generation;
use conformance::profile::Profile;
use conformance::report::{html, human, junit, sarif};
use conformance::run;
use conformance::runner::{Plan, RunOptions};
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
        #[arg(
            long = "profile",
            value_name = "FILE",
            required_unless_present = "file"
        )]
        profile: Option<PathBuf>,
        /// The profile, given without `--profile` (kept for older scripts).
        #[arg(value_name = "FILE", conflicts_with = "profile", hide = true)]
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
        /// The profile (YAML) of the server to ask.
        #[arg(long, value_name = "FILE")]
        profile: Option<PathBuf>,
        /// Ask the built-in reference server, started in-process, with its
        /// shipped profile (what no `--profile` means outside CI).
        #[arg(long, conflicts_with = "profile")]
        embedded: bool,
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
    /// requirement, with the checks that enforce it, and those no check
    /// enforces.
    Coverage {
        /// As Markdown.
        #[arg(long)]
        markdown: bool,
    },
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
    /// Where the profile, its snapshots and its baseline go.
    #[arg(long, value_name = "DIR", default_value = "conformance")]
    dir: PathBuf,
    /// Where the CI workflow goes.
    #[arg(
        long,
        value_name = "FILE",
        default_value = ".github/workflows/conformance.yml"
    )]
    workflow: PathBuf,
    /// Replace files that exist.
    #[arg(long)]
    force: bool,
    /// Do not ask the server (write the profile without `choices:`).
    #[arg(long)]
    no_observe: bool,
}

#[derive(Args)]
struct RunArgs {
    /// Target profile (YAML): the server to test. Without it (and outside
    /// CI) the built-in reference server is started in-process with the
    /// shipped profile; under `CI=true` a run without it is refused
    /// (exit 2): pass `--embedded` to mean the built-in server.
    #[arg(long, value_name = "FILE")]
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
        Some(Command::CheckProfile {
            profile,
            file,
            only,
            skip,
        }) => {
            let Some(file) = profile.or(file) else {
                return fail("check-profile needs the profile: --profile FILE");
            };
            return check_profile(&file, only, skip);
        }
        Some(Command::Init(args)) => return init(args),
        Some(Command::Choices {
            profile,
            embedded,
            timeout,
            deadline,
            overlay,
        }) => {
            if let Err(code) = target_given(profile.is_some(), embedded) {
                return code;
            }
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
            {
                Ok(r) => r,
                Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
            };
            return runtime.block_on(print_choices(profile, timeout, deadline, overlay));
        }
        Some(Command::Diff { old, new, markdown }) => return diff(&old, &new, markdown),
        Some(Command::Coverage { markdown }) => {
            let coverage = conformance::coverage::Coverage::of_description();
            print!(
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
    if let Err(code) = target_given(cli.run.profile.is_some(), cli.run.embedded) {
        return code;
    }
    runtime.block_on(run_cli(cli.run))
}

fn fail(message: &str) -> ExitCode {
    // A message may hold a crafted id or value: escaped for the terminal.
    eprintln!("error: {}", conformance::report::escape::terminal(message));
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
    let definitions = conformance::curl::definitions(&profile, &profile_name);
    let result = run(profile, &options).await;
    let embedded = server.is_some();
    if let Some(server) = server {
        server.shutdown().await;
    }
    let mut report = match result {
        Ok(r) => r,
        Err(e) => return fail(&e.to_string()),
    };
    if embedded {
        // The first line says what was tested, whoever reads the report.
        report.target = format!("the embedded reference server, {}", report.target);
    }
    if let Some(baseline) = &baseline {
        conformance::baseline::apply(&mut report, baseline, Date::today());
    }
    report.define_reproduction_variables(definitions);
    if let Some(path) = &args.write_baseline {
        let text = conformance::baseline::write(&report, baseline.as_ref());
        if let Err(e) = std::fs::write(path, text) {
            return fail(&format!(
                "cannot write the baseline {}: {e}",
                path.display()
            ));
        }
    }
    for (path, what, text) in [
        (&args.sarif, "SARIF", sarif::render as fn(&_) -> String),
        (&args.html, "HTML", html::render),
    ] {
        if let Some(path) = path {
            if let Err(e) = std::fs::write(path, text(&report)) {
                return fail(&format!(
                    "cannot write the {what} report {}: {e}",
                    path.display()
                ));
            }
        }
    }

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

/// `diff`: what changed between two JSON reports.
fn diff(old: &Path, new: &Path, markdown: bool) -> ExitCode {
    let read = |path: &Path| conformance::diff::RunRecord::from_path(path);
    let (old_run, new_run) = match (read(old), read(new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => return fail(&e.to_string()),
    };
    let changes = conformance::diff::diff(&old_run, &new_run);
    print!(
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
    timeout: Option<Duration>,
    deadline: Option<Duration>,
    overlay: Option<PathBuf>,
) -> ExitCode {
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
        connect: Connect {
            no_proxy: server.is_some(),
            ..Connect::default()
        },
        deadline,
        ..RunOptions::default()
    };
    let second_model = profile.components.iter().any(|c| {
        c.authorize
            .as_ref()
            .is_some_and(|a| a.second_model.is_some())
    });
    let seen = conformance::observe::observe_within_samples(profile.clone(), &options).await;
    let pace = match &seen {
        Ok(_) => conformance::observe::pace(profile, &options).await,
        Err(_) => Ok(None),
    };
    if let Some(server) = server {
        server.shutdown().await;
    }
    match (seen, pace) {
        (Ok((choices, samples)), Ok(pace)) => {
            if let Some(file) = &overlay {
                let document = conformance::overlay::overlay(&choices, &samples);
                let text = match serde_yaml::to_string(&document) {
                    Ok(text) => text,
                    Err(e) => return fail(&format!("cannot write the overlay: {e}")),
                };
                let header = "# The server's choices where the description is silent, as an OpenAPI Overlay:\n# cargo run -p generator -- spec/openapi.yaml --overlay THIS_FILE --out src/bindings.rs\n";
                if let Err(e) = std::fs::write(file, format!("{header}{text}")) {
                    return fail(&format!(
                        "{}: cannot write the overlay: {e}",
                        file.display()
                    ));
                }
            }
            println!("# What the server was seen to choose where the description is silent.");
            println!("# Paste into its profile; a run then holds it to these at MUST level.");
            print!("{}", choices.to_yaml());
            if let Some(rate) = pace {
                print!("{}", rate_line(rate));
            }
            if !second_model {
                println!(
                    "# Environments are state: give a component a second model the server takes\n# (`authorize.second_model: {{ model_uuid: UUID, valid_body: {{...}} }}`), and the run\n# claims one model in `dev`, the other in `live`, and reads each back (state/environments)."
                );
            }
            ExitCode::SUCCESS
        }
        (Err(e), _) | (_, Err(e)) => fail(&e.to_string()),
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
            print!("{text}");
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
    let must = |c: &&conformance::catalogue::Check| c.level_for(profile) == Level::Must;
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
            Some(format!(
                "{} ({} fields)",
                c.name,
                c.fields.as_ref()?.0.len()
            ))
        })
        .collect();
    if !declared.is_empty() {
        println!(
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
        let _ = writeln!(out, "Cannot run: {} ({} checks)", need.reason(), ids.len());
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
        }
        yaml.push('}');
        out.push(yaml);
    }
    out
}

/// `init`: profile, choices, plan, workflow.
fn init(args: InitArgs) -> ExitCode {
    use conformance::init::{Answers, ComponentAnswer};
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
        let answers = Answers {
            base_url,
            client_id,
            client_secret_env,
            components,
        };
        answers.check().map_err(|e| e.to_string())?;
        Ok(answers)
    })();
    let answers = match answers {
        Ok(a) => a,
        Err(e) => return fail(&e),
    };
    for c in &answers.components {
        for field in c.written_secrets() {
            eprintln!(
                "warning: component `{}`: `valid_body.{field}` is a secret by its name and is written in the profile, which is committed; read it from the environment instead: `{field}: \"${{{}_{}}}\"`",
                c.name,
                field.to_ascii_uppercase(),
                conformance::profile::shell_name(&c.tag)
            );
        }
    }
    let profile_path = args.dir.join("profile.yaml");
    let baseline_path = args.dir.join("known-failures.yaml");
    for path in [&profile_path, &baseline_path, &args.workflow] {
        if path.exists() && !args.force {
            return fail(&format!(
                "{} exists; pass --force to replace it",
                path.display()
            ));
        }
    }
    let shown = |p: &Path| p.display().to_string().replace('\\', "/");
    let workflow = match answers.workflow_yaml(&shown(&profile_path), &shown(&baseline_path)) {
        Ok(w) => w,
        Err(e) => return fail(&e.to_string()),
    };
    let write = |path: &Path, text: &str| -> Result<(), ExitCode> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| fail(&format!("cannot create {}: {e}", dir.display())))?;
        }
        std::fs::write(path, text)
            .map_err(|e| fail(&format!("cannot write {}: {e}", path.display())))
    };
    let mut profile_text = answers.profile_yaml();
    if let Err(code) = write(&profile_path, &profile_text) {
        return code;
    }
    let vars = answers.variables().join(", $");
    println!(
        "Wrote {}: secrets read from ${vars} at run time.",
        profile_path.display()
    );
    let profile = match Profile::from_path(&profile_path) {
        Ok(p) => p,
        Err(e) => {
            return fail(&format!(
                "{e}\n(the profile is written; set the variables it reads, then run `conformance choices --profile {}` and `conformance check-profile --profile {}`)",
                profile_path.display(),
                profile_path.display()
            ));
        }
    };
    if args.no_observe {
        println!(
            "Not observed (--no-observe): the profile has no `choices:`; `conformance choices --profile {}` prints them.",
            profile_path.display()
        );
    } else {
        let runtime = match tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
        {
            Ok(r) => r,
            Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
        };
        let seen = runtime.block_on(conformance::observe::observe(
            profile.clone(),
            &RunOptions::default(),
        ));
        let pace = runtime
            .block_on(conformance::observe::pace(
                profile.clone(),
                &RunOptions::default(),
            ))
            .ok()
            .flatten();
        match seen {
            Ok(choices) => {
                profile_text = conformance::init::with_choices(&profile_text, &choices.to_yaml());
                if let Some(rate) = pace {
                    profile_text.push_str(&rate_line(rate));
                }
                if let Err(code) = write(&profile_path, &profile_text) {
                    return code;
                }
                println!(
                    "Observed the server's choices and pasted them into the profile (read them before committing)."
                );
            }
            Err(e) => {
                return fail(&format!(
                    "{e}\n(the profile is written without `choices:`; when the server answers, `conformance choices --profile {}` prints them)",
                    profile_path.display()
                ));
            }
        }
    }
    let profile = match Profile::from_path(&profile_path) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    let (plan, every_must) = match plan_text(&profile_path, &profile, Vec::new(), Vec::new()) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    println!();
    print!("{plan}");
    println!();
    if let Err(code) = write(
        &baseline_path,
        "# Known failures (see conformance/README.md, baselines): none yet.\n[]\n",
    ) {
        return code;
    }
    if let Err(code) = write(&args.workflow, &workflow) {
        return code;
    }
    println!(
        "Wrote {} (no known failures) and {}.",
        baseline_path.display(),
        args.workflow.display()
    );
    let secrets: Vec<String> = answers
        .variables()
        .iter()
        .map(|v| format!("CONFORMANCE_{v} (the value of ${v})"))
        .collect();
    println!(
        "In the repository's settings, add the secrets {}.",
        secrets.join(", ")
    );
    println!("Edit the workflow's \"Start the server\" step to start yours.");
    println!("Next: record the snapshots, review and commit them with the profile:");
    println!(
        "  conformance --profile {} --accept",
        profile_path.display()
    );
    if every_must {
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
