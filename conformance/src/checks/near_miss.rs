//! §5, §4.1, §4.2 and §2 by near misses: values one step from a right one
//! (a credential with a character added, removed, changed or in the other
//! letter case; `DEV`; a ref that begins a name; the uuid in braces) are
//! what real implementations let through. Derived from the profile; the
//! requests are made once per run (`generate::edges`) and judged here.

use crate::context::RunContext;
use std::sync::Arc;

use crate::catalogue::{Check, Level, Outcome, Run};
use crate::checks::{ACCEPTED, REFUSED, accepted, refused};
use crate::generate::{Case, Family, describe, listed};
use crate::needs::Need;

/// What a family's cases must get.
#[derive(Clone, Copy)]
enum Want {
    Refused,
    /// Refused, or served exactly as the reference request is.
    RefusedOrSame,
    Served,
}

impl Want {
    fn expects(self) -> String {
        match self {
            Want::Refused => REFUSED.into(),
            Want::RefusedOrSame => {
                format!("{REFUSED}; or the same answer as for the uuid as the profile writes it")
            }
            Want::Served => ACCEPTED.into(),
        }
    }
}

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "near-miss/x-client-secret".into(),
            level: Level::Must,
            section: "5",
            quote: "X-Client-Secret | string | yes | Client secret `<CLIENT_SECRET>`.",
            title: "a secret one step from the right one is refused".into(),
            sends: "a valid request of each operation whose X-Client-Secret has a character added, its last removed, its last changed, or its letter case flipped".into(),
            expects: Want::Refused.expects(),
            run: judge(Family::Secret, Want::Refused),
        },
        Check {
            id: "near-miss/x-client-id".into(),
            level: Level::Must,
            section: "5",
            quote: "X-Client-Id | string | yes | Client identifier `<CLIENT_ID>`.",
            title: "a client id one step from the right one is refused".into(),
            sends: "a valid request of each operation whose X-Client-Id has a character added, its last removed, its last changed, or its letter case flipped".into(),
            expects: Want::Refused.expects(),
            run: judge(Family::ClientId, Want::Refused),
        },
        Check {
            id: "near-miss/x-auth-token".into(),
            level: Level::Must,
            section: "5",
            quote: "X-Auth-Token | string | only if the component requires auth | Token `<AUTH_TOKEN>`.",
            title: "where the component requires auth, a token one step from a valid one, an empty one, or another component's is refused".into(),
            sends: "a valid request of each operation to each component that requires auth, with its token changed by one character or its letter case, an empty token, and a token of another component (from the profile, or issued by Authorize)".into(),
            expects: Want::Refused.expects(),
            run: judge(Family::Token, Want::Refused).needs(&[Need::RequiresAuth]),
        },
        Check {
            id: "near-miss/x-project-env".into(),
            level: Level::Must,
            section: "4.1",
            quote: "X-Project-Env | string | no | Allowed values: `dev`, `live`.",
            title: "an X-Project-Env near `dev` or `live` is refused".into(),
            sends: "a valid request of each operation with X-Project-Env `DEV`, `Live`, `development`, `production` and empty".into(),
            expects: Want::Refused.expects(),
            run: judge(Family::ProjectEnv, Want::Refused),
        },
        Check {
            id: "near-miss/ref".into(),
            level: Level::Must,
            section: "2",
            quote: "ref | string | yes | Identifies a component by its name, its tag, or its uuid.",
            title: "a ref one step from a name or tag is refused".into(),
            sends: "a valid Auth Claims request whose ref is a name or tag cut short, with a character or `.json` added, or after or before a space".into(),
            expects: Want::Refused.expects(),
            run: judge(Family::Ref, Want::Refused),
        },
        Check {
            id: "near-miss/uuid-forms".into(),
            level: Level::Must,
            section: "2",
            quote: "ref | string | yes | Identifies a component by its name, its tag, or its uuid.",
            title: "a uuid in another form is refused, or reaches the same component".into(),
            sends: "a valid Auth Claims request whose ref is a component's uuid in upper case, in braces, as a URN and without hyphens".into(),
            expects: Want::RefusedOrSame.expects(),
            run: judge(Family::UuidForm, Want::RefusedOrSame),
        },
        Check {
            id: "near-miss/odd-refs".into(),
            level: Level::Must,
            section: "2",
            quote: "ref | string | yes | Identifies a component by its name, its tag, or its uuid.",
            title: "a ref made to trip a parser is refused in an envelope".into(),
            sends: "a valid Auth Claims request whose ref is 4 KiB long, holds a NUL (%00), an encoded `/` (%2F), or bytes that are not UTF-8 (%FF%FE)".into(),
            expects: Want::Refused.expects(),
            run: judge(Family::OddRef, Want::Refused),
        },
        Check {
            id: "media-type/json-spellings".into(),
            level: Level::Must,
            section: "4.2",
            quote: "Body: the fields configured in the component's settings auth section, sent as JSON.",
            title: "a JSON body is taken as JSON however HTTP lets the media type be spelt (RFC 9110 section 8.3.1)".into(),
            sends: "a valid request of each operation to each component with a valid_body, with Content-Type `application/json; charset=utf-8`, `Application/JSON` and `application/json;charset=UTF-8`".into(),
            expects: Want::Served.expects(),
            run: judge(Family::MediaType, Want::Served).needs(&[Need::Authorize]),
        },
    ]
}

