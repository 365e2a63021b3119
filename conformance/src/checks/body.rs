//! The request body: §1 (both operations take the fields of the component's
//! auth settings), §4.2 (sent as JSON; `modelUuid` required) and §7.2 rule 1
//! (a failed validation is a 417 in the 7.2 shape).

use std::sync::Arc;

use crate::catalogue::{Check, Level, Outcome, Run};
use crate::checks::{REFUSED, accepted, refused, send_and_judge};
use crate::envelope::shape_417;
use crate::needs::Need;
use crate::target::{Op, Probe, Sent, Target};

const FIELDS: &str = "Both operations take, in the request body, the fields that the component's settings define in their auth section.";
const RULE_417: &str =
    "When validation of the request fails, the response status is 417 and has the 7.2 shape.";
const AS_JSON: &str =
    "Body: the fields configured in the component's settings auth section, sent as JSON.";
const MODEL_UUID: &str = "modelUuid | string | yes | Listed as a path parameter";
const GET_BODY: &str = "spec choice 17: a GET body is validated like Authorize's (Body: the fields configured in the component's settings auth section.)";

/// A body that is not JSON.
const MALFORMED: &str = "{\"email\": \"ada@example.com\", ";

const IS_417: &str =
    "a 417 answer whose body has the 7.2 shape: code an integer, errors an array, status false";

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "body/authorize/invalid-fields".into(),
            level: Level::Must,
            section: "1",
            quote: FIELDS,
            title: "Authorize: a body that breaks the component's auth settings fails validation".into(),
            sends: "a valid Authorize request to each component with an `invalid_body`, carrying that body".into(),
            expects: "a 417 answer (validation failed), not a refusal for another reason".into(),
            run: Run::new(|t| invalid_body(t, Op::Authorize, status_417)).needs(&[Need::InvalidBody]),
        },
        Check {
            id: "validation/authorize/invalid-body".into(),
            level: Level::Must,
            section: "7.2",
            quote: RULE_417,
            title: "Authorize: a body that fails validation is answered 417 in the 7.2 shape".into(),
            sends: "a valid Authorize request to each component with an `invalid_body`, carrying that body".into(),
            expects: IS_417.into(),
            run: Run::new(|t| invalid_body(t, Op::Authorize, is_417)).needs(&[Need::InvalidBody]),
        },
        Check {
            id: "validation/authorize/missing-model-uuid".into(),
            level: Level::Must,
            section: "4.2",
            quote: MODEL_UUID,
            title: "Authorize without modelUuid fails validation (417)".into(),
            sends: "a valid Authorize request without modelUuid anywhere".into(),
            expects: IS_417.into(),
            run: Run::new(missing_model_uuid).needs(&[Need::Authorize]),
        },
        Check {
            id: "body/authorize/malformed-json".into(),
            level: Level::Must,
            section: "4.2",
            quote: AS_JSON,
            title: "Authorize: a body that is not JSON is refused".into(),
            sends: format!("a valid Authorize request whose body is the broken JSON `{MALFORMED}`"),
            expects: REFUSED.into(),
            run: Run::new(|t| malformed(t, Op::Authorize)).needs(&[Need::Authorize]),
        },
        Check {
            id: "body/auth-claims/invalid-fields".into(),
            level: Level::Should,
            section: "4.1",
            quote: GET_BODY,
            title: "Auth Claims: a body that breaks the component's auth settings fails validation (417)".into(),
            sends: "a valid Auth Claims request to each component with an `invalid_body`, carrying that body".into(),
            expects: format!("where `choices.get_body_validated` is true (ours): {IS_417}; where false: a 2xx answer"),
            run: Run::new(|t| invalid_body(t, Op::AuthClaims, is_417)).needs(&[Need::InvalidBody]).choice("get_body_validated"),
        },
        Check {
            id: "body/auth-claims/malformed-json".into(),
            level: Level::Should,
            section: "4.1",
            quote: GET_BODY,
            title: "Auth Claims: a body that is not JSON is refused".into(),
            sends: format!("a valid Auth Claims request whose body is the broken JSON `{MALFORMED}`"),
            expects: format!("where `choices.get_body_validated` is true (ours): {REFUSED}; where false: a 2xx answer"),
            run: Run::new(|t| malformed(t, Op::AuthClaims)).choice("get_body_validated"),
        },
    ]
}

fn status_417(sent: &Sent) -> Result<(), String> {
    match sent.status() {
        Some(417) => Ok(()),
        _ => Err(sent.summary()),
    }
}

pub(crate) fn is_417(sent: &Sent) -> Result<(), String> {
    let Some(raw) = sent.raw() else {
        return Err(sent.summary());
    };
    let mut problems = Vec::new();
    if raw.status != 417 {
        problems.push(format!("the status is {}, not 417", raw.status));
    }
    problems.extend(shape_417(raw.json().as_ref()));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{} ({})", sent.summary(), problems.join("; ")))
    }
}

/// Auth Claims carries a body the server may not read at all: where the
/// profile says so, the GET is judged served whatever its body.
fn get_body_judge(
    t: &Target,
    op: Op,
    judge: fn(&Sent) -> Result<(), String>,
) -> fn(&Sent) -> Result<(), String> {
    if op == Op::AuthClaims && !t.profile.choices.get_body_validated().value {
        accepted
    } else {
        judge
    }
}

async fn invalid_body(t: Arc<Target>, op: Op, judge: fn(&Sent) -> Result<(), String>) -> Outcome {
    let judge = get_body_judge(&t, op, judge);
    let reqs: Vec<_> = t
        .components(op)
        .into_iter()
        .filter_map(|c| {
            t.with_invalid_body(op, c)
                .map(|r| Probe::new(c.name.clone(), r))
        })
        .collect();
    if reqs.is_empty() {
        return Outcome::skip("no component in the profile has `authorize.invalid_body`");
    }
    send_and_judge(&t, reqs, judge).await
}

async fn missing_model_uuid(t: Arc<Target>) -> Outcome {
    let Some(c) = t.primary(Op::Authorize) else {
        return Outcome::skip("no component in the profile has an `authorize` section");
    };
    let req = t
        .valid(Op::Authorize, c)
        .map(|r| r.without_model_uuid(&t.profile.choices.model_uuid().value));
    send_and_judge(&t, vec![Probe::new(c.name.clone(), req)], is_417).await
}

async fn malformed(t: Arc<Target>, op: Op) -> Outcome {
    let Some(c) = t.primary(op) else {
        return Outcome::skip("no component in the profile has an `authorize` section");
    };
    let req = t
        .valid(op, c)
        .map(|r| r.raw_body(MALFORMED.as_bytes().to_vec()));
    let judge = get_body_judge(&t, op, refused);
    send_and_judge(&t, vec![Probe::new(c.name.clone(), req)], judge).await
}
