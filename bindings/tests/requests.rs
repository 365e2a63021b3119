//! The generated client builds the requests the spec describes, and decodes
//! every answer without panicking. No network: requests are inspected after
//! `build()`, answers are decoded from raw parts.

use component_auth_bindings::{
    AuthClaimsResponse, AuthorizeResponse, Client, DecodeResponse, Defaults, Error, RawResponse,
    Secret, server_url, types,
};

fn client() -> Client {
    Client::new(&server_url("http://127.0.0.1:9"))
        .unwrap()
        .with_defaults(Defaults {
            x_client_id: Some("client".into()),
            x_client_secret: Some(Secret::new("very-secret")),
            x_auth_token: None,
            x_project_env: Some(types::ProjectEnv::Live),
        })
}

#[test]
fn builds_the_documented_path_under_the_server_prefix() {
    let prepared = client()
        .auth_claims()
        .ref_("Café Menü/x?y")
        .build()
        .unwrap();
    let request = prepared.request();
    assert_eq!(request.method().as_str(), "GET");
    assert_eq!(
        request.url().as_str(),
        "http://127.0.0.1:9/v2/api/component/Caf%C3%A9%20Men%C3%BC%2Fx%3Fy/auth"
    );
    assert_eq!(request.headers()["x-client-id"], "client");
    assert_eq!(request.headers()["x-project-env"], "live");
    assert!(request.headers().get("x-auth-token").is_none());
    assert!(request.body().is_none());
}

#[test]
fn authorize_carries_model_uuid_in_the_query_and_a_json_body() {
    let mut body = types::AuthFields::new();
    body.insert("email".into(), "ada@example.com".into());
    let prepared = client()
        .authorize()
        .ref_("users")
        .model_uuid("5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01")
        .x_auth_token("token-1")
        .body(body)
        .build()
        .unwrap();
    let request = prepared.request();
    assert_eq!(request.method().as_str(), "POST");
    assert_eq!(
        request.url().query(),
        Some("modelUuid=5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01")
    );
    assert_eq!(request.headers()["content-type"], "application/json");
    assert_eq!(request.headers()["x-auth-token"], "token-1");
    let bytes = request.body().unwrap().as_bytes().unwrap();
    assert_eq!(bytes, br#"{"email":"ada@example.com"}"#);
}

#[test]
fn required_parameters_are_required() {
    let missing_ref = client().auth_claims().build().unwrap_err();
    assert!(matches!(missing_ref, Error::MissingParameter("ref")));
    let missing_model = client().authorize().ref_("users").build().unwrap_err();
    assert!(matches!(
        missing_model,
        Error::MissingParameter("modelUuid")
    ));
    let bare = Client::new("http://127.0.0.1:9/v2/api").unwrap();
    let missing_id = bare.auth_claims().ref_("users").build().unwrap_err();
    assert!(matches!(missing_id, Error::MissingParameter("X-Client-Id")));
}

#[test]
fn secrets_never_print() {
    let client = client();
    let builder = client.auth_claims().ref_("users").x_auth_token("token-1");
    let printed = format!("{builder:?} {:?}", client.defaults());
    assert!(
        !printed.contains("very-secret") && !printed.contains("token-1"),
        "{printed}"
    );
    let prepared = builder.build().unwrap();
    let printed = format!("{prepared:?}");
    assert!(
        !printed.contains("very-secret") && !printed.contains("token-1"),
        "{printed}"
    );
}

#[test]
fn a_prepared_request_can_be_changed_before_it_is_sent() {
    let prepared = client()
        .authorize()
        .ref_("users")
        .model_uuid("m")
        .build()
        .unwrap()
        .remove_header("X-Client-Secret")
        .set_header("X-PROJECT-ENV", "staging")
        .unwrap()
        .raw_body("{not json")
        .method(component_auth_bindings::http::Method::PUT);
    let request = prepared.request();
    assert!(request.headers().get("x-client-secret").is_none());
    assert_eq!(request.headers()["x-project-env"], "staging");
    assert_eq!(request.body().unwrap().as_bytes().unwrap(), b"{not json");
    assert_eq!(request.method().as_str(), "PUT");
    let invalid = client()
        .auth_claims()
        .ref_("users")
        .build()
        .unwrap()
        .set_header("X-Bad", "a\nb");
    assert!(matches!(invalid, Err(Error::InvalidHeader { .. })));
}

fn raw(status: u16, headers: &[(&'static str, &'static str)], body: &'static str) -> RawResponse {
    let mut map = reqwest_headers();
    for (name, value) in headers {
        map.insert(*name, value.parse().unwrap());
    }
    RawResponse {
        status,
        headers: map,
        body: body.into(),
    }
}

fn reqwest_headers() -> component_auth_bindings::http::HeaderMap {
    Default::default()
}

#[test]
fn each_documented_status_decodes_into_its_own_variant() {
    let uuid = "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d";
    let bad = raw(
        400,
        &[("x-project-uuid", uuid)],
        r#"{"code":400,"message":"m","request_id":"r","status":false}"#,
    );
    match AuthClaimsResponse::decode(bad) {
        AuthClaimsResponse::BadRequest(decoded) => {
            assert_eq!(decoded.body.code, 400);
            assert!(!decoded.body.status);
            assert_eq!(decoded.headers.x_project_uuid.as_deref(), Some(uuid));
        }
        other => panic!("{other:?}"),
    }
    let invalid = raw(
        417,
        &[],
        r#"{"code":417,"errors":[{"field":"f","rule":"required","message":"m"}],"status":false}"#,
    );
    match AuthorizeResponse::decode(invalid) {
        AuthorizeResponse::ExpectationFailed(decoded) => {
            assert_eq!(decoded.body.errors[0].rule, "required");
            assert_eq!(decoded.headers.x_project_uuid, None);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn anything_else_keeps_the_raw_answer() {
    let teapot = AuthClaimsResponse::decode(raw(418, &[], "short and stout"));
    assert!(matches!(&teapot, AuthClaimsResponse::Undocumented(r) if r.body == "short and stout"));
    assert_eq!(teapot.status(), 418);
    let garbage = AuthClaimsResponse::decode(raw(400, &[], "\u{0}not json"));
    assert!(matches!(garbage, AuthClaimsResponse::Mismatch { .. }));
    let wrong_shape = AuthorizeResponse::decode(raw(417, &[], r#"{"code":"417","status":false}"#));
    match wrong_shape {
        AuthorizeResponse::Mismatch { reason, raw } => {
            assert!(reason.contains("does not match"), "{reason}");
            assert_eq!(raw.status, 417);
        }
        other => panic!("{other:?}"),
    }
}
