//! The seams where faults and variants enter, as plain data.
//!
//! A request passes seven seams: the route, the connection, the credentials
//! (client, `X-Project-Env`, `X-Auth-Token`), the ref lookup, the body and
//! its validation, the operation (Authorize's `modelUuid` and status), and
//! the answer. [`Behaviour::default()`] is the correct server making every
//! choice of spec/README.md. A fault (`fault.rs`) changes one field to break
//! a rule of the description; a variant (`variant.rs`) changes one field to
//! make another choice the description allows. The handler reads these
//! fields and never asks which fault or variant is on, so the correct path
//! reads straight through.

use component_auth_bindings::types::ProjectEnv;
use hyper::StatusCode;

/// How the server behaves at every seam.
#[derive(Clone, Debug, Default)]
pub(crate) struct Behaviour {
    pub route: Route,
    pub connection: Connection,
    pub credentials: Credentials,
    pub project_env: ProjectEnvRules,
    pub refs: Refs,
    pub token: Token,
    pub body: Body,
    pub validation: Validation,
    /// Auth Claims leaves the model out of every answer.
    pub claims_omit_model: bool,
    /// A successful Authorize records its model as the one claiming the
    /// component in that environment; Auth Claims returns the recorded
    /// model (none before the first Authorize), whatever token or body it
    /// carries. Off: the claiming model is found from the request
    /// (spec/README.md choice 3).
    pub claims_recorded: bool,
    /// Claims are recorded for the component alone, whatever the
    /// environment (a fault: §5's X-Project-Env selects nothing then).
    pub claims_env_blind: bool,
    /// Claims are recorded in the memory of the instance that took the
    /// Authorize (a fault: two instances behind a round-robin balancer,
    /// each with claims of its own).
    pub claims_per_instance: bool,
    /// Each worker caches the claims it read, and only its own writes
    /// update its cache (a fault: another worker's Authorize is not seen).
    pub claims_cached_per_worker: bool,
    /// Each client may start so many requests a second; more are limit
    /// answers (429). `None`: no limit (spec/README.md choice 16).
    pub rate_limit: Option<RateLimit>,
    pub authorize: AuthorizeRules,
    pub answer: Answer,
}

/// A token bucket per client (X-Client-Id): `per_second` tokens a second,
/// at most `burst` saved up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RateLimit {
    pub per_second: f64,
    pub burst: f64,
    /// The limiter answers in plain text, without X-Project-Uuid (a fault:
    /// a limiter outside the service's envelope).
    pub answer_text: bool,
    /// The server's `n`th request is a limit answer whatever the bucket
    /// holds (with `Retry-After: 0`): a limit every run meets, however slow
    /// the machine, so a fault of the limiter always shows.
    pub nth: Option<u64>,
}

impl Default for RateLimit {
    /// 200 requests a second with a burst of 20: a run of the suite (some
    /// 600 requests) is limited many times over and still takes seconds.
    fn default() -> Self {
        RateLimit {
            per_second: 200.0,
            burst: 20.0,
            answer_text: false,
            nth: None,
        }
    }
}

/// How a refusal whose status the description leaves open is answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// 400 with the 7.1 shape (spec/README.md's choice).
    #[default]
    BadRequest,
    /// 401 with the 7.1 shape.
    Unauthorized,
    /// 417 with the 7.2 shape, an `errors` item naming what failed.
    Validation,
}

/// Where the interface is served and which methods it takes.
#[derive(Clone, Debug)]
pub(crate) struct Route {
    /// The version prefix (section 9): `/v2/api`.
    pub prefix: &'static str,
    pub get_rejected: bool,
    pub post_rejected: bool,
}

impl Default for Route {
    fn default() -> Self {
        Route {
            prefix: "/v2/api",
            get_rejected: false,
            post_rejected: false,
        }
    }
}

/// What a connection remembers between its requests.
#[derive(Clone, Debug, Default)]
pub(crate) struct Connection {
    /// Only the exact spelling `X-Client-Id` is recognised (one request per
    /// connection, so the raw head can be peeked).
    pub header_names_case_sensitive: bool,
    pub request_id: RequestIds,
    /// Client auth passed once is not checked again on the same connection.
    pub auth_cached: bool,
}

