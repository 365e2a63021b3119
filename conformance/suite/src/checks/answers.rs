//! §7 on every answer of the run: whatever check sent a request to the
//! interface's path (a SHOULD probe with another method, an oversized body,
//! a near miss), an error answer is JSON, says so and carries
//! `X-Project-Uuid`, with the 7.1 shape on a 400 and the 7.2 shape on a
//! 417. A framework's HTML 404 or 413 page shows here even where the check
//! that provoked it only warns. And no answer is a redirect: the interface
//! answers at `base_url` (§4), and the runner never follows one.
//!
//! These three checks send nothing of their own: they are run-wide checks
//! ([`RunWide`]), judged once every other check is, over every other
//! check's exchanges, and a failure names the check whose exchange broke
//! the rule.

use crate::case::{CaseCheck, Expect, Sends};
use crate::catalogue::{Check, Cites, Level, Outcome, Run, RunWide, Subject};
use crate::judge::reproduce;
use conformance_requirements as requirement;
use conformance_wire::exchange::Exchange;

pub fn checks() -> Vec<Check> {
    vec![
        CaseCheck {
            id: "answers/errors-are-envelopes",
            level: Level::Must,
            section: "7",
            cites: Cites::Requirement(&requirement::ERROR_ENVELOPE),
            title: "every error answer of the run, whichever check provoked it, is an error envelope".into(),
            sends: Sends::Own {
                text: "nothing of its own: it judges the answers of every other check to a request on /v2/api/component/{ref}/auth".into(),
                run: Run::run_wide(envelopes),
            },
            expects: Expect::Own("every 4xx/5xx answer: a JSON body, Content-Type application/json, X-Project-Uuid; on 400 the 7.1 shape, on 417 the 7.2 shape".into()),
            subject: Subject::NONE,
        }
        .into(),
        CaseCheck {
            id: "answers/limit-answers-are-envelopes",
            level: Level::Must,
            section: "7",
            cites: Cites::Requirement(&requirement::ERROR_ENVELOPE),
            title: "a limit answer (429, or 503 with Retry-After) is an error answer like any other".into(),
            sends: Sends::Own {
                text: "nothing of its own: it judges the limit answers the run was given, a few of each kind (§8: \"Limits (rate limits, size limits, time-outs): not shown\": a limit is the server's to set; its answer is still an error answer of the interface)".into(),
                run: Run::run_wide(limit_answers),
            },
            expects: Expect::Own("each limit answer: a JSON body, Content-Type application/json, X-Project-Uuid; not applicable where the server never limited the run".into()),
            subject: Subject::NONE,
        }
        .into(),
        CaseCheck {
            id: "answers/no-server-errors",
            level: Level::Should,
            section: "7",
            cites: Cites::Norm("RFC 9110 section 15.6: a 5xx says the server failed; the description names no 5xx, and a request it can refuse is answered 4xx"),
            title: "no answer of the run is a 5xx".into(),
            sends: Sends::Own {
                text: "nothing of its own: it judges the answers of every other check".into(),
                run: Run::run_wide(no_server_errors),
            },
            expects: Expect::Own("no 5xx answer, except a 503 with Retry-After (a server shedding load)".into()),
            subject: Subject::NONE,
        }
        .into(),
        CaseCheck {
            id: "answers/no-redirects",
            level: Level::Must,
            section: "4",
            cites: Cites::Requirement(&requirement::BASE_URL),
            title: "no answer of the run is a redirect: the interface answers at base_url".into(),
            sends: Sends::Own {
                text: "nothing of its own: it judges the answers of every other check".into(),
                run: Run::run_wide(no_redirects),
            },
            expects: Expect::Own("no 3xx answer: a redirect is never followed, so nothing (no credential) goes to the host its Location names".into()),
            subject: Subject::NONE,
        }
        .into(),
    ]
}

/// Every error answer the other checks got on the interface's path, with
/// the check that got it; none: nothing to judge.
fn error_answers<'a>(run: &'a RunWide<'_>) -> Vec<(&'a Check, &'a Exchange)> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (c, o) in run.others() {
        // Checks sharing exchanges (a group) are judged once.
        if !seen.insert(o.group.unwrap_or(c.id)) {
            continue;
        }
        for ex in &o.exchanges {
            let Some(r) = &ex.response else { continue };
            if on_interface_path(ex) && r.status >= 400 {
                out.push((c, ex));
            }
        }
    }
    out
}

