//! The generated server (feature `server`) over real HTTP on 127.0.0.1,
//! with the generated client: the inputs an implementation receives and
//! the rejections it is told of print no credential in `Debug`, and an
//! input that fails is answered, by default, with the document's own answer
//! (the 400 envelope's shape) before the implementation is called.

use std::sync::{Arc, Mutex};

use client_runtime::server::{Rejection, axum};
use component_auth_bindings::server::{self, AuthClaimsAnswer, AuthorizeAnswer};
use component_auth_bindings::{AuthClaimsResponse, Client, Defaults, Secret, types};

const SECRET: &str = "client-secret-8f3a";
const TOKEN: &str = "auth-token-77c1";

/// Records what it was called with, as `Debug` prints it.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Recorder {
    fn record(&self, text: String) {
        self.0.lock().unwrap().push(text);
    }
}

impl server::Api for Recorder {
    async fn auth_claims(
        &self,
        path: server::AuthClaimsPath,
        headers: server::AuthClaimsHeaders,
        body: Option<types::AuthFields>,
        _request: axum::http::request::Parts,
    ) -> AuthClaimsAnswer {
        self.record(format!("{path:?} {headers:?} {body:?}"));
        let component = types::Component::new("u".into(), path.ref_, "t".into(), false);
        AuthClaimsAnswer::Ok {
            body: types::AuthClaimsResult::new(200, true, types::ProjectEnv::Dev, component),
            headers: server::AuthClaimsAnswerHeaders {
                x_project_uuid: "p-1".into(),
            },
        }
    }

    async fn authorize(
        &self,
        _path: server::AuthorizePath,
        _query: server::AuthorizeQuery,
        _headers: server::AuthorizeHeaders,
        _body: Option<types::AuthFields>,
        _request: axum::http::request::Parts,
    ) -> AuthorizeAnswer {
        unreachable!("every request of this test to Authorize fails its inputs")
    }

    async fn rejected(&self, rejection: Rejection) -> axum::response::Response {
        self.record(format!("{rejection:?}"));
        rejection.documented_response()
    }
}

async fn serve(recorder: Recorder) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v2/api", listener.local_addr().unwrap());
    let router = server::router_with(
        recorder,
        client_runtime::server::Options::default().with_base_path("/v2/api"),
    );
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

#[tokio::test]
async fn inputs_and_rejections_print_no_credential() {
    let recorder = Recorder::default();
    let url = serve(recorder.clone()).await;
    let client = Client::new(&url).unwrap().with_defaults(Defaults {
        x_client_id: Some("id-1".into()),
        x_client_secret: Some(Secret::new(SECRET)),
        x_auth_token: Some(Secret::new(TOKEN)),
        ..Defaults::default()
    });
    let answer = client.auth_claims().ref_("Café Menü").send().await.unwrap();
    let AuthClaimsResponse::Ok(decoded) = answer else {
        panic!("not 200: {answer:?}");
    };
    // The path parameter arrives percent-decoded.
    assert_eq!(decoded.body.component.name, "Café Menü");
    assert_eq!(decoded.headers.x_project_uuid.as_deref(), Some("p-1"));

    // No modelUuid, an X-Project-Env that is no value of its enum, a body
    // that is not an object: refused before `authorize` is called.
    // Through the runtime's builder: it installs the TLS provider the
    // workspace's features may call for.
    let http = client_runtime::client_builder().build().unwrap();
    let refused = http
        .post(format!("{url}/component/users/auth"))
        .header("x-client-id", "id-1")
        .header("x-client-secret", SECRET)
        .header("x-auth-token", TOKEN)
        .header("x-project-env", "staging")
        .body("[1, 2]")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 400);
    assert_eq!(refused.headers()["content-type"], "application/json");
    let body: types::ErrorResponse =
        serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
    assert_eq!(body.code, 400);
    assert!(!body.status);
    for what in ["modelUuid", "X-Project-Env", "request body"] {
        assert!(body.message.contains(what), "{}", body.message);
    }
    assert!(!body.message.contains(SECRET) && !body.message.contains("staging"));

    let recorded = recorder.0.lock().unwrap().clone();
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    assert!(recorded[1].starts_with("Rejection"), "{recorded:?}");
    for text in &recorded {
        assert!(!text.contains(SECRET) && !text.contains(TOKEN), "{text}");
    }
}

#[tokio::test]
async fn a_path_of_no_operation_is_the_documented_404() {
    let url = serve(Recorder::default()).await;
    let http = client_runtime::client_builder().build().unwrap();
    let answer = http
        .get(format!("{url}/component/a/b/auth"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 404);
    let body: types::ErrorResponse =
        serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
    assert_eq!(body.code, 404);
}