/// How `request_id` values are made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum RequestIds {
    /// A fresh uuid for every request.
    #[default]
    PerRequest,
    /// The nil uuid, always.
    Nil,
    /// One uuid per connection.
    PerConnection,
}

/// How a sent credential is compared with the stored one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Compare {
    /// Equal, byte for byte, in constant time.
    #[default]
    Exact,
    /// The sent value begins with the stored one (`starts_with`).
    Extension,
    /// The stored value begins with the (non-empty) sent one: only the sent
    /// length is compared.
    Truncation,
    /// Equal ignoring ASCII letter case.
    IgnoreCase,
    /// Anything non-empty matches.
    Anything,
}

impl Compare {
    pub(crate) fn matches(self, stored: &[u8], sent: &[u8]) -> bool {
        use subtle::ConstantTimeEq;
        match self {
            Compare::Exact => bool::from(stored.ct_eq(sent)),
            Compare::Extension => sent.starts_with(stored),
            Compare::Truncation => !sent.is_empty() && stored.starts_with(sent),
            Compare::IgnoreCase => stored.eq_ignore_ascii_case(sent),
            Compare::Anything => !sent.is_empty(),
        }
    }
}

/// `X-Client-Id` and `X-Client-Secret`.
#[derive(Clone, Debug)]
pub(crate) struct Credentials {
    /// How a missing or empty one is refused.
    pub missing: Refusal,
    pub client_id_required: bool,
    pub secret_required: bool,
    pub client_id: Compare,
    pub secret: Compare,
}

impl Default for Credentials {
    fn default() -> Self {
        Credentials {
            missing: Refusal::BadRequest,
            client_id_required: true,
            secret_required: true,
            client_id: Compare::Exact,
            secret: Compare::Exact,
        }
    }
}

/// `X-Project-Env`: which values are taken, what its absence means, how
/// another value is refused.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProjectEnvRules {
    pub matching: ProjectEnvRule,
    /// The environment of a request without the header.
    pub absent: ProjectEnv,
    pub refused: Refusal,
}

impl Default for ProjectEnvRules {
    fn default() -> Self {
        ProjectEnvRules {
            matching: ProjectEnvRule::Exact,
            absent: ProjectEnv::Dev,
            refused: Refusal::BadRequest,
        }
    }
}

/// Which `X-Project-Env` values are taken, and as what.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ProjectEnvRule {
    /// `dev` and `live` exactly; anything else refused.
    #[default]
    Exact,
    IgnoreCase,
    /// Values that begin with `dev` or `live`.
    Prefix,
    /// An empty value is taken as absent.
    EmptyAsAbsent,
    /// Any value is taken as `dev`.
    AnyAsDev,
    /// `live` is refused.
    LiveRejected,
}

/// How a `ref` finds its component.
#[derive(Clone, Debug)]
pub(crate) struct Refs {
    pub percent_decode: bool,
    pub by_uuid: bool,
    pub by_name: bool,
    pub by_tag: bool,
    pub matching: RefMatch,
    /// A ref that matches no name or tag exactly may match one ignoring
    /// letter case.
    pub ignore_case: bool,
    /// A ref that names nothing is served as the first component.
    pub unknown_as_first: bool,
    /// A raw ref longer than this crashes the handler.
    pub crash_longer_than: Option<usize>,
    /// A decoded ref with a NUL crashes the handler.
    pub crash_on_nul: bool,
}

impl Default for Refs {
    fn default() -> Self {
        Refs {
            percent_decode: true,
            by_uuid: true,
            by_name: true,
            by_tag: true,
            matching: RefMatch::Exact,
            ignore_case: false,
            unknown_as_first: false,
            crash_longer_than: None,
            crash_on_nul: false,
        }
    }
}

/// How a decoded ref is compared with names and tags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum RefMatch {
    #[default]
    Exact,
    /// A ref of two or more characters that begins a name or tag matches it.
    Prefix,
    /// Surrounding whitespace is trimmed first.
    Trimmed,
    /// The ref is cut at its first `.` first (`users.json`).
    SuffixStripped,
}

/// `X-Auth-Token`.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    /// Required where the component requires auth.
    pub required_where_auth: bool,
    /// Required by every component.
    pub demanded_everywhere: bool,
    pub compare: Compare,
    pub scope: TokenScope,
    /// A token that is not the component's own is ignored (not refused) by
    /// a component that does not require auth.
    pub foreign_ignored_where_not_required: bool,
}

