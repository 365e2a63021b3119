//! What is wrong with an error answer, read back from a failure's words:
//! the phrases [`conformance_wire::envelope`] (and the §7 checks, in the
//! same words) write for each problem of an error answer. One phrase in
//! the failures of many checks is one rule the server breaks, whichever
//! check's request provoked it; the same value in a changed snapshot is
//! the same rule again.

use conformance_requirements::{self as requirement, Requirement};

use crate::changes::Change;

/// One problem of an error answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Defect {
    /// `` `status` is true, not false ``: a member of the 7.1/7.2 shape with
    /// a value it may not have (as compact JSON).
    Member {
        name: String,
        is: String,
        /// What it should be, in words (`false`, `an integer`).
        not: String,
    },
    /// `` `request_id` is missing ``.
    Missing { name: String },
    /// `no X-Project-Uuid header` (or `no X-Project-Uuid`, as the §7
    /// checks say it).
    NoProjectUuid,
    /// `` Content-Type `text/plain`, not application/json ``, or none.
    ContentType { is: Option<String> },
    /// `the body is not JSON`.
    NotJson,
}

impl Defect {
    /// The sentence of the description the problem breaks.
    pub fn requirement(&self) -> &'static Requirement {
        match self {
            Defect::Member { name, .. } | Defect::Missing { name } => match name.as_str() {
                "code" => &requirement::CODE,
                "message" => &requirement::MESSAGE,
                "request_id" => &requirement::REQUEST_ID,
                "errors" => &requirement::ERRORS_ARRAY,
                _ => &requirement::STATUS,
            },
            Defect::NoProjectUuid => &requirement::ERRORS_CARRY_HEADERS,
            Defect::ContentType { .. } => &requirement::ERRORS_CONTENT_TYPE,
            Defect::NotJson => &requirement::ERRORS_ARE_JSON,
        }
    }

    /// The phrase, as the failures say it.
    pub fn phrase(&self) -> String {
        match self {
            Defect::Member { name, is, not } => format!("`{name}` is {is}, not {not}"),
            Defect::Missing { name } => format!("`{name}` is missing"),
            Defect::NoProjectUuid => "no X-Project-Uuid".to_owned(),
            Defect::ContentType { is: Some(ct) } => format!("Content-Type `{ct}`"),
            Defect::ContentType { is: None } => "no Content-Type".to_owned(),
            Defect::NotJson => "the body is not JSON".to_owned(),
        }
    }

    /// Whether a snapshot's change is this problem showing again: the
    /// member or header of the answer now has the value the problem names.
    pub fn explains(&self, c: &Change) -> bool {
        match self {
            Defect::Member { name, is, .. } => {
                c.at == format!("response.body.{name}") && c.now.as_deref() == Some(is)
            }
            Defect::Missing { name } => c.at == format!("response.body.{name}") && c.now.is_none(),
            Defect::NoProjectUuid => c.at == "response.headers.x-project-uuid" && c.now.is_none(),
            Defect::ContentType { is } => {
                c.at == "response.headers.content-type"
                    && c.now
                        == is
                            .as_ref()
                            .map(|ct| serde_json::Value::from(ct.as_str()).to_string())
            }
            Defect::NotJson => false,
        }
    }
}

/// The members of the error shapes the phrases name.
const MEMBERS: &[&str] = conformance_wire::envelope::MEMBERS;

