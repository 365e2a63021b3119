//! The rules one observed exchange can settle, one row each: its id, which
//! side of the exchange it judges, its level, and the sentence of the
//! description it enforces, quoted.

use serde::Serialize;

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
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable id, `client/...` or `server/...`.
    pub id: &'static str,
    pub side: Side,
    pub level: Level,
    /// The section of the description.
    pub section: &'static str,
    /// The sentence enforced, quoted.
    pub quote: &'static str,
    /// What the rule asks, in a line.
    pub title: &'static str,
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
    ($( $name:ident = $id:literal, $side:ident, $section:literal, $quote:literal, $title:literal; )*) => {
        $( pub static $name: Rule = Rule {
            id: $id,
            side: Side::$side,
            level: Level::Must,
            section: $section,
            quote: $quote,
            title: $title,
        }; )*

        /// Every rule, in the order reports list them.
        pub static RULES: &[&Rule] = &[ $( &$name, )* ];
    };
}

rules! {
    PATH = "client/path", Client, "4",
        "The path prefix is `{base_url}/v2/api`.",
        "a request goes to /v2/api/component/{ref}/auth, with GET (Auth Claims) or POST (Authorize)";
    CLIENT_ID = "client/x-client-id", Client, "5",
        "X-Client-Id | string | yes | Client identifier `<CLIENT_ID>`.",
        "every request carries a non-empty X-Client-Id";
    CLIENT_SECRET = "client/x-client-secret", Client, "5",
        "X-Client-Secret | string | yes | Client secret `<CLIENT_SECRET>`.",
        "every request carries a non-empty X-Client-Secret";
    AUTH_TOKEN = "client/x-auth-token", Client, "5",
        "X-Auth-Token | string | only if the component requires auth | Token `<AUTH_TOKEN>`.",
        "a request to a component that requires auth carries a non-empty X-Auth-Token";
    PROJECT_ENV = "client/x-project-env", Client, "4.1",
        "X-Project-Env | string | no | Allowed values: `dev`, `live`.",
        "X-Project-Env, where sent, is `dev` or `live`";
    JSON_BODY = "client/json-body", Client, "4.2",
        "Body: the fields configured in the component's settings auth section, sent as JSON.",
        "a body, where sent, is one JSON text, an object (Authorize always sends one)";
    FIELDS = "client/fields", Client, "4.2",
        "Body: the fields configured in the component's settings auth section, sent as JSON.",
        "a body carries the component's auth fields: each required one, each of its type, no other";
    MODEL_UUID = "client/model-uuid", Client, "4.2",
        "modelUuid | string | yes | Listed as a path parameter, but it does not appear in the path shape given above; where it is carried in the request: not shown.",
        "Authorize carries modelUuid where the server reads it (the profile's `choices.model_uuid`; ours: the query)";
    RESPONSES_JSON = "server/responses-json", Server, "1",
        "Responses are JSON.",
        "a successful answer's body is JSON";
    PROJECT_UUID = "server/x-project-uuid-is-a-uuid", Server, "2",
        "X-Project-Uuid | string, uuid | Identifier of the project, `<project_uuid>`, present on the error responses.",
        "X-Project-Uuid, where an answer carries it, is a uuid";
    AUTH_CLAIMS_IS_GET = "server/auth-claims-is-get", Server, "4.1",
        "| Method | GET |",
        "GET on /v2/api/component/{ref}/auth is Auth Claims: never answered 405 or 501";
    AUTHORIZE_IS_POST = "server/authorize-is-post", Server, "4.2",
        "| Method | POST |",
        "POST on /v2/api/component/{ref}/auth is Authorize: never answered 405 or 501";
    ERRORS_ARE_ENVELOPES = "server/errors-are-envelopes", Server, "7",
        "Error responses are JSON. Both carry the `Content-Type: application/json` header and an `X-Project-Uuid` header.",
        "an error answer (a limit answer included) is JSON, says so, and carries X-Project-Uuid";
    SHAPE_400 = "server/400-shape", Server, "7.1",
        "When the response is 400, it has the 7.1 shape.",
        "a 400 has `code` (integer), `message` (string), `request_id` (string), `status` false";
    SHAPE_417 = "server/417-shape", Server, "7.2",
        "When validation of the request fails, the response status is 417 and has the 7.2 shape.",
        "a 417 has `code` (integer), `errors` (array), `status` false";
    VALIDATION_417 = "server/validation-417", Server, "7",
        "When validation of the request fails, the response status is 417 and has the 7.2 shape.",
        "a request whose only fault is a body that breaks the component's declared auth fields is answered 417: not 400 or 422, nor served where Authorize's body lacks a required field or has one of another type";
    REFUSES = "server/refuses-what-a-client-must-not-send", Server, "5",
        "Every request to both operations carries these headers:",
        "a request missing a required header, with an X-Project-Env other than dev or live, a body that is not JSON, or Authorize without modelUuid is not served (no 2xx)";
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

    /// Each quoted sentence is in the description.
    #[test]
    fn every_quote_is_the_description_s() {
        let description = include_str!("../../../spec/interface-description.md");
        for r in RULES {
            assert!(description.contains(r.quote), "{}: {}", r.id, r.quote);
        }
    }
}
