//! Faults on purpose: each makes the server break exactly one rule of the
//! interface description and nothing else, so the conformance runner can
//! prove that it notices every rule.
//!
//! A fault carries its anchor as data: the section of the description and
//! the requirement it breaks, by its key in `conformance-requirements`
//! (which holds the sentence). Names are kebab-case and stable: the
//! runner's tests and scripts select faults by name.

use std::fmt;
use std::str::FromStr;

use conformance_requirements::{self as requirement, Requirement};

use crate::behaviour::{
    Behaviour, Compare, MediaTypeRule, ProjectEnvRule, ProjectUuid, RefMatch, RequestIds,
    TokenScope,
};

macro_rules! faults {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $section:literal,
        $requirement:ident $(($also:ident))?, $effect:expr; )*) => {
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

            /// The requirement of the description the fault breaks.
            pub fn requirement(self) -> &'static Requirement {
                match self { $( Fault::$variant => &requirement::$requirement, )* }
            }

            /// A second requirement that says what exactly is broken (a
            /// field of the shape the first requires), if one.
            pub fn also(self) -> Option<&'static Requirement> {
                match self { $( Fault::$variant => None $(.or(Some(&requirement::$also)))?, )* }
            }

            /// Makes this fault's one change.
            pub(crate) fn apply(self, b: &mut Behaviour) {
                let effect: fn(&mut Behaviour) = match self { $( Fault::$variant => $effect, )* };
                effect(b);
            }

            /// The correct behaviour with this fault's one change.
            #[cfg(test)]
            pub(crate) fn behaviour(self) -> Behaviour {
                Behaviour::new(Some(self), &[])
            }
        }
    };
}

