//! §2 Component reference: a component is addressed by its name, its tag or
//! its uuid. Each resolves, all three reach the same component, an unknown
//! ref is refused, and names that need percent-encoding in a path work.

use crate::context::RunContext;
use std::sync::Arc;

use crate::catalogue::{Check, Level, Outcome, Run};
use crate::checks::{
    ACCEPTED, REFUSED, UNKNOWN_REF, UNKNOWN_UUID, accepted, refused, send_and_judge,
};
use crate::needs::Need;
use crate::needs::needs_encoding;
use crate::profile::Component;
use crate::target::{Op, Probe};

const QUOTE: &str =
    "ref | string | yes | Identifies a component by its name, its tag, or its uuid.";

#[derive(Clone, Copy)]
enum By {
    Name,
    Tag,
    Uuid,
}

impl By {
    fn id(self) -> &'static str {
        match self {
            By::Name => "name",
            By::Tag => "tag",
            By::Uuid => "uuid",
        }
    }

    fn of(self, c: &Component) -> String {
        match self {
            By::Name => c.name.clone(),
            By::Tag => c.tag.clone(),
            By::Uuid => c.uuid.clone(),
        }
    }
}

pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for by in [By::Name, By::Tag, By::Uuid] {
        out.push(Check {
            id: format!("refs/by-{}", by.id()),
            level: Level::Must,
            section: "2",
            quote: QUOTE,
            title: format!("a component is found by its {}", by.id()),
            sends: format!(
                "a valid Auth Claims request to each component, with its {} as ref",
                by.id()
            ),
            expects: ACCEPTED.into(),
            run: Run::new(move |t| resolve(t, by)),
        });
    }
    out.push(Check {
        id: "refs/same-component".into(),
        level: Level::Must,
        section: "2",
        quote: QUOTE,
        title: "name, tag and uuid reach the same component".into(),
        sends: "the same valid Auth Claims request to each component three times: by name, by tag, by uuid".into(),
        expects: "three 2xx answers, equal after normalisation (status, headers, body with per-request values redacted)".into(),
        run: Run::new(same),
    });
    out.push(Check {
        id: "refs/unknown".into(),
        level: Level::Must,
        section: "2",
        quote: QUOTE,
        title: "a ref that identifies no component is refused".into(),
        sends: format!("a valid Auth Claims request with ref `{UNKNOWN_REF}`, and one with ref `{UNKNOWN_UUID}`"),
        expects: REFUSED.into(),
        run: Run::new(unknown),
    });
    out.push(Check {
        id: "refs/percent-encoded".into(),
        level: Level::Must,
        section: "4.1",
        quote: "ref | string | yes | Component name, tag or uuid.",
        title: "a name that needs percent-encoding in a path is found".into(),
        sends: "a valid Auth Claims request to each component whose name has characters outside A-Z a-z 0-9 - . _ ~, the name percent-encoded as one path segment".into(),
        expects: ACCEPTED.into(),
        run: Run::new(percent).needs(&[Need::EncodedName]),
    });
    out.push(Check {
        id: "refs/letter-case".into(),
        level: Level::Must,
        section: "2",
        quote: QUOTE,
        title: "a name or tag in another letter case is refused, or reaches the same component".into(),
        sends: "a valid Auth Claims request to each component with its name, then its tag, in flipped letter case as ref (and one with the name as written, to compare)".into(),
        expects: format!("{REFUSED}; or the same answer as for the name as written (matching names ignoring case is the server's choice)"),
        run: Run::new(letter_case),
    });
    out
}

async fn resolve(t: Arc<RunContext>, by: By) -> Outcome {
    let reqs = t
        .profile
        .components
        .iter()
        .map(|c| {
            let r = by.of(c);
            Probe::new(
                format!("{} by {} `{r}`", c.name, by.id()),
                t.valid_with_ref(Op::AuthClaims, c, &r),
            )
        })
        .collect();
    send_and_judge(&t, reqs, accepted).await
}

async fn same(t: Arc<RunContext>) -> Outcome {
    let mut reqs = Vec::new();
    for c in &t.profile.components {
        for by in [By::Name, By::Tag, By::Uuid] {
            let r = by.of(c);
            reqs.push(Probe::new(
                format!("{} by {}", c.name, by.id()),
                t.valid_with_ref(Op::AuthClaims, c, &r),
            ));
        }
    }
    let sent = t.send_all(reqs).await;
    let mut failures = Vec::new();
    for (c, three) in t.profile.components.iter().zip(sent.chunks(3)) {
        let answers: Vec<_> = three
            .iter()
            .map(|s| (&s.exchange.response, &s.exchange.error))
            .collect();
        if answers.iter().any(|(r, _)| r.is_none()) {
            failures.push(format!(
                "{}: not every request was answered: {}",
                c.name,
                three
                    .iter()
                    .map(|s| s.summary())
                    .collect::<Vec<_>>()
                    .join(" / ")
            ));
        } else if let Some(refused) = three.iter().find(|s| accepted(s).is_err()) {
            // Three equal refusals would be "the same": the answers must be served.
            failures.push(format!("{}: not served: {}", c.name, refused.summary()));
        } else if answers.iter().any(|a| a != &answers[0]) {
            let responses: Vec<_> = three
                .iter()
                .filter_map(|s| s.exchange.response.as_ref())
                .collect();
            failures.push(format!(
                "{}: the answers differ in {}:\n  by name: {}\n  by tag:  {}\n  by uuid: {}",
                c.name,
                differing_parts(&responses).join(", "),
                three[0].summary(),
                three[1].summary(),
                three[2].summary()
            ));
        }
    }
    Outcome::from_failures(failures, super::exchanges(&sent))
}

