//! # conformance-requirements: the description's sentences, once
//!
//! Every sentence of `spec/interface-description.md` this project acts on
//! is one row of [`REQUIREMENTS`]: a stable id (`7/errors-are-json`, its
//! section first), the section it stands in, and the sentence quoted word
//! for word. Everything else that enforces a sentence points at its row by
//! key, never by a copy of its text:
//!
//! - the runner's checks (`conformance-suite`, `Cites::Requirement`);
//! - the rules that judge observed traffic (`traffic-rules`, `Rule::requirement`);
//! - the reference server's faults (the sentence each breaks) and legal
//!   variants (the sentence that leaves their choice open);
//! - `conformance coverage`, which prints, for each row, the checks, rules,
//!   faults and variants that name it.
//!
//! So "what enforces this sentence" is a lookup, and a reworded sentence is
//! one edit here (a test holds every quote to the description). No other
//! source file of the workspace quotes the description: a test reads them
//! all.
//!
//! A row [`States`](Kind::States) something a server or a client must do or
//! be; a row that [`LeavesOpen`](Kind::LeavesOpen) is a sentence that says
//! what the description does not show, which a legal variant relies on.
//! Rows may overlap where one check enforces part of a sentence and
//! another the whole ("Error responses are JSON." and the paragraph it
//! opens): each row is one statement as it is enforced, and its quote is
//! what reports print and baselines hash, so it never changes silently.
//!
//! This crate has no dependencies: it is the lowest of the workspace, so
//! the reference server (which must not build an HTTP client) and every
//! stage of the runner can use it.

/// What a row of the table says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Something a server or a client must do or be.
    States,
    /// What the description leaves open ("...: not shown."): a server may
    /// choose, and a legal variant of the reference server chooses
    /// otherwise than spec/README.md does.
    LeavesOpen,
}

/// One sentence of the description, quoted.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Requirement {
    /// Stable id: the section, then a name (`7.1/request-id`).
    pub id: &'static str,
    /// The deepest numbered section of the description the quote first
    /// stands in (`7.1`). A header's row stands in several tables (§4.1
    /// and §4.2); this is the first.
    pub section: &'static str,
    pub kind: Kind,
    /// The sentence, word for word as the description holds it (a table
    /// row without its outer pipes).
    pub quote: &'static str,
}

impl Requirement {
    /// The row with id `id`.
    pub fn by_id(id: &str) -> Option<&'static Requirement> {
        REQUIREMENTS.iter().copied().find(|r| r.id == id)
    }
}

impl std::fmt::Display for Requirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id)
    }
}

