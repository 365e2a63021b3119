//! Every fault changes what the server answers to a request that exercises
//! its rule. The probe table is an exhaustive `match`: a new fault does not
//! compile until it has a probe.

use crate::common;

use common::probes::fault_probe as probe;
use common::*;
use reference_server::{BODY_LIMIT, Fault};
use reqwest::Method;
use serde_json::{Value, json};

/// What an answer shows, less what differs on every request anyway.
/// `earlier_id`: the request id of an earlier answer on the same
/// connection; whether it repeats is shown.
fn observe_after(resp: &Resp, earlier_id: Option<&str>) -> Value {
    let repeats = earlier_id.is_some()
        && resp.json.as_ref().and_then(|b| b["request_id"].as_str()) == earlier_id;
    let mut seen = observe(resp);
    seen["request_id_repeats"] = Value::Bool(repeats);
    seen
}

/// What an answer shows, less what differs on every request anyway.
fn observe(resp: &Resp) -> Value {
    let mut body = resp
        .json
        .clone()
        .unwrap_or_else(|| Value::String(String::from_utf8_lossy(&resp.bytes).into_owned()));
    if let Some(map) = body.as_object_mut() {
        // A fresh value is masked; the nil uuid (a repeated request id) is not.
        let nil = "00000000-0000-0000-0000-000000000000";
        for volatile in ["request_id", "token"] {
            if let Some(v) = map.get_mut(volatile).filter(|v| v.as_str() != Some(nil)) {
                *v = Value::String(format!("<{volatile}>"));
            }
        }
    }
    json!({
        "status": resp.status,
        "content-type": resp.header("content-type"),
        "x-project-uuid": resp.header("x-project-uuid"),
        "allow": resp.header("allow"),
        "body": body,
    })
}

#[tokio::test]
async fn every_fault_changes_the_answer_to_its_probe() {
    let correct = start(None).await;
    let client = client();
    let mut unchanged = Vec::new();
    // A valid request first, on the same kept-alive connection, so that
    // faults about what a connection remembers show too.
    let warm_up = Req::get("catalog").header("X-Project-Env", "live");
    // The probe goes twice, so a request id the connection repeats shows.
    let answer = async |server: &reference_server::RunningServer, req: &Req| {
        send(&client, server, &warm_up).await;
        let first = send(&client, server, req).await;
        let first_id = first.json.as_ref().and_then(|b| b["request_id"].as_str());
        observe_after(&send(&client, server, req).await, first_id)
    };
    for &fault in Fault::ALL {
        if common::probes::needs_a_burst(fault) {
            continue;
        }
        let req = probe(fault);
        let faulty = start(Some(fault)).await;
        let want = answer(&correct, &req).await;
        let got = answer(&faulty, &req).await;
        if want == got {
            unchanged.push(format!("{fault}: {req:?} answered {got}"));
        }
        faulty.shutdown().await;
    }
    assert!(
        unchanged.is_empty(),
        "faults that change nothing:\n{}",
        unchanged.join("\n")
    );
    correct.shutdown().await;
}

/// Which parts of an answer a fault may change, given the correct answer's
/// status: the rest must stay as the correct server has it.
fn blank_what_the_fault_may_change(fault: Fault, status: u16, observed: &mut Value) {
    let error = status >= 400;
    let mut blank = |key: &str| observed[key] = Value::Null;
    match fault {
        Fault::NoProjectUuidOnErrors if error => blank("x-project-uuid"),
        Fault::ProjectUuidNotUuid | Fault::ProjectUuidVaries => blank("x-project-uuid"),
        Fault::ErrorContentTypeNotJson if error => blank("content-type"),
        Fault::SuccessBodyNotJson if !error => {
            blank("content-type");
            blank("body");
        }
        Fault::ErrorBodyNotJson | Fault::ErrorStatusTrue | Fault::ErrorCodeAsString if error => {
            blank("body")
        }
        Fault::BadRequestWithoutRequestId | Fault::BadRequestWithoutMessage if status == 400 => {
            blank("body")
        }
        Fault::RequestIdRepeated if error => blank("body"),
        Fault::ValidationWithoutErrors | Fault::ValidationErrorsNotArray if status == 417 => {
            blank("body")
        }
        Fault::ValidationAnswered400 if status == 417 => {
            blank("status");
            blank("body");
        }
        _ => {}
    }
}

