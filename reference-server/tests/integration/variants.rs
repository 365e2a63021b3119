//! Legal variants, the dual of faults: every variant changes the answer to
//! its own probe, leaves every other probe's answer as the correct server
//! has it (apart from the part of an answer a shape variant is about), and,
//! alone or with every variant it does not conflict with, answers every
//! probe in a way the description allows.

use crate::common;

use common::probes::{corpus, padded, variant_probe};
use common::*;
use reference_server::{Variant, variant::SMALL_BODY_LIMIT};
use reqwest::Method;
use serde_json::{Value, json};

/// What an answer shows, less what differs on every request anyway: a
/// request id shows its form (a uuid or not), a token and an ETag that
/// they are there.
fn observe(resp: &Resp) -> Value {
    let mut body = resp
        .json
        .clone()
        .unwrap_or_else(|| Value::String(String::from_utf8_lossy(&resp.bytes).into_owned()));
    mask(&mut body);
    let present = |name: &str| resp.header(name).map(|_| format!("<{name}>"));
    json!({
        "status": resp.status,
        "content-type": resp.header("content-type"),
        "x-project-uuid": resp.header("x-project-uuid"),
        "allow": resp.header("allow"),
        "x-request-id": present("x-request-id"),
        "etag": present("etag"),
        "cache-control": resp.header("cache-control"),
        "vary": resp.header("vary"),
        "body": body,
    })
}

fn mask(value: &mut Value) {
    let Some(map) = value.as_object_mut() else {
        return;
    };
    if let Some(id) = map.get_mut("request_id") {
        let form = match id.as_str() {
            Some(s) if is_uuid(s) => "<uuid>",
            _ => "<opaque>",
        };
        *id = Value::String(form.to_owned());
    }
    if let Some(token) = map.get_mut("token") {
        *token = Value::String("<token>".to_owned());
    }
    if let Some(data) = map.get_mut("data") {
        mask(data);
    }
}

#[tokio::test]
async fn every_variant_changes_the_answer_to_its_probe() {
    let correct = start(None).await;
    let client = client();
    let mut unchanged = Vec::new();
    for &variant in Variant::ALL {
        let req = variant_probe(variant);
        if common::probes::variant_needs_a_burst(variant) {
            continue;
        }
        let server = start_with_variants(None, &[variant]).await;
        let want = observe(&send(&client, &correct, &req).await);
        let got = observe(&send(&client, &server, &req).await);
        if want == got {
            unchanged.push(format!("{variant}: {req:?} answered {got}"));
        }
        server.shutdown().await;
    }
    assert!(
        unchanged.is_empty(),
        "variants that change nothing:\n{}",
        unchanged.join("\n")
    );
    correct.shutdown().await;
}

/// Which parts of an answer a shape variant may change, given the request
/// and the correct answer's status: the rest must stay as it was.
fn blank_what_the_variant_may_change(variant: Variant, req: &Req, status: u16, seen: &mut Value) {
    let error = status >= 400;
    let success = (200..300).contains(&status);
    let env_absent = !req
        .headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("X-Project-Env"));
    let blank = |seen: &mut Value, path: &[&str]| {
        let mut at = seen;
        for key in &path[..path.len() - 1] {
            at = &mut at[*key];
        }
        if let Some(map) = at.as_object_mut() {
            map.remove(path[path.len() - 1]);
        }
    };
    match variant {
        Variant::WrappedSuccess if success => blank(seen, &["body"]),
        Variant::ServiceCodes if error => blank(seen, &["body", "code"]),
        Variant::OpaqueRequestId => {
            blank(seen, &["body", "request_id"]);
            blank(seen, &["x-request-id"]);
        }
        Variant::CacheHeaders => {
            for header in ["etag", "cache-control", "vary"] {
                blank(seen, &[header]);
            }
        }
        Variant::LeanOtherErrors if error && status != 400 && status != 417 => {
            blank(seen, &["body", "request_id"])
        }
        Variant::ProjectUuidOnErrorsOnly if !error => blank(seen, &["x-project-uuid"]),
        Variant::EnvDefaultLive if success && env_absent => blank(seen, &["body", "env"]),
        Variant::ClaimsModelWithoutUuid
            if success && req.method == Method::GET && seen["body"]["model"].is_object() =>
        {
            blank(seen, &["body", "model", "uuid"])
        }
        // What Auth Claims names depends on which Authorize came before.
        Variant::RecordsClaims if success && req.method == Method::GET => {
            blank(seen, &["body", "model"])
        }
        Variant::Authorize201 if success && req.method == Method::POST => {
            blank(seen, &["status"]);
            blank(seen, &["body", "code"]);
        }
        _ => {}
    }
}