faults! {
    /// Error answers carry no `X-Project-Uuid`.
    NoProjectUuidOnErrors => "no-project-uuid-on-errors", "7",
        ERROR_ENVELOPE,
        |b| b.answer.project_uuid = ProjectUuid::NoneOnErrors;
    /// `X-Project-Uuid` is not a uuid (on every answer).
    ProjectUuidNotUuid => "project-uuid-not-uuid", "2",
        PROJECT_UUID,
        |b| b.answer.project_uuid = ProjectUuid::NotUuid;
    /// `X-Project-Uuid` is a fresh uuid on every answer, not the project's.
    ProjectUuidVaries => "project-uuid-varies", "2",
        PROJECT_UUID,
        |b| b.answer.project_uuid = ProjectUuid::Varies;
    /// Error answers say `Content-Type: text/plain` (the body is still JSON).
    ErrorContentTypeNotJson => "error-content-type-not-json", "7",
        ERRORS_CONTENT_TYPE,
        |b| b.answer.error_content_type_text = true;
    /// Error answers have a plain-text body.
    ErrorBodyNotJson => "error-body-not-json", "7",
        ERRORS_ARE_JSON,
        |b| b.answer.error_body_text = true;
    /// Successful answers have a plain-text body.
    SuccessBodyNotJson => "success-body-not-json", "1",
        RESPONSES_JSON,
        |b| b.answer.success_body_text = true;
    /// A failed validation is answered 400 with the 7.1 shape instead of 417.
    ValidationAnswered400 => "validation-answered-400", "7.2",
        VALIDATION_IS_417,
        |b| b.validation.answered_400 = true;
    /// A 417 body has no `errors`.
    ValidationWithoutErrors => "validation-without-errors", "7.2",
        ERRORS_ARRAY,
        |b| b.answer.validation_without_errors = true;
    /// A 417 body's `errors` is an object keyed by field, not an array.
    ValidationErrorsNotArray => "validation-errors-not-array", "7.2",
        ERRORS_ARRAY,
        |b| b.answer.validation_errors_keyed = true;
    /// A 400 body has no `request_id`.
    BadRequestWithoutRequestId => "bad-request-without-request-id", "7.1",
        SHAPE_400 (REQUEST_ID),
        |b| b.answer.bad_request_without_request_id = true;
    /// Every answer carries the same `request_id` (the nil uuid), so it
    /// identifies no request.
    RequestIdRepeated => "request-id-repeated", "7.1",
        REQUEST_ID,
        |b| b.connection.request_id = RequestIds::Nil;
    /// A 400 body has no `message`.
    BadRequestWithoutMessage => "bad-request-without-message", "7.1",
        SHAPE_400 (MESSAGE),
        |b| b.answer.bad_request_without_message = true;
    /// Error bodies say `status: true`.
    ErrorStatusTrue => "error-status-true", "7.1",
        STATUS,
        |b| b.answer.error_status_true = true;
    /// Error bodies carry `code` as a string (`"400"`).
    ErrorCodeAsString => "error-code-as-string", "7.1",
        CODE,
        |b| b.answer.error_code_as_string = true;
    /// A request without `X-Client-Id` is served.
    ClientIdOptional => "client-id-optional", "5",
        CLIENT_ID,
        |b| b.credentials.client_id_required = false;
    /// A request from an unknown client id is served (with a known client's secret).
    UnknownClientAccepted => "unknown-client-accepted", "5",
        CLIENT_ID,
        |b| b.credentials.client_id = Compare::Anything;
    /// A request without (or with an empty) `X-Client-Secret` is served.
    ClientSecretOptional => "client-secret-optional", "5",
        CLIENT_SECRET,
        |b| b.credentials.secret_required = false;
    /// Any non-empty `X-Client-Secret` is accepted.
    WrongSecretAccepted => "wrong-secret-accepted", "5",
        CLIENT_SECRET,
        |b| b.credentials.secret = Compare::Anything;
    /// A component that requires auth is served without `X-Auth-Token`.
    AuthTokenOptional => "auth-token-optional", "5",
        AUTH_TOKEN,
        |b| b.token.required_where_auth = false;
    /// A component that requires auth is served with an unknown or foreign token.
    WrongAuthTokenAccepted => "wrong-auth-token-accepted", "5",
        AUTH_TOKEN,
        |b| b.token.scope = TokenScope::Anything;
    /// A component that does not require auth refuses a request without token.
    AuthTokenDemanded => "auth-token-demanded", "5",
        AUTH_TOKEN,
        |b| b.token.demanded_everywhere = true;
    /// Any `X-Project-Env` value is accepted (as `dev`).
    AnyProjectEnv => "any-project-env", "4.1",
        PROJECT_ENV_VALUES,
        |b| b.project_env.matching = ProjectEnvRule::AnyAsDev;
    /// `X-Project-Env: live` is refused with 400.
    LiveRejected => "live-rejected", "4.1",
        PROJECT_ENV_VALUES,
        |b| b.project_env.matching = ProjectEnvRule::LiveRejected;
    /// A ref that is a component's tag is not found.
    TagsNotResolved => "tags-not-resolved", "2",
        REF,
        |b| b.refs.by_tag = false;
    /// A ref that is a component's name is not found.
    NamesNotResolved => "names-not-resolved", "2",
        REF,
        |b| b.refs.by_name = false;
    /// A ref that is a component's uuid is not found.
    UuidsNotResolved => "uuids-not-resolved", "2",
        REF,
        |b| b.refs.by_uuid = false;
    /// The ref is matched without percent-decoding, so names that need
    /// encoding in a path are not found.
    PercentEncodingNotDecoded => "percent-encoding-not-decoded", "4.1",
        REF_ROW,
        |b| b.refs.percent_decode = false;
    /// A ref that identifies no component is served as the first component.
    UnknownRefAccepted => "unknown-ref-accepted", "2",
        REF,
        |b| b.refs.unknown_as_first = true;
    /// A body that is not JSON is served as if it were empty.
    MalformedJsonAccepted => "malformed-json-accepted", "4.2",
        BODY_AS_JSON,
        |b| b.body.malformed_as_empty = true;
    /// Body fields are not checked against the component's auth settings.
    BodyFieldsUnchecked => "body-fields-unchecked", "1",
        BODY_FIELDS,
        |b| b.validation.check_fields = false;
    /// Authorize without `modelUuid` is served.
    ModelUuidOptional => "model-uuid-optional", "4.2",
        MODEL_UUID,
        |b| b.validation.model_uuid_required = false;
    /// Auth Claims never returns the model, even for a valid token.
    ClaimsOmitModel => "claims-omit-model", "1",
        AUTH_CLAIMS_RETURNS_THE_MODEL,
        |b| b.claims_omit_model = true;
    /// GET on the interface path is answered 405.
    ClaimsMethodRejected => "claims-method-rejected", "4.1",
        AUTH_CLAIMS_IS_GET,
        |b| b.route.get_rejected = true;
    /// POST on the interface path is answered 405.
    AuthorizeMethodRejected => "authorize-method-rejected", "4.2",
        AUTHORIZE_IS_POST,
        |b| b.route.post_rejected = true;
    /// The interface is served at `/component/{ref}/auth`, without `/v2/api`.
    UnversionedPath => "unversioned-path", "9",
        VERSION,
        |b| b.route.prefix = "";
    /// The interface is served at `/v1/api/component/{ref}/auth`.
    WrongVersionPath => "wrong-version-path", "9",
        VERSION,
        |b| b.route.prefix = "/v1/api";
    /// Only the exact spelling `X-Client-Id` is recognised (HTTP header names
    /// are case-insensitive, RFC 9110 section 5.1).
    HeaderNamesCaseSensitive => "header-names-case-sensitive", "5",
        EVERY_REQUEST,
        |b| b.connection.header_names_case_sensitive = true;
    // Near misses: the bugs that comparisons written in a hurry ship.
    /// The secret is compared with `starts_with`: the secret with a
    /// character added is accepted.
    SecretExtensionAccepted => "secret-extension-accepted", "5",
        CLIENT_SECRET,
        |b| b.credentials.secret = Compare::Extension;
    /// Only as many bytes as were sent are compared: the secret with its
    /// last character removed is accepted.
    SecretTruncationAccepted => "secret-truncation-accepted", "5",
        CLIENT_SECRET,
        |b| b.credentials.secret = Compare::Truncation;
    /// The secret is compared ignoring letter case.
    SecretCaseInsensitive => "secret-case-insensitive", "5",
        CLIENT_SECRET,
        |b| b.credentials.secret = Compare::IgnoreCase;
    /// The client id is looked up ignoring letter case.
    ClientIdCaseInsensitive => "client-id-case-insensitive", "5",
        CLIENT_ID,
        |b| b.credentials.client_id = Compare::IgnoreCase;
    /// The client is looked up with `starts_with`: the client id with a
    /// character added is accepted.
    ClientIdPrefixAccepted => "client-id-prefix-accepted", "5",
        CLIENT_ID,
        |b| b.credentials.client_id = Compare::Extension;
    /// A token that begins with a valid token of the component is accepted.
    TokenExtensionAccepted => "token-extension-accepted", "5",
        AUTH_TOKEN,
        |b| b.token.compare = Compare::Extension;
    /// A token of any component is accepted: the store is only asked
    /// whether the token exists.
    TokenCrossesComponents => "token-crosses-components", "5",
        AUTH_TOKEN,
        |b| b.token.scope = TokenScope::AnyComponent;
    /// Client auth is checked on a connection's first request only: later
    /// requests on the same kept-alive connection pass with a wrong secret.
    AuthCachedPerConnection => "auth-cached-per-connection", "5",
        EVERY_REQUEST,
        |b| b.connection.auth_cached = true;
    /// `X-Project-Env` is compared ignoring letter case (`DEV` accepted).
    ProjectEnvCaseInsensitive => "project-env-case-insensitive", "4.1",
        PROJECT_ENV_VALUES,
        |b| b.project_env.matching = ProjectEnvRule::IgnoreCase;
    /// An empty `X-Project-Env` is taken as absent.
    ProjectEnvEmptyAsAbsent => "project-env-empty-as-absent", "4.1",
        PROJECT_ENV_VALUES,
        |b| b.project_env.matching = ProjectEnvRule::EmptyAsAbsent;
    /// Values that begin with `dev` or `live` are accepted (`development`).
    ProjectEnvPrefixAccepted => "project-env-prefix-accepted", "4.1",
        PROJECT_ENV_VALUES,
        |b| b.project_env.matching = ProjectEnvRule::Prefix;
    /// A ref that is the beginning of a name or tag resolves to it (`cat`).
    RefPrefixResolves => "ref-prefix-resolves", "2",
        REF,
        |b| b.refs.matching = RefMatch::Prefix;
    /// The ref is trimmed of surrounding whitespace before lookup (`%20users`).
    RefTrimmed => "ref-trimmed", "2",
        REF,
        |b| b.refs.matching = RefMatch::Trimmed;
    /// The ref is cut at its first `.` before lookup (`users.json`), as
    /// routers with format suffixes do.
    RefSuffixStripped => "ref-suffix-stripped", "2",
        REF,
        |b| b.refs.matching = RefMatch::SuffixStripped;
    /// A ref over 1 KiB crashes the handler: 500 in plain text.
    LongRefCrashes => "long-ref-crashes", "7",
        ERRORS_ARE_JSON,
        |b| b.refs.crash_longer_than = Some(1024);
    /// A ref with a NUL (`%00`) crashes the handler: 500 in plain text.
    NulRefCrashes => "nul-ref-crashes", "7",
        ERRORS_ARE_JSON,
        |b| b.refs.crash_on_nul = true;
    /// A field value with a character outside the Basic Multilingual Plane
    /// crashes the handler (UTF-16 length arithmetic): 500 in plain text.
    NonBmpCrashes => "non-bmp-crashes", "7",
        ERRORS_ARE_JSON,
        |b| b.body.crash_on_non_bmp = true;
    /// A number that is not an i64 (`1e300`, `18446744073709551616`, `1.5`)
    /// crashes the handler: 500 in plain text.
    HugeNumberCrashes => "huge-number-crashes", "7",
        ERRORS_ARE_JSON,
        |b| b.body.crash_on_non_i64 = true;
    /// JSON that is not an object (`[]`, `"x"`, `1`, `null`) crashes the
    /// handler: 500 in plain text.
    NonObjectBodyCrashes => "non-object-body-crashes", "7",
        ERRORS_ARE_JSON,
        |b| b.body.crash_on_non_object = true;
    /// A body with a field the settings do not define is answered 400.
    UnknownFieldAnswered400 => "unknown-field-answered-400", "7.2",
        VALIDATION_IS_417,
        |b| b.validation.unknown_field_400 = true;
    /// A field of the wrong JSON type is answered 400 (a typed decoder's error).
    WrongTypeAnswered400 => "wrong-type-answered-400", "7.2",
        VALIDATION_IS_417,
        |b| b.validation.wrong_type_400 = true;
    /// Field names are matched ignoring letter case (`EMAIL` taken for
    /// `email`), as Go's `encoding/json` does by default.
    FieldNamesIgnoreCase => "field-names-ignore-case", "7.2",
        VALIDATION_IS_417,
        |b| b.validation.fields.names_ignore_case = true;
    /// A value of another type is coerced, not refused (`true` and `"1234"`
    /// taken for integers), as loose code does.
    TypesCoerced => "types-coerced", "7.2",
        VALIDATION_IS_417,
        |b| b.validation.fields.types_coerced = true;
    /// A field's `minimum` and `maximum` are not enforced.
    BoundsNotEnforced => "bounds-not-enforced", "7.2",
        VALIDATION_IS_417,
        |b| b.validation.fields.bounds_unchecked = true;
    /// A value equal to a field's `maximum` is refused (417): the bound is
    /// taken as exclusive, an off-by-one.
    MaximumExclusive => "maximum-exclusive", "2",
        AUTH_BODY,
        |b| b.validation.fields.maximum_exclusive = true;
    /// A JSON value followed by other bytes is read as that value, as a
    /// streaming decoder that reads one value and stops does.
    TrailingBytesAccepted => "trailing-bytes-accepted", "4.2",
        BODY_AS_JSON,
        |b| b.body.trailing_bytes_accepted = true;
    /// `Content-Type: application/json; charset=utf-8` is refused: the
    /// header is compared whole.
    JsonCharsetRefused => "json-charset-refused", "4.2",
        BODY_AS_JSON,
        |b| b.body.media_type = MediaTypeRule::WholeHeader;
    /// `Application/JSON` is refused: the media type is compared with its
    /// letter case (RFC 9110 section 8.3.1 makes it case-insensitive).
    JsonMediaTypeCaseSensitive => "json-media-type-case-sensitive", "4.2",
        BODY_AS_JSON,
        |b| b.body.media_type = MediaTypeRule::CaseSensitive;
    /// `request_id` is made once per connection: answers on one kept-alive
    /// connection repeat it.
    RequestIdPerConnection => "request-id-per-connection", "7.1",
        REQUEST_ID,
        |b| b.connection.request_id = RequestIds::PerConnection;
    /// Another method on the interface path (`PUT`, `DELETE`) gets the
    /// framework's HTML 405 page: `text/html`, no `X-Project-Uuid`.
    MethodNotAllowedHtml => "method-not-allowed-html", "7",
        ERROR_ENVELOPE,
        |b| b.answer.method_not_allowed_html = true;
    /// A body over the limit gets the framework's (or the proxy's) HTML 413
    /// page: `text/html`, no `X-Project-Uuid`.
    /// Claims are kept for the component alone, not per environment.
    ClaimsIgnoreEnvironment => "claims-ignore-environment", "5",
        PROJECT_ENV_SELECTS,
        |b| {
            b.claims_recorded = true;
            b.claims_env_blind = true;
        };
    /// Claims are kept in the memory of the instance that took the
    /// Authorize: two instances, connections served by each in turn (as
    /// behind a round-robin balancer), each reads its own claims.
    ClaimsPerInstance => "claims-per-instance", "1",
        AUTH_CLAIMS_RETURNS_THE_MODEL,
        |b| {
            b.claims_recorded = true;
            b.claims_per_instance = true;
        };
    /// Claims are stored for every worker to see, but each of two workers
    /// caches what it read, and only its own Authorize updates its cache.
    ClaimsCachedPerWorker => "claims-cached-per-worker", "1",
        AUTH_CLAIMS_RETURNS_THE_MODEL,
        |b| {
            b.claims_recorded = true;
            b.claims_cached_per_worker = true;
        };
    /// The rate limiter answers in plain text without X-Project-Uuid.
    LimitAnswerText => "limit-answer-text", "7",
        ERROR_ENVELOPE,
        |b| b.rate_limit = Some(crate::behaviour::RateLimit {
            answer_text: true,
            // However slow the run, its 30th request meets the limiter.
            nth: Some(30),
            ..Default::default()
        });
    /// gzip-encoded answers lose their Content-Type.
    CompressedWithoutContentType => "compressed-without-content-type", "7",
        ERROR_ENVELOPE,
        |b| {
            b.answer.gzip = true;
            b.answer.gzip_drops_content_type = true;
        };
    PayloadTooLargeHtml => "payload-too-large-html", "7",
        ERROR_ENVELOPE,
        |b| b.answer.payload_too_large_html = true;
}

impl Fault {
    /// The rule broken, quoted from the requirement's row (and the second
    /// requirement's, in brackets).
    pub fn rule(self) -> String {
        match self.also() {
            Some(also) => format!("{} ({})", self.requirement().quote, also.quote),
            None => self.requirement().quote.to_owned(),
        }
    }
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