/// Whether a request exercises the rule a fault breaks: then the fault may
/// change its answer. A small model of the rules, written apart from the
/// server's code.
fn touches(fault: Fault, req: &Req) -> bool {
    let header = |name: &str| {
        req.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
            .filter(|v| !v.is_empty())
    };
    let path = req.path.split('?').next().unwrap_or_default();
    let reference = path
        .strip_prefix("/v2/api/component/")
        .and_then(|p| p.strip_suffix("/auth"))
        .unwrap_or_default();
    let is_uuid = [USERS_UUID, CATALOG_UUID, CAFE_UUID].contains(&reference);
    let is_name = ["Users", "Catalog", CAFE_ENCODED].contains(&reference);
    let is_tag = ["users", "catalog", "cafe-menu"].contains(&reference);
    let requires_auth = ["users", "Users", USERS_UUID].contains(&reference);
    let token = header("X-Auth-Token");
    let body = req.body.as_deref().filter(|b| !b.is_empty());
    let malformed = body.is_some_and(|b| serde_json::from_slice::<Value>(b).is_err());
    let post = req.method == Method::POST;
    let env = req
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("X-Project-Env"))
        .map(|(_, v)| String::from_utf8_lossy(v).into_owned());
    let env_near_miss = |same: &dyn Fn(&str, &str) -> bool| {
        env.as_deref()
            .is_some_and(|e| e != "dev" && e != "live" && (same(e, "dev") || same(e, "live")))
    };
    let decoded = percent_encoding::percent_decode_str(reference).decode_utf8_lossy();
    let names_and_tags = [
        "Users",
        "Catalog",
        "Caf\u{e9} Men\u{fc}",
        "users",
        "catalog",
        "cafe-menu",
    ];
    let known = is_uuid || is_name || is_tag;
    let known_tokens = [ADA_TOKEN, CATALOG_TOKEN];
    let settings: &[&str] = match reference {
        "users" | "Users" | USERS_UUID => &["email", "password", "locale"],
        "catalog" | "Catalog" | CATALOG_UUID => &["account", "pin"],
        _ => &["table", "vip"],
    };
    let body_json = body.and_then(|b| serde_json::from_slice::<Value>(b).ok());
    let fields = body_json.as_ref().and_then(Value::as_object);
    let content_type = header("Content-Type").unwrap_or_default();
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    let secret = header("X-Client-Secret");
    let client_id = header("X-Client-Id");
    match fault {
        // Shape faults: judged by blanking what they may change.
        Fault::NoProjectUuidOnErrors
        | Fault::ProjectUuidNotUuid
        | Fault::ProjectUuidVaries
        | Fault::ErrorContentTypeNotJson
        | Fault::ErrorBodyNotJson
        | Fault::SuccessBodyNotJson
        | Fault::ValidationAnswered400
        | Fault::ValidationWithoutErrors
        | Fault::ValidationErrorsNotArray
        | Fault::BadRequestWithoutRequestId
        | Fault::RequestIdRepeated
        | Fault::BadRequestWithoutMessage
        | Fault::ErrorStatusTrue
        | Fault::ErrorCodeAsString => false,
        Fault::ClientIdOptional => header("X-Client-Id").is_none(),
        Fault::UnknownClientAccepted => header("X-Client-Id").is_some_and(|id| id != CLIENT_ID),
        Fault::ClientSecretOptional => header("X-Client-Secret").is_none(),
        Fault::WrongSecretAccepted => header("X-Client-Secret").is_some_and(|s| s != CLIENT_SECRET),
        Fault::AuthTokenOptional => requires_auth && token.is_none(),
        Fault::WrongAuthTokenAccepted => requires_auth && token.is_some_and(|t| t != ADA_TOKEN),
        Fault::AuthTokenDemanded => !requires_auth && token.is_none(),
        Fault::AnyProjectEnv => env.as_deref().is_some_and(|e| e != "dev" && e != "live"),
        Fault::LiveRejected => header("X-Project-Env").as_deref() == Some("live"),
        Fault::TagsNotResolved => is_tag,
        Fault::NamesNotResolved => is_name,
        Fault::UuidsNotResolved => is_uuid,
        Fault::PercentEncodingNotDecoded => reference.contains('%'),
        Fault::UnknownRefAccepted => !(is_uuid || is_name || is_tag),
        Fault::MalformedJsonAccepted => malformed,
        Fault::BodyFieldsUnchecked => post || body.is_some(),
        Fault::ModelUuidOptional => post && !req.path.contains("modelUuid="),
        Fault::ClaimsOmitModel => !post && (token.is_some() || body.is_some()),
        Fault::ClaimsMethodRejected => !post,
        Fault::AuthorizeMethodRejected => req.method != Method::GET,
        Fault::MethodNotAllowedHtml => req.method != Method::GET && !post,
        Fault::PayloadTooLargeHtml => body.is_some_and(|b| b.len() > BODY_LIMIT),
        // Auth Claims names the recorded claim (none before any Authorize).
        Fault::ClaimsIgnoreEnvironment
        | Fault::ClaimsPerInstance
        | Fault::ClaimsCachedPerWorker => req.method == Method::GET,
        // Any request may come past the limit.
        Fault::LimitAnswerText => true,
        Fault::CompressedWithoutContentType => header("Accept-Encoding").is_some(),
        // Every request has a path, and reqwest sends header names in
        // lowercase: these two are tested on their own below.
        Fault::UnversionedPath | Fault::WrongVersionPath | Fault::HeaderNamesCaseSensitive => true,
        Fault::SecretExtensionAccepted => secret
            .as_deref()
            .is_some_and(|s| s != CLIENT_SECRET && s.starts_with(CLIENT_SECRET)),
        Fault::SecretTruncationAccepted => secret
            .as_deref()
            .is_some_and(|s| s != CLIENT_SECRET && CLIENT_SECRET.starts_with(s)),
        Fault::SecretCaseInsensitive => secret
            .as_deref()
            .is_some_and(|s| s != CLIENT_SECRET && s.eq_ignore_ascii_case(CLIENT_SECRET)),
        Fault::ClientIdCaseInsensitive => client_id
            .as_deref()
            .is_some_and(|s| s != CLIENT_ID && s.eq_ignore_ascii_case(CLIENT_ID)),
        Fault::ClientIdPrefixAccepted => client_id
            .as_deref()
            .is_some_and(|s| s != CLIENT_ID && s.starts_with(CLIENT_ID)),
        Fault::TokenExtensionAccepted => token.as_deref().is_some_and(|t| {
            !known_tokens.contains(&t) && known_tokens.iter().any(|k| t.starts_with(k))
        }),
        Fault::TokenCrossesComponents => {
            requires_auth && token.as_deref().is_some_and(|t| t == CATALOG_TOKEN)
        }
        Fault::AuthCachedPerConnection => {
            client_id.as_deref().is_some_and(|s| s != CLIENT_ID)
                || secret.as_deref().is_some_and(|s| s != CLIENT_SECRET)
        }
        Fault::ProjectEnvCaseInsensitive => env_near_miss(&|e, v| e.eq_ignore_ascii_case(v)),
        Fault::ProjectEnvEmptyAsAbsent => env.as_deref() == Some(""),
        Fault::ProjectEnvPrefixAccepted => env_near_miss(&|e, v| e.starts_with(v)),
        Fault::RefPrefixResolves => {
            !known
                && decoded.chars().count() >= 2
                && names_and_tags.iter().any(|n| n.starts_with(&*decoded))
        }
        Fault::RefTrimmed => !known && decoded.trim() != decoded,
        Fault::RefSuffixStripped => !known && decoded.contains('.'),
        Fault::LongRefCrashes => reference.len() > 1024,
        Fault::NulRefCrashes => decoded.contains('\0'),
        Fault::NonBmpCrashes => {
            let text = String::from_utf8_lossy(body.unwrap_or_default());
            body_json.is_some() && text.chars().any(|c| u32::from(c) > 0xFFFF)
        }
        Fault::HugeNumberCrashes => {
            let text = String::from_utf8_lossy(body.unwrap_or_default());
            body_json.is_some() && (text.contains("e3") || text.contains("18446744073709551616"))
        }
        Fault::NonObjectBodyCrashes => body_json.as_ref().is_some_and(|v| !v.is_object()),
        Fault::UnknownFieldAnswered400 => {
            fields.is_some_and(|f| f.keys().any(|k| !settings.contains(&k.as_str())))
        }
        Fault::WrongTypeAnswered400 => fields.is_some_and(|f| {
            f.iter().any(|(k, v)| match k.as_str() {
                "email" | "password" | "account" => !v.is_string(),
                "pin" | "table" => !(v.is_i64() || v.is_u64()),
                "vip" => !v.is_boolean(),
                _ => false,
            })
        }),
        Fault::JsonCharsetRefused => {
            body.is_some()
                && !content_type.is_empty()
                && !content_type.eq_ignore_ascii_case("application/json")
        }
        Fault::JsonMediaTypeCaseSensitive => {
            body.is_some()
                && essence != "application/json"
                && essence.eq_ignore_ascii_case("application/json")
        }
        // Request ids are masked in what is compared.
        Fault::RequestIdPerConnection => false,
        // A key that differs from a setting's name only in letter case.
        Fault::FieldNamesIgnoreCase => fields.is_some_and(|f| {
            f.keys().any(|k| {
                !settings.contains(&k.as_str())
                    && settings.iter().any(|s| s.eq_ignore_ascii_case(k))
            })
        }),
        // A boolean or a string where an integer is declared.
        Fault::TypesCoerced => fields.is_some_and(|f| {
            f.iter().any(|(k, v)| {
                matches!(k.as_str(), "pin" | "table") && (v.is_boolean() || v.is_string())
            })
        }),
        Fault::BoundsNotEnforced => fields.is_some_and(|f| {
            f.iter().any(|(k, v)| match (k.as_str(), v.as_i64()) {
                ("pin", Some(n)) => !(0..=9999).contains(&n),
                ("table", Some(n)) => !(1..=99).contains(&n),
                _ => false,
            })
        }),
        Fault::MaximumExclusive => fields.is_some_and(|f| {
            f.iter().any(|(k, v)| match (k.as_str(), v.as_i64()) {
                ("pin", Some(n)) => n == 9999,
                ("table", Some(n)) => n == 99,
                _ => false,
            })
        }),
        // Bytes after a JSON value.
        Fault::TrailingBytesAccepted => body.is_some_and(|b| {
            let mut values = serde_json::Deserializer::from_slice(b).into_iter::<Value>();
            values.next().is_some_and(|v| v.is_ok()) && body_json.is_none()
        }),
    }
}

