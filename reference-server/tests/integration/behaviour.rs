//! The correct server over real HTTP: every status path, in the order the
//! checks run, and the success bodies.

use crate::common;

use common::*;
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn ref_resolves_by_uuid_name_tag_and_percent_encoded_name() {
    let server = start(None).await;
    let client = client();
    for (reference, uuid) in [
        (CATALOG_UUID, CATALOG_UUID),
        ("Catalog", CATALOG_UUID),
        ("catalog", CATALOG_UUID),
        (CAFE_UUID, CAFE_UUID),
        (CAFE_ENCODED, CAFE_UUID),
        ("cafe-menu", CAFE_UUID),
        // Percent-encoding an ordinary character changes nothing.
        ("c%61talog", CATALOG_UUID),
    ] {
        let resp = send(&client, &server, &Req::get(reference)).await;
        let body = resp.assert_ok();
        assert_eq!(body["component"]["uuid"], uuid, "{reference}");
        assert!(body.get("model").is_none(), "no token, no body: no model");
    }
    let resp = send(&client, &server, &Req::get("Users").token(ADA_TOKEN)).await;
    assert_eq!(resp.assert_ok()["component"]["uuid"], USERS_UUID);
    server.shutdown().await;
}

#[tokio::test]
async fn refs_match_exactly() {
    let server = start(None).await;
    let client = client();
    for reference in ["CATALOG", "catalo", "Caf%C3%A9+Men%C3%BC", "%FF", ""] {
        send(&client, &server, &Req::get(reference))
            .await
            .assert_error(404);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn paths_and_methods_outside_the_interface() {
    let server = start(None).await;
    let client = client();
    for path in [
        "/",
        "/v2/api/component/catalog",
        "/v2/api/component/catalog/auth/",
        "/v1/api/component/catalog/auth",
        "/component/catalog/auth",
        "/v2/api/component/a/b/auth",
    ] {
        send(&client, &server, &Req::new(Method::GET, path))
            .await
            .assert_error(404);
    }
    for method in [Method::PUT, Method::DELETE, Method::PATCH, Method::OPTIONS] {
        let resp = send(
            &client,
            &server,
            &Req::new(method, "/v2/api/component/catalog/auth"),
        )
        .await;
        resp.assert_error(405);
        assert_eq!(resp.header("allow"), Some("GET, POST"));
    }
    server.shutdown().await;
}

#[tokio::test]
async fn credentials_missing_empty_or_wrong() {
    let server = start(None).await;
    let client = client();
    let cases = [
        (Req::get("catalog").without("X-Client-Id"), 400),
        (Req::get("catalog").header("X-Client-Id", ""), 400),
        (Req::get("catalog").without("X-Client-Secret"), 400),
        (Req::get("catalog").header("X-Client-Secret", ""), 400),
        (Req::get("catalog").header("X-Client-Id", "stranger"), 401),
        (
            Req::get("catalog").header("X-Client-Secret", "demo-secret-7Qx8"),
            401,
        ),
        (
            Req::get("catalog").header("X-Client-Secret", "demo-secret-7Qx9 "),
            200,
        ),
        (Req::get("catalog").header("X-Client-Secret", "demo"), 401),
        // Checks run in order: missing credentials before an unknown ref.
        (Req::get("nope").without("X-Client-Id"), 400),
        (Req::get("nope").header("X-Client-Secret", "wrong"), 401),
    ];
    for (req, status) in cases {
        let resp = send(&client, &server, &req).await;
        if status == 200 {
            // hyper trims surrounding whitespace from header values (RFC 9110).
            resp.assert_ok();
        } else {
            resp.assert_error(status);
        }
        assert!(!String::from_utf8_lossy(&resp.bytes).contains("demo-secret"));
    }
    server.shutdown().await;
}

#[tokio::test]
async fn project_env_absent_dev_live_or_else() {
    let server = start(None).await;
    let client = client();
    let env = |value: Option<&str>| match value {
        Some(v) => Req::get("catalog").header("X-Project-Env", v),
        None => Req::get("catalog"),
    };
    for (value, echoed) in [(None, "dev"), (Some("dev"), "dev"), (Some("live"), "live")] {
        let resp = send(&client, &server, &env(value)).await;
        assert_eq!(resp.assert_ok()["env"], echoed);
    }
    for value in ["", "DEV", "Live", "prod", "dev,live", "d\u{e9}v"] {
        send(&client, &server, &env(Some(value)))
            .await
            .assert_error(400);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn header_names_are_case_insensitive() {
    let server = start(None).await;
    let client = client();
    let req = Req::get("users")
        .without("X-Client-Id")
        .without("X-Client-Secret")
        .header("x-CLIENT-id", CLIENT_ID)
        .header("X-CLIENT-SECRET", CLIENT_SECRET)
        .header("x-auth-token", ADA_TOKEN)
        .header("X-PROJECT-ENV", "live");
    let resp = send(&client, &server, &req).await;
    assert_eq!(resp.assert_ok()["env"], "live");
    // Title-case on the wire too (reqwest's default sends lowercase).
    let raw = format!(
        "GET /v2/api/component/catalog/auth HTTP/1.1\r\nHost: x\r\nX-CLIENT-ID: {CLIENT_ID}\r\n\
         x-client-secret: {CLIENT_SECRET}\r\nConnection: close\r\n\r\n"
    );
    let answer = send_raw(&server, raw.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    server.shutdown().await;
}

#[tokio::test]
async fn auth_token_rules() {
    let server = start(None).await;
    let client = client();
    let cases = [
        // Users requires auth.
        (Req::get("users"), 401),
        (Req::get("users").token(""), 401),
        (Req::get("users").token("users-token-ada-0002"), 401),
        (Req::get("users").token(ADA_TOKEN), 200),
        // Catalog does not: absent is fine, a sent token must be its own.
        (Req::get("catalog"), 200),
        (Req::get("catalog").token(""), 200),
        (Req::get("catalog").token(ADA_TOKEN), 401),
        (Req::get("catalog").token("unknown"), 401),
        // The ref is resolved before the token is judged.
        (Req::get("nope").token("unknown"), 404),
    ];
    for (req, status) in cases {
        let resp = send(&client, &server, &req).await;
        if status == 200 {
            resp.assert_ok();
        } else {
            resp.assert_error(status);
        }
        assert!(!String::from_utf8_lossy(&resp.bytes).contains(ADA_TOKEN));
    }
    server.shutdown().await;
}

#[tokio::test]
async fn every_answer_has_the_common_headers_and_a_fresh_request_id() {
    let server = start(None).await;
    let client = client();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let resp = send(&client, &server, &Req::get("nope")).await;
        resp.assert_error(404);
        ids.push(
            resp.body()["request_id"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        );
    }
    ids.dedup();
    assert_eq!(ids.len(), 3, "request ids repeat: {ids:?}");
    assert_common_headers(&send(&client, &server, &Req::get("catalog")).await);
    server.shutdown().await;
}

#[tokio::test]
async fn validation_collects_every_failure_in_order() {
    let server = start(None).await;
    let client = client();
    let req = Req::post("catalog", None).json(json!({
        "zeta": 1,
        "pin": "1234",
        "account": "a",
        "alpha": null,
    }));
    let errors = send(&client, &server, &req).await.assert_validation();
    let want = [
        ("modelUuid", "required"),
        ("account", "min_length"),
        ("pin", "type"),
        ("zeta", "unknown_field"),
        ("alpha", "unknown_field"),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(f, r)| (f.to_string(), r.to_string()))
        .collect();
    assert_eq!(errors, want);

    let long = "x".repeat(33);
    let req = Req::post("catalog", Some("not-a-uuid")).json(json!({"account": long}));
    let errors = send(&client, &server, &req).await.assert_validation();
    let want = [
        ("modelUuid", "format"),
        ("account", "max_length"),
        ("pin", "required"),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(f, r)| (f.to_string(), r.to_string()))
        .collect();
    assert_eq!(errors, want);

    // Authorize validates an absent body: required fields fail.
    let req = Req::post(CAFE_ENCODED, Some(COFFEE_MODEL));
    let errors = send(&client, &server, &req).await.assert_validation();
    assert_eq!(errors, vec![("table".to_owned(), "required".to_owned())]);

    // GET validates only a body that is there.
    let req = Req::get("cafe-menu").json(json!({"table": 7.5, "vip": "yes"}));
    let errors = send(&client, &server, &req).await.assert_validation();
    let want = [("table", "type"), ("vip", "type")];
    let want: Vec<_> = want
        .iter()
        .map(|(f, r)| (f.to_string(), r.to_string()))
        .collect();
    assert_eq!(errors, want);
    server.shutdown().await;
}

#[tokio::test]
async fn validation_comes_after_every_400_401_404() {
    let server = start(None).await;
    let client = client();
    let invalid = json!({"unknown": true});
    let cases = [
        (
            Req::post("catalog", None)
                .json(invalid.clone())
                .without("X-Client-Id"),
            400,
        ),
        (
            Req::post("catalog", None)
                .json(invalid.clone())
                .header("X-Client-Secret", "x"),
            401,
        ),
        (Req::post("nope", None).json(invalid.clone()), 404),
        (Req::post("users", None).json(invalid.clone()), 401),
        (Req::post("catalog", None).body("{"), 400),
    ];
    for (req, status) in cases {
        send(&client, &server, &req).await.assert_error(status);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn authorize_issues_a_token_that_claims_the_model() {
    let server = start(None).await;
    let client = client();
    let fields = json!({"pin": 1234, "account": "acme"});
    let resp = send(
        &client,
        &server,
        &Req::post("catalog", Some(ACME_MODEL)).json(fields.clone()),
    )
    .await;
    let body = resp.assert_ok().clone();
    assert_eq!(body["env"], "dev");
    assert_eq!(body["component"]["uuid"], CATALOG_UUID);
    assert_eq!(
        body["model"],
        json!({"uuid": ACME_MODEL, "fields": {"account": "acme"}})
    );
    let token = body["token"].as_str().unwrap_or_default().to_owned();
    assert!(!token.is_empty());

    // The token claims the model...
    let resp = send(&client, &server, &Req::get(CATALOG_UUID).token(&token)).await;
    assert_eq!(resp.assert_ok()["model"]["uuid"], ACME_MODEL);
    // ...of its own component only.
    send(&client, &server, &Req::get("cafe-menu").token(&token))
        .await
        .assert_error(401);
    // A second Authorize issues another token.
    let resp = send(
        &client,
        &server,
        &Req::post("Catalog", Some(ACME_MODEL)).json(fields),
    )
    .await;
    assert_ne!(resp.assert_ok()["token"], token.as_str());

    // Requires auth: a token is needed to authorize, and secrets stay hidden.
    let ada = json!({"email": "ada@example.com", "password": "correct-horse"});
    let req = Req::post("users", Some(ADA_MODEL)).json(ada.clone());
    send(&client, &server, &req).await.assert_error(401);
    let resp = send(
        &client,
        &server,
        &req.clone().token(ADA_TOKEN).header("X-Project-Env", "live"),
    )
    .await;
    let body = resp.assert_ok();
    assert_eq!(body["env"], "live");
    assert_eq!(body["model"]["fields"], json!({"email": "ada@example.com"}));
    assert!(!String::from_utf8_lossy(&resp.bytes).contains("correct-horse"));
    server.shutdown().await;
}

#[tokio::test]
async fn authorize_refuses_unknown_models_and_wrong_fields() {
    let server = start(None).await;
    let client = client();
    let acme = json!({"account": "acme", "pin": 1234});
    let cases = [
        // A uuid that is no model of this component (it is Café Menü's).
        (
            Req::post("catalog", Some(COFFEE_MODEL)).json(acme.clone()),
            404,
        ),
        (
            Req::post("catalog", Some("00000000-0000-4000-8000-000000000000")).json(acme),
            404,
        ),
        (
            Req::post("catalog", Some(ACME_MODEL)).json(json!({"account": "acme", "pin": 4321})),
            401,
        ),
        (
            Req::post("catalog", Some(ACME_MODEL)).json(json!({"account": "acmf", "pin": 1234})),
            401,
        ),
        // An optional field the model does not have.
        (
            Req::post(CAFE_ENCODED, Some(COFFEE_MODEL)).json(json!({"table": 7})),
            401,
        ),
    ];
    for (req, status) in cases {
        send(&client, &server, &req).await.assert_error(status);
    }
    let ok = Req::post(CAFE_ENCODED, Some(COFFEE_MODEL)).json(json!({"vip": true, "table": 7}));
    send(&client, &server, &ok).await.assert_ok();
    server.shutdown().await;
}

#[tokio::test]
async fn auth_claims_finds_the_model_by_token_or_body() {
    let server = start(None).await;
    let client = client();
    let resp = send(&client, &server, &Req::get("users").token(ADA_TOKEN)).await;
    let body = resp.assert_ok();
    assert_eq!(
        body["model"],
        json!({"uuid": ADA_MODEL, "fields": {"email": "ada@example.com"}})
    );

    let resp = send(
        &client,
        &server,
        &Req::get("catalog").json(json!({"account": "acme", "pin": 1234})),
    )
    .await;
    assert_eq!(resp.assert_ok()["model"]["uuid"], ACME_MODEL);
    let req = Req::get("catalog").json(json!({"account": "acme", "pin": 1}));
    send(&client, &server, &req).await.assert_error(401);
    // An empty body is no body.
    let resp = send(&client, &server, &Req::get("catalog").body("")).await;
    assert!(resp.assert_ok().get("model").is_none());
    server.shutdown().await;
}

#[tokio::test]
async fn shutdown_is_graceful_and_drop_stops_the_server() {
    let server = start(None).await;
    let addr = server.addr();
    assert_eq!(
        server.base_url(),
        format!("http://127.0.0.1:{}", addr.port())
    );
    server.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());

    let server = start(None).await;
    let addr = server.addr();
    drop(server);
    let mut closed = false;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(addr).await.is_err() {
            closed = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(closed, "still listening after drop");
}