impl Default for Token {
    fn default() -> Self {
        Token {
            required_where_auth: true,
            demanded_everywhere: false,
            compare: Compare::Exact,
            scope: TokenScope::OwnComponent,
            foreign_ignored_where_not_required: false,
        }
    }
}

/// Which tokens a component that requires auth takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum TokenScope {
    /// Its own tokens only.
    #[default]
    OwnComponent,
    /// A token of any component.
    AnyComponent,
    /// Any value at all.
    Anything,
}

/// How the body is read.
#[derive(Clone, Debug)]
pub(crate) struct Body {
    /// Bytes over this are refused with 413.
    pub limit: usize,
    /// How a body that is not UTF-8, not JSON or not an object is refused.
    pub malformed: Refusal,
    /// Auth Claims (GET) neither parses nor validates its body.
    pub ignored_on_get: bool,
    /// Auth Claims (GET) parses its body but neither validates its fields
    /// nor finds the claiming model by them.
    pub fields_unchecked_on_get: bool,
    pub media_type: MediaTypeRule,
    /// A body that is not JSON is taken as absent.
    pub malformed_as_empty: bool,
    /// JSON that is not an object crashes the handler.
    pub crash_on_non_object: bool,
    /// A string with a character outside the Basic Multilingual Plane
    /// crashes the handler.
    pub crash_on_non_bmp: bool,
    /// A number that is not an i64 crashes the handler.
    pub crash_on_non_i64: bool,
    /// The first JSON value is read and whatever follows it ignored (a
    /// streaming decoder that stops after one value).
    pub trailing_bytes_accepted: bool,
    /// A UTF-8 byte-order mark before the JSON is skipped.
    pub bom_ignored: bool,
}

impl Default for Body {
    fn default() -> Self {
        Body {
            limit: BODY_LIMIT,
            malformed: Refusal::BadRequest,
            ignored_on_get: false,
            fields_unchecked_on_get: false,
            media_type: MediaTypeRule::Lenient,
            malformed_as_empty: false,
            crash_on_non_object: false,
            crash_on_non_bmp: false,
            crash_on_non_i64: false,
            trailing_bytes_accepted: false,
            bom_ignored: false,
        }
    }
}

/// How `Content-Type` is judged on a request with a body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum MediaTypeRule {
    /// Not judged: the body is parsed as JSON whatever it says.
    #[default]
    Lenient,
    /// The whole header must be `application/json` (letter case aside):
    /// parameters such as `charset` are refused.
    WholeHeader,
    /// The type must be spelt `application/json` in lower case.
    CaseSensitive,
}

/// What makes a 417, and how it is answered.
#[derive(Clone, Debug)]
pub(crate) struct Validation {
    pub check_fields: bool,
    pub model_uuid_required: bool,
    /// Every failed validation is answered 400 with the 7.1 shape.
    pub answered_400: bool,
    /// A failed validation with an unknown field is answered 400.
    pub unknown_field_400: bool,
    /// A failed validation with a field of the wrong type is answered 400.
    pub wrong_type_400: bool,
    /// How the body's fields are read against the settings.
    pub fields: FieldRules,
}

impl Default for Validation {
    fn default() -> Self {
        Validation {
            check_fields: true,
            model_uuid_required: true,
            answered_400: false,
            unknown_field_400: false,
            wrong_type_400: false,
            fields: Default::default(),
        }
    }
}

/// Authorize: where `modelUuid` travels, what an unknown one gets, the
/// success status.
#[derive(Clone, Debug)]
pub(crate) struct AuthorizeRules {
    pub model_uuid: ModelUuidSource,
    /// The status of a `modelUuid` that no model of the component has
    /// (7.1 shape).
    pub unknown_model: StatusCode,
    /// The status of a success (and its body's `code`).
    pub success: StatusCode,
}

impl Default for AuthorizeRules {
    fn default() -> Self {
        AuthorizeRules {
            model_uuid: ModelUuidSource::Query,
            unknown_model: StatusCode::NOT_FOUND,
            success: StatusCode::OK,
        }
    }
}

