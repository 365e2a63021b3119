//! `conformance init`: answers (flags, else questions), then the profile
//! with the observed choices and the plan, then the files (all or
//! nothing), then what to do next.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use conformance_model::profile::Profile;
use conformance_suite::runner::RunOptions;
use conformance_wire::transport::Limits;

use super::dialogue::{ask, ask_components, given_or_asked};
use super::files::{inside, refuse_existing, repo_root, slashed, write_file};
use super::profile::with_choices;
use super::workflow::Paths;
use super::{self as i, Answers, ComponentAnswer, InitError};
use crate::command::check_profile::plan_text;
use crate::command::choices::rate_line;
use crate::command::{ConnectArgs, connect_from, fail, parse_duration};
use crate::{out, outln};

#[derive(Args)]
pub struct InitArgs {
    /// The server's URL (with any path prefix before /v2/api).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The X-Client-Id the runner sends.
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// The environment variable that holds the client secret.
    #[arg(long, value_name = "VAR")]
    pub client_secret_env: Option<String>,
    /// A component, as a profile's `components:` entry in YAML
    /// (repeatable; every key a profile's component takes): `{name: Users,
    /// tag: users, uuid: UUID, requires_auth: true, auth_token:
    /// "${USERS_TOKEN}", authorize: {model_uuid: UUID, valid_body: {email:
    /// a@example.com, password: "${USERS_PASSWORD}"}}}`; `authorize` runs
    /// the Authorize checks, its `invalid_body` the 417 ones, its
    /// `second_model` the environments check.
    #[arg(long = "component", value_name = "YAML")]
    pub components: Vec<String>,
    /// The action the workflow's gate step uses, `owner/name@ref`: the
    /// repository that publishes this runner's action, and a release tag
    /// of it. A placeholder is refused. Without it, the workflow builds
    /// the runner from --source.
    #[arg(long, value_name = "OWNER/NAME@REF", conflicts_with = "source")]
    pub action: Option<String>,
    /// Where the workflow builds the runner from when no release is used
    /// (before any exists): its git repository and a pinned revision,
    /// `URL@REV` (`https://github.com/acme/component-auth-conformance@<commit>`).
    #[arg(long, value_name = "URL@REV")]
    pub source: Option<String>,
    /// The command that starts your server in CI (the workflow's "Start
    /// the server" step runs it, then waits for $BASE_URL). None for a
    /// server that runs elsewhere (staging).
    #[arg(long, value_name = "COMMAND")]
    pub start: Option<String>,
    /// Where the profile, its snapshots and its baseline go (inside the
    /// repository; outside one, inside this folder).
    #[arg(long, value_name = "DIR", default_value = "conformance")]
    pub dir: PathBuf,
    /// Where the CI workflow goes: a file of the repository root's
    /// .github/workflows/ (default .github/workflows/conformance.yml there,
    /// wherever init runs: GitHub reads it there; outside a repository,
    /// this folder's).
    #[arg(long, value_name = "FILE")]
    pub workflow: Option<PathBuf>,
    /// Replace files that exist (regular files only, never through a link).
    #[arg(long)]
    pub force: bool,
    /// Do not ask the server (write the profile without `choices:`).
    #[arg(long)]
    pub no_observe: bool,
    /// Per-request time-out of the observation, e.g. `5s` (default 5s).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub timeout: Option<Duration>,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

/// The action `init` writes when no `--action` is given: this package's
/// repository at this release, unless it is still a placeholder.
fn default_action() -> Option<String> {
    let repo = env!("CARGO_PKG_REPOSITORY");
    let path = repo.strip_prefix("https://github.com/")?;
    let action = format!("{}@{}", path.trim_end_matches('/'), i::VERSION_TAG);
    i::check_action(&action).ok()?;
    Some(action)
}

/// `init`: answers, then the profile with the observed choices and the
/// plan, then the files (all or nothing), then what to do next.
pub fn main(args: InitArgs) -> ExitCode {
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
            source: String::new(),
            start: args.start.unwrap_or_default(),
        };
        answers.check_but_action().map_err(|e| e.to_string())?;
        match args.action.or_else(default_action) {
            Some(a) => answers.action = a,
            None => {
                answers.source = given_or_asked(
                    args.source,
                    "--action OWNER/NAME@TAG (a release's action) or --source URL@REV (the runner's git repository and a pinned revision, built from source: no release needed)",
                    "No --action: the workflow builds the runner from source. Its git repository and a pinned revision (URL@REV)",
                )?;
            }
        }
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
    let located = (|| -> Result<_, InitError> {
        let cwd = std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .map_err(|e| InitError(format!("cannot read the current folder: {e}")))?;
        let root = match repo_root(&cwd) {
            Ok(root) => root,
            Err(_) => {
                eprintln!(
                    "note: not inside a git repository: the files go in this folder, the workflow in its .github/workflows/ (where GitHub reads it once this folder is a repository's root)"
                );
                cwd.clone()
            }
        };
        let dir = inside(&root, &cwd, &args.dir, "--dir")?;
        let workflow = match &args.workflow {
            None => PathBuf::from(".github/workflows/conformance.yml"),
            Some(w) => {
                let rel = inside(&root, &cwd, w, "--workflow")?;
                let in_workflows = rel.parent() == Some(Path::new(".github/workflows"));
                let yaml = matches!(
                    rel.extension().and_then(|e| e.to_str()),
                    Some("yml" | "yaml")
                );
                if !in_workflows || !yaml {
                    return Err(InitError(format!(
                        "--workflow: GitHub runs only the .yml and .yaml files of {}/.github/workflows/ (not its subfolders); expected a file there",
                        root.display()
                    )));
                }
                rel
            }
        };
        let folder = match cwd.strip_prefix(&root) {
            Ok(rel) if !rel.as_os_str().is_empty() => slashed(rel),
            _ => ".".to_owned(),
        };
        Ok((root, dir, workflow, folder))
    })();
    let (root, dir, workflow_rel, folder) = match located {
        Ok(l) => l,
        Err(e) => return fail(&e.to_string()),
    };
    let profile_rel = dir.join("profile.yaml");
    let baseline_rel = dir.join("known-failures.yaml");
    if workflow_rel == profile_rel || workflow_rel == baseline_rel {
        return fail(&format!(
            "--workflow: {} is a file init writes itself (the profile or the baseline); expected another",
            slashed(&workflow_rel)
        ));
    }
    // Here and again when writing: a file that appears meanwhile is kept.
    for rel in [&profile_rel, &baseline_rel, &workflow_rel] {
        if let Err(e) = refuse_existing(&root, rel, args.force) {
            return fail(&e.to_string());
        }
    }
    let shown_profile = slashed(&profile_rel);
    // The private CA: the file itself where it is in the repository, else
    // a copy beside the profile (a CA certificate is public).
    let ca = match &args.connect.ca_cert {
        None => None,
        Some(given) => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let canonical = std::fs::canonicalize(cwd.join(given)).ok();
            match canonical
                .as_deref()
                .and_then(|c| c.strip_prefix(&root).ok())
            {
                Some(rel) => Some((rel.to_path_buf(), None)),
                None => match std::fs::read_to_string(given) {
                    Ok(text) => Some((dir.join("ca.pem"), Some(text))),
                    Err(e) => {
                        return fail(&format!("--ca-cert {}: {e}", given.display()));
                    }
                },
            }
        }
    };
    if let Some((rel, Some(_))) = &ca {
        if let Err(e) = refuse_existing(&root, rel, args.force) {
            return fail(&e.to_string());
        }
    }
    let ca_shown = ca.as_ref().map(|(rel, _)| slashed(rel));
    let ca_from_profile = ca.as_ref().map(|(rel, _)| slashed(&relative_to(rel, &dir)));
    let workflow = match answers.workflow_yaml(&Paths {
        profile: &shown_profile,
        baseline: &slashed(&baseline_rel),
        folder: &folder,
        ca_cert: ca_shown.as_deref(),
    }) {
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
    let mut profile_text = match answers.profile_yaml(ca_from_profile) {
        Ok(text) => text,
        Err(e) => return fail(&e.to_string()),
    };
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
                profile_text = with_choices(&profile_text, &choices.to_yaml());
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

    if let Some((rel, Some(text))) = &ca {
        if let Err(e) = write_file(&root, rel, text, args.force) {
            return fail(&e.to_string());
        }
    }
    for (rel, text) in [
        (&profile_rel, profile_text.as_str()),
        (
            &baseline_rel,
            "# Known failures (see conformance/README.md, baselines): none yet.\n[]\n",
        ),
        (&workflow_rel, workflow.as_str()),
    ] {
        if let Err(e) = write_file(&root, rel, text, args.force) {
            return fail(&e.to_string());
        }
    }
    let secrets = answers.secret_variables();
    let plain = answers.plain_variables();
    outln!(
        "Wrote {shown_profile}: the server's URL from ${base_var}{}{}.",
        if secrets.is_empty() {
            String::new()
        } else {
            format!(", secrets from ${} at run time", secrets.join(", $"))
        },
        match &ca_shown {
            Some(ca) => format!(", trusting the CA in {ca}"),
            None => String::new(),
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
    match answers.source_parts() {
        None => outln!(
            "Wrote {} (no known failures) and {} (uses {}).",
            slashed(&baseline_rel),
            slashed(&workflow_rel),
            answers.action
        ),
        Some((git, rev)) => outln!(
            "Wrote {} (no known failures) and {} (no --action: it builds the runner from source, {git} at {rev}, which needs no release; `init --action OWNER/NAME@TAG --force` uses a release's action once one exists).",
            slashed(&baseline_rel),
            slashed(&workflow_rel),
        ),
    }
    if !secrets.is_empty() {
        let named: Vec<String> = secrets
            .iter()
            .map(|v| format!("CONFORMANCE_{v} (the value of ${v})"))
            .collect();
        outln!(
            "In the repository's settings, add the secrets {}.",
            named.join(", ")
        );
    }
    if !plain.is_empty() {
        let named: Vec<String> = plain
            .iter()
            .map(|v| format!("CONFORMANCE_{v} (the value of ${v})"))
            .collect();
        outln!(
            "In the repository's settings, add the variables (not secrets: they hold none) {}.",
            named.join(", ")
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

/// `path` (from the repository's root) from the folder `dir` (also from
/// the root): `../` for each of `dir`'s parts not shared.
fn relative_to(path: &Path, dir: &Path) -> PathBuf {
    let path_parts: Vec<_> = path.components().collect();
    let dir_parts: Vec<_> = dir.components().collect();
    let shared = path_parts
        .iter()
        .zip(&dir_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in shared..dir_parts.len() {
        out.push("..");
    }
    for part in &path_parts[shared..] {
        out.push(part.as_os_str());
    }
    out
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