/// A fault breaks one rule and nothing else: every other fault's probe that
/// does not exercise its rule is answered as the correct server answers it,
/// apart from the part of the answer a shape fault is about.
#[tokio::test]
async fn every_fault_leaves_the_other_probes_alone() {
    let correct = start(None).await;
    let client = client();
    let mut want = Vec::new();
    for req in common::probes::corpus() {
        let resp = send(&client, &correct, &req).await;
        want.push((req, resp.status, observe(&resp)));
    }
    let mut leaks = Vec::new();
    let mut compared = 0;
    for &fault in Fault::ALL {
        let server = start(Some(fault)).await;
        for (req, status, correct_answer) in &want {
            if touches(fault, req) {
                continue;
            }
            compared += 1;
            let mut got = observe(&send(&client, &server, req).await);
            let mut expected = correct_answer.clone();
            blank_what_the_fault_may_change(fault, *status, &mut got);
            blank_what_the_fault_may_change(fault, *status, &mut expected);
            if got != expected {
                leaks.push(format!(
                    "{fault} changed {req:?}:\n  correct {expected}\n  faulty  {got}"
                ));
            }
        }
        server.shutdown().await;
    }
    assert!(
        leaks.is_empty(),
        "faults that break more than their rule:\n{}",
        leaks.join("\n")
    );
    assert!(
        compared > 900,
        "only {compared} pairs compared: the model of the rules is too wide"
    );
    correct.shutdown().await;
}