/// Where Authorize's `modelUuid` is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ModelUuidSource {
    /// The query parameter `modelUuid` (spec/README.md choice 1).
    #[default]
    Query,
    /// A request header of this name.
    Header(&'static str),
    /// A field of this name in the JSON body, apart from the auth fields.
    BodyField(&'static str),
}

/// How `request_id` values are spelt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum RequestIdForm {
    /// A uuid (spec/README.md choice 12).
    #[default]
    Uuid,
    /// `req-` and a counter.
    Opaque,
}

/// What error bodies carry as `code`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Codes {
    /// The HTTP status (spec/README.md choice 11).
    #[default]
    HttpStatus,
    /// A service code: the status times 100 plus 1 (`40001`, `41701`).
    Service,
}

/// The shape of answers.
#[derive(Clone, Debug, Default)]
pub(crate) struct Answer {
    /// Success bodies are `{"status": true, "data": {...}}`.
    pub success_wrapped: bool,
    /// Auth Claims' `model` without its `uuid` (its field values only).
    pub model_without_uuid: bool,
    pub codes: Codes,
    pub request_id_form: RequestIdForm,
    /// Every answer repeats its request id as `X-Request-Id`.
    pub request_id_header: bool,
    /// `ETag`, `Cache-Control: no-store` and `Vary` on every answer.
    pub cache_headers: bool,
    /// Error bodies of statuses other than 400 and 417 have no `request_id`.
    pub lean_other_errors: bool,
    /// `X-Project-Uuid` is left off successes.
    pub project_uuid_on_errors_only: bool,
    /// A 405 is a framework's HTML page.
    pub method_not_allowed_html: bool,
    /// A 413 is a framework's HTML page.
    pub payload_too_large_html: bool,
    pub project_uuid: ProjectUuid,
    pub error_content_type_text: bool,
    pub error_body_text: bool,
    pub success_body_text: bool,
    pub validation_without_errors: bool,
    pub validation_errors_keyed: bool,
    pub bad_request_without_request_id: bool,
    pub bad_request_without_message: bool,
    pub error_status_true: bool,
    pub error_code_as_string: bool,
    /// A successful Authorize's body carries `replaced`: the model that
    /// claimed the component in that environment before (or null).
    pub report_replaced: bool,
    /// Bodies are gzip-encoded for a client whose `Accept-Encoding` takes
    /// gzip.
    pub gzip: bool,
    /// A gzip-encoded answer loses its `Content-Type` (a fault of a
    /// compression layer).
    pub gzip_drops_content_type: bool,
}

/// The `X-Project-Uuid` header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ProjectUuid {
    /// The fixture's project uuid, on every answer.
    #[default]
    Fixed,
    /// Left off error answers.
    NoneOnErrors,
    /// Not a uuid.
    NotUuid,
    /// A fresh uuid on every answer.
    Varies,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons() {
        let s = b"secret";
        assert!(Compare::Exact.matches(s, b"secret"));
        assert!(!Compare::Exact.matches(s, b"secretx"));
        assert!(Compare::Extension.matches(s, b"secretx"));
        assert!(!Compare::Extension.matches(s, b"secre"));
        assert!(Compare::Truncation.matches(s, b"secre"));
        assert!(!Compare::Truncation.matches(s, b""));
        assert!(!Compare::Truncation.matches(s, b"secretx"));
        assert!(Compare::IgnoreCase.matches(s, b"SECRET"));
        assert!(Compare::Anything.matches(s, b"x"));
        assert!(!Compare::Anything.matches(s, b""));
    }
}

/// How fields are read: correctly, or with a fault's or a variant's change.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FieldRules {
    /// A field is found under any letter case of its name (fault).
    pub names_ignore_case: bool,
    /// `true` and `"1234"` taken for integers, numbers for strings (fault).
    pub types_coerced: bool,
    /// `minimum` and `maximum` not enforced (fault).
    pub bounds_unchecked: bool,
    /// Fields the settings do not define are ignored (variant).
    pub unknown_ignored: bool,
    /// A value equal to `maximum` is refused (fault).
    pub maximum_exclusive: bool,
}

/// A request body over this many bytes is refused with 413 (spec/README.md
/// choice 16; the variant `body-limit-16k` lowers it).
pub const BODY_LIMIT: usize = 64 * 1024;
