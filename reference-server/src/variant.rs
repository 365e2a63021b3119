//! Legal variants, the dual of faults: each makes the server choose
//! otherwise than spec/README.md where the interface description is silent,
//! and breaks no rule of the description. A conformance suite that fails a
//! variant assumes what the description does not say.
//!
//! A variant carries, as data, the section of the description and the
//! sentence that leaves the choice open (by its key in
//! `conformance-requirements`), what it changes, and the
//! choice of spec/README.md it departs from. It changes only what it names:
//! every other answer stays the correct server's. Names are kebab-case and
//! stable: the conformance runner's tests and profiles select variants by
//! name. Variants combine (`--variant A --variant B`) except the pairs
//! [`Variant::conflicts_with`] names, which make two choices for one thing.

use std::fmt;
use std::str::FromStr;

use component_auth_bindings::types::ProjectEnv;
use conformance_requirements::{self as requirement, Requirement};
use hyper::StatusCode;

use crate::behaviour::{Behaviour, Codes, ModelUuidSource, Refusal, RequestIdForm};

/// The header `model-uuid-header` reads `modelUuid` from.
pub const MODEL_UUID_HEADER: &str = "X-Model-Uuid";

/// The body field `model-uuid-body` reads `modelUuid` from.
pub const MODEL_UUID_BODY_FIELD: &str = "modelUuid";

/// The body size limit of `body-limit-16k`.
pub const SMALL_BODY_LIMIT: usize = 16 * 1024;

macro_rules! variants {
    ($( $variant:ident => $name:literal, $section:literal,
        allowed_by: $allowed:ident,
        changes: $changes:literal,
        departs_from: $departs:literal,
        $effect:expr; )*) => {
        /// A choice the description leaves open, made otherwise than
        /// spec/README.md (`--variant NAME`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Variant {
            $( #[doc = $changes] $variant, )*
        }

        impl Variant {
            /// Every variant, in the order `--list-variants` prints them.
            pub const ALL: &'static [Variant] = &[ $( Variant::$variant, )* ];

            /// The stable kebab-case name used on the command line.
            pub fn name(self) -> &'static str {
                match self { $( Variant::$variant => $name, )* }
            }

            /// The section of the interface description that leaves the
            /// choice open.
            pub fn section(self) -> &'static str {
                match self { $( Variant::$variant => $section, )* }
            }

            /// The requirement of the description that leaves the choice
            /// open (its sentence says what is not shown).
            pub fn allowed_by(self) -> &'static Requirement {
                match self { $( Variant::$variant => &requirement::$allowed, )* }
            }

            /// What the variant changes, in one sentence.
            pub fn changes(self) -> &'static str {
                match self { $( Variant::$variant => $changes, )* }
            }

            /// The choice of spec/README.md it departs from, with its number
            /// (`spec/README.md choice 6: ...`).
            pub fn departs_from(self) -> &'static str {
                match self { $( Variant::$variant => $departs, )* }
            }

            /// Makes this variant's one change.
            pub(crate) fn apply(self, b: &mut Behaviour) {
                let effect: fn(&mut Behaviour) = match self { $( Variant::$variant => $effect, )* };
                effect(b);
            }
        }
    };
}

