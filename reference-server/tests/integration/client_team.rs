//! A client team's path, as the README's first screen tells it: the
//! bindings in their crate, the reference server in-process as a mock that
//! serves the team's own fixture, real HTTP on an ephemeral port. The token
//! Authorize issues is a `Secret` (spec: `format: password`): an answer
//! printed with `{:?}` shows no token, and `expose()` gives it to send on.

use component_auth_bindings::{AuthClaimsResponse, AuthorizeResponse, Client, Defaults, Secret};
use reference_server::{Fixture, Server, ServerOptions};

/// The team's own data, in the fixture format of
/// `reference-server/fixtures/default.yaml` (documented in the README).
const FIXTURE: &str = r#"
project_uuid: 11111111-2222-4333-8444-555555555555
clients:
  - id: billing-ui
    secret: billing-secret-123
components:
  - uuid: 6a1d0c52-4b1e-4d8c-9f1a-2b3c4d5e6f70
    name: Billing
    tag: billing
    requires_auth: false
    settings:
      auth:
        - name: account
          type: string
          required: true
        - name: pin
          type: integer
          required: true
          secret: true
    models:
      - uuid: 0a0b0c0d-1e1f-4a2b-8c3d-4e5f6a7b8c9d
        fields:
          account: acme
          pin: 4321
"#;

#[tokio::test]
async fn bindings_against_the_in_process_mock_print_no_token() {
    let fixture = Fixture::from_yaml_str(FIXTURE, "billing.yaml").expect("the fixture parses");
    let server = Server::start(ServerOptions {
        fixture,
        ..ServerOptions::default()
    })
    .await
    .expect("the mock starts on an ephemeral port");
    let client = Client::new(&format!("{}/v2/api", server.base_url()))
        .unwrap()
        .with_defaults(Defaults {
            x_client_id: Some("billing-ui".into()),
            x_client_secret: Some(Secret::new("billing-secret-123")),
            ..Defaults::default()
        });
    let mut fields = component_auth_bindings::types::AuthFields::new();
    fields.insert("account".into(), "acme".into());
    fields.insert("pin".into(), 4321.into());
    let answer = client
        .authorize()
        .ref_("billing")
        .model_uuid("0a0b0c0d-1e1f-4a2b-8c3d-4e5f6a7b8c9d")
        .body(fields)
        .send()
        .await
        .expect("an answer");
    let printed = format!("{answer:?}\n{answer:#?}");
    let AuthorizeResponse::Ok(ok) = answer else {
        panic!("Authorize did not succeed: {printed}");
    };
    let token = ok.body.token.clone();
    assert!(token.expose().len() >= 16, "a token was issued");
    assert!(
        !printed.contains(token.expose()),
        "the token is printed: {printed}"
    );
    assert!(printed.contains("token: [redacted]"), "{printed}");
    assert!(
        printed.contains("Billing"),
        "the rest still prints: {printed}"
    );
    assert_eq!(format!("{}", ok.body.token), Secret::REDACTED);
    // serde carries the plain value: the JSON the team stores has the token.
    let json = serde_json::to_value(&ok.body).unwrap();
    assert_eq!(json["token"], token.expose());

    // The token, sent on, claims the model it was issued for.
    let claims = client
        .auth_claims()
        .ref_("billing")
        .x_auth_token(token)
        .send()
        .await
        .expect("an answer");
    let AuthClaimsResponse::Ok(ok) = claims else {
        panic!("Auth Claims did not succeed: {claims:?}");
    };
    assert_eq!(
        ok.body.model.map(|m| m.uuid),
        Some("0a0b0c0d-1e1f-4a2b-8c3d-4e5f6a7b8c9d".to_owned())
    );
    // The mock judged every request the client sent: none broke a rule.
    let broken = server.violations();
    assert!(broken.is_empty(), "the client broke {broken:#?}");
    server.shutdown().await;
}
