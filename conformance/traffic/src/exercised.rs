//! Which rules one exchange put to the test, broken or kept: a report tells
//! a rule the traffic kept (passed) from one no exchange could break (not
//! applicable). Each rule's row says when it applies
//! ([`crate::rules::Rule::applies`]); this asks every row. Read from what
//! judging already found, so the exchange's body is not parsed again.

use crate::knowledge::Knows;
use crate::observed::{Answer, Request};
use crate::rules::{self, Exercise, Finding, RULES, Rule};

/// The rules `req` and its `answer` could have broken. `findings`: every
/// rule the exchange broke, both sides (each is exercised too).
pub fn exercised(
    req: &Request,
    answer: Option<&Answer>,
    findings: &[Finding],
    knows: &dyn Knows,
) -> Vec<&'static Rule> {
    let exchange = Exercise::new(req, answer, findings, knows);
    // Outside the interface's path nothing else is judged.
    if exchange.broke(&rules::PATH) {
        return vec![&rules::PATH];
    }
    // A rule broken is a rule exercised, whatever its row says.
    RULES
        .iter()
        .copied()
        .filter(|rule| (rule.applies)(&exchange) || exchange.broke(rule))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::{Component, Place};
    use std::borrow::Cow;

    struct Users;

    impl Knows for Users {
        fn component(&self, reference: &str) -> Option<Cow<'_, Component>> {
            (reference == "users").then(|| {
                Cow::Owned(Component {
                    requires_auth: true,
                    fields: Some(Vec::new()),
                    ..Component::default()
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
                "client/json-media-type",
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