/// Whether a request exercises the choice a variant makes: then the variant
/// may change its answer. A small model written apart from the server.
fn touches(variant: Variant, req: &Req) -> bool {
    let header = |name: &str| {
        req.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
    };
    let path = req.path.split('?').next().unwrap_or_default();
    let reference = path
        .strip_prefix("/v2/api/component/")
        .and_then(|p| p.strip_suffix("/auth"))
        .unwrap_or_default();
    let decoded = percent_encoding::percent_decode_str(reference).decode_utf8_lossy();
    let names_and_tags = [
        "Users",
        "Catalog",
        "Caf\u{e9} Men\u{fc}",
        "users",
        "catalog",
        "cafe-menu",
    ];
    let exact = [USERS_UUID, CATALOG_UUID, CAFE_UUID].contains(&&*decoded)
        || names_and_tags.contains(&&*decoded);
    let folded = decoded.to_lowercase();
    let requires_auth = ["users", "Users", USERS_UUID].contains(&reference);
    let body = req.body.as_deref().filter(|b| !b.is_empty());
    let post = req.method == Method::POST;
    let get = req.method == Method::GET;
    let missing = |name: &str| header(name).is_none_or(|v| v.is_empty());
    match variant {
        Variant::MissingCredential401 | Variant::MissingCredential417 => {
            missing("X-Client-Id") || missing("X-Client-Secret")
        }
        Variant::BadEnv417 => header("X-Project-Env").is_some_and(|e| e != "dev" && e != "live"),
        Variant::MalformedJson417 => body.is_some_and(|b| {
            serde_json::from_slice::<Value>(b)
                .ok()
                .is_none_or(|v| !v.is_object())
        }),
        Variant::UnknownModel401
        | Variant::UnknownModel403
        | Variant::ModelUuidHeader
        | Variant::ModelUuidBody => post,
        Variant::CaseInsensitiveRefs => {
            !exact && names_and_tags.iter().any(|n| n.to_lowercase() == folded)
        }
        Variant::GetBodyIgnored => get && body.is_some(),
        // A body that is not JSON is refused as before; JSON is not checked.
        Variant::GetBodyFieldsIgnored => {
            get && body.is_some_and(|b| serde_json::from_slice::<Value>(b).is_ok())
        }
        Variant::TokenIgnoredWhenNotRequired => {
            !requires_auth
                && header("X-Auth-Token").is_some_and(|t| !t.is_empty() && t != CATALOG_TOKEN)
        }
        Variant::BodyLimit16k => body.is_some_and(|b| b.len() > SMALL_BODY_LIMIT),
        // A JSON object with a key no setting of the probed component defines.
        Variant::UnknownFieldsIgnored => body.is_some_and(|b| {
            serde_json::from_slice::<Value>(b).ok().is_some_and(|v| {
                v.as_object().is_some_and(|o| {
                    let known = [
                        "email", "password", "locale", "account", "pin", "table", "vip",
                    ];
                    o.keys().any(|k| !known.contains(&k.as_str()))
                })
            })
        }),
        Variant::BomIgnored => body.is_some_and(|b| b.starts_with("\u{feff}".as_bytes())),
        // Any request may come past the limit.
        Variant::RateLimit => true,
        Variant::ReportsReplacedClaim => post,
        Variant::GzipAnswers => header("Accept-Encoding").is_some(),
        // Shape variants: judged by blanking what they may change.
        Variant::Authorize201
        | Variant::WrappedSuccess
        | Variant::ServiceCodes
        | Variant::OpaqueRequestId
        | Variant::CacheHeaders
        | Variant::LeanOtherErrors
        | Variant::ProjectUuidOnErrorsOnly
        | Variant::EnvDefaultLive
        | Variant::ClaimsModelWithoutUuid
        | Variant::RecordsClaims => false,
    }
}

