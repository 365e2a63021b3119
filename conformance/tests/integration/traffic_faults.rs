//! Every fault of the reference server, seen through the proxy while the
//! suite runs through it: each one that one exchange can show is caught,
//! passively, by the traffic rule of the sentence it breaks (and by no
//! other rule), and each one that no exchange alone can show says why.
//! A new fault fails here until it is given its row.

use conformance::traffic::{ProxyOptions, start_proxy};
use conformance_model::profile::Profile;
use conformance_suite::generate::Generation;
use conformance_suite::runner::RunOptions;
use reference_server::{Fault, Server, ServerOptions};
use traffic_rules::Side;

const PROFILE: &str = include_str!("../../profiles/reference.yaml");

/// What the proxy shows of a fault.
enum Seen {
    /// The server rules it breaks, with the checks whose exchanges show it
    /// (the fault's section where empty).
    Caught(&'static [&'static str], &'static [&'static str]),
    /// Why no single exchange shows it.
    Not(&'static str),
}

/// A wrong value the proxy cannot tell from a right one: beyond what the
/// profile knows (its client's pair, its components' names, tokens and
/// claiming bodies), which values are right is the server's data.
const DATA: &str = "which refs, tokens and values beyond the profile's are right is the server's data: one exchange cannot tell a wrong one accepted from a right one";
/// A refusal one exchange cannot tell from the right answer to a request
/// the profile does not show valid (a body it does not know, a near miss).
const REFUSAL: &str = "a refusal (401, 404, 417) is the right answer to a request the profile does not show valid, which one exchange cannot rule out";
/// Two answers or more together show it.
const MANY: &str = "only answers compared show it (values that must differ or stay the same, state, connections): one exchange does not";
/// Outside the interface's path or methods: not the interface's exchange.
const OUTSIDE: &str =
    "the request is outside the interface's path and methods, so its answer is not judged";

