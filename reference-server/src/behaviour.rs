//! The seams where faults enter, as plain data.
//!
//! A request passes six seams: the route, the connection, the credentials
//! (client, `X-Project-Env`, `X-Auth-Token`), the ref lookup, the body and
//! its validation, and the answer. [`Behaviour::default()`] is the correct
//! server; each fault is one entry in the table of `fault.rs` that changes
//! one field here. The handler reads these fields and never asks which fault
//! is on, so the correct path reads straight through.

/// How the server behaves at every seam.
#[derive(Clone, Debug, Default)]
pub(crate) struct Behaviour {
    pub route: Route,
    pub connection: Connection,
    pub credentials: Credentials,
    pub project_env: ProjectEnvRule,
    pub refs: Refs,
    pub token: Token,
    pub body: Body,
    pub validation: Validation,
    /// Auth Claims leaves the model out of every answer.
    pub claims_omit_model: bool,
    pub answer: Answer,
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
    pub client_id_required: bool,
    pub secret_required: bool,
    pub client_id: Compare,
    pub secret: Compare,
}

impl Default for Credentials {
    fn default() -> Self {
        Credentials {
            client_id_required: true,
            secret_required: true,
            client_id: Compare::Exact,
            secret: Compare::Exact,
        }
    }
}

/// Which `X-Project-Env` values are taken, and as what.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ProjectEnvRule {
    /// Absent means `dev`; `dev` and `live` exactly; anything else 400.
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
}

impl Default for Token {
    fn default() -> Self {
        Token {
            required_where_auth: true,
            demanded_everywhere: false,
            compare: Compare::Exact,
            scope: TokenScope::OwnComponent,
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
#[derive(Clone, Debug, Default)]
pub(crate) struct Body {
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
}

impl Default for Validation {
    fn default() -> Self {
        Validation {
            check_fields: true,
            model_uuid_required: true,
            answered_400: false,
            unknown_field_400: false,
            wrong_type_400: false,
        }
    }
}

/// The shape of answers.
#[derive(Clone, Debug, Default)]
pub(crate) struct Answer {
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