/// A variant changes what it names and nothing else: every probe of the
/// corpus (each fault's and each variant's) that does not exercise its
/// choice is answered as the correct server answers it, apart from the
/// part of the answer a shape variant is about.
#[tokio::test]
async fn every_variant_leaves_the_other_probes_alone() {
    let correct = start(None).await;
    let client = client();
    let mut want = Vec::new();
    for req in corpus() {
        let resp = send(&client, &correct, &req).await;
        want.push((req, resp.status, observe(&resp)));
    }
    let mut leaks = Vec::new();
    let mut compared = 0;
    for &variant in Variant::ALL {
        let server = start_with_variants(None, &[variant]).await;
        for (req, status, correct_answer) in &want {
            if touches(variant, req) {
                continue;
            }
            compared += 1;
            let mut got = observe(&send(&client, &server, req).await);
            let mut expected = correct_answer.clone();
            blank_what_the_variant_may_change(variant, req, *status, &mut got);
            blank_what_the_variant_may_change(variant, req, *status, &mut expected);
            if got != expected {
                leaks.push(format!(
                    "{variant} changed {req:?}:\n  correct {expected}\n  variant {got}"
                ));
            }
        }
        server.shutdown().await;
    }
    assert!(
        leaks.is_empty(),
        "variants that change more than their choice:\n{}",
        leaks.join("\n")
    );
    assert!(
        compared > 1000,
        "only {compared} pairs compared: the model of the choices is too wide"
    );
    correct.shutdown().await;
}

/// What the description requires of an answer, whatever the choices: no
/// 5xx; every body JSON (section 1); errors with `Content-Type:
/// application/json` and the project's `X-Project-Uuid`, `code` an integer
/// and `status` false (section 7); a 400 in the 7.1 shape; a 417 in the 7.2
/// shape. Returns what is wrong, if anything.
fn what_the_description_forbids(resp: &Resp) -> Option<String> {
    let status = resp.status;
    if status >= 500 {
        return Some(format!("status {status}"));
    }
    let Some(body) = resp.json.as_ref() else {
        return Some("the body is not JSON".to_owned());
    };
    if status < 400 {
        return None;
    }
    if resp.header("content-type") != Some("application/json") {
        return Some(format!("Content-Type {:?}", resp.header("content-type")));
    }
    if resp.header("x-project-uuid") != Some(PROJECT_UUID) {
        return Some(format!(
            "X-Project-Uuid {:?}",
            resp.header("x-project-uuid")
        ));
    }
    let integer = body["code"].is_i64() || body["code"].is_u64();
    if !integer || body["status"] != false {
        return Some(format!("code or status: {body}"));
    }
    let shape_71 = body["message"].is_string() && body["request_id"].is_string();
    let shape_72 = body["errors"].as_array().is_some_and(|e| !e.is_empty());
    match status {
        400 if !shape_71 => Some(format!("400 without the 7.1 shape: {body}")),
        417 if !shape_72 => Some(format!("417 without the 7.2 shape: {body}")),
        _ => None,
    }
}

/// Every set of variants in which no two conflict and to which no other
/// variant can be added.
fn maximal_compatible_sets() -> Vec<Vec<Variant>> {
    fn grow(from: usize, set: &mut Vec<Variant>, out: &mut Vec<Vec<Variant>>) {
        let Some(&next) = Variant::ALL.get(from) else {
            let maximal = Variant::ALL
                .iter()
                .all(|v| set.contains(v) || set.iter().any(|s| s.conflicts_with(*v)));
            if maximal {
                out.push(set.clone());
            }
            return;
        };
        if set.iter().all(|s| !s.conflicts_with(next)) {
            set.push(next);
            grow(from + 1, set, out);
            set.pop();
        }
        grow(from + 1, set, out);
    }
    let mut out = Vec::new();
    grow(0, &mut Vec::new(), &mut out);
    out
}