fn seen(fault: Fault) -> Seen {
    use Fault as F;
    use Seen::{Caught, Not};
    const ENVELOPE: &[&str] = &["server/errors-are-envelopes"];
    const SHAPES: &[&str] = &["server/400-shape", "server/417-shape"];
    const REFUSES: &[&str] = &["server/refuses-what-a-client-must-not-send"];
    match fault {
        F::NoProjectUuidOnErrors
        | F::ErrorContentTypeNotJson
        | F::LongRefCrashes
        | F::NulRefCrashes
        | F::NonBmpCrashes
        | F::HugeNumberCrashes
        | F::NonObjectBodyCrashes
        | F::LimitAnswerText
        | F::CompressedWithoutContentType => Caught(ENVELOPE, &[]),
        F::PayloadTooLargeHtml => Caught(ENVELOPE, &["choices/body-too-large"]),
        F::ErrorBodyNotJson => Caught(
            &[
                "server/errors-are-envelopes",
                "server/400-shape",
                "server/417-shape",
            ],
            &[],
        ),
        F::ProjectUuidNotUuid => Caught(&["server/x-project-uuid-is-a-uuid"], &[]),
        F::SuccessBodyNotJson => Caught(&["server/responses-json"], &[]),
        F::ValidationAnswered400 | F::UnknownFieldAnswered400 | F::WrongTypeAnswered400 => {
            Caught(&["server/validation-417"], &[])
        }
        F::ValidationWithoutErrors | F::ValidationErrorsNotArray => {
            Caught(&["server/417-shape"], &[])
        }
        F::BadRequestWithoutRequestId | F::BadRequestWithoutMessage => {
            Caught(&["server/400-shape"], &[])
        }
        F::ErrorStatusTrue | F::ErrorCodeAsString => Caught(SHAPES, &[]),
        F::ClientIdOptional
        | F::ClientSecretOptional
        | F::AuthTokenOptional
        | F::AnyProjectEnv
        | F::ProjectEnvCaseInsensitive
        | F::ProjectEnvEmptyAsAbsent
        | F::ProjectEnvPrefixAccepted
        | F::ModelUuidOptional
        | F::TrailingBytesAccepted => Caught(REFUSES, &[]),
        F::MalformedJsonAccepted => Caught(REFUSES, &["body/"]),
        // What the profile knows: its client's id and secret as one pair,
        // its components' names, tags, uuids, tokens and the bodies that
        // claim their models.
        F::UnknownClientAccepted
        | F::WrongSecretAccepted
        | F::SecretExtensionAccepted
        | F::SecretTruncationAccepted
        | F::SecretCaseInsensitive
        | F::ClientIdCaseInsensitive
        | F::ClientIdPrefixAccepted
        | F::AuthCachedPerConnection => Caught(&["server/refuses-a-wrong-secret"], &[]),
        F::WrongAuthTokenAccepted | F::TokenExtensionAccepted => {
            Caught(&["server/refuses-a-wrong-token"], &[])
        }
        F::AuthTokenDemanded => Caught(&["server/token-only-where-required"], &[]),
        F::LiveRejected => Caught(&["server/serves-both-environments"], &[]),
        F::TagsNotResolved
        | F::NamesNotResolved
        | F::UuidsNotResolved
        | F::PercentEncodingNotDecoded
        | F::UnversionedPath
        | F::WrongVersionPath => Caught(&["server/resolves-known-refs"], &[]),
        F::HeaderNamesCaseSensitive => Caught(
            &[
                "server/serves-both-environments",
                "server/serves-valid-requests",
            ],
            &[],
        ),
        F::JsonCharsetRefused | F::JsonMediaTypeCaseSensitive => {
            Caught(&["server/serves-valid-requests"], &[])
        }
        F::ClaimsMethodRejected => Caught(&["server/auth-claims-is-get"], &[]),
        F::AuthorizeMethodRejected => Caught(&["server/authorize-is-post"], &[]),
        F::TokenCrossesComponents
        | F::UnknownRefAccepted
        | F::RefPrefixResolves
        | F::RefTrimmed
        | F::RefSuffixStripped
        | F::BoundsNotEnforced
        | F::MaximumExclusive
        | F::ClaimsOmitModel => Not(DATA),
        F::BodyFieldsUnchecked | F::TypesCoerced | F::FieldNamesIgnoreCase => Not(REFUSAL),
        F::ProjectUuidVaries
        | F::RequestIdRepeated
        | F::RequestIdPerConnection
        | F::ClaimsIgnoreEnvironment
        | F::ClaimsPerInstance
        | F::ClaimsCachedPerWorker => Not(MANY),
        F::MethodNotAllowedHtml => Not(OUTSIDE),
    }
}

fn profile(base_url: &str) -> Profile {
    let mut p = Profile::from_yaml_str(PROFILE, "reference.yaml", &|_| None).expect("profile");
    p.base_url = base_url.to_owned();
    p
}

/// The server rules broken while the suite (its checks `only`) runs
/// through the proxy to the server with `fault`.
async fn broken_through_the_proxy(fault: Option<Fault>, only: Vec<String>) -> Vec<&'static str> {
    let server = Server::start(ServerOptions {
        fault,
        ..ServerOptions::default()
    })
    .await
    .expect("server");
    let proxy = start_proxy(profile(&server.base_url()), ProxyOptions::default())
        .await
        .expect("proxy");
    let options = RunOptions {
        only,
        generation: Generation {
            cases: 2,
            ..Generation::default()
        },
        ..RunOptions::default()
    };
    let _ = conformance::run(profile(&proxy.base_url()), &options).await;
    let broken = proxy
        .tally()
        .report(Some(Side::Server))
        .rules
        .into_iter()
        .filter(|r| r.violations > 0)
        .map(|r| r.id)
        .collect();
    proxy.stop();
    server.shutdown().await;
    broken
}