variants! {
    MissingCredential401 => "missing-credential-401", "5",
        allowed_by: REFUSAL_NOT_SHOWN,
        changes: "A missing or empty `X-Client-Id` or `X-Client-Secret` is 401 with the 7.1 shape.",
        departs_from: "spec/README.md choice 6: a missing or empty X-Client-Id or X-Client-Secret is 400",
        |b| b.credentials.missing = Refusal::Unauthorized;
    MissingCredential417 => "missing-credential-417", "5",
        allowed_by: REFUSAL_NOT_SHOWN,
        changes: "A missing or empty `X-Client-Id` or `X-Client-Secret` is 417 with the 7.2 shape, an `errors` item naming each missing header (rule `required`).",
        departs_from: "spec/README.md choice 6: a missing or empty X-Client-Id or X-Client-Secret is 400",
        |b| b.credentials.missing = Refusal::Validation;
    BadEnv417 => "bad-env-417", "7",
        allowed_by: VALIDATION_IS_417,
        changes: "An `X-Project-Env` other than `dev` or `live` (empty included) is 417 with the 7.2 shape, an `errors` item naming `X-Project-Env` (rule `format`).",
        departs_from: "spec/README.md choice 8: any other X-Project-Env value is 400",
        |b| b.project_env.refused = Refusal::Validation;
    MalformedJson417 => "malformed-json-417", "7",
        allowed_by: OTHER_ERRORS_NOT_SHOWN,
        changes: "A body that is not UTF-8, not JSON or not a JSON object is 417 with the 7.2 shape, an `errors` item naming `body` (rule `type`); a JSON object with a repeated key stays 400.",
        departs_from: "spec/README.md choice 10: a body that is not UTF-8, not JSON or not a JSON object is 400",
        |b| b.body.malformed = Refusal::Validation;
    UnknownModel401 => "unknown-model-401", "7",
        allowed_by: OTHER_ERRORS_NOT_SHOWN,
        changes: "Authorize with a `modelUuid` that no model of the component has is 401 with the 7.1 shape.",
        departs_from: "spec/README.md choice 14: an unknown model is 404",
        |b| b.authorize.unknown_model = StatusCode::UNAUTHORIZED;
    UnknownModel403 => "unknown-model-403", "7",
        allowed_by: OTHER_ERRORS_NOT_SHOWN,
        changes: "Authorize with a `modelUuid` that no model of the component has is 403 with the 7.1 shape.",
        departs_from: "spec/README.md choice 14: an unknown model is 404",
        |b| b.authorize.unknown_model = StatusCode::FORBIDDEN;
    Authorize201 => "authorize-201", "4.2",
        allowed_by: SUCCESS_NOT_SHOWN,
        changes: "A successful Authorize is 201 (and its body's `code` 201).",
        departs_from: "spec/README.md choice 4: Authorize answers 200",
        |b| b.authorize.success = StatusCode::CREATED;
    WrappedSuccess => "wrapped-success", "1",
        allowed_by: RESULT_NOT_SHOWN,
        changes: "Success bodies are `{\"status\": true, \"data\": {...}}`: the result's fields under `data` (the issued token at `data.token`, the model at `data.model`), no `code`.",
        departs_from: "spec/README.md choices 2 and 4: success bodies are AuthClaimsResult and AuthorizeResult, fields at the top level",
        |b| b.answer.success_wrapped = true;
    ServiceCodes => "service-codes", "7",
        allowed_by: OTHER_ERRORS_NOT_SHOWN,
        changes: "An error body's `code` is a service code, the status times 100 plus 1 (`40001`, `40101`, `40401`, `41701`), not the HTTP status.",
        departs_from: "spec/README.md choice 11: `code` equals the HTTP status",
        |b| b.answer.codes = Codes::Service;
    OpaqueRequestId => "opaque-request-id", "7.1",
        allowed_by: REQUEST_ID,
        changes: "`request_id` is `req-` and a counter, not a uuid, and every answer repeats it as an `X-Request-Id` header.",
        departs_from: "spec/README.md choice 12: `request_id` is a fresh uuid, in the body only",
        |b| {
            b.answer.request_id_form = RequestIdForm::Opaque;
            b.answer.request_id_header = true;
        };
    CacheHeaders => "cache-headers", "2",
        allowed_by: COMMON_RESPONSE_HEADERS,
        changes: "Every answer has an `ETag` (a hash of its body), `Cache-Control: no-store` and `Vary: X-Client-Id, X-Auth-Token`.",
        departs_from: "spec/README.md and openapi.yaml: no response header beyond Content-Type, X-Project-Uuid, Allow (405) and Retry-After (503)",
        |b| b.answer.cache_headers = true;
    LeanOtherErrors => "lean-other-errors", "7",
        allowed_by: OTHER_ERRORS_NOT_SHOWN,
        changes: "Error bodies of statuses other than 400 and 417 (401, 403, 404, 405, 413, 501, 503) have no `request_id`: `{code, message, status}`.",
        departs_from: "spec/README.md choice 14: every other error status has the 400 envelope shape",
        |b| b.answer.lean_other_errors = true;
    CaseInsensitiveRefs => "case-insensitive-refs", "2",
        allowed_by: REF,
        changes: "A ref that matches no uuid, name or tag exactly is matched against names, then tags, ignoring letter case (`CATALOG`).",
        departs_from: "spec/README.md choice 9: a ref is matched exactly",
        |b| b.refs.ignore_case = true;
    GetBodyIgnored => "get-body-ignored", "4.1",
        allowed_by: AUTH_CLAIMS_BODY,
        changes: "Auth Claims (GET) neither parses nor validates its body: a malformed or invalid one is served, and the claiming model is found by the token only.",
        departs_from: "spec/README.md choices 3 and 17: a GET body is validated (417) and finds the claiming model",
        |b| b.body.ignored_on_get = true;
    GetBodyFieldsIgnored => "get-body-fields-ignored", "4.1",
        allowed_by: AUTH_CLAIMS_BODY,
        changes: "Auth Claims (GET) parses its body as JSON as Authorize does (one that is not JSON is refused the same way) but neither validates its fields nor finds the claiming model by them, as an app-wide JSON body parser (Express's `express.json()`) does.",
        departs_from: "spec/README.md choices 3 and 17: a GET body is validated (417) and finds the claiming model",
        |b| b.body.fields_unchecked_on_get = true;
    TokenIgnoredWhenNotRequired => "token-ignored-when-not-required", "5",
        allowed_by: AUTH_TOKEN,
        changes: "An unknown `X-Auth-Token`, or another component's, sent to a component that does not require auth is ignored, not 401 (its own tokens still name their model).",
        departs_from: "spec/README.md choice 7: a token sent where none is required is still checked (401)",
        |b| b.token.foreign_ignored_where_not_required = true;
    BodyLimit16k => "body-limit-16k", "8",
        allowed_by: LIMITS_NOT_SHOWN,
        changes: "A request body over 16 KiB is 413.",
        departs_from: "spec/README.md choice 16: a body over 64 KiB is 413",
        |b| b.body.limit = SMALL_BODY_LIMIT;
    ModelUuidHeader => "model-uuid-header", "4.2",
        allowed_by: MODEL_UUID_PLACE_NOT_SHOWN,
        changes: "Authorize reads `modelUuid` from the `X-Model-Uuid` header (the query is not read); missing: 417 naming `modelUuid`.",
        departs_from: "spec/README.md choice 1: `modelUuid` is a query parameter",
        |b| b.authorize.model_uuid = ModelUuidSource::Header(MODEL_UUID_HEADER);
    ModelUuidBody => "model-uuid-body", "4.2",
        allowed_by: MODEL_UUID_PLACE_NOT_SHOWN,
        changes: "Authorize reads `modelUuid` from the JSON body's field `modelUuid`, apart from the auth fields (the query is not read); missing: 417 naming `modelUuid`.",
        departs_from: "spec/README.md choice 1: `modelUuid` is a query parameter",
        |b| b.authorize.model_uuid = ModelUuidSource::BodyField(MODEL_UUID_BODY_FIELD);
    ProjectUuidOnErrorsOnly => "project-uuid-on-errors-only", "2",
        allowed_by: PROJECT_UUID_ON_ERRORS,
        changes: "`X-Project-Uuid` is sent on error answers only, not on successes.",
        departs_from: "spec/README.md choice 15: X-Project-Uuid is sent on every answer",
        |b| b.answer.project_uuid_on_errors_only = true;
    EnvDefaultLive => "env-default-live", "4.1",
        allowed_by: PROJECT_ENV_VALUES,
        changes: "A request without `X-Project-Env` is served as `live`.",
        departs_from: "spec/README.md choice 8: an absent X-Project-Env means `dev`",
        |b| b.project_env.absent = ProjectEnv::Live;
    ClaimsModelWithoutUuid => "claims-model-without-uuid", "1",
        allowed_by: MODEL_FIELDS_NOT_SHOWN,
        changes: "Auth Claims returns the model by its field values only: its `model` has no `uuid`.",
        departs_from: "spec/README.md choice 2: the model is its uuid and its non-secret field values",
        |b| b.answer.model_without_uuid = true;
    RecordsClaims => "records-claims", "3",
        allowed_by: STATES_NOT_SHOWN,
        changes: "A successful Authorize makes its model the one Auth Claims returns for that component in that environment, whatever token or body Auth Claims carries; before any Authorize, Auth Claims names no model.",
        departs_from: "spec/README.md choice 3: Auth Claims returns the token's model, else the model the body's fields claim, else none",
        |b| b.claims_recorded = true;
    UnknownFieldsIgnored => "unknown-fields-ignored", "2",
        allowed_by: FIELD_RULES_NOT_SHOWN,
        changes: "A body field the component's auth settings do not define is ignored, not refused with 417.",
        departs_from: "spec/README.md choice 13: a field the settings do not define fails validation (`unknown_field`, 417)",
        |b| b.validation.fields.unknown_ignored = true;
    BomIgnored => "bom-ignored", "4.2",
        allowed_by: BODY_AS_JSON,
        changes: "A UTF-8 byte-order mark before a JSON body is skipped (RFC 8259 section 8.1 lets a parser ignore one), not refused with 400.",
        departs_from: "spec/README.md choice 10: a body that is not JSON is 400",
        |b| b.body.bom_ignored = true;
    RateLimit => "rate-limit", "8",
        allowed_by: LIMITS_NOT_SHOWN,
        changes: "Each client (by X-Client-Id) may start 200 requests a second, with a burst of 20; more (and the server's 30th request, however slow its clients) are answered 429 in the 7.1 shape with `Retry-After` and `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` headers.",
        departs_from: "spec/README.md choice 16: no rate limit",
        |b| b.rate_limit = Some(crate::behaviour::RateLimit {
            // However slow the machine, a run meets the limiter.
            nth: Some(30),
            ..Default::default()
        });
    ReportsReplacedClaim => "reports-replaced-claim", "3",
        allowed_by: STATES_NOT_SHOWN,
        changes: "A successful Authorize's body carries `replaced`: the uuid of the model that claimed the component in that environment before it, or null where none had (a success body that reflects state).",
        departs_from: "spec/README.md choice 4: the Authorize result is `{code, status, component, env, model, token}`",
        |b| b.answer.report_replaced = true;
    GzipAnswers => "gzip-answers", "1",
        allowed_by: RESPONSES_JSON,
        changes: "Every answer to a request whose `Accept-Encoding` takes gzip is gzip-encoded (`Content-Encoding: gzip`, `Vary: Accept-Encoding`), its JSON and other headers unchanged.",
        departs_from: "spec/README.md choice 16: answers are not compressed",
        |b| b.answer.gzip = true;
}