#[tokio::test]
async fn every_variant_alone_and_every_compatible_set_answers_as_the_description_allows() {
    let sets = maximal_compatible_sets();
    // Four pairs conflict: 2^4 maximal sets, each with 18 variants.
    assert_eq!(sets.len(), 16);
    assert!(sets.iter().all(|s| s.len() == Variant::ALL.len() - 4));
    let configurations: Vec<Vec<Variant>> = std::iter::once(Vec::new())
        .chain(Variant::ALL.iter().map(|&v| vec![v]))
        .chain(sets)
        .collect();
    let client = client();
    let corpus = corpus();
    let mut forbidden = Vec::new();
    for variants in &configurations {
        let server = start_with_variants(None, variants).await;
        for req in &corpus {
            let resp = send(&client, &server, req).await;
            if let Some(what) = what_the_description_forbids(&resp) {
                let names: Vec<&str> = variants.iter().map(|v| v.name()).collect();
                forbidden.push(format!("[{}] {req:?}: {what}", names.join(", ")));
            }
        }
        server.shutdown().await;
    }
    assert!(
        forbidden.is_empty(),
        "answers the description does not allow:\n{}",
        forbidden.join("\n")
    );
}

#[tokio::test]
async fn conflicting_variants_are_refused() {
    let options = reference_server::ServerOptions {
        variants: vec![Variant::UnknownModel403, Variant::UnknownModel401],
        ..reference_server::ServerOptions::default()
    };
    let err = reference_server::Server::start(options).await.err();
    let err = err.map(|e| (e.kind(), e.to_string()));
    let (kind, message) = err.unwrap_or_else(|| panic!("conflicting variants were served"));
    assert_eq!(kind, std::io::ErrorKind::InvalidInput);
    assert!(
        message.contains("`unknown-model-403` and `unknown-model-401`"),
        "{message}"
    );
}

