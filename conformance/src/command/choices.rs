//! `choices`: what the server was seen to choose where the description is
//! silent, printed as a `choices:` block to paste into its profile (and,
//! with `--overlay`, written as an OpenAPI Overlay).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use conformance_suite::runner::RunOptions;
use conformance_wire::connect::Connect;
use conformance_wire::transport::Limits;

use super::embedded::load_or_embedded;
use super::{ConnectArgs, connect_from, fail, target_given};
use crate::{out, outln};

/// `choices` with its flags: `profile` (none: the built-in server), or
/// `embedded`; exit 2 for both, or for neither under CI.
pub fn main(
    profile: Option<PathBuf>,
    embedded: bool,
    connect: ConnectArgs,
    timeout: Option<Duration>,
    deadline: Option<Duration>,
    overlay: Option<PathBuf>,
) -> ExitCode {
    if profile.is_some() && embedded {
        return fail(
            "--profile and --embedded: name one target, your server's profile or the built-in server",
        );
    }
    let profile = if embedded {
        None
    } else {
        match super::target::resolve(profile) {
            Ok(found) => found,
            Err(code) => return code,
        }
    };
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
    runtime.block_on(print_choices(profile, connect, timeout, deadline, overlay))
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
    if let Some(ca) = &profile.ca_cert {
        if let Err(e) = connect.add_ca_file(ca) {
            return fail(&format!("the profile's `ca_cert`: {e}"));
        }
    }
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

/// The profile's `rate:` for a server seen to limit its clients, with why.
pub fn rate_line(rate: f64) -> String {
    format!(
        "# The server limited a burst of requests (429, or 503 with Retry-After): a run\n# starts no more than this many a second (a top-level key, beside `choices:`).\nrate: {rate}\n"
    )
}
