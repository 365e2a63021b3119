//! Coverage of the outcomes: which documented answers of each operation the
//! run saw, and which it never triggered.
//!
//! The description documents, for both operations: answers in JSON (§1), a
//! 417 in the 7.2 shape when validation fails (§7 rule 1), a 400 in the 7.1
//! shape (§7 rule 2) and error answers carrying `Content-Type:
//! application/json` and `X-Project-Uuid` (§7). `spec/openapi.yaml` adds
//! our spec's choices of status (401, 404, 413, ...), listed for
//! information: another server may choose differently.
//!
//! A run that never triggered a documented outcome proves nothing about it.
//! The report lists every outcome with how often it was seen; with
//! `--strict`, an outcome the description documents that was never seen
//! fails the run (`outcomes/OPERATION/...`), except the 400: the
//! description does not say when a server gives one, so a server that
//! never does is not at fault.

use std::sync::Mutex;

use component_auth_bindings::RawResponse;
use serde::{Deserialize, Serialize};

use crate::envelope::{is_json_media_type, shape_400, shape_417};
use crate::latency::operation_key;
use crate::request::Op;
use conformance_model::choices::{Choices, Chosen};

/// What one answer showed, as far as the outcomes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    pub op: Op,
    pub status: u16,
    pub json: bool,
    pub shape_400: bool,
    pub shape_417: bool,
    pub content_type_json: bool,
    pub project_uuid: bool,
}

impl Answer {
    /// An answer of `status` to `op` as a correct server gives it: JSON,
    /// saying so, with X-Project-Uuid on an error and the shape its status
    /// asks (for what a run judges, without a request sent).
    pub fn well_formed(op: Op, status: u16) -> Self {
        Answer {
            op,
            status,
            json: true,
            shape_400: status == 400,
            shape_417: status == 417,
            content_type_json: true,
            project_uuid: status >= 400,
        }
    }

    pub fn of(op: Op, raw: &RawResponse) -> Self {
        Self::of_read(op, raw, &crate::envelope::BodyRead::of(raw))
    }

    /// [`Answer::of`] an answer whose body was read already.
    pub fn of_read(op: Op, raw: &RawResponse, read: &crate::envelope::BodyRead) -> Self {
        Answer {
            op,
            status: raw.status,
            json: read.is_json,
            shape_400: raw.status == 400 && shape_400(read.members.as_ref()).is_empty(),
            shape_417: raw.status == 417 && shape_417(read.members.as_ref()).is_empty(),
            content_type_json: raw.header("content-type").is_some_and(is_json_media_type),
            project_uuid: raw.header("x-project-uuid").is_some(),
        }
    }
}

/// Every answer of the run (each request once).
#[derive(Debug, Default)]
pub struct Seen {
    answers: Mutex<Vec<Answer>>,
}

impl Seen {
    pub fn record(&self, answer: Answer) {
        if let Ok(mut all) = self.answers.lock() {
            all.push(answer);
        }
    }

    pub fn answers(&self) -> Vec<Answer> {
        self.answers.lock().map(|a| a.clone()).unwrap_or_default()
    }
}

/// One documented outcome of one operation, and how often the run saw it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutcomeSeen {
    /// `auth_claims` or `authorize`.
    pub operation: String,
    /// A short id: `2xx-json`, `417-7.2`, `error-x-project-uuid`, `404`.
    pub id: String,
    /// In words.
    pub outcome: String,
    /// `§7 rule 1`, or `spec/openapi.yaml (our choice)`.
    pub documented_by: String,
    /// Never seen fails a `--strict` run.
    pub required: bool,
    pub seen: usize,
}

type Matcher = fn(&Answer) -> bool;

/// The description's outcomes of every operation.
const DESCRIBED: &[(&str, &str, &str, bool, Matcher)] = &[
    (
        "2xx-json",
        "a 2xx answer with a JSON body",
        "§1 \"Responses are JSON.\"",
        true,
        |a| (200..300).contains(&a.status) && a.json,
    ),
    ("417-7.2", "417 in the 7.2 shape", "§7 rule 1", true, |a| {
        a.shape_417
    }),
    (
        "400-7.1",
        "400 in the 7.1 shape",
        "§7 rule 2 (when a 400 is given: not shown)",
        false,
        |a| a.shape_400,
    ),
    (
        "error-content-type",
        "an error answer with Content-Type: application/json",
        "§7",
        true,
        |a| a.status >= 400 && a.content_type_json,
    ),
    (
        "error-x-project-uuid",
        "an error answer with X-Project-Uuid",
        "§7",
        true,
        |a| a.status >= 400 && a.project_uuid,
    ),
];

