//! Shared by the integration tests: start a server in-process, describe a
//! request as data, send it, and read the answer as JSON from the bytes.

pub mod probes;

use reference_server::{Fault, RunningServer, Server, ServerOptions, Variant};
use reqwest::Method;
use reqwest::header::{HeaderName, HeaderValue};
use serde_json::Value;

pub const PROJECT_UUID: &str = "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d";
pub const CLIENT_ID: &str = "conformance-client";
pub const CLIENT_SECRET: &str = "demo-secret-7Qx9";
pub const ADA_TOKEN: &str = "users-token-ada-0001";
pub const CATALOG_TOKEN: &str = "catalog-token-acme-0001";
pub const USERS_UUID: &str = "0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11";
pub const ADA_MODEL: &str = "5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01";
pub const CATALOG_UUID: &str = "3e1f6b2a-7c4d-4e8f-a1b2-c3d4e5f60718";
pub const ACME_MODEL: &str = "8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3";
pub const CAFE_UUID: &str = "9d8c7b6a-5f4e-4d3c-b2a1-0f9e8d7c6b5a";
pub const CAFE_ENCODED: &str = "Caf%C3%A9%20Men%C3%BC";
pub const COFFEE_MODEL: &str = "c0ffee00-1234-4abc-8def-0123456789ab";

pub async fn start(fault: Option<Fault>) -> RunningServer {
    start_with_variants(fault, &[]).await
}

pub async fn start_with_variants(fault: Option<Fault>, variants: &[Variant]) -> RunningServer {
    let options = ServerOptions {
        fault,
        variants: variants.to_vec(),
        ..ServerOptions::default()
    };
    match Server::start(options).await {
        Ok(server) => server,
        Err(e) => panic!("cannot start the server: {e}"),
    }
}

/// Where the workspace builds reqwest with rustls and no provider, a client
/// cannot be built until one is installed: ring, as the server uses. A
/// no-op for the tests' own TLS client, which names its provider.
pub fn install_ring() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

pub fn client() -> reqwest::Client {
    install_ring();
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap_or_else(|e| panic!("cannot build a client: {e}"))
}

/// A request as data: what it sends, nothing about what must happen.
#[derive(Clone)]
pub struct Req {
    pub method: Method,
    /// Path and query, e.g. `/v2/api/component/users/auth`.
    pub path: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Option<Vec<u8>>,
}

impl Req {
    /// A request with the right client credentials.
    pub fn new(method: Method, path: impl Into<String>) -> Self {
        Req {
            method,
            path: path.into(),
            headers: Vec::new(),
            body: None,
        }
        .header("X-Client-Id", CLIENT_ID)
        .header("X-Client-Secret", CLIENT_SECRET)
    }

    /// GET on the interface path of `reference`.
    pub fn get(reference: &str) -> Self {
        Self::new(Method::GET, format!("/v2/api/component/{reference}/auth"))
    }

    /// POST on the interface path of `reference`, with `modelUuid` if given.
    pub fn post(reference: &str, model_uuid: Option<&str>) -> Self {
        let query = model_uuid
            .map(|m| format!("?modelUuid={m}"))
            .unwrap_or_default();
        Self::new(
            Method::POST,
            format!("/v2/api/component/{reference}/auth{query}"),
        )
    }

    pub fn header(mut self, name: &str, value: impl AsRef<[u8]>) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers
            .push((name.to_owned(), value.as_ref().to_vec()));
        self
    }

    pub fn without(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    pub fn token(self, token: &str) -> Self {
        self.header("X-Auth-Token", token)
    }

    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = Some(body.into());
        self
    }

    pub fn json(self, value: Value) -> Self {
        let bytes = value.to_string().into_bytes();
        self.header("Content-Type", "application/json").body(bytes)
    }
}

/// Header values as text, secrets and tokens left out (a failure message
/// must not show them in any spelling); a long body by its length only.
impl std::fmt::Debug for Req {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secret = |name: &str| {
            name.eq_ignore_ascii_case("X-Client-Secret")
                || name.eq_ignore_ascii_case("X-Auth-Token")
        };
        let headers: Vec<String> = self
            .headers
            .iter()
            .map(|(name, value)| match secret(name) {
                true => format!("{name}: <redacted>"),
                false => format!("{name}: {}", String::from_utf8_lossy(value)),
            })
            .collect();
        let body = match &self.body {
            Some(b) if b.len() > 200 => format!("<{} bytes>", b.len()),
            Some(b) => String::from_utf8_lossy(b).into_owned(),
            None => "<none>".to_owned(),
        };
        write!(
            f,
            "{} {} [{}] body {body}",
            self.method,
            self.path,
            headers.join("; ")
        )
    }
}

