//! `conformance choices`: what a server chose where the description is
//! silent, observed by asking it, and printed as a `choices:` block to paste
//! into its profile. A team adopts the gate in two commands: `choices`,
//! then a run that holds the server to what it was seen to do.
//!
//! Only what is seen is declared; a choice the probes cannot settle (no
//! answer, or one no refusal explains) is left out, and stays ours at
//! SHOULD level. Read the block before committing it: it records the
//! server's behaviour as it is, bugs included.
//!
//! The rows of the choices' table are observed in `rows.rs`, the body
//! limit found in `body_limit.rs`, the pace the server allows in
//! `pace.rs`.

mod body_limit;
mod pace;
mod rows;

pub use pace::pace;

use std::sync::Arc;

use crate::runner::{RunError, RunOptions};
use conformance_model::choices::Choices;
use conformance_wire::request::{Op, Probe};
use conformance_wire::target::Target;

/// What the successful answers looked like, of every component of the
/// profile: the bodies (JSON) of a valid Authorize and of the Auth Claims
/// after it, with their statuses, and the tokens Authorize issued: what
/// `choices --overlay` infers the success bodies' shapes from (a shape
/// that holds for every component, not the first one's).
#[derive(Debug, Clone, Default)]
pub struct Samples {
    pub authorize: Vec<(u16, serde_json::Value)>,
    pub auth_claims: Vec<(u16, serde_json::Value)>,
    pub tokens: Vec<String>,
}

/// [`observe`] within `options.deadline`: when it passes, an error (exit
/// 2) and nothing declared, as a block cut short would be a guess.
pub async fn observe_within(
    profile: conformance_model::profile::Profile,
    options: &RunOptions,
) -> Result<Choices, RunError> {
    observe_within_samples(profile, options)
        .await
        .map(|(choices, _)| choices)
}

/// [`observe_within`], with the [`Samples`] of the successful answers.
pub async fn observe_within_samples(
    profile: conformance_model::profile::Profile,
    options: &RunOptions,
) -> Result<(Choices, Samples), RunError> {
    let url = profile.base_url.clone();
    match options.deadline {
        None => observe_all(profile, options).await,
        Some(limit) => match tokio::time::timeout(limit, observe_all(profile, options)).await {
            Ok(seen) => seen,
            Err(_) => Err(RunError::Unreachable {
                url: without_userinfo(&url),
                reason: format!(
                    "the deadline ({} ms) passed before every choice was observed; nothing is declared",
                    limit.as_millis()
                ),
            }),
        },
    }
}

/// `url` without its user name and password (`base_url` may hold them).
fn without_userinfo(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_password(None);
            let _ = u.set_username("");
            u.to_string()
        }
        Err(_) => "the target".to_owned(),
    }
}

/// Asks the server what it chose. Choices it does not settle are `None`.
pub async fn observe(
    profile: conformance_model::profile::Profile,
    options: &RunOptions,
) -> Result<Choices, RunError> {
    observe_all(profile, options)
        .await
        .map(|(choices, _)| choices)
}

/// [`observe`], with the [`Samples`] of the successful answers.
async fn observe_all(
    profile: conformance_model::profile::Profile,
    options: &RunOptions,
) -> Result<(Choices, Samples), RunError> {
    // Start from ours: what the profile declares is what is being learnt.
    let profile = conformance_model::profile::Profile {
        choices: Choices::default(),
        ..profile
    };
    let target =
        Target::new(profile, options.limits, options.connect.clone()).map_err(RunError::Client)?;

    // Nothing is declared about what does not answer: a closed port, a
    // reset, garbage or silence is exit 2, not a block of guesses.
    answers_http(&target).await?;
    // Where modelUuid travels is found first: every Authorize the other
    // rows send carries it there (Target::valid reads the place from the
    // profile: give it what was seen).
    let place = target.model_uuid_place().await;
    let target = Target::new(
        conformance_model::profile::Profile {
            choices: Choices {
                model_uuid: place.as_ref().map(|(at, _)| at.clone()),
                ..Choices::default()
            },
            ..target.profile().clone()
        },
        options.limits,
        options.connect.clone(),
    )
    .map_err(RunError::Client)?;
    Ok(rows::observe_rows(Arc::new(target), place).await)
}

/// One valid Auth Claims request must get an HTTP answer (any status):
/// otherwise the target cannot be reached, and `choices` says so (exit 2)
/// rather than declaring what it never saw. Stricter than a run's
/// preflight, which lets checks judge garbage and silence: `choices`
/// judges nothing, it only records.
async fn answers_http(t: &Target) -> Result<(), RunError> {
    let Some(c) = t.requests.primary(Op::AuthClaims) else {
        return Ok(());
    };
    let sent = t
        .send(Probe::new("reach", t.requests.valid(Op::AuthClaims, c)))
        .await;
    if sent.status().is_some() || sent.answered_over_cap {
        return Ok(());
    }
    let reason = sent
        .exchange
        .error
        .clone()
        .unwrap_or_else(|| "no HTTP answer".to_owned());
    Err(RunError::Unreachable {
        url: t.sender.scrubber().text(&t.profile().base_url),
        reason: format!("no HTTP answer to a valid Auth Claims request ({reason})"),
    })
}
