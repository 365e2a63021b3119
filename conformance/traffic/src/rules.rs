//! The rules one observed exchange can settle, one row each: its id, which
//! side of the exchange it judges, its level, the requirement of the
//! description it enforces (a key of `conformance-requirements`, which
//! holds the sentence), and when an exchange puts it to the test.
//!
//! How a rule judges is in [`crate::client`] (a request) and
//! [`crate::server`] (an answer); when it applies is its row's
//! [`Rule::applies`]: a report tells a rule the traffic kept (passed) from
//! one no exchange could break (not applicable: no 417 came, no request
//! went to a component that requires auth).

use std::borrow::Cow;

use conformance_requirements::{self as requirement, Requirement};
use serde::Serialize;

use crate::knowledge::{Component, Knows, Place};
use crate::observed::{Answer, Request, values};

/// Which side of an exchange a rule judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// What the client sent.
    Client,
    /// What the server answered.
    Server,
}

/// A rule's requirement level: every rule here is a MUST of the
/// description (a SHOULD would need a choice a profile declares).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Must,
}

/// One rule of the description that one exchange can break.
#[derive(Debug)]
pub struct Rule {
    /// Stable id, `client/...` or `server/...`.
    pub id: &'static str,
    pub side: Side,
    pub level: Level,
    /// The section of the description a report shows it under.
    pub section: &'static str,
    /// The sentence enforced.
    pub requirement: &'static Requirement,
    /// What the rule asks, in a line.
    pub title: &'static str,
    /// The checks of the runner's catalogue that enforce the same sentence
    /// in the same way, on requests the runner sends: those an observed
    /// exchange can judge too (`conformance list` marks them; a test of the
    /// suite holds each id to the catalogue and its quote to this one's).
    pub checks: &'static [&'static str],
    /// Whether an exchange on the interface's path could break the rule,
    /// kept or not (outside the path only [`PATH`] is put to the test; a
    /// rule an exchange broke is put to the test, whatever this says).
    pub applies: fn(&Exercise<'_>) -> bool,
}

impl Rule {
    /// The sentence the rule enforces, quoted.
    pub fn quote(&self) -> &'static str {
        self.requirement.quote
    }
}

/// Rules are one by their id.
impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Rule {}

/// What one exchange put to the test: its request, its answer if one came,
/// every rule it broke (both sides), and what the server's profile says of
/// the component it went to. Read by each rule's [`Rule::applies`].
pub struct Exercise<'a> {
    pub req: &'a Request,
    pub answer: Option<&'a Answer>,
    pub findings: &'a [Finding],
    /// The component the request's ref names, where the server is known
    /// to have it.
    pub component: Option<Cow<'a, Component>>,
    /// Where the server reads `modelUuid`.
    pub model_uuid_at: Cow<'a, Place>,
    /// What the profile shows of the request.
    pub assessed: crate::profiled::Assessment,
}

impl<'a> Exercise<'a> {
    /// `req` and its `answer`, having broken `findings`.
    pub fn new(
        req: &'a Request,
        answer: Option<&'a Answer>,
        findings: &'a [Finding],
        knows: &'a dyn Knows,
    ) -> Self {
        let client: Vec<Finding> = findings
            .iter()
            .filter(|f| f.rule.side == Side::Client)
            .cloned()
            .collect();
        Exercise {
            req,
            answer,
            findings,
            component: req.reference().and_then(|r| knows.component(&r)),
            model_uuid_at: knows.model_uuid_at(),
            assessed: crate::profiled::assess(req, &client, knows),
        }
    }

    /// Whether the exchange broke `rule`.
    pub fn broke(&self, rule: &Rule) -> bool {
        self.findings.iter().any(|f| f.rule == rule)
    }

    fn post(&self) -> bool {
        self.req.method == "POST"
    }

    /// A body kept whole and not blank (a body over a proxy's cap is
    /// judged by no rule that reads it).
    fn has_body(&self) -> bool {
        !self.req.body_cut && !self.req.body.iter().all(u8::is_ascii_whitespace)
    }

