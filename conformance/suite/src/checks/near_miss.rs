//! §5, §4.1, §4.2 and §2 by near misses: values one step from a right one
//! (a credential with a character added, removed, changed or in the other
//! letter case; `DEV`; a ref that begins a name; the uuid in braces) are
//! what real implementations let through. Derived from the profile; the
//! requests are made once per run (`generate::edges`) and judged here.

use crate::case::{Answer, CaseCheck, Expect, Sends};
use crate::catalogue::{Check, Cites, Level, Subject};
use crate::checks::{accepted, refused};
use crate::generate::Family;
use conformance_requirements as requirement;

pub fn checks() -> Vec<Check> {
    [
        CaseCheck {
            id: "near-miss/x-client-secret",
            subject: Subject::items(&["X-Client-Secret"]),
            level: Level::Must,
            section: "5",
            cites: Cites::Requirement(&requirement::CLIENT_SECRET),
            title: "a secret one step from the right one is refused".into(),
            sends: Sends::Generated(Family::Secret),
            expects: Expect::Refused,
        },
        CaseCheck {
            id: "near-miss/x-client-id",
            subject: Subject::items(&["X-Client-Id"]),
            level: Level::Must,
            section: "5",
            cites: Cites::Requirement(&requirement::CLIENT_ID),
            title: "a client id one step from the right one is refused".into(),
            sends: Sends::Generated(Family::ClientId),
            expects: Expect::Refused,
        },
        CaseCheck {
            id: "near-miss/x-auth-token",
            subject: Subject::items(&["X-Auth-Token"]),
            level: Level::Must,
            section: "5",
            cites: Cites::Requirement(&requirement::AUTH_TOKEN),
            title: "where the component requires auth, a token one step from a valid one, an empty one, or another component's is refused".into(),
            sends: Sends::Generated(Family::Token),
            expects: Expect::Refused,
        },
        CaseCheck {
            id: "near-miss/x-project-env",
            subject: Subject::items(&["X-Project-Env"]),
            level: Level::Must,
            section: "4.1",
            cites: Cites::Requirement(&requirement::PROJECT_ENV_VALUES),
            title: "an X-Project-Env near `dev` or `live` is refused".into(),
            sends: Sends::Generated(Family::ProjectEnv),
            expects: Expect::Refused,
        },
        CaseCheck {
            id: "near-miss/ref",
            subject: Subject::items(&["ref"]),
            level: Level::Must,
            section: "2",
            cites: Cites::Requirement(&requirement::REF),
            title: "a ref one step from a name or tag is refused".into(),
            sends: Sends::Generated(Family::Ref),
            expects: Expect::Refused,
        },
        CaseCheck {
            id: "near-miss/uuid-forms",
            subject: Subject::NONE,
            level: Level::Must,
            section: "2",
            cites: Cites::Requirement(&requirement::REF),
            title: "a uuid in another form is refused, or reaches the same component".into(),
            sends: Sends::Generated(Family::UuidForm),
            expects: Expect::Custom {
                text: "{refused}; or the same answer as for the uuid as the profile writes it",
                judge: refused_or_same,
            },
        },
        CaseCheck {
            id: "near-miss/odd-refs",
            subject: Subject::NONE,
            level: Level::Must,
            section: "2",
            cites: Cites::Requirement(&requirement::REF),
            title: "a ref made to trip a parser is refused in an envelope".into(),
            sends: Sends::Generated(Family::OddRef),
            expects: Expect::Refused,
        },
    ]
    .into_iter()
    .map(Check::from)
    .collect()
}

/// Refused, or served exactly as the reference request (the uuid as the
/// profile writes it) is.
fn refused_or_same(a: &Answer<'_>) -> Result<(), String> {
    if refused(a.sent).is_ok() {
        return Ok(());
    }
    let same = a
        .reference
        .is_some_and(|r| accepted(r).is_ok() && r.exchange.response == a.sent.exchange.response);
    if same {
        Ok(())
    } else {
        Err(format!(
            "neither refused nor the same answer as the uuid as written: {}",
            a.sent.summary()
        ))
    }
}