#[tokio::test(flavor = "multi_thread")]
async fn every_fault_one_exchange_shows_is_caught_through_the_proxy() {
    // A few at a time: each run is itself concurrent.
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(4));
    let mut runs = Vec::new();
    for &fault in Fault::ALL {
        let Seen::Caught(rules, checks) = seen(fault) else {
            continue;
        };
        let only = if checks.is_empty() {
            vec![fault.section().to_owned()]
        } else {
            checks.iter().map(|c| (*c).to_owned()).collect()
        };
        let slots = slots.clone();
        runs.push(tokio::spawn(async move {
            let _slot = slots.acquire_owned().await.expect("open");
            (
                fault,
                rules,
                broken_through_the_proxy(Some(fault), only).await,
            )
        }));
    }
    let mut wrong = Vec::new();
    for run in runs {
        let (fault, want, got) = run.await.expect("a run");
        if got != want {
            wrong.push(format!("{fault}: expected {want:?}, the proxy saw {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The runner's README says how many.
    let caught = Fault::ALL
        .iter()
        .filter(|f| matches!(seen(**f), Seen::Caught(..)))
        .count();
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        format!("the {caught} that one exchange can show"),
        format!("the other {} say why", Fault::ALL.len() - caught),
    ] {
        assert!(
            flat.contains(&said),
            "conformance/README.md does not say {said:?}"
        );
    }
}

/// The rows that say a fault is not shown by one exchange are true: run
/// through the proxy, the fault's own checks break no rule of the server.
/// (Sampled: the first fault of each reason, so no row hides a rule that
/// would catch it.)
#[tokio::test(flavor = "multi_thread")]
async fn a_fault_one_exchange_cannot_show_breaks_no_rule_through_the_proxy() {
    let mut reasons: Vec<&str> = Vec::new();
    for &fault in Fault::ALL {
        let Seen::Not(reason) = seen(fault) else {
            continue;
        };
        if reasons.contains(&reason) {
            continue;
        }
        reasons.push(reason);
        let got = broken_through_the_proxy(Some(fault), vec![fault.section().to_owned()]).await;
        assert!(got.is_empty(), "{fault} ({reason}): the proxy saw {got:?}");
    }
    assert_eq!(reasons.len(), 4, "{reasons:?}");
}

/// One session of a strictly clean client, as an application would call
/// the interface: for each component, Auth Claims by its tag, its name
/// (percent-encoded) and its uuid, with the token where it requires auth,
/// with no X-Project-Env, `dev` and `live`; Authorize of each of its
/// models with the body the profile knows claims it (the second in
/// `live`), once with `charset=utf-8`, once as `Application/JSON` taking
/// gzip; a user's wrong answers (right fields and types, values the
/// server refuses or its settings bound); a component that does not exist. Header names as hyper
/// writes them (lower case). No request breaks a client rule.
async fn clean_session(base: &str, profile: &Profile) {
    let client = component_auth_bindings::client_builder()
        .no_proxy()
        .build()
        .expect("a client");
    let path = |reference: &str| {
        let encoded: String =
            percent_encoding::utf8_percent_encode(reference, percent_encoding::NON_ALPHANUMERIC)
                .collect();
        format!("{base}/v2/api/component/{encoded}/auth")
    };
    for c in &profile.components {
        let creds = |mut req: reqwest::RequestBuilder| {
            req = req
                .header("x-client-id", &profile.client_id)
                .header("x-client-secret", profile.client_secret.expose());
            if c.requires_auth {
                if let Some(token) = &c.auth_token {
                    req = req.header("x-auth-token", token.expose());
                }
            }
            req
        };
        for reference in [&c.tag, &c.name, &c.uuid] {
            let _ = creds(client.get(path(reference))).send().await;
        }
        for env in ["dev", "live"] {
            let _ = creds(client.get(path(&c.tag)))
                .header("x-project-env", env)
                .send()
                .await;
        }
        let Some(a) = &c.authorize else { continue };
        let mut models = vec![(a.model_uuid.clone(), a.valid_body.clone(), None)];
        if let Some(m) = &a.second_model {
            models.push((m.model_uuid.clone(), m.valid_body.clone(), Some("live")));
        }
        for (i, (model, body, env)) in models.into_iter().enumerate() {
            let media = match i {
                0 => "application/json",
                _ => "application/json; charset=utf-8",
            };
            let mut req = creds(client.post(format!("{}?modelUuid={model}", path(&c.tag))))
                .header("content-type", media)
                .body(serde_json::Value::Object(body).to_string());
            if let Some(env) = env {
                req = req.header("x-project-env", env);
            }
            let _ = req.send().await;
        }
        // Media types are case-insensitive (RFC 9110 §8.3.1), and a client
        // may take its answers compressed.
        let _ = creds(client.post(format!("{}?modelUuid={}", path(&c.tag), a.model_uuid)))
            .header("content-type", "Application/JSON")
            .header("accept-encoding", "gzip")
            .body(serde_json::Value::Object(a.valid_body.clone()).to_string())
            .send()
            .await;
        // A user's wrong answers, passed on as typed: the right fields and
        // types, values the server does not take (another value; one too
        // short or too large for the component's settings). Refusing them
        // is the server's to do.
        for (text, number) in [("-x", 77), ("", 100_000)] {
            let wrong: serde_json::Map<String, serde_json::Value> = a
                .valid_body
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        serde_json::Value::String(_) if text.is_empty() => "X".into(),
                        serde_json::Value::String(s) => format!("{s}{text}").into(),
                        serde_json::Value::Number(_) => number.into(),
                        other => other.clone(),
                    };
                    (k.clone(), v)
                })
                .collect();
            let _ = creds(client.post(format!("{}?modelUuid={}", path(&c.tag), a.model_uuid)))
                .header("content-type", "application/json")
                .body(serde_json::Value::Object(wrong).to_string())
                .send()
                .await;
        }
    }
    // A component that does not exist (removed, mistyped by a user).
    let _ = client
        .get(path("no-such-component"))
        .header("x-client-id", &profile.client_id)
        .header("x-client-secret", profile.client_secret.expose())
        .send()
        .await;
}

