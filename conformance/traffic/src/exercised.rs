//! Which rules one exchange put to the test, broken or kept: a report tells
//! a rule the traffic kept (passed) from one no exchange could break (not
//! applicable: no 417 came, no request went to a component that requires
//! auth). Read from what judging already found, so the exchange's body is
//! not parsed again.

use crate::knowledge::{Knows, Place};
use crate::observed::{Answer, Request, values};
use crate::rules::{self, Finding, Rule};

/// The rules `req` and its `answer` could have broken. `findings`: every
/// rule the exchange broke, both sides (each is exercised too).
pub fn exercised(
    req: &Request,
    answer: Option<&Answer>,
    findings: &[Finding],
    knows: &dyn Knows,
) -> Vec<&'static Rule> {
    let broke = |rule: &Rule| findings.iter().any(|f| f.rule == rule);
    let mut out: Vec<&'static Rule> = vec![&rules::PATH];
    // Outside the interface's path nothing else is judged.
    if broke(&rules::PATH) {
        return out;
    }
    out.extend([&rules::CLIENT_ID, &rules::CLIENT_SECRET]);
    if values(&req.headers, "x-project-env").next().is_some() {
        out.push(&rules::PROJECT_ENV);
    }
    let component = req.reference().and_then(|r| knows.component(&r));
    if component.as_ref().is_some_and(|c| c.requires_auth) {
        out.push(&rules::AUTH_TOKEN);
    }
    let post = req.method == "POST";
    // A body not kept whole (over a proxy's cap) is judged by no rule that
    // reads it (`judge_request`): those rules are not put to the test.
    let has_body = !req.body_cut && !req.body.iter().all(u8::is_ascii_whitespace);
    if (post && !req.body_cut) || has_body {
        out.push(&rules::JSON_BODY);
    }
    // A body that is one JSON object meets the component's declared fields.
    let object = has_body && !broke(&rules::JSON_BODY);
    if object && component.as_ref().is_some_and(|c| c.fields.is_some()) {
        out.push(&rules::FIELDS);
    }
    let model_uuid_unread = req.body_cut && matches!(*knows.model_uuid_at(), Place::Body(_));
    if post && !model_uuid_unread {
        out.push(&rules::MODEL_UUID);
    }
    if let Some(answer) = answer {
        let status = answer.status;
        let client: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.rule.side == crate::Side::Client)
            .collect();
        if values(&answer.headers, "x-project-uuid").next().is_some() {
            out.push(&rules::PROJECT_UUID);
        }
        // Any answer to the operation's method says whether it is served.
        match req.method.as_str() {
            "GET" => out.push(&rules::AUTH_CLAIMS_IS_GET),
            "POST" => out.push(&rules::AUTHORIZE_IS_POST),
            _ => {}
        }
        let only_fields = !client.is_empty() && client.iter().all(|f| f.rule == &rules::FIELDS);
        if (200..300).contains(&status) {
            if !answer.body.is_empty() && !answer.body_cut {
                out.push(&rules::RESPONSES_JSON);
            }
            // Authorize served a body that fails its declared validation.
            if only_fields && post {
                out.push(&rules::VALIDATION_417);
            }
        } else if status >= 400 {
            out.push(&rules::ERRORS_ARE_ENVELOPES);
            if status == 400 {
                out.push(&rules::SHAPE_400);
            }
            if status == 417 {
                out.push(&rules::SHAPE_417);
            }
            if only_fields {
                out.push(&rules::VALIDATION_417);
            }
        }
        // Any answer to a request a server must refuse puts the refusal to
        // the test (a 2xx breaks it).
        if client.iter().any(|f| f.rule != &rules::FIELDS) {
            out.push(&rules::REFUSES);
        }
    }
    // A rule broken is a rule exercised, whatever the above says.
    for f in findings {
        if !out.contains(&f.rule) {
            out.push(f.rule);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::Component;
    use std::borrow::Cow;

    struct Users;

    impl Knows for Users {
        fn component(&self, reference: &str) -> Option<Cow<'_, Component>> {
            (reference == "users").then(|| {
                Cow::Owned(Component {
                    requires_auth: true,
                    fields: Some(Vec::new()),
                })
            })
        }
        fn model_uuid_at(&self) -> Cow<'_, Place> {
            Cow::Owned(Place::default())
        }
    }

    fn ids(req: &Request, answer: Option<&Answer>) -> Vec<&'static str> {
        let mut findings = crate::client::judge_request(req, &Users);
        if let Some(a) = answer {
            findings.extend(crate::server::judge_answer(req, a, &findings));
        }
        let mut ids: Vec<_> = exercised(req, answer, &findings, &Users)
            .iter()
            .map(|r| r.id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// A read of a component without auth, answered 200, cannot break a
    /// rule about bodies, tokens, modelUuid or error answers; a refused
    /// Authorize to one with auth puts those to the test.
    #[test]
    fn only_what_the_exchange_could_break() {
        let get = Request {
            method: "GET".into(),
            target: "/v2/api/component/catalog/auth".into(),
            headers: vec![
                ("x-client-id".into(), b"c".to_vec()),
                ("x-client-secret".into(), b"s".to_vec()),
            ],
            body: Vec::new(),
            body_cut: false,
        };
        let ok = Answer {
            status: 200,
            headers: Vec::new(),
            body: b"{}".to_vec(),
            body_cut: false,
        };
        assert_eq!(
            ids(&get, Some(&ok)),
            [
                "client/path",
                "client/x-client-id",
                "client/x-client-secret",
                "server/auth-claims-is-get",
                "server/responses-json"
            ]
        );
        let post = Request {
            method: "POST".into(),
            target: "/v2/api/component/users/auth".into(),
            headers: get.headers.clone(),
            body: b"{\"a\": 1}".to_vec(),
            body_cut: false,
        };
        let refused = Answer {
            status: 417,
            headers: Vec::new(),
            body: b"{}".to_vec(),
            body_cut: false,
        };
        assert_eq!(
            ids(&post, Some(&refused)),
            [
                "client/fields",
                "client/json-body",
                "client/model-uuid",
                "client/path",
                "client/x-auth-token",
                "client/x-client-id",
                "client/x-client-secret",
                "server/417-shape",
                "server/authorize-is-post",
                "server/errors-are-envelopes",
                "server/refuses-what-a-client-must-not-send"
            ]
        );
        let elsewhere = Request {
            target: "/health".into(),
            ..get
        };
        assert_eq!(ids(&elsewhere, Some(&ok)), ["client/path"]);
        // A body over a proxy's cap is judged by no rule that reads it,
        // so none of those is put to the test.
        let cut = Request {
            body_cut: true,
            ..post
        };
        let ids_cut = ids(&cut, Some(&refused));
        for body_rule in ["client/fields", "client/json-body"] {
            assert!(!ids_cut.contains(&body_rule), "{ids_cut:?}");
        }
        assert!(ids_cut.contains(&"client/model-uuid"), "in the query: read");
    }
}
