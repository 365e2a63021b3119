//! The request body: §1 (both operations take the fields of the component's
//! auth settings) and §4.2 (sent as JSON, one JSON text); a GET body as
//! the server chose. The 417 a failed validation is answered with is
//! `validation.rs`'s.

use crate::case::{Answer, CaseCheck, Change, Expect, Judge, Sends, To};
use crate::catalogue::{Check, Cites, Level, Subject};
use crate::checks::{accepted, is_417, refused};
use conformance_model::choices::ChoiceKey;
use conformance_model::choices::Choices;
use conformance_requirements as requirement;
use conformance_wire::request::Op;

const FIELDS: Cites = Cites::Requirement(&requirement::BODY_FIELDS);
const AS_JSON: Cites = Cites::Requirement(&requirement::BODY_AS_JSON);
const GET_BODY: Cites = Cites::Norm(
    "spec choice 17: a GET body is validated like Authorize's (Body: the fields configured in the component's settings auth section.)",
);

/// A body that is not JSON.
const MALFORMED: &str = "{\"field\": \"value\", ";

/// Auth Claims carries a body the server may not read at all (the profile's
/// `choices.get_body_validated`): then the GET is judged served whatever
/// its body.
const GET_BODY_EXPECTS: &str =
    "where `choices.get_body_validated` is true (ours): as Authorize's; where false: a 2xx answer";

fn get_417(c: &Choices) -> Judge {
    if c.get_body_validated().value {
        is_417
    } else {
        accepted
    }
}

/// A server that does not validate a GET body's fields may still parse it
/// (Express's app-wide `express.json()` does): a body that is not JSON is
/// then served (ignored) or refused as Authorize's would be.
const GET_MALFORMED_EXPECTS: &str = "where `choices.get_body_validated` is true (ours): refused, as Authorize's; where false: a 2xx answer (the body ignored) or that refusal (the body parsed, its fields then ignored)";

fn get_refused(c: &Choices) -> Judge {
    if c.get_body_validated().value {
        refused
    } else {
        served_or_refused
    }
}

fn served_or_refused(sent: &conformance_wire::request::Sent) -> Result<(), String> {
    accepted(sent).or_else(|_| refused(sent))
}

/// The §1 check, which the catalogue lists before the 417 ones
/// (`validation.rs`), the other body checks after them.
pub fn fields_check() -> Vec<Check> {
    vec![
        CaseCheck {
            id: "body/authorize/invalid-fields",
            subject: Subject::op(Op::Authorize),
            level: Level::Must,
            section: "1",
            cites: FIELDS,
            title: "Authorize: a body that breaks the component's auth settings fails validation"
                .into(),
            sends: Sends::each(Op::Authorize, To::EachWithInvalidBody, Change::InvalidBody),
            expects: Expect::Custom {
                text: "a 417 answer (validation failed), not a refusal for another reason",
                judge: status_417,
            },
        }
        .into(),
    ]
}

pub fn checks() -> Vec<Check> {
    let checks = [
        CaseCheck {
            id: "body/authorize/malformed-json",
            subject: Subject::op(Op::Authorize),
            level: Level::Must,
            section: "4.2",
            cites: AS_JSON,
            title: "Authorize: a body that is not JSON is refused".into(),
            sends: Sends::primary(Op::Authorize, Change::Body(MALFORMED)),
            expects: Expect::Refused,
        },
        CaseCheck {
            id: "body/authorize/one-json-text",
            subject: Subject::op(Op::Authorize),
            level: Level::Must,
            section: "4.2",
            cites: AS_JSON,
            title: "Authorize: a body that is not one JSON text (RFC 8259) is refused as malformed JSON is".into(),
            sends: Sends::each_changed(Op::Authorize, To::Primary, NOT_ONE_JSON_TEXT),
            expects: Expect::Together {
                text: "each a refusal (the description's error answer), with the status the profile declares as `choices.malformed_body` where it declares one; a leading byte-order mark (RFC 8259 8.1), repeated names (section 4) and a lone surrogate escape (section 8.2) are left to the parser: not sent",
                choice: Some(ChoiceKey::MalformedBody),
                judge: refused_as_malformed,
            },
        },
        CaseCheck {
            id: "body/auth-claims/invalid-fields",
            subject: Subject::op(Op::AuthClaims),
            level: Level::Should,
            section: "4.1",
            cites: GET_BODY,
            title: "Auth Claims: a body that breaks the component's auth settings fails validation (417)".into(),
            sends: Sends::each(Op::AuthClaims, To::EachWithInvalidBody, Change::InvalidBody),
            expects: Expect::Depends {
                key: ChoiceKey::GetBodyValidated,
                text: GET_BODY_EXPECTS,
                judge: get_417,
            },
        },
        CaseCheck {
            id: "body/auth-claims/malformed-json",
            subject: Subject::op(Op::AuthClaims),
            level: Level::Should,
            section: "4.1",
            cites: GET_BODY,
            title: "Auth Claims: a body that is not JSON is refused".into(),
            sends: Sends::primary(Op::AuthClaims, Change::Body(MALFORMED)),
            expects: Expect::Depends {
                key: ChoiceKey::GetBodyValidated,
                text: GET_MALFORMED_EXPECTS,
                judge: get_refused,
            },
        },
    ];
    checks.into_iter().map(Check::from).collect()
}

/// Bodies that are not one JSON text (RFC 8259 section 2: a JSON text is
/// one value with optional whitespace around it): a value followed by other
/// bytes, two values, a comment, NaN and Infinity, single quotes.
const NOT_ONE_JSON_TEXT: &[Change] = &[
    Change::AroundValidBody("", " junk"),
    Change::AroundValidBody("", "{valid}"),
    Change::AroundValidBody("", " // a comment"),
    Change::AroundValidBody("/* a comment */ ", ""),
    Change::Body("{\"conformance\": NaN}"),
    Change::Body("{\"conformance\": Infinity}"),
    Change::Body("{'conformance': 'single quotes'}"),
];

/// Each answer a refusal, with the declared `malformed_body` status where
/// the profile declares one.
fn refused_as_malformed(answers: &[Answer<'_>], choices: &Choices) -> crate::case::Found {
    let chosen = choices.malformed_body();
    crate::case::Found::Failures(
        answers
            .iter()
            .filter_map(|a| {
                let why = match refused(a.sent) {
                    Err(why) => why,
                    Ok(()) if chosen.declared && a.sent.status() != Some(chosen.value) => format!(
                        "{} where the profile's `choices.malformed_body` is {}",
                        a.sent.summary(),
                        chosen.value
                    ),
                    Ok(()) => return None,
                };
                Some(format!("{}: {why}", a.label))
            })
            .collect(),
    )
}

fn status_417(a: &Answer<'_>) -> Result<(), String> {
    match a.sent.status() {
        Some(417) => Ok(()),
        _ => Err(a.sent.summary()),
    }
}