#[tokio::test]
async fn envelope_faults_break_their_one_field() {
    let client = client();
    let check = |fault: Fault, resp: &Resp| {
        let body = resp.json.clone().unwrap_or(Value::Null);
        match fault {
            Fault::NoProjectUuidOnErrors => assert_eq!(resp.header("x-project-uuid"), None),
            Fault::ErrorContentTypeNotJson => {
                assert_ne!(resp.header("content-type"), Some("application/json"));
                assert!(resp.json.is_some());
            }
            Fault::ErrorBodyNotJson => assert!(resp.json.is_none()),
            Fault::BadRequestWithoutRequestId => {
                assert!(body.get("request_id").is_none() && body["message"].is_string())
            }
            Fault::BadRequestWithoutMessage => {
                assert!(body.get("message").is_none() && body["request_id"].is_string())
            }
            Fault::RequestIdRepeated => {
                assert_eq!(body["request_id"], "00000000-0000-0000-0000-000000000000")
            }
            Fault::ErrorStatusTrue => assert_eq!(body["status"], true),
            Fault::ErrorCodeAsString => assert_eq!(body["code"], "400"),
            _ => unreachable!(),
        }
    };
    for fault in [
        Fault::NoProjectUuidOnErrors,
        Fault::ErrorContentTypeNotJson,
        Fault::ErrorBodyNotJson,
        Fault::BadRequestWithoutRequestId,
        Fault::RequestIdRepeated,
        Fault::BadRequestWithoutMessage,
        Fault::ErrorStatusTrue,
        Fault::ErrorCodeAsString,
    ] {
        let server = start(Some(fault)).await;
        let resp = send(
            &client,
            &server,
            &Req::get("catalog").without("X-Client-Id"),
        )
        .await;
        assert_eq!(resp.status, 400, "{fault}");
        check(fault, &resp);
        // Successes are left alone.
        send(&client, &server, &Req::get("catalog"))
            .await
            .assert_ok();
        server.shutdown().await;
    }
}