/// The problems `text` (a failure's `actual`) names, each once, in the
/// order they first appear.
pub fn in_text(text: &str) -> Vec<Defect> {
    let mut found: Vec<(usize, Defect)> = Vec::new();
    for name in MEMBERS {
        let missing = format!("`{name}` is missing");
        if let Some(at) = text.find(&missing) {
            found.push((
                at,
                Defect::Missing {
                    name: (*name).to_owned(),
                },
            ));
        }
        let is = format!("`{name}` is ");
        let mut from = 0;
        while let Some(at) = text[from..].find(&is).map(|i| i + from) {
            from = at + is.len();
            let rest = &text[from..];
            if let Some((value, want)) = rest.split_once(", not ") {
                // The value as the judge wrote it: compact JSON; what it
                // should be, up to the end of the phrase.
                let want = want
                    .split([';', ')', '\n'])
                    .next()
                    .unwrap_or_default()
                    .trim();
                if serde_json::from_str::<serde_json::Value>(value).is_ok() {
                    found.push((
                        at,
                        Defect::Member {
                            name: (*name).to_owned(),
                            is: value.to_owned(),
                            not: want.to_owned(),
                        },
                    ));
                    break;
                }
            }
        }
    }
    for (phrase, defect) in [
        ("no X-Project-Uuid", Defect::NoProjectUuid),
        ("no Content-Type", Defect::ContentType { is: None }),
        ("the body is not JSON", Defect::NotJson),
    ] {
        if let Some(at) = text.find(phrase) {
            found.push((at, defect));
        }
    }
    let ct = "Content-Type `";
    if let Some(at) = text.find(ct) {
        let rest = &text[at + ct.len()..];
        if let Some((value, _)) = rest.split_once("`, not application/json") {
            if !value.contains('\n') {
                found.push((
                    at,
                    Defect::ContentType {
                        is: Some(value.to_owned()),
                    },
                ));
            }
        }
    }
    found.sort_by_key(|(at, _)| *at);
    let mut out: Vec<Defect> = Vec::new();
    for (_, d) in found {
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use component_auth_bindings::RawResponse;
    use conformance_wire::envelope::refusal_problems;

    fn answer(status: u16, content_type: &str, project: bool, body: &str) -> RawResponse {
        let mut raw = RawResponse {
            status,
            headers: Default::default(),
            body: body.as_bytes().to_vec().into(),
        };
        if !content_type.is_empty() {
            raw.headers
                .insert("content-type", content_type.parse().expect("header"));
        }
        if project {
            raw.headers.insert(
                "x-project-uuid",
                "6f1f2f0f-0000-4000-8000-000000000001"
                    .parse()
                    .expect("header"),
            );
        }
        raw
    }

    /// Every problem the envelope's judge writes is read back, with the
    /// sentence it breaks: the phrases are the judge's own.
    #[test]
    fn the_envelopes_phrases_are_read_back() {
        let raw = answer(
            400,
            "text/plain",
            false,
            r#"{"code":"400","message":"m","status":true}"#,
        );
        let text = format!(
            "GET without X-Client-Id: {}",
            refusal_problems(&raw).join("; ")
        );
        let defects = in_text(&text);
        assert_eq!(
            defects,
            [
                Defect::ContentType {
                    is: Some("text/plain".into())
                },
                Defect::NoProjectUuid,
                Defect::Member {
                    name: "code".into(),
                    is: "\"400\"".into(),
                    not: "an integer".into()
                },
                Defect::Missing {
                    name: "request_id".into()
                },
                Defect::Member {
                    name: "status".into(),
                    is: "true".into(),
                    not: "false".into()
                },
            ],
            "{text}"
        );
        let rules: Vec<&str> = defects.iter().map(|d| d.requirement().id).collect();
        assert_eq!(
            rules,
            [
                "7/content-type",
                "7/headers",
                "7.1/code",
                "7.1/request-id",
                "7.1/status"
            ]
        );
        let html = answer(404, "", false, "<h1>no</h1>");
        let text = refusal_problems(&html).join("; ");
        assert_eq!(
            in_text(&text),
            [
                Defect::ContentType { is: None },
                Defect::NoProjectUuid,
                Defect::NotJson
            ],
            "{text}"
        );
        assert!(in_text("HTTP 200, body {\"status\": true}").is_empty());
    }

    #[test]
    fn a_changed_snapshot_shows_the_same_problem() {
        let change = |at: &str, now: Option<&str>| Change {
            method: "GET".into(),
            at: at.into(),
            was: Some("false".into()),
            now: now.map(str::to_owned),
        };
        let status = Defect::Member {
            name: "status".into(),
            is: "true".into(),
            not: "false".into(),
        };
        assert!(status.explains(&change("response.body.status", Some("true"))));
        assert!(!status.explains(&change("response.status", Some("true"))));
        assert!(!status.explains(&change("response.body.status", Some("1"))));
        assert!(Defect::NoProjectUuid.explains(&change("response.headers.x-project-uuid", None)));
        let ct = Defect::ContentType {
            is: Some("text/plain".into()),
        };
        assert!(ct.explains(&change(
            "response.headers.content-type",
            Some("\"text/plain\"")
        )));
    }
}