/// An answer, its body kept as bytes and parsed when it is JSON.
#[derive(Clone, Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub bytes: Vec<u8>,
    pub json: Option<Value>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The JSON body; panics (failing the test) when it is not JSON.
    pub fn body(&self) -> &Value {
        self.json
            .as_ref()
            .unwrap_or_else(|| panic!("body is not JSON: {}", String::from_utf8_lossy(&self.bytes)))
    }

    /// Asserts the 7.1 envelope with `code` = status.
    pub fn assert_error(&self, status: u16) {
        assert_eq!(
            self.status,
            status,
            "body: {}",
            String::from_utf8_lossy(&self.bytes)
        );
        assert_common_headers(self);
        let body = self.body();
        assert_eq!(body["code"], Value::from(status), "{body}");
        assert_eq!(body["status"], Value::Bool(false), "{body}");
        assert!(body["message"].is_string(), "{body}");
        let id = body["request_id"].as_str().unwrap_or_default();
        assert!(is_uuid(id), "request_id {id:?} is not a uuid");
        assert_eq!(body.as_object().map(|o| o.len()), Some(4), "{body}");
    }

    /// Asserts the 7.2 envelope; returns `(field, rule)` of each error.
    pub fn assert_validation(&self) -> Vec<(String, String)> {
        assert_eq!(
            self.status,
            417,
            "body: {}",
            String::from_utf8_lossy(&self.bytes)
        );
        assert_common_headers(self);
        let body = self.body();
        assert_eq!(body["code"], Value::from(417));
        assert_eq!(body["status"], Value::Bool(false));
        let errors = body["errors"].as_array().cloned().unwrap_or_default();
        assert!(!errors.is_empty(), "{body}");
        errors
            .iter()
            .map(|e| {
                assert!(e["message"].is_string(), "{e}");
                let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
                (s("field"), s("rule"))
            })
            .collect()
    }

    /// Asserts a 200 with the common headers; returns the body.
    pub fn assert_ok(&self) -> &Value {
        assert_eq!(
            self.status,
            200,
            "body: {}",
            String::from_utf8_lossy(&self.bytes)
        );
        assert_common_headers(self);
        let body = self.body();
        assert_eq!(body["code"], Value::from(200));
        assert_eq!(body["status"], Value::Bool(true));
        body
    }
}

pub fn assert_common_headers(resp: &Resp) {
    assert_eq!(resp.header("content-type"), Some("application/json"));
    assert_eq!(resp.header("x-project-uuid"), Some(PROJECT_UUID));
}

pub fn is_uuid(s: &str) -> bool {
    s.len() == 36 && uuid::Uuid::try_parse(s).is_ok()
}

pub async fn send(client: &reqwest::Client, server: &RunningServer, req: &Req) -> Resp {
    let url = format!("{}{}", server.base_url(), req.path);
    let mut builder = client.request(req.method.clone(), &url);
    for (name, value) in &req.headers {
        let name =
            HeaderName::from_bytes(name.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let value = HeaderValue::from_bytes(value).unwrap_or_else(|e| panic!("{name}: {e}"));
        builder = builder.header(name, value);
    }
    if let Some(body) = &req.body {
        builder = builder.body(body.clone());
    }
    let response = builder
        .send()
        .await
        .unwrap_or_else(|e| panic!("{} {url}: {e}", req.method));
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response
        .bytes()
        .await
        .map(|b| b.to_vec())
        .unwrap_or_default();
    // A gzip-encoded answer is read as a client that asked for it reads it.
    let gzipped = headers
        .get("content-encoding")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"gzip"));
    let decoded = gzipped
        .then(|| {
            let mut out = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut out)
                .ok()
                .map(|_| out)
        })
        .flatten();
    let json = serde_json::from_slice(decoded.as_deref().unwrap_or(&bytes)).ok();
    Resp {
        status,
        headers,
        bytes,
        json,
    }
}

/// Sends raw bytes on a fresh connection and returns everything the server
/// answers before it closes (the answers say `Connection: close`, or the
/// caller sends it).
pub async fn send_raw(server: &RunningServer, request: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(server.addr())
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    stream
        .write_all(request)
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    let mut out = Vec::new();
    let read = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        stream.read_to_end(&mut out),
    )
    .await;
    assert!(read.is_ok(), "the server left the connection hanging");
    String::from_utf8_lossy(&out).into_owned()
}
