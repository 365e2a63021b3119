//! §9 Versioning (and §4): the interface is served under `{base_url}/v2/api`.

use crate::context::RunContext;
use std::sync::Arc;

use crate::catalogue::{Check, Level, Outcome, Run};
use crate::checks::{ACCEPTED, accepted, send_and_judge};
use crate::target::{Op, Probe};

const QUOTE: &str = "The interface version is `v2`, carried as a path segment directly after the address of the service: `/v2/api/...`.";

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "prefix/v2-api".into(),
            level: Level::Must,
            section: "9",
            quote: QUOTE,
            title: "both operations are served under /v2/api".into(),
            sends: "a valid request of each operation to {base_url}/v2/api/component/{name}/auth"
                .into(),
            expects: ACCEPTED.into(),
            run: Run::new(served),
        },
        Check {
            id: "prefix/unversioned-not-served".into(),
            level: Level::Should,
            section: "9",
            quote: "spec choice 14: a path outside the interface is 404 (The interface version is `v2`, carried as a path segment directly after the address of the service.)",
            title: "the interface is not also served without /v2/api".into(),
            sends: "a valid Auth Claims request to {base_url}/component/{name}/auth".into(),
            expects: "not a 2xx answer".into(),
            run: Run::new(unversioned),
        },
    ]
}

async fn served(t: Arc<RunContext>) -> Outcome {
    let mut reqs = Vec::new();
    for op in Op::BOTH {
        if let Some(c) = t.primary(op) {
            reqs.push(Probe::new(
                format!("{} {}", op.method(), c.name),
                t.valid(op, c),
            ));
        }
    }
    send_and_judge(&t, reqs, accepted).await
}

async fn unversioned(t: Arc<RunContext>) -> Outcome {
    let Some(c) = t.primary(Op::AuthClaims) else {
        return Outcome::skip("the profile has no component");
    };
    let req = t
        .valid(Op::AuthClaims, c)
        .map(|r| r.without_path_prefix("/v2/api"));
    send_and_judge(&t, vec![Probe::new(c.name.clone(), req)], |s| {
        match s.status() {
            Some(st) if (200..300).contains(&st) => {
                Err(format!("served without /v2/api: {}", s.summary()))
            }
            _ => Ok(()),
        }
    })
    .await
}