/// Pairs that make two choices for one thing: they cannot be on together.
const CONFLICTS: &[(Variant, Variant)] = &[
    (Variant::MissingCredential401, Variant::MissingCredential417),
    (Variant::UnknownModel401, Variant::UnknownModel403),
    (Variant::ModelUuidHeader, Variant::ModelUuidBody),
    (Variant::GetBodyIgnored, Variant::GetBodyFieldsIgnored),
];

impl Variant {
    /// Whether the two choose differently for the same thing (a variant
    /// does not conflict with itself).
    pub fn conflicts_with(self, other: Variant) -> bool {
        CONFLICTS
            .iter()
            .any(|&(a, b)| (a, b) == (self, other) || (b, a) == (self, other))
    }

    /// The first pair of `variants` that conflict, in the order given.
    pub fn first_conflict(variants: &[Variant]) -> Option<(Variant, Variant)> {
        variants.iter().enumerate().find_map(|(i, &a)| {
            variants[i + 1..]
                .iter()
                .find(|&&b| a.conflicts_with(b))
                .map(|&b| (a, b))
        })
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown variant name; its Display lists the valid ones.
#[derive(Debug, thiserror::Error)]
#[error("unknown variant `{name}`; valid: {}", valid_names())]
pub struct UnknownVariant {
    pub name: String,
}

fn valid_names() -> String {
    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
    names.join(", ")
}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL
            .iter()
            .copied()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownVariant { name: s.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_and_round_trip() {
        for (i, v) in Variant::ALL.iter().enumerate() {
            let name = v.name();
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{name}"
            );
            assert_eq!(name.parse::<Variant>().ok(), Some(*v));
            assert!(Variant::ALL[i + 1..].iter().all(|w| w.name() != name));
            for text in [
                v.section(),
                v.allowed_by().quote,
                v.changes(),
                v.departs_from(),
            ] {
                assert!(!text.is_empty(), "{name}");
            }
        }
        let err = "nope".parse::<Variant>().err().map(|e| e.to_string());
        let err = err.unwrap_or_default();
        assert!(err.starts_with("unknown variant `nope`; valid: missing-credential-401, "));
        assert!(err.ends_with("gzip-answers"), "{err}");
    }

    #[test]
    fn conflicts_are_symmetric_and_found() {
        use Variant::*;
        for &a in Variant::ALL {
            assert!(!a.conflicts_with(a));
            for &b in Variant::ALL {
                assert_eq!(a.conflicts_with(b), b.conflicts_with(a));
            }
        }
        assert!(MissingCredential401.conflicts_with(MissingCredential417));
        assert!(!MissingCredential401.conflicts_with(UnknownModel401));
        assert_eq!(
            Variant::first_conflict(&[CacheHeaders, ModelUuidBody, BodyLimit16k, ModelUuidHeader]),
            Some((ModelUuidBody, ModelUuidHeader))
        );
        assert_eq!(Variant::first_conflict(&[CacheHeaders, CacheHeaders]), None);
    }
}