/// Every error answer an error envelope of the description.
fn envelopes(run: &RunWide<'_>) -> Outcome {
    let answers = error_answers(run);
    if answers.is_empty() {
        return Outcome::not_applicable(NO_ERROR, Vec::new());
    }
    let failures = answers
        .into_iter()
        .filter_map(|(c, ex)| not_an_envelope(&format!("{} / {}", c.id, ex.label), ex))
        .collect();
    Outcome::from_failures(failures, Vec::new())
}

/// `who: what is wrong`, the answer and its reproduction, where `ex`'s
/// answer is not an error envelope.
fn not_an_envelope(who: &str, ex: &Exchange) -> Option<String> {
    let problems = problems(ex);
    (!problems.is_empty()).then(|| {
        format!(
            "{who}: {}\n    {}{}",
            problems.join("; "),
            ex.summary(),
            reproduce(ex)
        )
    })
}

/// Every limit answer the run was given an error envelope of the
/// description: a limiter in front of the service (a framework's plugin, a
/// gateway) answers for the interface too.
fn limit_answers(run: &RunWide<'_>) -> Outcome {
    if run.limited.is_empty() {
        return Outcome::not_applicable("the server never limited this run", Vec::new());
    }
    let failures = run
        .limited
        .iter()
        .filter_map(|ex| not_an_envelope(&ex.label, ex))
        .collect();
    Outcome::from_failures(failures, Vec::new())
}

/// No error answer a 5xx, but a 503 with Retry-After.
fn no_server_errors(run: &RunWide<'_>) -> Outcome {
    let answers = error_answers(run);
    if answers.is_empty() {
        return Outcome::not_applicable(NO_ERROR, Vec::new());
    }
    let failures = answers
        .into_iter()
        .filter_map(|(c, ex)| {
            let r = ex.response.as_ref()?;
            let shedding = r.status == 503 && r.headers.contains_key("retry-after");
            (r.status >= 500 && !shedding)
                .then(|| format!("{} / {}: {}{}", c.id, ex.label, ex.summary(), reproduce(ex)))
        })
        .collect();
    Outcome::from_failures(failures, Vec::new())
}

/// No answer a redirect: the first of each other check (or group of
/// checks sharing exchanges) is named, with its `Location`.
fn no_redirects(run: &RunWide<'_>) -> Outcome {
    let mut seen = std::collections::HashSet::new();
    let mut answered = false;
    let mut failures = Vec::new();
    for (c, o) in run.others() {
        if !seen.insert(o.group.unwrap_or(c.id)) {
            continue;
        }
        answered |= o.exchanges.iter().any(|ex| ex.response.is_some());
        let redirect = o
            .exchanges
            .iter()
            .find_map(|ex| ex.redirect().map(|r| (ex, r)));
        if let Some((ex, redirect)) = redirect {
            failures.push(format!("{}: {redirect}{}", c.id, reproduce(ex)));
        }
    }
    if !answered {
        return Outcome::not_applicable("no check of this run was answered", Vec::new());
    }
    Outcome::from_failures(failures, Vec::new())
}

const NO_ERROR: &str = "no check of this run was answered with an error";

/// A request to the interface's path (`…/v2/api/component/{ref}/auth`):
/// answers elsewhere (a path without /v2/api) are not the interface's.
fn on_interface_path(ex: &Exchange) -> bool {
    let path = ex.request.path.split('?').next().unwrap_or_default();
    path.contains("/v2/api/component/") && path.ends_with("/auth")
}

/// What is wrong with an error answer, from its record.
pub(crate) fn problems(ex: &Exchange) -> Vec<String> {
    let Some(r) = &ex.response else {
        return Vec::new();
    };
    let mut p = Vec::new();
    let ct = r.headers.get("content-type").map_or("", String::as_str);
    if !conformance_wire::envelope::is_json_media_type(ct) {
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
    } else {
        // Judged on the body as it came (a varying `code` is a placeholder
        // in the record).
        p.extend(r.shape.iter().cloned());
    }
    p
}