fn judge(family: Family, want: Want) -> Run {
    Run::new(move |t: Arc<RunContext>| async move {
        let generated = t.generated().await;
        // A target that does not answer a valid request fails: a skip
        // here would let a run go green on a server too slow to judge.
        if let Some(why) = &generated.not_run {
            return Outcome::fail(why.clone(), Vec::new());
        }
        let cases: Vec<&Case> = generated.family(family).collect();
        if cases.is_empty() {
            return Outcome::skip(match family {
                Family::Token => "no component in the profile requires auth and has an auth_token",
                Family::MediaType => "no component in the profile has `authorize.valid_body`",
                _ => "the profile has no component",
            });
        }
        let failures = cases
            .iter()
            .filter_map(|case| verdict(case, want).err().map(|why| describe(case, &why)))
            .collect();
        let exchanges = cases.iter().map(|c| c.sent.exchange.clone()).collect();
        Outcome::from_failures(listed(failures), exchanges).noted(not_made(&t, family, &cases))
    })
}

/// Which cases of `family` could not be made, and why: a token of another
/// component is no case where the profile gives every other component the
/// same token (the description's single `<AUTH_TOKEN>` allows it) and
/// Authorize issued none different.
fn not_made(t: &RunContext, family: Family, cases: &[&Case]) -> Option<String> {
    if family != Family::Token {
        return None;
    }
    let without: Vec<&str> = t
        .profile
        .components
        .iter()
        .filter(|c| c.requires_auth)
        .filter(|c| {
            !cases.iter().any(|k| {
                k.label.contains(&format!(" {}: ", c.name))
                    && k.label.ends_with("of another component")
            })
        })
        .map(|c| c.name.as_str())
        .collect();
    (!without.is_empty()).then(|| {
        format!(
            "no token of another component was sent to {}: every other token the profile gives is the same as its own, and Authorize issued none other",
            without.join(", ")
        )
    })
}

fn verdict(case: &Case, want: Want) -> Result<(), String> {
    match want {
        Want::Refused => refused(&case.sent),
        Want::Served => accepted(&case.sent),
        Want::RefusedOrSame => {
            if refused(&case.sent).is_ok() {
                return Ok(());
            }
            let same = case.reference.as_ref().is_some_and(|r| {
                accepted(r).is_ok() && r.exchange.response == case.sent.exchange.response
            });
            if same {
                Ok(())
            } else {
                Err(format!(
                    "neither refused nor the same answer as the uuid as written: {}",
                    case.sent.summary()
                ))
            }
        }
    }
}