/// Each variant's answer as its table entry says, field by field.
#[tokio::test]
async fn each_variant_answers_as_its_table_says() {
    let client = client();
    let acme = json!({"account": "acme", "pin": 1234});
    let with = async |variant: Variant| start_with_variants(None, &[variant]).await;

    let server = with(Variant::MissingCredential401).await;
    let req = Req::get("catalog").header("X-Client-Secret", "");
    send(&client, &server, &req).await.assert_error(401);

    let server = with(Variant::MissingCredential417).await;
    let req = Req::get("catalog")
        .without("X-Client-Id")
        .without("X-Client-Secret");
    let errors = send(&client, &server, &req).await.assert_validation();
    let required = |f: &str| (f.to_owned(), "required".to_owned());
    assert_eq!(
        errors,
        [required("X-Client-Id"), required("X-Client-Secret")]
    );

    let server = with(Variant::BadEnv417).await;
    for env in ["prod", "", "DEV"] {
        let req = Req::get("catalog").header("X-Project-Env", env);
        let errors = send(&client, &server, &req).await.assert_validation();
        assert_eq!(
            errors,
            [("X-Project-Env".into(), "format".into())],
            "{env:?}"
        );
    }

    let server = with(Variant::MalformedJson417).await;
    for body in [&b"{"[..], b"[]", b"\xff{}"] {
        let req = Req::get("catalog").body(body);
        let errors = send(&client, &server, &req).await.assert_validation();
        assert_eq!(errors, [("body".into(), "type".into())]);
    }
    let repeated = Req::get("catalog").body(r#"{"pin":1,"pin":2}"#);
    send(&client, &server, &repeated).await.assert_error(400);

    for (variant, status) in [
        (Variant::UnknownModel401, 401),
        (Variant::UnknownModel403, 403),
    ] {
        let server = with(variant).await;
        let req = Req::post("catalog", Some(COFFEE_MODEL)).json(acme.clone());
        send(&client, &server, &req).await.assert_error(status);
    }

    // A 201 whose token then claims its model.
    let server = with(Variant::Authorize201).await;
    let login = json!({"email": "ada@example.com", "password": "correct-horse"});
    let req = Req::post("users", Some(ADA_MODEL))
        .token(ADA_TOKEN)
        .json(login.clone());
    let resp = send(&client, &server, &req).await;
    assert_eq!((resp.status, &resp.body()["code"]), (201, &json!(201)));
    let token = resp.body()["token"].as_str().unwrap_or_default().to_owned();
    let claims = send(&client, &server, &Req::get("users").token(&token)).await;
    assert_eq!(claims.assert_ok()["model"]["uuid"], ADA_MODEL);

    // Wrapped: the token at data.token claims the model at data.model.uuid.
    let server = with(Variant::WrappedSuccess).await;
    let req = Req::post("users", Some(ADA_MODEL))
        .token(ADA_TOKEN)
        .json(login);
    let resp = send(&client, &server, &req).await;
    assert_eq!(resp.status, 200);
    let body = resp.body();
    assert_eq!((&body["status"], body.get("code")), (&json!(true), None));
    let token = body["data"]["token"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let claims = send(&client, &server, &Req::get("users").token(&token)).await;
    assert_eq!(claims.body()["data"]["model"]["uuid"], ADA_MODEL);
    assert_eq!(claims.body()["data"]["component"]["tag"], "users");

    let server = with(Variant::ServiceCodes).await;
    for (req, status, code) in [
        (Req::get("catalog").without("X-Client-Id"), 400, 40001),
        (
            Req::get("catalog").header("X-Client-Secret", "x"),
            401,
            40101,
        ),
        (Req::get("nope"), 404, 40401),
        (Req::post("catalog", None), 417, 41701),
    ] {
        let resp = send(&client, &server, &req).await;
        assert_eq!((resp.status, &resp.body()["code"]), (status, &json!(code)));
    }

    let server = with(Variant::OpaqueRequestId).await;
    let mut ids = Vec::new();
    for req in [Req::get("nope"), Req::get("nope")] {
        let resp = send(&client, &server, &req).await;
        let id = resp.body()["request_id"].as_str().unwrap_or_default();
        assert!(id.starts_with("req-") && !is_uuid(id), "{id}");
        assert_eq!(resp.header("x-request-id"), Some(id));
        ids.push(id.to_owned());
    }
    assert_ne!(ids[0], ids[1]);
    let ok = send(&client, &server, &Req::get("catalog")).await;
    assert!(
        ok.header("x-request-id")
            .is_some_and(|id| id.starts_with("req-"))
    );

    let server = with(Variant::CacheHeaders).await;
    let etag = async |req: &Req| {
        let resp = send(&client, &server, req).await;
        assert_eq!(resp.header("cache-control"), Some("no-store"));
        assert_eq!(resp.header("vary"), Some("X-Client-Id, X-Auth-Token"));
        resp.header("etag").unwrap_or_default().to_owned()
    };
    let catalog = etag(&Req::get("catalog")).await;
    assert!(catalog.starts_with('"') && catalog.len() > 2, "{catalog}");
    assert_eq!(catalog, etag(&Req::get("catalog")).await);
    assert_ne!(catalog, etag(&Req::get("users").token(ADA_TOKEN)).await);

    let server = with(Variant::LeanOtherErrors).await;
    let resp = send(&client, &server, &Req::get("nope")).await;
    assert_eq!(resp.status, 404);
    let keys: Vec<&String> = resp
        .body()
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["code", "message", "status"]);
    assert_common_headers(&resp);
    let req = Req::get("catalog").without("X-Client-Id");
    send(&client, &server, &req).await.assert_error(400);

    let server = with(Variant::CaseInsensitiveRefs).await;
    for reference in ["CATALOG", "catalog", "cAtAlOg", "CAF%C3%89%20MEN%C3%9C"] {
        send(&client, &server, &Req::get(reference))
            .await
            .assert_ok();
    }
    let upper_uuid = CATALOG_UUID.to_uppercase();
    send(&client, &server, &Req::get(&upper_uuid))
        .await
        .assert_error(404);

    let server = with(Variant::GetBodyIgnored).await;
    for body in [&b"{"[..], br#"{"account":"acme","pin":1234}"#] {
        let resp = send(&client, &server, &Req::get("catalog").body(body)).await;
        assert_eq!(resp.assert_ok().get("model"), None);
    }
    let req = Req::post("catalog", Some(ACME_MODEL)).body("{");
    send(&client, &server, &req).await.assert_error(400);

    let server = with(Variant::TokenIgnoredWhenNotRequired).await;
    for token in ["no-such-token", ADA_TOKEN] {
        let resp = send(&client, &server, &Req::get("catalog").token(token)).await;
        assert_eq!(resp.assert_ok().get("model"), None, "{token}");
    }
    let own = send(&client, &server, &Req::get("catalog").token(CATALOG_TOKEN)).await;
    assert_eq!(own.assert_ok()["model"]["uuid"], ACME_MODEL);
    let req = Req::get("users").token("no-such-token");
    send(&client, &server, &req).await.assert_error(401);

    let server = with(Variant::BodyLimit16k).await;
    let at_limit = Req::get("catalog").body(padded(&acme, SMALL_BODY_LIMIT));
    send(&client, &server, &at_limit).await.assert_ok();
    let over = Req::get("catalog").body(padded(&acme, SMALL_BODY_LIMIT + 1));
    send(&client, &server, &over).await.assert_error(413);

    let server = with(Variant::ModelUuidHeader).await;
    let req = Req::post("catalog", None)
        .header("X-Model-Uuid", ACME_MODEL)
        .json(acme.clone());
    let resp = send(&client, &server, &req).await;
    assert_eq!(resp.assert_ok()["model"]["uuid"], ACME_MODEL);
    let query_only = Req::post("catalog", Some(ACME_MODEL)).json(acme.clone());
    let errors = send(&client, &server, &query_only)
        .await
        .assert_validation();
    assert_eq!(errors, [required("modelUuid")]);

    let server = with(Variant::ModelUuidBody).await;
    let req = Req::post("catalog", None)
        .json(json!({"account": "acme", "modelUuid": ACME_MODEL, "pin": 1234}));
    let resp = send(&client, &server, &req).await;
    assert_eq!(resp.assert_ok()["model"]["uuid"], ACME_MODEL);
    let errors = send(&client, &server, &query_only)
        .await
        .assert_validation();
    assert_eq!(errors, [required("modelUuid")]);
    let req = Req::post("catalog", None)
        .json(json!({"account": "acme", "modelUuid": 5, "pin": 1234, "extra": 1}));
    let errors = send(&client, &server, &req).await.assert_validation();
    let format = ("modelUuid".to_owned(), "format".to_owned());
    assert_eq!(errors, [format, ("extra".into(), "unknown_field".into())]);

    let server = with(Variant::ProjectUuidOnErrorsOnly).await;
    let ok = send(&client, &server, &Req::get("catalog")).await;
    assert_eq!((ok.status, ok.header("x-project-uuid")), (200, None));
    send(&client, &server, &Req::get("nope"))
        .await
        .assert_error(404);

    let server = with(Variant::EnvDefaultLive).await;
    let env = async |req: Req| send(&client, &server, &req).await.assert_ok()["env"].clone();
    assert_eq!(env(Req::get("catalog")).await, "live");
    assert_eq!(
        env(Req::get("catalog").header("X-Project-Env", "dev")).await,
        "dev"
    );
}

/// The README's table has a row per variant, with its section and what it
/// changes, and its `--list-variants` block a line per variant.
#[test]
fn the_readme_lists_every_variant() {
    let readme = include_str!("../../README.md");
    for variant in Variant::ALL {
        let row = format!("| `{}` | {} | ", variant.name(), variant.section());
        assert!(readme.contains(&row), "no README row starts {row}");
        let changes = variant.changes().replace('|', "\\|");
        assert!(readme.contains(&changes), "{variant}: {changes}");
        let listed = format!("\n{} ", variant.name());
        assert!(readme.contains(&listed), "{variant} not in --list-variants");
    }
}

/// The README's counts of conflicting pairs and of maximal compatible sets
/// are the variants' own.
#[test]
fn the_readme_counts_the_conflicts() {
    let readme = include_str!("../../README.md");
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let all = Variant::ALL;
    let mut pairs = Vec::new();
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            if a.conflicts_with(*b) {
                pairs.push((*a, *b));
            }
        }
    }
    // Disjoint pairs: a maximal compatible set takes one of each pair and
    // every other variant.
    let mut seen: Vec<Variant> = pairs.iter().flat_map(|(a, b)| [*a, *b]).collect();
    seen.sort_by_key(|v| v.name());
    seen.dedup();
    assert_eq!(
        seen.len(),
        2 * pairs.len(),
        "the conflicting pairs share a variant"
    );
    let sets = 1usize << pairs.len();
    let size = all.len() - pairs.len();
    for phrase in [
        format!("{} pairs conflict", pairs.len()),
        format!("{sets} maximal compatible sets of {size} variants each"),
    ] {
        assert!(flat.contains(&phrase), "the README does not say {phrase:?}");
    }
    for (a, b) in pairs {
        assert!(
            readme.contains(&format!("`{a}`/`{b}`")),
            "the README does not name the pair {a}/{b}"
        );
    }
}