#[tokio::test]
async fn validation_faults_keep_the_status_or_the_shape_they_do_not_break() {
    let client = client();
    let req = Req::post("catalog", None);
    let server = start(Some(Fault::ValidationAnswered400)).await;
    send(&client, &server, &req).await.assert_error(400);
    server.shutdown().await;

    let server = start(Some(Fault::ValidationWithoutErrors)).await;
    let resp = send(&client, &server, &req).await;
    assert_eq!((resp.status, resp.body().get("errors")), (417, None));
    server.shutdown().await;

    let server = start(Some(Fault::ValidationErrorsNotArray)).await;
    let resp = send(&client, &server, &req).await;
    assert_eq!(resp.status, 417);
    assert!(resp.body()["errors"].is_object());
    server.shutdown().await;
}

#[tokio::test]
async fn header_case_fault_accepts_the_exact_spelling_only() {
    let server = start(Some(Fault::HeaderNamesCaseSensitive)).await;
    let request = |name: &str| {
        format!(
            "GET /v2/api/component/catalog/auth HTTP/1.1\r\nHost: x\r\n{name}: {CLIENT_ID}\r\n\
             X-Client-Secret: {CLIENT_SECRET}\r\n\r\n"
        )
    };
    // No `Connection: close` sent: the server closes after one answer itself.
    let exact = send_raw(&server, request("X-Client-Id").as_bytes()).await;
    assert!(exact.starts_with("HTTP/1.1 200"), "{exact}");
    for name in ["x-client-id", "X-CLIENT-ID", "x-Client-Id"] {
        let answer = send_raw(&server, request(name).as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{name}: {answer}");
    }
    // The head may arrive in pieces.
    let mut stream = tokio::net::TcpStream::connect(server.addr())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let full = request("X-Client-Id");
        let (a, b) = full.as_bytes().split_at(40);
        stream.write_all(a).await.unwrap_or_else(|e| panic!("{e}"));
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        stream.write_all(b).await.unwrap_or_else(|e| panic!("{e}"));
        let mut out = String::new();
        stream
            .read_to_string(&mut out)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn path_faults_serve_the_other_prefix() {
    let client = client();
    for (fault, path) in [
        (Fault::UnversionedPath, "/component/catalog/auth"),
        (Fault::WrongVersionPath, "/v1/api/component/catalog/auth"),
    ] {
        let server = start(Some(fault)).await;
        send(&client, &server, &Req::new(Method::GET, path))
            .await
            .assert_ok();
        server.shutdown().await;
    }
}

#[test]
fn faults_list_their_anchor() {
    for fault in Fault::ALL {
        let section = fault.section();
        assert!(
            ["1", "2", "4.1", "4.2", "5", "7", "7.1", "7.2", "9"].contains(&section),
            "{fault}: section {section}"
        );
        assert_eq!(fault.to_string(), fault.name());
    }
    // Every fault is listed by the binary, one line each.
    assert_eq!(
        Fault::ALL.len(),
        Fault::ALL
            .iter()
            .map(|f| f.name())
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
}
