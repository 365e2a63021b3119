//! §7 on every answer of the run: whatever check sent a request to the
//! interface's path (a SHOULD probe with another method, an oversized body,
//! a near miss), an error answer is JSON, says so and carries
//! `X-Project-Uuid`, with the 7.1 shape on a 400 and the 7.2 shape on a
//! 417. A framework's HTML 404 or 413 page shows here even where the check
//! that provoked it only warns.
//!
//! These two checks send nothing of their own: the runner calls
//! [`judge_every_answer`] once every other check is done, and a failure
//! names the check whose exchange broke the rule. So they are procedures,
//! not declarations ([`crate::case`]): their answers exist only once every other
//! check has run.

use crate::catalogue::{Check, Level, Outcome, Run, Verdict};
use crate::exchange::Exchange;
use crate::judge::reproduce;
use crate::phase::Phase;

pub(crate) const ENVELOPES: &str = "answers/errors-are-envelopes";
pub(crate) const NO_5XX: &str = "answers/no-server-errors";

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: ENVELOPES.into(),
            level: Level::Must,
            section: "7",
            quote: "Error responses are JSON. Both carry the `Content-Type: application/json` header and an `X-Project-Uuid` header.",
            title: "every error answer of the run, whichever check provoked it, is an error envelope".into(),
            sends: "nothing of its own: it judges the answers of every other check to a request on /v2/api/component/{ref}/auth".into(),
            expects: "every 4xx/5xx answer: a JSON body, Content-Type application/json, X-Project-Uuid; on 400 the 7.1 shape, on 417 the 7.2 shape".into(),
            run: Run::procedure(Phase::Judge, |_| async { Outcome::pass(Vec::new()) }),
        },
        Check {
            id: NO_5XX.into(),
            level: Level::Should,
            section: "7",
            quote: "RFC 9110 section 15.6: a 5xx says the server failed; the description names no 5xx, and a request it can refuse is answered 4xx",
            title: "no answer of the run is a 5xx".into(),
            sends: "nothing of its own: it judges the answers of every other check".into(),
            expects: "no 5xx answer, except a 503 with Retry-After (a server shedding load)".into(),
            run: Run::procedure(Phase::Judge, |_| async { Outcome::pass(Vec::new()) }),
        },
    ]
}

/// Judges every answer of `outcomes` (but those of these two checks) and
/// puts the verdicts in place of these two checks' outcomes.
pub(crate) fn judge_every_answer(checks: &[Check], outcomes: &mut [Outcome]) {
    let mut envelope_failures = Vec::new();
    let mut server_errors = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut judged = 0;
    for (c, o) in checks.iter().zip(outcomes.iter()) {
        if c.id == ENVELOPES || c.id == NO_5XX {
            continue;
        }
        // Checks sharing exchanges (a group) are judged once.
        if !seen.insert(o.group.unwrap_or(c.id.as_str()).to_owned()) {
            continue;
        }
        for ex in &o.exchanges {
            let Some(r) = &ex.response else { continue };
            if !on_interface_path(ex) || r.status < 400 {
                continue;
            }
            judged += 1;
            let problems = problems(ex);
            if !problems.is_empty() {
                envelope_failures.push(format!(
                    "{} / {}: {}\n    {}{}",
                    c.id,
                    ex.label,
                    problems.join("; "),
                    ex.summary(),
                    reproduce(ex)
                ));
            }
            let shedding = r.status == 503 && r.headers.contains_key("retry-after");
            if r.status >= 500 && !shedding {
                server_errors.push(format!(
                    "{} / {}: {}{}",
                    c.id,
                    ex.label,
                    ex.summary(),
                    reproduce(ex)
                ));
            }
        }
    }
    for (c, o) in checks.iter().zip(outcomes.iter_mut()) {
        let failures = if c.id == ENVELOPES {
            std::mem::take(&mut envelope_failures)
        } else if c.id == NO_5XX {
            std::mem::take(&mut server_errors)
        } else {
            continue;
        };
        *o = if judged == 0 {
            Outcome::not_applicable(
                "no check of this run was answered with an error",
                Vec::new(),
            )
        } else {
            Outcome::from_failures(failures, Vec::new())
        };
        debug_assert!(!matches!(o.verdict, Verdict::Skip { .. }));
    }
}

/// A request to the interface's path (`…/v2/api/component/{ref}/auth`):
/// answers elsewhere (a path without /v2/api) are not the interface's.
fn on_interface_path(ex: &Exchange) -> bool {
    let path = ex.request.path.split('?').next().unwrap_or_default();
    path.contains("/v2/api/component/") && path.ends_with("/auth")
}

/// What is wrong with an error answer, from its record.
fn problems(ex: &Exchange) -> Vec<String> {
    let Some(r) = &ex.response else {
        return Vec::new();
    };
    let mut p = Vec::new();
    let ct = r.headers.get("content-type").map_or("", String::as_str);
    if !crate::envelope::is_json_media_type(ct) {
        p.push(if ct.is_empty() {
            "no Content-Type".to_owned()
        } else {
            format!("Content-Type `{ct}`")
        });
    }
    if !r.headers.contains_key("x-project-uuid") {
        p.push("no X-Project-Uuid".to_owned());
    }
    if !r.is_json {
        p.push("the body is not JSON".to_owned());
    } else if r.status == 400 {
        p.extend(crate::envelope::shape_400(r.body.as_ref()));
    } else if r.status == 417 {
        p.extend(crate::envelope::shape_417(r.body.as_ref()));
    }
    p
}
