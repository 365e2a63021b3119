//! The requests that show each fault's rule and each variant's choice: one
//! table each, an exhaustive `match`, so a new fault or variant does not
//! compile until it has its probe. Together they are the corpus the
//! isolation tests send to every server.

use reference_server::{BODY_LIMIT, Fault, Variant};
use reqwest::Method;
use serde_json::json;

use super::*;

/// The request that shows a fault's rule.
pub fn fault_probe(fault: Fault) -> Req {
    let missing_id = || Req::get("catalog").without("X-Client-Id");
    let invalid_authorize =
        || Req::post("catalog", None).json(json!({"account": "acme", "pin": 1234}));
    let acme = json!({"account": "acme", "pin": 1234});
    match fault {
        Fault::NoProjectUuidOnErrors
        | Fault::ErrorContentTypeNotJson
        | Fault::ErrorBodyNotJson
        | Fault::BadRequestWithoutRequestId
        | Fault::RequestIdRepeated
        | Fault::BadRequestWithoutMessage
        | Fault::ErrorStatusTrue
        | Fault::ErrorCodeAsString
        | Fault::ClientIdOptional => missing_id(),
        Fault::ProjectUuidNotUuid
        | Fault::ProjectUuidVaries
        | Fault::SuccessBodyNotJson
        | Fault::TagsNotResolved
        | Fault::ClaimsMethodRejected
        | Fault::UnversionedPath
        | Fault::WrongVersionPath
        | Fault::AuthTokenDemanded
        | Fault::HeaderNamesCaseSensitive => Req::get("catalog"),
        // Fails on `format` only, so no other fault changes which errors there are.
        Fault::ValidationAnswered400
        | Fault::ValidationWithoutErrors
        | Fault::ValidationErrorsNotArray => {
            Req::post("catalog", Some("not-a-uuid")).json(acme.clone())
        }
        Fault::UnknownClientAccepted => Req::get("catalog").header("X-Client-Id", "stranger"),
        Fault::ClientSecretOptional => Req::get("catalog").without("X-Client-Secret"),
        Fault::WrongSecretAccepted => Req::get("catalog").header("X-Client-Secret", "guess"),
        Fault::AuthTokenOptional => Req::get("users"),
        Fault::WrongAuthTokenAccepted => Req::get("users").token("guess"),
        Fault::AnyProjectEnv => Req::get("catalog").header("X-Project-Env", "prod"),
        Fault::LiveRejected => Req::get("catalog").header("X-Project-Env", "live"),
        Fault::NamesNotResolved => Req::get("Catalog"),
        Fault::UuidsNotResolved => Req::get(CATALOG_UUID),
        Fault::PercentEncodingNotDecoded => Req::get(CAFE_ENCODED),
        Fault::UnknownRefAccepted => Req::get("no-such-component"),
        Fault::MalformedJsonAccepted => Req::get("catalog").body("{\"account\": "),
        Fault::BodyFieldsUnchecked => {
            Req::get("catalog").json(json!({"account": "acme", "pin": "1234"}))
        }
        Fault::ModelUuidOptional => invalid_authorize(),
        Fault::ClaimsOmitModel => Req::get("users").token(ADA_TOKEN),
        Fault::AuthorizeMethodRejected => Req::post("catalog", Some(ACME_MODEL)).json(acme.clone()),
        Fault::SecretExtensionAccepted => {
            Req::get("catalog").header("X-Client-Secret", format!("{CLIENT_SECRET}x"))
        }
        Fault::SecretTruncationAccepted => {
            Req::get("catalog").header("X-Client-Secret", &CLIENT_SECRET[..CLIENT_SECRET.len() - 1])
        }
        Fault::SecretCaseInsensitive => {
            Req::get("catalog").header("X-Client-Secret", CLIENT_SECRET.to_uppercase())
        }
        Fault::ClientIdCaseInsensitive => {
            Req::get("catalog").header("X-Client-Id", CLIENT_ID.to_uppercase())
        }
        Fault::ClientIdPrefixAccepted => {
            Req::get("catalog").header("X-Client-Id", format!("{CLIENT_ID}x"))
        }
        Fault::TokenExtensionAccepted => Req::get("users").token(&format!("{ADA_TOKEN}x")),
        Fault::TokenCrossesComponents => Req::get("users").token(CATALOG_TOKEN),
        // Sent after a valid warm-up request on the same connection.
        Fault::AuthCachedPerConnection => {
            Req::get("catalog").header("X-Client-Secret", "wrong-after-warm-up")
        }
        Fault::ProjectEnvCaseInsensitive => Req::get("catalog").header("X-Project-Env", "DEV"),
        Fault::ProjectEnvEmptyAsAbsent => Req::get("catalog").header("X-Project-Env", ""),
        Fault::ProjectEnvPrefixAccepted => {
            Req::get("catalog").header("X-Project-Env", "development")
        }
        Fault::RefPrefixResolves => Req::get("cat"),
        Fault::RefTrimmed => Req::get("%20catalog"),
        Fault::RefSuffixStripped => Req::get("catalog.json"),
        Fault::LongRefCrashes => Req::get(&"a".repeat(2048)),
        Fault::NulRefCrashes => Req::get("catalog%00"),
        Fault::NonBmpCrashes => {
            Req::get("catalog").json(json!({"account": "acme\u{1F600}", "pin": 1234}))
        }
        Fault::HugeNumberCrashes => Req::get("catalog")
            .header("Content-Type", "application/json")
            .body(r#"{"account": "acme", "pin": 18446744073709551616}"#),
        Fault::NonObjectBodyCrashes => Req::get("catalog")
            .header("Content-Type", "application/json")
            .body("[]"),
        Fault::UnknownFieldAnswered400 => {
            Req::get("catalog").json(json!({"account": "acme", "pin": 1234, "extra": 1}))
        }
        Fault::WrongTypeAnswered400 => {
            Req::get("catalog").json(json!({"account": "acme", "pin": true}))
        }
        // Required `account` only under another letter case: 417 when names
        // are matched exactly.
        Fault::FieldNamesIgnoreCase => {
            Req::get("catalog").json(json!({"ACCOUNT": "acme", "pin": 1234}))
        }
        Fault::TypesCoerced => Req::get("catalog").json(json!({"account": "acme", "pin": true})),
        Fault::MaximumExclusive => {
            Req::get("catalog").json(json!({"account": "acme", "pin": 9999}))
        }
        Fault::BoundsNotEnforced => {
            Req::get("catalog").json(json!({"account": "acme", "pin": 10000}))
        }
        Fault::TrailingBytesAccepted => Req::get("catalog")
            .header("Content-Type", "application/json")
            .body("{\"account\": \"acme\", \"pin\": 1234} junk"),
        Fault::JsonCharsetRefused => Req::get("catalog")
            .json(acme.clone())
            .header("Content-Type", "application/json; charset=utf-8"),
        Fault::JsonMediaTypeCaseSensitive => Req::get("catalog")
            .json(acme)
            .header("Content-Type", "Application/JSON"),
        // Sent twice on one connection.
        Fault::RequestIdPerConnection => Req::get("catalog").without("X-Client-Id"),
        Fault::MethodNotAllowedHtml => Req::new(Method::PUT, "/v2/api/component/catalog/auth"),
        Fault::PayloadTooLargeHtml => Req::get("catalog").body(vec![b' '; BODY_LIMIT + 1]),
        // Without Authorize, the correct server names the model the fields
        // claim; one that records claims names none.
        Fault::ClaimsIgnoreEnvironment
        | Fault::ClaimsPerInstance
        | Fault::ClaimsCachedPerWorker => Req::get("catalog").json(acme.clone()),
        // A limit shows only past a burst: `limits.rs` sends one.
        Fault::LimitAnswerText => Req::get("catalog"),
        Fault::CompressedWithoutContentType => Req::get("catalog")
            .without("X-Client-Id")
            .header("Accept-Encoding", "gzip"),
    }
}

/// A fault that one request cannot show: a rate limit shows only past a
/// burst, which `limits.rs` sends (many requests at once, so that no
/// machine is slow enough to stay under the rate).
pub fn needs_a_burst(fault: Fault) -> bool {
    matches!(fault, Fault::LimitAnswerText)
}

/// As [`needs_a_burst`], for a variant.
pub fn variant_needs_a_burst(variant: Variant) -> bool {
    matches!(variant, Variant::RateLimit)
}

/// The request that shows a variant's choice: the correct server answers it
/// one way, the variant another.
pub fn variant_probe(variant: Variant) -> Req {
    let acme = || json!({"account": "acme", "pin": 1234});
    match variant {
        Variant::MissingCredential401 | Variant::MissingCredential417 | Variant::ServiceCodes => {
            Req::get("catalog").without("X-Client-Id")
        }
        Variant::BadEnv417 => Req::get("catalog").header("X-Project-Env", "prod"),
        Variant::MalformedJson417 => Req::post("catalog", Some(ACME_MODEL))
            .header("Content-Type", "application/json")
            .body("{\"account\": "),
        Variant::UnknownModel401 | Variant::UnknownModel403 => {
            Req::post("catalog", Some(COFFEE_MODEL)).json(acme())
        }
        Variant::Authorize201 => Req::post("catalog", Some(ACME_MODEL)).json(acme()),
        Variant::WrappedSuccess
        | Variant::CacheHeaders
        | Variant::ProjectUuidOnErrorsOnly
        | Variant::EnvDefaultLive => Req::get("catalog"),
        // The auth fields claim a model (spec/README.md choice 3).
        Variant::UnknownFieldsIgnored => {
            Req::get("catalog").json(json!({"account": "acme", "pin": 1234, "note": "x"}))
        }
        Variant::BomIgnored => Req::get("catalog")
            .header("Content-Type", "application/json")
            .body("\u{feff}{\"account\": \"acme\", \"pin\": 1234}"),
        // A fresh server: no Authorize has recorded a claim yet.
        Variant::ClaimsModelWithoutUuid | Variant::RecordsClaims => {
            Req::get("catalog").json(acme())
        }
        Variant::OpaqueRequestId | Variant::LeanOtherErrors => Req::get("no-such-component"),
        Variant::CaseInsensitiveRefs => Req::get("CATALOG"),
        // A field of the wrong type: 417 when the body is validated.
        Variant::GetBodyIgnored => {
            Req::get("catalog").json(json!({"account": "acme", "pin": "1234"}))
        }
        // A field of the wrong type in JSON: 417 when the fields are validated.
        Variant::GetBodyFieldsIgnored => {
            Req::get("catalog").json(json!({"account": "acme", "pin": "1234"}))
        }
        Variant::TokenIgnoredWhenNotRequired => Req::get("catalog").token("no-such-token"),
        Variant::BodyLimit16k => Req::get("catalog")
            .header("Content-Type", "application/json")
            .body(padded(&acme(), 20 * 1024)),
        Variant::ModelUuidHeader => Req::post("catalog", None)
            .header("X-Model-Uuid", ACME_MODEL)
            .json(acme()),
        Variant::ModelUuidBody => Req::post("catalog", None)
            .json(json!({"account": "acme", "pin": 1234, "modelUuid": ACME_MODEL})),
        // A limit shows only past a burst: `limits.rs` sends one.
        Variant::RateLimit => Req::get("catalog"),
        Variant::ReportsReplacedClaim => Req::post("catalog", Some(ACME_MODEL)).json(acme()),
        Variant::GzipAnswers => Req::get("catalog").header("Accept-Encoding", "gzip"),
    }
}

/// `value` as JSON, padded with spaces to `len` bytes.
pub fn padded(value: &serde_json::Value, len: usize) -> Vec<u8> {
    let mut bytes = value.to_string().into_bytes();
    bytes.resize(len, b' ');
    bytes
}

/// Every fault's probe and every variant's, in table order.
pub fn corpus() -> Vec<Req> {
    let faults = Fault::ALL.iter().map(|&f| fault_probe(f));
    faults
        .chain(Variant::ALL.iter().map(|&v| variant_probe(v)))
        .collect()
}