macro_rules! requirements {
    ($( $(#[$doc:meta])* $name:ident = $id:literal, $section:literal, $kind:ident, $quote:literal; )*) => {
        $( $(#[$doc])* pub static $name: Requirement = Requirement {
            id: $id,
            section: $section,
            kind: Kind::$kind,
            quote: $quote,
        }; )*

        /// Every row, in the order the description holds them.
        pub static REQUIREMENTS: &[&Requirement] = &[ $( &$name, )* ];
    };
}

requirements! {
    // §1 What the service does
    AUTH_CLAIMS_RETURNS_THE_MODEL = "1/auth-claims-returns-the-model", "1", States,
        "The read operation returns the model that claimed the authentication (\"Auth Claims\").";
    BODY_FIELDS = "1/body-fields", "1", States,
        "Both operations take, in the request body, the fields that the component's settings define in their auth section.";
    RESPONSES_JSON = "1/responses-json", "1", States,
        "Responses are JSON.";
    RESULT_NOT_SHOWN = "1/result-not-shown", "1", LeavesOpen,
        "What a component is beyond its reference, and what a successful result contains: not shown.";

    // §2 Resources and their fields
    REF = "2/ref", "2", States,
        "ref | string | yes | Identifies a component by its name, its tag, or its uuid.";
    MODEL_FIELDS_NOT_SHOWN = "2/model-fields-not-shown", "2", LeavesOpen,
        "Fields of the model that claimed the authentication: not shown.";
    AUTH_BODY = "2/auth-body", "2", States,
        "The body carries the fields configured in the auth section of the component's settings.";
    FIELD_RULES_NOT_SHOWN = "2/field-rules-not-shown", "2", LeavesOpen,
        "Their names, types and constraints are defined by that configuration and are not shown.";
    /// The heading of the table that names two headers and excludes no
    /// other.
    COMMON_RESPONSE_HEADERS = "2/common-response-headers", "2", LeavesOpen,
        "Common response headers";
    PROJECT_UUID = "2/x-project-uuid", "2", States,
        "X-Project-Uuid | string, uuid | Identifier of the project, `<project_uuid>`";
    PROJECT_UUID_ON_ERRORS = "2/x-project-uuid-on-errors", "2", States,
        "X-Project-Uuid | string, uuid | Identifier of the project, `<project_uuid>`, present on the error responses.";

    // §3 States and transitions
    STATES_NOT_SHOWN = "3/not-shown", "3", LeavesOpen,
        "States and transitions: not shown.";

    // §4 Endpoints
    PATH_PREFIX = "4/path-prefix", "4", States,
        "The path prefix is `{base_url}/v2/api`.";
    BASE_URL = "4/base-url", "4", States,
        "The path prefix is `{base_url}/v2/api`. `{base_url}` is the service's scheme and host.";

    // §4.1 Auth Claims
    AUTH_CLAIMS = "4.1/auth-claims", "4.1", States,
        "Auth Claims: get the model that claimed the authentication";
    AUTH_CLAIMS_IS_GET = "4.1/method", "4.1", States,
        "| Method | GET |";
    PROJECT_ENV_VALUES = "4.1/x-project-env", "4.1", States,
        "X-Project-Env | string | no | Allowed values: `dev`, `live`.";
    REF_ROW = "4.1/ref", "4.1", States,
        "ref | string | yes | Component name, tag or uuid.";
    /// Auth Claims' body: whether a GET's body is read is left open.
    AUTH_CLAIMS_BODY = "4.1/body", "4.1", LeavesOpen,
        "Body: the fields configured in the component's settings auth section.";

    // §4.2 Authorize
    AUTHORIZE = "4.2/authorize", "4.2", States,
        "Authorize: request authorization";
    AUTHORIZE_IS_POST = "4.2/method", "4.2", States,
        "| Method | POST |";
    MODEL_UUID = "4.2/model-uuid", "4.2", States,
        "modelUuid | string | yes | Listed as a path parameter";
    MODEL_UUID_ROW = "4.2/model-uuid-row", "4.2", States,
        "modelUuid | string | yes | Listed as a path parameter, but it does not appear in the path shape given above; where it is carried in the request: not shown.";
    MODEL_UUID_PLACE_NOT_SHOWN = "4.2/model-uuid-place-not-shown", "4.2", LeavesOpen,
        "Listed as a path parameter, but it does not appear in the path shape given above; where it is carried in the request: not shown.";
    BODY_AS_JSON = "4.2/body-as-json", "4.2", States,
        "Body: the fields configured in the component's settings auth section, sent as JSON.";
    SUCCESS_NOT_SHOWN = "4.2/success-not-shown", "4.2", LeavesOpen,
        "The shape of a successful response, and the names of the body fields: not shown.";

    // §5 Authentication
    EVERY_REQUEST = "5/every-request", "5", States,
        "Every request to both operations carries these headers:";
    CLIENT_ID = "5/x-client-id", "5", States,
        "X-Client-Id | string | yes | Client identifier `<CLIENT_ID>`.";
    CLIENT_SECRET = "5/x-client-secret", "5", States,
        "X-Client-Secret | string | yes | Client secret `<CLIENT_SECRET>`.";
    AUTH_TOKEN = "5/x-auth-token", "5", States,
        "X-Auth-Token | string | only if the component requires auth | Token `<AUTH_TOKEN>`.";
    PROJECT_ENV_SELECTS = "5/x-project-env", "5", States,
        "X-Project-Env | string | no | Selects the environment: `dev` or `live`.";
    REFUSAL_NOT_SHOWN = "5/refusal-not-shown", "5", LeavesOpen,
        "How an X-Auth-Token is obtained, and what the response is when a required credential is missing or wrong: not shown.";

    // §7 Errors
    ERRORS_ARE_JSON = "7/errors-are-json", "7", States,
        "Error responses are JSON.";
    ERRORS_CONTENT_TYPE = "7/content-type", "7", States,
        "Both carry the `Content-Type: application/json` header";
    ERRORS_CARRY_HEADERS = "7/headers", "7", States,
        "Both carry the `Content-Type: application/json` header and an `X-Project-Uuid` header.";
    ERROR_ENVELOPE = "7/envelope", "7", States,
        "Error responses are JSON. Both carry the `Content-Type: application/json` header and an `X-Project-Uuid` header.";

    // §7.1 400 Bad Request (the 7.2 table repeats `code` and `status`)
    CODE = "7.1/code", "7.1", States,
        "code | integer | Error code.";
    MESSAGE = "7.1/message", "7.1", States,
        "message | string | Error message.";
    REQUEST_ID = "7.1/request-id", "7.1", States,
        "request_id | string | Identifier of the request.";
    STATUS = "7.1/status", "7.1", States,
        "status | boolean | `false` on an error.";

    // §7.2 417, and the rules of §7 listed under it
    ERRORS_ARRAY = "7.2/errors", "7.2", States,
        "errors | array | List of validation errors.";
    VALIDATION_IS_417 = "7.2/validation-is-417", "7.2", States,
        "When validation of the request fails, the response status is 417 and has the 7.2 shape.";
    SHAPE_400 = "7.2/400-has-the-7.1-shape", "7.2", States,
        "When the response is 400, it has the 7.1 shape.";
    OTHER_ERRORS_NOT_SHOWN = "7.2/not-shown", "7.2", LeavesOpen,
        "The conditions that cause a 400, the set of code values, the item shape of `errors`, and other status codes: not shown.";

    // §8 Limits
    LIMITS_NOT_SHOWN = "8/not-shown", "8", LeavesOpen,
        "Limits (rate limits, size limits, time-outs): not shown.";

    // §9 Versioning
    VERSION = "9/version", "9", States,
        "The interface version is `v2`, carried as a path segment directly after the address of the service: `/v2/api/...`.";
}

#[cfg(test)]
mod tests;
