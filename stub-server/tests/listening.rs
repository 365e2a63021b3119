//! The binary listens like the reference server (`--port 0`, first line
//! `listening on URL`), and the generated client and the generated server
//! understand each other over real HTTP on 127.0.0.1.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use component_auth_bindings::{AuthClaimsResponse, AuthorizeResponse, Client, Defaults, Secret};

struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start() -> (Guard, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stub-server"))
        .args(["--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start stub-server");
    let stdout = child.stdout.take().expect("piped stdout");
    let guard = Guard(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("its first line");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("the first line is not `listening on URL`: {line:?}"))
        .to_owned();
    (guard, url)
}

#[tokio::test]
async fn the_generated_client_authorizes_then_reads_its_claim() {
    let (_server, url) = start();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let client = Client::new(&format!("{url}/v2/api"))
        .unwrap()
        .with_defaults(Defaults {
            x_client_id: Some("stub-client".into()),
            x_client_secret: Some(Secret::new("stub-secret-Vb3k")),
            ..Defaults::default()
        });
    let mut fields = component_auth_bindings::types::AuthFields::new();
    fields.insert("account".into(), "acme".into());
    fields.insert("pin".into(), 2468.into());
    let answer = client
        .authorize()
        .ref_("catalog")
        .model_uuid("2f3e4d5c-6b7a-4899-a8b7-c6d5e4f30214")
        .body(fields)
        .send()
        .await
        .unwrap();
    let AuthorizeResponse::Ok(decoded) = answer else {
        panic!("not 200: {answer:?}");
    };
    let (body, headers) = (decoded.body, decoded.headers);
    assert_eq!(
        headers.x_project_uuid.as_deref(),
        Some("5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9")
    );
    // The issued token never prints.
    assert!(!format!("{body:?}").contains("stub-issued-"));
    let claims = client
        .auth_claims()
        .ref_("Catalog")
        .x_auth_token(body.token.clone())
        .send()
        .await
        .unwrap();
    let AuthClaimsResponse::Ok(decoded) = claims else {
        panic!("not 200: {claims:?}");
    };
    let claims = decoded.body;
    assert_eq!(
        claims.model.map(|m| m.uuid).as_deref(),
        Some("2f3e4d5c-6b7a-4899-a8b7-c6d5e4f30214")
    );
}

#[tokio::test]
async fn every_error_the_router_owns_has_the_envelope_and_the_project() {
    let (_server, url) = start();
    // Through the runtime's builder: it installs the TLS provider the
    // workspace's features may call for.
    let http = component_auth_bindings::client_builder().build().unwrap();
    let cases = [
        (
            component_auth_bindings::http::Method::GET,
            "/elsewhere",
            404,
        ),
        (
            component_auth_bindings::http::Method::PUT,
            "/v2/api/component/users/auth",
            405,
        ),
        (
            component_auth_bindings::http::Method::GET,
            "/v2/api/component/users/auth",
            400,
        ),
        (
            component_auth_bindings::http::Method::POST,
            "/v2/api/component/users/auth",
            400,
        ),
    ];
    for (method, path, status) in cases {
        let answer = http
            .request(method.clone(), format!("{url}{path}"))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status().as_u16(), status, "{method} {path}");
        assert_eq!(answer.headers()["content-type"], "application/json");
        assert_eq!(
            answer.headers()["x-project-uuid"],
            "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9"
        );
        let body: serde_json::Value =
            serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
        assert_eq!(body["code"], status, "{body}");
        assert_eq!(body["status"], false, "{body}");
    }
}
