//! §5 Authentication: `X-Auth-Token`, required only where the component
//! requires auth. Missing and wrong tokens are refused there, a valid one
//! is served, and a component that does not require auth does not demand one.

use std::sync::Arc;

use crate::catalogue::{Check, Level, Outcome, Run};
use crate::checks::{ACCEPTED, REFUSED, WRONG_TOKEN, accepted, refused, send_and_judge};
use crate::needs::Need;
use crate::target::{Op, Probe, Target};

const QUOTE: &str =
    "X-Auth-Token | string | only if the component requires auth | Token `<AUTH_TOKEN>`.";

#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Missing,
    Wrong,
    Valid,
    NotRequired,
}

pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for op in Op::BOTH {
        for (variant, id, title, sends, expects) in [
            (
                Variant::Missing,
                "missing",
                "is refused without X-Auth-Token where the component requires auth",
                "a valid request to each component that requires auth, without X-Auth-Token",
                REFUSED,
            ),
            (
                Variant::Wrong,
                "wrong",
                "is refused with a wrong X-Auth-Token where the component requires auth",
                "a valid request to each component that requires auth, with an X-Auth-Token the server never issued",
                REFUSED,
            ),
            (
                Variant::Valid,
                "valid",
                "is served with a valid X-Auth-Token where the component requires auth",
                "a valid request to each component that requires auth, with the profile's auth_token",
                ACCEPTED,
            ),
            (
                Variant::NotRequired,
                "not-required",
                "is served without X-Auth-Token where the component does not require auth",
                "a valid request to each component that does not require auth, without X-Auth-Token",
                ACCEPTED,
            ),
        ] {
            out.push(Check {
                id: format!("auth-token/{}/{id}", op.id()),
                level: Level::Must,
                section: "5",
                quote: QUOTE,
                title: format!("{}: {title}", op.title()),
                sends: sends.into(),
                expects: expects.into(),
                run: Run::new(move |t| run(t, op, variant)).needs(&[need(op, variant)]),
            });
        }
    }
    out
}

/// A component with (or without) auth that can take `op`.
fn need(op: Op, variant: Variant) -> Need {
    match (op, variant == Variant::NotRequired) {
        (Op::AuthClaims, false) => Need::RequiresAuth,
        (Op::AuthClaims, true) => Need::NoAuth,
        (Op::Authorize, false) => Need::RequiresAuthWithAuthorize,
        (Op::Authorize, true) => Need::NoAuthWithAuthorize,
    }
}

async fn run(t: Arc<Target>, op: Op, variant: Variant) -> Outcome {
    let wants_auth = variant != Variant::NotRequired;
    let comps: Vec<_> = t
        .components(op)
        .into_iter()
        .filter(|c| c.requires_auth == wants_auth)
        .collect();
    if comps.is_empty() {
        return Outcome::skip(format!(
            "no component in the profile {} auth{}",
            if wants_auth {
                "requires"
            } else {
                "does without"
            },
            if op == Op::Authorize {
                " and has an `authorize` section"
            } else {
                ""
            }
        ));
    }
    let reqs = comps
        .iter()
        .map(|c| {
            let req = t.valid(op, c).and_then(|r| match variant {
                Variant::Missing | Variant::NotRequired => Ok(r.remove_header("X-Auth-Token")),
                Variant::Wrong => r.set_header("X-Auth-Token", WRONG_TOKEN),
                Variant::Valid => Ok(r),
            });
            Probe::new(c.name.clone(), req)
        })
        .collect();
    let judge = match variant {
        Variant::Missing | Variant::Wrong => refused,
        Variant::Valid | Variant::NotRequired => accepted,
    };
    send_and_judge(&t, reqs, judge).await
}