/// The rules broken while a clean client's session runs through the proxy
/// to the server with `fault`: (client rules, server rules).
async fn clean_client_through_the_proxy(
    fault: Option<Fault>,
) -> (Vec<&'static str>, Vec<&'static str>) {
    let server = Server::start(ServerOptions {
        fault,
        ..ServerOptions::default()
    })
    .await
    .expect("server");
    let proxy = start_proxy(profile(&server.base_url()), ProxyOptions::default())
        .await
        .expect("proxy");
    clean_session(&proxy.base_url(), &profile(&server.base_url())).await;
    let report = proxy.tally().report(None);
    let broken = |side: Side| {
        report
            .rules
            .iter()
            .filter(|r| r.side == side && r.violations > 0)
            .map(|r| r.id)
            .collect::<Vec<_>>()
    };
    let seen = (broken(Side::Client), broken(Side::Server));
    proxy.stop();
    server.shutdown().await;
    seen
}

/// What passive judging shows with no suite at all: a strictly clean
/// client's session through the proxy, against the correct server (no
/// rule broken, either side) and against each fault of the reference
/// server. The README states how many faults it shows.
#[tokio::test(flavor = "multi_thread")]
async fn a_clean_clients_session_shows_faults_passively() {
    let (client, server) = clean_client_through_the_proxy(None).await;
    assert!(
        client.is_empty() && server.is_empty(),
        "{client:?} {server:?}"
    );
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(4));
    let mut runs = Vec::new();
    for &fault in Fault::ALL {
        let slots = slots.clone();
        runs.push(tokio::spawn(async move {
            let _slot = slots.acquire_owned().await.expect("open");
            (fault, clean_client_through_the_proxy(Some(fault)).await)
        }));
    }
    let mut shown = Vec::new();
    for run in runs {
        let (fault, (client, server)) = run.await.expect("a run");
        assert!(
            client.is_empty(),
            "{fault}: the clean client broke {client:?}"
        );
        if !server.is_empty() {
            // Only what a single exchange can show: no row says otherwise.
            assert!(
                matches!(seen(fault), Seen::Caught(..)),
                "{fault}: shown by {server:?}, its row says one exchange cannot"
            );
            shown.push(format!("{fault}"));
        }
    }
    eprintln!(
        "a clean client shows {} faults: {}",
        shown.len(),
        shown.join(", ")
    );
    assert!(shown.len() >= 20, "{}: {shown:?}", shown.len());
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = format!(
        "a strictly clean client's session shows {} of the {} faults",
        shown.len(),
        Fault::ALL.len()
    );
    assert!(
        flat.contains(&said),
        "conformance/README.md does not say {said:?}"
    );
}