    /// The client's side broke only [`FIELDS`] (a body that breaks the
    /// component's declared fields, nothing else).
    fn only_fields(&self) -> bool {
        let mut client = self.client_findings().peekable();
        client.peek().is_some() && client.all(|f| f.rule == &FIELDS)
    }

    fn client_findings(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.rule.side == Side::Client)
    }

    /// The answer's status, where one came.
    fn status(&self) -> Option<u16> {
        self.answer.map(|a| a.status)
    }
}

/// Whether a server must refuse a request that broke `rule` (a missing
/// header, a bad X-Project-Env, a body that is not JSON, no modelUuid).
/// Not the declared fields (a server validates as its settings say), nor
/// the client rules the description does not make the server enforce: the
/// media type of a JSON body, a ref encoded twice, a credential also in
/// the URL.
pub fn must_refuse(rule: &Rule) -> bool {
    rule.side == Side::Client
        && ![
            &FIELDS,
            &JSON_MEDIA_TYPE,
            &REF_ENCODED_ONCE,
            &CREDENTIAL_IN_URL,
        ]
        .contains(&rule)
}

/// A rule an exchange broke, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: &'static Rule,
    /// What was wrong; never a secret (names, not values).
    pub detail: String,
    /// A body that fails the component's declared validation (a required
    /// field missing, a field of another type), not only one with a field
    /// the settings do not define, which a server may ignore: a server must
    /// not serve it.
    pub fails_validation: bool,
}

impl Finding {
    pub(crate) fn new(rule: &'static Rule, detail: impl Into<String>) -> Self {
        Finding {
            rule,
            detail: detail.into(),
            fails_validation: false,
        }
    }
}

macro_rules! rules {
    ($( $name:ident = $id:literal, $side:ident, $section:literal, $requirement:ident, $title:literal,
        [$($check:literal),* $(,)?], applies: $applies:expr; )*) => {
        $( pub static $name: Rule = Rule {
            id: $id,
            side: Side::$side,
            level: Level::Must,
            section: $section,
            requirement: &requirement::$requirement,
            title: $title,
            checks: &[$($check),*],
            applies: $applies,
        }; )*

        /// Every rule, in the order reports list them.
        pub static RULES: &[&Rule] = &[ $( &$name, )* ];
    };
}

