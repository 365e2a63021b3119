//! `conformance`: the command-line shell over the `conformance` library.
//! It parses the flags and dispatches to the command's module
//! ([`conformance::command`], [`conformance::init`]), which does the work
//! and returns the exit code: 0 (all MUST checks and snapshots pass), 1
//! (something failed), 2 (a usage or profile error, or a target that
//! cannot be reached) or 3 (nothing failed, but some check could not be
//! judged: the server's limits or slowness kept its answer away within the
//! run's deadline).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, Parser, Subcommand};
use conformance::command::run::RunArgs;
use conformance::command::target::ProfileArg;
use conformance::command::traffic::ProxyArgs;
use conformance::command::{self, ConnectArgs, parse_duration};
use conformance::init::command::InitArgs;

/// mimalloc: the proxy allocates a little per exchange (the observed
/// request and answer, hyper's buffers); mimalloc's thread-local free
/// lists serve it for less CPU than the system allocator's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "conformance",
    version,
    about = "Checks a server against the Component Authentication Claims interface, rule by rule.",
    args_conflicts_with_subcommands = true,
    after_help = "Exit codes of a run: 0 every MUST check and snapshot passed; 1 something failed; 2 a bad profile or flag, or a server that cannot be reached; 3 nothing failed, but some check was not judged (the server's limits or slowness kept its answer away within the deadline, 10m unless --deadline says)."
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
        #[command(flatten)]
        profile: ProfileArg,
        /// The profile, given without `--profile` (kept for older scripts).
        #[arg(value_name = "FILE", hide = true, conflicts_with = "profile")]
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
        /// The server's profile (YAML). Default: conformance/profile.yaml,
        /// then conformance.yaml, looked for from here up to the
        /// repository's root; only where none is found (and outside CI),
        /// the built-in reference server is asked. A FILE that does not
        /// exist is exit 2.
        #[arg(long, value_name = "FILE", env = "CONFORMANCE_PROFILE")]
        profile: Option<PathBuf>,
        /// Ask the built-in reference server, started in-process, with its
        /// shipped profile.
        #[arg(long, conflicts_with = "profile")]
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
        /// Only what enforces this requirement (an id of the table of
        /// requirements, `7/errors-are-json`): the checks, traffic rules,
        /// faults and variants that name it.
        #[arg(long, value_name = "ID")]
        requirement: Option<String>,
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
        #[command(flatten)]
        profile: ProfileArg,
        #[command(flatten)]
        args: ProxyArgs,
    },
    /// Judge recorded traffic: every exchange of a HAR 1.2 file (a
    /// browser's, mitmproxy's, schemathesis's) or of NDJSON (one HAR entry
    /// a line, as a log pipeline writes), from a file or from standard
    /// input as it arrives (`-`), by the rules the proxy uses, the reports
    /// in every format asked for. Exit codes as for a run: 0 when no MUST
    /// rule was broken, 1 when one was (or the recording held no exchange:
    /// nothing proven), 2 for a recording that cannot be read or is not
    /// HAR, or a bad profile.
    Audit {
        #[command(flatten)]
        profile: ProfileArg,
        #[command(flatten)]
        args: command::traffic::AuditArgs,
    },
    /// Print the completions of SHELL (bash, elvish, fish, powershell,
    /// zsh) for `conformance`, e.g. `conformance completions bash >
    /// ~/.local/share/bash-completion/completions/conformance`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    command::drop_empty_settings();
    let cli = Cli::parse();
    match cli.command {
        Some(Command::List { markdown }) => command::list::main(markdown),
        Some(Command::CheckProfile {
            profile,
            file,
            only,
            skip,
        }) => match command::target::required(profile.profile.or(file), "check-profile") {
            Ok(file) => command::check_profile::check_profile(&file, only, skip),
            Err(code) => code,
        },
        Some(Command::Init(args)) => conformance::init::command::main(args),
        Some(Command::Choices {
            profile,
            embedded,
            connect,
            timeout,
            deadline,
            overlay,
        }) => command::choices::main(profile, embedded, connect, timeout, deadline, overlay),
        Some(Command::Diff { old, new, markdown }) => command::diff::main(&old, &new, markdown),
        Some(Command::Proxy { profile, args }) => {
            match command::target::required(profile.profile, "proxy") {
                Ok(file) => command::traffic::proxy_main(Some(file), args),
                Err(code) => code,
            }
        }
        Some(Command::Audit { profile, args }) => {
            match command::target::required(profile.profile, "audit") {
                Ok(file) => command::traffic::audit_main(Some(file), args),
                Err(code) => code,
            }
        }
        Some(Command::Coverage {
            markdown,
            requirement,
        }) => command::coverage::main(markdown, requirement),
        Some(Command::Completions { shell }) => {
            let mut out = std::io::stdout();
            clap_complete::generate(shell, &mut Cli::command(), "conformance", &mut out);
            ExitCode::SUCCESS
        }
        None => command::run::main(cli.run),
    }
}