/// `s` with every letter's case flipped (`Users` -> `uSERS`).
fn flipped(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_lowercase() {
                c.to_uppercase().collect::<String>()
            } else {
                c.to_lowercase().collect()
            }
        })
        .collect()
}

async fn letter_case(t: Arc<RunContext>) -> Outcome {
    // Per component: the name as written, then the name and the tag
    // flipped (a tag or name with no letters is left out: nothing flips).
    let mut reqs = Vec::new();
    let mut plan = Vec::new();
    for c in &t.profile.components {
        let variants: Vec<(String, String)> = [(By::Name, &c.name), (By::Tag, &c.tag)]
            .into_iter()
            .filter(|(_, r)| flipped(r) != **r)
            .map(|(by, r)| (by.id().to_owned(), flipped(r)))
            .collect();
        if variants.is_empty() {
            continue;
        }
        reqs.push(Probe::new(
            format!("{} by name as written", c.name),
            t.valid(Op::AuthClaims, c),
        ));
        for (by, r) in &variants {
            reqs.push(Probe::new(
                format!("{} by {by} `{r}`", c.name),
                t.valid_with_ref(Op::AuthClaims, c, r),
            ));
        }
        plan.push(variants.len());
    }
    let sent = t.send_all(reqs).await;
    let mut failures = Vec::new();
    let mut rest = sent.as_slice();
    for n in plan {
        let (group, tail) = rest.split_at(n + 1);
        rest = tail;
        let (written, others) = group.split_first().expect("the name as written");
        for s in others {
            let same =
                accepted(written).is_ok() && s.exchange.response == written.exchange.response;
            if refused(s).is_err() && !same {
                failures.push(format!(
                    "{}: neither refused nor the same answer as by the name as written: {}",
                    s.exchange.label,
                    s.summary()
                ));
            }
        }
    }
    Outcome::from_failures(failures, super::exchanges(&sent))
}

/// Which parts of the answers are not all equal: the status, each header
/// by name, the body; so that a difference the summaries do not show (a
/// header) is still named.
fn differing_parts(answers: &[&crate::exchange::ResponseRecord]) -> Vec<String> {
    let Some((first, rest)) = answers.split_first() else {
        return vec!["what was answered".into()];
    };
    let mut parts = Vec::new();
    if rest.iter().any(|r| r.status != first.status) {
        parts.push("the status".to_owned());
    }
    let names: std::collections::BTreeSet<&String> =
        answers.iter().flat_map(|r| r.headers.keys()).collect();
    for name in names {
        if rest
            .iter()
            .any(|r| r.headers.get(name) != first.headers.get(name))
        {
            parts.push(format!("the header `{name}`"));
        }
    }
    if rest.iter().any(|r| r.body != first.body) {
        parts.push("the body".to_owned());
    }
    if parts.is_empty() {
        parts.push("how they were answered".to_owned());
    }
    parts
}

async fn unknown(t: Arc<RunContext>) -> Outcome {
    let Some(c) = t.primary(Op::AuthClaims) else {
        return Outcome::skip("the profile has no component");
    };
    let reqs = [UNKNOWN_REF, UNKNOWN_UUID]
        .into_iter()
        .map(|r| Probe::new(format!("ref `{r}`"), t.valid_with_ref(Op::AuthClaims, c, r)))
        .collect();
    send_and_judge(&t, reqs, refused).await
}

async fn percent(t: Arc<RunContext>) -> Outcome {
    let comps: Vec<_> = t
        .profile
        .components
        .iter()
        .filter(|c| needs_encoding(&c.name))
        .collect();
    if comps.is_empty() {
        return Outcome::skip("no component name in the profile needs percent-encoding");
    }
    let reqs = comps
        .iter()
        .map(|c| Probe::new(format!("name `{}`", c.name), t.valid(Op::AuthClaims, c)))
        .collect();
    send_and_judge(&t, reqs, accepted).await
}

#[cfg(test)]
mod tests {
    use super::differing_parts;
    use crate::exchange::ResponseRecord;

    fn answer(status: u16, uuid: &str, body: &str) -> ResponseRecord {
        ResponseRecord {
            status,
            is_json: true,
            headers: [("x-project-uuid".to_owned(), uuid.to_owned())].into(),
            body: Some(serde_json::json!({ "v": body })),
        }
    }

    #[test]
    fn names_what_differs() {
        let a = answer(200, "u1", "x");
        assert_eq!(
            differing_parts(&[&a, &answer(200, "u2", "x"), &a]),
            ["the header `x-project-uuid`"]
        );
        assert_eq!(
            differing_parts(&[&a, &a, &answer(404, "u1", "y")]),
            ["the status", "the body"]
        );
        assert_eq!(differing_parts(&[&a, &a]), ["how they were answered"]);
    }
}