rules! {
    PATH = "client/path", Client, "4",
        PATH_PREFIX,
        "a request goes to /v2/api/component/{ref}/auth, with GET (Auth Claims) or POST (Authorize)",
        [], applies: |_| true;
    CLIENT_ID = "client/x-client-id", Client, "5",
        CLIENT_ID,
        "every request carries a non-empty X-Client-Id",
        [
            "headers/auth-claims/x-client-id/missing",
            "headers/auth-claims/x-client-id/empty",
            "headers/authorize/x-client-id/missing",
            "headers/authorize/x-client-id/empty",
        ], applies: |_| true;
    CLIENT_SECRET = "client/x-client-secret", Client, "5",
        CLIENT_SECRET,
        "every request carries a non-empty X-Client-Secret",
        [
            "headers/auth-claims/x-client-secret/missing",
            "headers/auth-claims/x-client-secret/empty",
            "headers/authorize/x-client-secret/missing",
            "headers/authorize/x-client-secret/empty",
        ], applies: |_| true;
    AUTH_TOKEN = "client/x-auth-token", Client, "5",
        AUTH_TOKEN,
        "a request to a component that requires auth carries a non-empty X-Auth-Token",
        [
            "auth-token/auth-claims/missing",
            "auth-token/authorize/missing",
        ], applies: |x| x.component.as_ref().is_some_and(|c| c.requires_auth);
    PROJECT_ENV = "client/x-project-env", Client, "4.1",
        PROJECT_ENV_VALUES,
        "X-Project-Env, where sent, is `dev` or `live`",
        [
            "project-env/auth-claims/other",
            "project-env/authorize/other",
        ], applies: |x| values(&x.req.headers, "x-project-env").next().is_some();
    JSON_BODY = "client/json-body", Client, "4.2",
        BODY_AS_JSON,
        "a body, where sent, is one JSON text, an object (Authorize always sends one)",
        [
            "body/authorize/malformed-json",
            "body/authorize/one-json-text",
        ], applies: |x| (x.post() && !x.req.body_cut) || x.has_body();
    FIELDS = "client/fields", Client, "4.2",
        BODY_AS_JSON,
        "a body carries the component's auth fields: each required one, each of its type, no other",
        [], applies: |x| {
            // A body that is one JSON object meets the component's declared fields.
            x.has_body()
                && !x.broke(&JSON_BODY)
                && x.component.as_ref().is_some_and(|c| c.fields.is_some())
        };
    MODEL_UUID = "client/model-uuid", Client, "4.2",
        MODEL_UUID_ROW,
        "Authorize carries modelUuid where the server reads it (the profile's `choices.model_uuid`; ours: the query)",
        [
            "validation/authorize/missing-model-uuid",
        ], applies: |x| {
            // Not where the server reads it from a body not kept whole.
            x.post() && !(x.req.body_cut && matches!(*x.model_uuid_at, Place::Body(_)))
        };
    JSON_MEDIA_TYPE = "client/json-media-type", Client, "4.2",
        BODY_AS_JSON,
        "a JSON body is sent as JSON: Content-Type application/json (or a +json type)",
        [], applies: |x| x.has_body() && !x.broke(&JSON_BODY);
    REF_ENCODED_ONCE = "client/ref-encoded-once", Client, "4.1",
        REF_ROW,
        "the ref is the component's name, tag or uuid percent-encoded once, not twice",
        [], applies: |x| x.req.reference().is_some_and(|r| r.contains('%'));
    CREDENTIAL_IN_URL = "client/no-credential-in-url", Client, "5",
        EVERY_REQUEST,
        "credentials travel in the request's headers, never in its URL's query",
        [], applies: |x| x.req.target.contains('?');
    RESPONSES_JSON = "server/responses-json", Server, "1",
        RESPONSES_JSON,
        "a successful answer's body is JSON",
        [
            "responses/json",
            "invariants/responses-are-json",
        ], applies: |x| {
            x.answer.is_some_and(|a| (200..300).contains(&a.status) && !a.body.is_empty() && !a.body_cut)
        };
    PROJECT_UUID = "server/x-project-uuid-is-a-uuid", Server, "2",
        PROJECT_UUID_ON_ERRORS,
        "X-Project-Uuid, where an answer carries it, is a uuid",
        [
            "errors/x-project-uuid/uuid",
        ], applies: |x| x.answer.is_some_and(|a| values(&a.headers, "x-project-uuid").next().is_some());
    AUTH_CLAIMS_IS_GET = "server/auth-claims-is-get", Server, "4.1",
        AUTH_CLAIMS_IS_GET,
        "GET on /v2/api/component/{ref}/auth is Auth Claims: never answered 405 or 501",
        [], applies: |x| x.answer.is_some() && x.req.method == "GET";
    AUTHORIZE_IS_POST = "server/authorize-is-post", Server, "4.2",
        AUTHORIZE_IS_POST,
        "POST on /v2/api/component/{ref}/auth is Authorize: never answered 405 or 501",
        [], applies: |x| x.answer.is_some() && x.post();
    ERRORS_ARE_ENVELOPES = "server/errors-are-envelopes", Server, "7",
        ERROR_ENVELOPE,
        "an error answer (a limit answer included) is JSON, says so, and carries X-Project-Uuid",
        [
            "errors/json",
            "errors/content-type",
            "errors/x-project-uuid",
            "invariants/errors-are-json",
            "invariants/errors-carry-project-uuid",
            "answers/errors-are-envelopes",
            "answers/limit-answers-are-envelopes",
        ], applies: |x| x.status().is_some_and(|s| s >= 400);
    SHAPE_400 = "server/400-shape", Server, "7.1",
        SHAPE_400,
        "a 400 has `code` (integer), `message` (string), `request_id` (string), `status` false",
        [
            "invariants/400-shape",
        ], applies: |x| x.status() == Some(400);
    SHAPE_417 = "server/417-shape", Server, "7.2",
        VALIDATION_IS_417,
        "a 417 has `code` (integer), `errors` (array), `status` false",
        [
            "invariants/417-shape",
        ], applies: |x| x.status() == Some(417);
    VALIDATION_417 = "server/validation-417", Server, "7",
        VALIDATION_IS_417,
        "a request whose only fault is a body that breaks the component's declared auth fields is answered 417: not 400 or 422, nor served where Authorize's body lacks a required field or has one of another type",
        [
            "invariants/validation-is-417",
        ], applies: |x| {
            // Authorize served a body that fails its declared validation, or
            // any refusal of one.
            x.only_fields() && x.status().is_some_and(|s| ((200..300).contains(&s) && x.post()) || s >= 400)
        };
    REFUSES = "server/refuses-what-a-client-must-not-send", Server, "5",
        EVERY_REQUEST,
        "a request missing a required header, with an X-Project-Env other than dev or live, a body that is not JSON, or Authorize without modelUuid is not served (no 2xx)",
        [
            "headers/auth-claims/x-client-id/missing",
            "headers/auth-claims/x-client-id/empty",
            "headers/auth-claims/x-client-secret/missing",
            "headers/auth-claims/x-client-secret/empty",
            "headers/authorize/x-client-id/missing",
            "headers/authorize/x-client-id/empty",
            "headers/authorize/x-client-secret/missing",
            "headers/authorize/x-client-secret/empty",
            "auth-token/auth-claims/missing",
            "auth-token/authorize/missing",
        ], applies: |x| {
            // Any answer to a request a server must refuse (a 2xx breaks it).
            x.answer.is_some() && x.client_findings().any(|f| must_refuse(f.rule))
        };
    RESOLVES_REFS = "server/resolves-known-refs", Server, "2",
        REF,
        "a request the profile shows valid, whose ref is a known component's name, tag or uuid (percent-decoded), is not answered 404",
        [], applies: |x| x.answer.is_some() && x.assessed.valid.is_some();
    SERVES_ENVIRONMENTS = "server/serves-both-environments", Server, "5",
        PROJECT_ENV_SELECTS,
        "a request the profile shows valid, with X-Project-Env `dev` or `live`, is not refused",
        [], applies: |x| {
            x.answer.is_some()
                && x.assessed.valid.is_some()
                && values(&x.req.headers, "x-project-env").next().is_some()
        };
    TOKEN_ONLY_WHERE_REQUIRED = "server/token-only-where-required", Server, "5",
        AUTH_TOKEN,
        "a request the profile shows valid to a component that does not require auth, sent without X-Auth-Token, is not refused 401 or 403",
        [], applies: |x| {
            x.answer.is_some()
                && x.assessed.valid.is_some()
                && x.component.as_ref().is_some_and(|c| !c.requires_auth)
        };
    SERVES_VALID = "server/serves-valid-requests", Server, "5",
        EVERY_REQUEST,
        "a request the profile shows valid (its client's id and secret, the component's token, one of its models, a body that keeps its settings) is not refused (400, 401, 403, 406, 409, 415, 422)",
        [], applies: |x| x.answer.is_some() && x.assessed.valid.is_some();
    WRONG_SECRET = "server/refuses-a-wrong-secret", Server, "5",
        CLIENT_SECRET,
        "a request with the profile's client id and another secret, or its secret and another id, is not served",
        [], applies: |x| x.answer.is_some() && x.assessed.wrong_secret.is_some();
    WRONG_TOKEN = "server/refuses-a-wrong-token", Server, "5",
        AUTH_TOKEN,
        "a request to a component that requires auth, with another known component's token or a near miss of its own, is not served",
        [], applies: |x| x.answer.is_some() && x.assessed.wrong_token.is_some();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_name_their_side() {
        for (i, r) in RULES.iter().enumerate() {
            let prefix = match r.side {
                Side::Client => "client/",
                Side::Server => "server/",
            };
            assert!(r.id.starts_with(prefix), "{}", r.id);
            assert!(RULES[i + 1..].iter().all(|o| o.id != r.id), "{}", r.id);
        }
    }
}
