//! The edge cases, derived from the profile with no data from the user:
//! near misses of each credential and value, odd refs and bodies, and
//! every single change of every field of each `valid_body`.
//!
//! Near misses of the credentials, tokens and X-Project-Env are made in
//! `headers.rs`, odd refs in `refs.rs`, odd bodies and field changes in
//! `bodies.rs`; every case is sent and labelled here.

mod bodies;
mod headers;
mod refs;

use std::sync::Arc;

use component_auth_bindings::Error;

use conformance_wire::request::{Op, Probe, Req};
use conformance_wire::target::Target;

use super::curl::{self, Derived, Placeholder};
use super::{Case, Family, Judged};
use bodies::{field_changes, media_types, whole_bodies};
use headers::{credentials, project_env, tokens};
use refs::refs;

/// One request to send, before it is sent.
struct Pending {
    family: Family,
    label: String,
    req: Result<Req, Error>,
    derived: Vec<Derived>,
    reference: Option<Result<Req, Error>>,
    /// Shell lines the reproduction runs first: how to obtain a value the
    /// run made (a token Authorize issued).
    prelude: Option<String>,
    /// Its component's declared fields and the body sent: the oracle
    /// judges the answer ([`super::oracle`]).
    judged_body: Option<(conformance_model::fields::Fields, String)>,
    /// See [`Case::foreign_token_to`].
    foreign_token_to: Option<usize>,
}

impl Pending {
    fn new(family: Family, label: String, req: Result<Req, Error>) -> Self {
        Pending {
            family,
            label,
            req,
            derived: Vec::new(),
            reference: None,
            prelude: None,
            judged_body: None,
            foreign_token_to: None,
        }
    }
}

/// Every edge case of the families `judged` names whose request is of
/// `op`, sent concurrently, answers in a fixed order; each case knows its
/// position among the cases of every operation.
pub async fn all(t: &Arc<Target>, judged: &Judged, op: Op) -> Vec<Case> {
    let mut pending = Vec::new();
    credentials(&t.requests, &mut pending);
    if judged.judges(Family::Token) {
        tokens(t, &mut pending);
    }
    project_env(&t.requests, &mut pending);
    refs(&t.requests, &mut pending);
    whole_bodies(&t.requests, &mut pending);
    media_types(&t.requests, &mut pending);
    field_changes(&t.requests, &mut pending);
    // A request the bindings could not build tests nothing: left out; so
    // is a family no selected check judges.
    pending.retain(|p| p.req.is_ok() && judged.judges(p.family));
    let pending: Vec<(usize, Pending)> = pending
        .into_iter()
        .enumerate()
        .filter(|(_, p)| matches!(&p.req, Ok(r) if r.op() == op))
        .collect();

    let secrets = t.reproductions.curl_secrets();
    let extra = t.reproductions.curl_headers();
    let curls: Vec<String> = pending
        .iter()
        .map(|(_, p)| p.prelude.clone().unwrap_or_default() + &render(p, secrets) + extra)
        .collect();
    let mut probes = Vec::new();
    let mut references = Vec::new();
    let mut meta = Vec::new();
    for (position, p) in pending {
        if let Some(r) = p.reference {
            references.push(Probe::new(format!("{} (as written)", p.label), r));
        }
        meta.push((
            p.family,
            p.label.clone(),
            position,
            p.judged_body.clone(),
            p.foreign_token_to,
        ));
        probes.push(Probe::new(p.label, p.req));
    }
    let sent = t.send_all(probes).await;
    let mut reference_answers = t.send_all(references).await.into_iter();
    meta.into_iter()
        .zip(sent)
        .zip(curls)
        .map(
            |(((family, label, position, body, foreign_token_to), sent), curl)| {
                let oracle = match &body {
                    Some((declared, body)) => {
                        super::oracle::judge(declared, op, body, &sent, &t.profile().choices)
                    }
                    None => Vec::new(),
                };
                Case {
                    family,
                    label,
                    curl,
                    sent,
                    reference: (family == Family::UuidForm)
                        .then(|| reference_answers.next())
                        .flatten(),
                    position,
                    oracle,
                    foreign_token_to,
                }
            },
        )
        .collect()
}

fn render(p: &Pending, secrets: &[Placeholder]) -> String {
    match &p.req {
        Ok(req) => curl::render(req, secrets, &p.derived),
        Err(e) => format!("(the request could not be built: {e})"),
    }
}
