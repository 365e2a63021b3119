//! Faults on purpose: each makes the server break exactly one rule of the
//! interface description and nothing else, so the conformance runner can
//! prove that it notices every rule.
//!
//! A fault carries its anchor as data: the section of the description and
//! the sentence it breaks, quoted. Names are kebab-case and stable: the
//! runner's tests and scripts select faults by name.

use std::fmt;
use std::str::FromStr;

macro_rules! faults {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $section:literal, $rule:literal; )*) => {
        /// A rule the server breaks on purpose (`--fault NAME`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Fault {
            $( $(#[$doc])* $variant, )*
        }

        impl Fault {
            /// Every fault, in the order `--list-faults` prints them.
            pub const ALL: &'static [Fault] = &[ $( Fault::$variant, )* ];

            /// The stable kebab-case name used on the command line.
            pub fn name(self) -> &'static str {
                match self { $( Fault::$variant => $name, )* }
            }

            /// The section of the interface description whose rule is broken.
            pub fn section(self) -> &'static str {
                match self { $( Fault::$variant => $section, )* }
            }

            /// The rule broken, quoting the description.
            pub fn rule(self) -> &'static str {
                match self { $( Fault::$variant => $rule, )* }
            }
        }
    };
}

faults! {
    /// Error answers carry no `X-Project-Uuid`.
    NoProjectUuidOnErrors => "no-project-uuid-on-errors", "7",
        "Error responses ... carry the `Content-Type: application/json` header and an `X-Project-Uuid` header.";
    /// `X-Project-Uuid` is not a uuid (on every answer).
    ProjectUuidNotUuid => "project-uuid-not-uuid", "2",
        "X-Project-Uuid | string, uuid | Identifier of the project, `<project_uuid>`";
    /// `X-Project-Uuid` is a fresh uuid on every answer, not the project's.
    ProjectUuidVaries => "project-uuid-varies", "2",
        "X-Project-Uuid | string, uuid | Identifier of the project, `<project_uuid>`";
    /// Error answers say `Content-Type: text/plain` (the body is still JSON).
    ErrorContentTypeNotJson => "error-content-type-not-json", "7",
        "Both carry the `Content-Type: application/json` header";
    /// Error answers have a plain-text body.
    ErrorBodyNotJson => "error-body-not-json", "7",
        "Error responses are JSON.";
    /// Successful answers have a plain-text body.
    SuccessBodyNotJson => "success-body-not-json", "1",
        "Responses are JSON.";
    /// A failed validation is answered 400 with the 7.1 shape instead of 417.
    ValidationAnswered400 => "validation-answered-400", "7.2",
        "When validation of the request fails, the response status is 417 and has the 7.2 shape.";
    /// A 417 body has no `errors`.
    ValidationWithoutErrors => "validation-without-errors", "7.2",
        "errors | array | List of validation errors.";
    /// A 417 body's `errors` is an object keyed by field, not an array.
    ValidationErrorsNotArray => "validation-errors-not-array", "7.2",
        "errors | array | List of validation errors.";
    /// A 400 body has no `request_id`.
    BadRequestWithoutRequestId => "bad-request-without-request-id", "7.1",
        "When the response is 400, it has the 7.1 shape. (request_id | string | Identifier of the request.)";
    /// Every answer carries the same `request_id` (the nil uuid), so it
    /// identifies no request.
    RequestIdRepeated => "request-id-repeated", "7.1",
        "request_id | string | Identifier of the request.";
    /// A 400 body has no `message`.
    BadRequestWithoutMessage => "bad-request-without-message", "7.1",
        "When the response is 400, it has the 7.1 shape. (message | string | Error message.)";
    /// Error bodies say `status: true`.
    ErrorStatusTrue => "error-status-true", "7.1",
        "status | boolean | `false` on an error.";
    /// Error bodies carry `code` as a string (`"400"`).
    ErrorCodeAsString => "error-code-as-string", "7.1",
        "code | integer | Error code.";
    /// A request without `X-Client-Id` is served.
    ClientIdOptional => "client-id-optional", "5",
        "X-Client-Id | string | yes | Client identifier `<CLIENT_ID>`.";
    /// A request from an unknown client id is served (with any secret).
    UnknownClientAccepted => "unknown-client-accepted", "5",
        "X-Client-Id | string | yes | Client identifier `<CLIENT_ID>`.";
    /// A request without (or with an empty) `X-Client-Secret` is served.
    ClientSecretOptional => "client-secret-optional", "5",
        "X-Client-Secret | string | yes | Client secret `<CLIENT_SECRET>`.";
    /// Any non-empty `X-Client-Secret` is accepted.
    WrongSecretAccepted => "wrong-secret-accepted", "5",
        "X-Client-Secret | string | yes | Client secret `<CLIENT_SECRET>`.";
    /// A component that requires auth is served without `X-Auth-Token`.
    AuthTokenOptional => "auth-token-optional", "5",
        "X-Auth-Token | string | only if the component requires auth | Token `<AUTH_TOKEN>`.";
    /// A component that requires auth is served with an unknown or foreign token.
    WrongAuthTokenAccepted => "wrong-auth-token-accepted", "5",
        "X-Auth-Token | string | only if the component requires auth | Token `<AUTH_TOKEN>`.";
    /// A component that does not require auth refuses a request without token.
    AuthTokenDemanded => "auth-token-demanded", "5",
        "X-Auth-Token | string | only if the component requires auth";
    /// Any `X-Project-Env` value is accepted (as `dev`).
    AnyProjectEnv => "any-project-env", "4.1",
        "X-Project-Env | string | no | Allowed values: `dev`, `live`.";
    /// `X-Project-Env: live` is refused with 400.
    LiveRejected => "live-rejected", "4.1",
        "X-Project-Env | string | no | Allowed values: `dev`, `live`.";
    /// A ref that is a component's tag is not found.
    TagsNotResolved => "tags-not-resolved", "2",
        "ref | string | yes | Identifies a component by its name, its tag, or its uuid.";
    /// A ref that is a component's name is not found.
    NamesNotResolved => "names-not-resolved", "2",
        "ref | string | yes | Identifies a component by its name, its tag, or its uuid.";
    /// A ref that is a component's uuid is not found.
    UuidsNotResolved => "uuids-not-resolved", "2",
        "ref | string | yes | Identifies a component by its name, its tag, or its uuid.";
    /// The ref is matched without percent-decoding, so names that need
    /// encoding in a path are not found.
    PercentEncodingNotDecoded => "percent-encoding-not-decoded", "4.1",
        "ref | string | yes | Component name, tag or uuid.";
    /// A ref that identifies no component is served as the first component.
    UnknownRefAccepted => "unknown-ref-accepted", "2",
        "ref | string | yes | Identifies a component by its name, its tag, or its uuid.";
    /// A body that is not JSON is served as if it were empty.
    MalformedJsonAccepted => "malformed-json-accepted", "4.2",
        "Body: the fields configured in the component's settings auth section, sent as JSON.";
    /// Body fields are not checked against the component's auth settings.
    BodyFieldsUnchecked => "body-fields-unchecked", "1",
        "Both operations take, in the request body, the fields that the component's settings define in their auth section.";
    /// Authorize without `modelUuid` is served.
    ModelUuidOptional => "model-uuid-optional", "4.2",
        "modelUuid | string | yes | Listed as a path parameter";
    /// Auth Claims never returns the model, even for a valid token.
    ClaimsOmitModel => "claims-omit-model", "1",
        "The read operation returns the model that claimed the authentication (\"Auth Claims\").";
    /// GET on the interface path is answered 405.
    ClaimsMethodRejected => "claims-method-rejected", "4.1",
        "Auth Claims | Method | GET | Path | `/v2/api/component/{ref}/auth`";
    /// POST on the interface path is answered 405.
    AuthorizeMethodRejected => "authorize-method-rejected", "4.2",
        "Authorize | Method | POST | Path | `/v2/api/component/{ref}/auth`";
    /// The interface is served at `/component/{ref}/auth`, without `/v2/api`.
    UnversionedPath => "unversioned-path", "9",
        "The interface version is `v2`, carried as a path segment directly after the address of the service: `/v2/api/...`.";
    /// The interface is served at `/v1/api/component/{ref}/auth`.
    WrongVersionPath => "wrong-version-path", "9",
        "The interface version is `v2`, carried as a path segment directly after the address of the service: `/v2/api/...`.";
    /// Only the exact spelling `X-Client-Id` is recognised (HTTP header names
    /// are case-insensitive, RFC 9110 section 5.1).
    HeaderNamesCaseSensitive => "header-names-case-sensitive", "5",
        "Every request to both operations carries these headers: X-Client-Id ... (header names are case-insensitive in HTTP)";
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown fault name; its Display lists the known ones.
#[derive(Debug, thiserror::Error)]
#[error("unknown fault `{0}`; --list-faults shows the known ones")]
pub struct UnknownFault(pub String);

impl FromStr for Fault {
    type Err = UnknownFault;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fault::ALL
            .iter()
            .copied()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFault(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_and_round_trip() {
        for (i, f) in Fault::ALL.iter().enumerate() {
            assert!(
                f.name()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            );
            assert_eq!(f.name().parse::<Fault>().ok(), Some(*f));
            assert!(Fault::ALL[i + 1..].iter().all(|g| g.name() != f.name()));
            assert!(!f.rule().is_empty() && !f.section().is_empty());
        }
        assert!("nope".parse::<Fault>().is_err());
    }
}