/// The outcome a described id names, in words (`417-7.2`: "417 in the
/// 7.2 shape").
pub fn described(id: &str) -> Option<&'static str> {
    DESCRIBED
        .iter()
        .find(|(d, ..)| *d == id)
        .map(|(_, outcome, ..)| *outcome)
}

/// A status documented for an operation beyond the description's.
struct Documented {
    status: u16,
    /// Where it comes from, in words, each once.
    by: Vec<String>,
    /// Whether our spec is among them (else only the profile's declared
    /// choices give it): kept as a fact, not read back from the words.
    ours: bool,
}

impl Documented {
    fn by(&self) -> String {
        self.by.join("; ")
    }
}

/// The statuses the server chose for `op` beyond the description's: each
/// choice of status that applies to `op` (the profile's where it declares
/// one, else ours), then the other statuses our spec documents (from the
/// built-in `spec/openapi.yaml`), each once, with where it comes from.
fn chosen_statuses(op: Op, choices: &Choices) -> Vec<Documented> {
    type Row = (&'static str, fn(&Choices) -> Chosen<u16>, bool);
    let rows: &[Row] = &[
        (
            "auth_claims_success",
            Choices::auth_claims_success,
            op == Op::AuthClaims,
        ),
        (
            "authorize_success",
            Choices::authorize_success,
            op == Op::Authorize,
        ),
        ("missing_credential", Choices::missing_credential, true),
        ("wrong_credential", Choices::wrong_credential, true),
        ("bad_project_env", Choices::bad_project_env, true),
        ("unknown_ref", Choices::unknown_ref, true),
        ("unknown_model", Choices::unknown_model, op == Op::Authorize),
        (
            "malformed_body",
            Choices::malformed_body,
            op == Op::Authorize || choices.get_body_validated().value,
        ),
        ("body_too_large", Choices::body_too_large, true),
    ];
    fn add(out: &mut Vec<Documented>, status: u16, by: String, ours: bool) {
        match out.iter_mut().find(|d| d.status == status) {
            Some(d) => {
                d.ours |= ours;
                if !d.by.contains(&by) {
                    d.by.push(by);
                }
            }
            None => out.push(Documented {
                status,
                by: vec![by],
                ours,
            }),
        }
    }
    let mut out: Vec<Documented> = Vec::new();
    let mut ours_replaced = Vec::new();
    for (key, chosen, applies) in rows {
        if !applies {
            continue;
        }
        let c = chosen(choices);
        let ours = chosen(&Choices::default()).value;
        if c.declared {
            add(
                &mut out,
                c.value,
                format!("the profile's `choices.{key}`"),
                false,
            );
            if c.value != ours {
                ours_replaced.push(ours);
            }
        } else {
            add(&mut out, c.value, OUR_CHOICE.to_owned(), true);
        }
    }
    // Our spec's other statuses (405, 503, ...), unless a declared choice
    // replaced ours by another.
    for status in spec_statuses(op) {
        if out.iter().all(|d| d.status != status) && !ours_replaced.contains(&status) {
            add(&mut out, status, OUR_CHOICE.to_owned(), true);
        }
    }
    out
}

const OUR_CHOICE: &str = "spec/openapi.yaml (our choice)";

/// The statuses our spec documents for `op` beyond the description's
/// (from the built-in `spec/openapi.yaml`), in its order.
fn spec_statuses(op: Op) -> Vec<u16> {
    let Ok(doc) = serde_yaml::from_str::<serde_yaml::Value>(crate::description::OPENAPI) else {
        return Vec::new();
    };
    let method = match op {
        Op::AuthClaims => "get",
        Op::Authorize => "post",
    };
    doc["paths"]["/component/{ref}/auth"][method]["responses"]
        .as_mapping()
        .map(|m| {
            m.keys()
                .filter_map(|k| k.as_str().and_then(|s| s.parse().ok()))
                .filter(|s| ![400, 417].contains(s))
                .collect()
        })
        .unwrap_or_default()
}

/// Every documented outcome of the operations the run sent requests to,
/// as the profile's choices make them: a status it declares in place of
/// ours, and no 417 required of an Auth Claims whose body the server does
/// not validate (`choices.get_body_validated: false`) and which no chosen
/// refusal answers with 417.
pub fn coverage(answers: &[Answer], choices: &Choices) -> Vec<OutcomeSeen> {
    let mut out = Vec::new();
    for op in Op::BOTH {
        let of_op: Vec<&Answer> = answers.iter().filter(|a| a.op == op).collect();
        if of_op.is_empty() {
            continue;
        }
        let statuses = chosen_statuses(op, choices);
        for (id, outcome, by, required, matches) in DESCRIBED {
            let (required, by) = match *id {
                "417-7.2" if !validation_possible(op, choices, &statuses) => (
                    false,
                    format!("{by}; the profile declares `choices.get_body_validated: false`"),
                ),
                _ => (*required, (*by).to_owned()),
            };
            out.push(OutcomeSeen {
                operation: operation_key(op).to_owned(),
                id: (*id).to_owned(),
                outcome: (*outcome).to_owned(),
                documented_by: by,
                required,
                seen: of_op.iter().filter(|a| matches(a)).count(),
            });
        }
        for d in statuses {
            out.push(OutcomeSeen {
                operation: operation_key(op).to_owned(),
                id: d.status.to_string(),
                outcome: format!("HTTP {}", d.status),
                documented_by: d.by(),
                required: false,
                seen: of_op.iter().filter(|a| a.status == d.status).count(),
            });
        }
    }
    out
}

/// Whether a request of `op` can fail validation with a 417: Authorize
/// always can; Auth Claims where its body is validated (ours), or where a
/// chosen refusal is a 417.
fn validation_possible(op: Op, choices: &Choices, statuses: &[Documented]) -> bool {
    op == Op::Authorize
        || choices.get_body_validated().value
        || statuses.iter().any(|d| d.status == 417 && !d.ours)
}

/// The outcomes never seen, one line each, for the human report.
pub fn unseen_lines(outcomes: &[OutcomeSeen]) -> Vec<String> {
    outcomes
        .iter()
        .filter(|o| o.seen == 0)
        .map(|o| {
            format!(
                "{}: {} ({}{})",
                o.operation,
                o.outcome,
                o.documented_by,
                if o.required { "" } else { "; not required" }
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(op: Op, status: u16) -> Answer {
        Answer::well_formed(op, status)
    }

    #[test]
    fn what_was_seen_and_what_never_was() {
        let answers = [
            answer(Op::AuthClaims, 200),
            answer(Op::AuthClaims, 401),
            answer(Op::AuthClaims, 401),
        ];
        let all = coverage(&answers, &Choices::default());
        assert!(
            all.iter().all(|o| o.operation == "auth_claims"),
            "no Authorize sent"
        );
        let seen = |id: &str| all.iter().find(|o| o.id == id).map(|o| o.seen);
        assert_eq!(seen("2xx-json"), Some(1));
        assert_eq!(seen("401"), Some(2));
        assert_eq!(seen("417-7.2"), Some(0));
        assert_eq!(seen("404"), Some(0));
        assert_eq!(seen("error-x-project-uuid"), Some(2));
        assert!(unseen_lines(&all).contains(
            &"auth_claims: 400 in the 7.1 shape (§7 rule 2 (when a 400 is given: not shown); not required)".to_owned()
        ));
    }

    /// A declared choice replaces ours in what the run expects: a server
    /// that chose 201 is not told it never gave our 200, and an Auth Claims
    /// whose body is not validated is not required to give a 417.
    #[test]
    fn declared_choices_replace_ours() {
        let choices: Choices =
            serde_yaml::from_str("authorize_success: 201\nget_body_validated: false")
                .expect("choices");
        let answers = [answer(Op::AuthClaims, 200), answer(Op::Authorize, 201)];
        let all = coverage(&answers, &choices);
        let find = |op: &str, id: &str| all.iter().find(|o| o.operation == op && o.id == id);
        let created = find("authorize", "201").expect("201 listed");
        assert_eq!(created.seen, 1);
        assert!(created.documented_by.contains("choices.authorize_success"));
        assert!(find("authorize", "200").is_none(), "our 200 still listed");
        assert!(!find("auth_claims", "417-7.2").expect("listed").required);
        assert!(find("authorize", "417-7.2").expect("listed").required);
    }
}
