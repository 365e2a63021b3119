//! HTTP/1.1 framing at the edge of what the interface sees (issue 17 point
//! 6): a client that half-closes after its request, a request without
//! `Host`, a transfer coding the server does not implement, and the heads
//! too large for hyper, which it answers itself.

use crate::common;

use std::time::Duration;

use common::*;
use reference_server::{RunningServer, Server, ServerOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Writes `request`, half-closes (`shutdown(SHUT_WR)`), and reads all the
/// server answers until it closes; `None` when it does not close in 5 s.
async fn send_then_half_close(server: &RunningServer, request: &[u8]) -> Option<String> {
    let mut stream = TcpStream::connect(server.addr())
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    stream
        .write_all(request)
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    stream
        .shutdown()
        .await
        .unwrap_or_else(|e| panic!("shutdown: {e}"));
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut out)).await;
    // A reset is a lost answer too: what arrived before it is judged.
    read.ok()?.ok()?;
    Some(String::from_utf8_lossy(&out).into_owned())
}

fn get(version: &str, host: bool) -> String {
    let host = if host { "Host: x\r\n" } else { "" };
    format!(
        "GET /v2/api/component/catalog/auth {version}\r\n{host}X-Client-Id: {CLIENT_ID}\r\n\
         X-Client-Secret: {CLIENT_SECRET}\r\n\r\n"
    )
}

fn post_with_body() -> String {
    let body = r#"{"account":"acme","pin":1234}"#;
    format!(
        "POST /v2/api/component/catalog/auth?modelUuid={ACME_MODEL} HTTP/1.1\r\nHost: x\r\n\
         X-Client-Id: {CLIENT_ID}\r\nX-Client-Secret: {CLIENT_SECRET}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Before `half_close(true)`, hyper closed the connection as soon as it read
/// the client's end of stream while the handler was still working, and the
/// answer was lost: 5-25 % of tries under load, and every try once the
/// handler takes a moment (here 5 ms of latency).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_half_closes_after_its_request_gets_its_answer() {
    let requests = [
        (get("HTTP/1.1", true), "HTTP/1.1 200"),
        (get("HTTP/1.0", false), "HTTP/1.0 200"),
        (post_with_body(), "HTTP/1.1 200"),
    ];
    for latency in [Duration::from_millis(5), Duration::ZERO] {
        let server = Server::start(ServerOptions {
            latency,
            ..ServerOptions::default()
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        let tries = if latency.is_zero() { 200 } else { 10 };
        let mut lost = Vec::new();
        for (request, want) in &requests {
            for _ in 0..tries {
                let answer = send_then_half_close(&server, request.as_bytes()).await;
                match answer {
                    Some(a) if a.starts_with(want) && a.contains("\"status\":true") => {}
                    other => lost.push(format!("{:?}: {other:?}", &request[..30])),
                }
            }
        }
        assert!(
            lost.is_empty(),
            "latency {latency:?}: {} of {} half-closed requests got no full answer, first: {}",
            lost.len(),
            tries * requests.len(),
            lost[0]
        );
        server.shutdown().await;
    }
}

/// RFC 9112 section 3.2: "A server MUST respond with a 400 (Bad Request)
/// status code to any HTTP/1.1 request message that lacks a Host header
/// field and to any request message that contains more than one Host header
/// field line". HTTP/1.0 has no such rule.
#[tokio::test]
async fn http_1_1_without_one_host_is_400_in_the_envelope() {
    let server = start(None).await;
    let no_host = get("HTTP/1.1", false).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n");
    let two_hosts = get("HTTP/1.1", true).replace("Host: x\r\n", "Host: x\r\nHost: y\r\n");
    for request in [no_host, two_hosts] {
        let answer = send_raw(&server, request.as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
        assert_envelope(&answer, 400);
        assert!(answer.contains("Host"), "the message names Host: {answer}");
    }
    // HTTP/1.0 without Host, and HTTP/1.1 with one, are served.
    let answer = send_raw(&server, get("HTTP/1.0", false).as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.0 200"), "{answer}");
    let with_host = get("HTTP/1.1", true).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n");
    let answer = send_raw(&server, with_host.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    server.shutdown().await;
}

/// RFC 9112 section 6.1: "A server that receives a request message with a
/// transfer coding it does not understand SHOULD respond with 501 (Not
/// Implemented)." The server decodes `chunked` only.
#[tokio::test]
async fn a_transfer_coding_other_than_chunked_is_501_in_the_envelope() {
    let server = start(None).await;
    let body = r#"{"account":"acme","pin":1234}"#;
    for coding in ["gzip, chunked", "deflate,chunked", "x-custom , Chunked"] {
        let request = format!(
            "GET /v2/api/component/catalog/auth HTTP/1.1\r\nHost: x\r\nX-Client-Id: {CLIENT_ID}\r\n\
             X-Client-Secret: {CLIENT_SECRET}\r\nTransfer-Encoding: {coding}\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
            body.len()
        );
        let answer = send_raw(&server, request.as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 501"), "{coding}: {answer}");
        assert_envelope(&answer, 501);
        // Refused unread: the connection is closed, not reused.
        assert!(answer.contains("connection: close"), "{answer}");
    }
    // Plain chunked is read as before.
    let request = format!(
        "GET /v2/api/component/catalog/auth HTTP/1.1\r\nHost: x\r\nX-Client-Id: {CLIENT_ID}\r\n\
         X-Client-Secret: {CLIENT_SECRET}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n\
         {:x}\r\n{body}\r\n0\r\n\r\n",
        body.len()
    );
    let answer = send_raw(&server, request.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    server.shutdown().await;
}

/// What the README's list of bare answers says: a request line over hyper's
/// limit is 414 and a head with more than 100 header lines is 431, both
/// from hyper, with no body, and the connection closed.
#[tokio::test]
async fn heads_too_large_for_hyper_get_its_bare_414_and_431() {
    let server = start(None).await;
    let long_path = format!(
        "GET /v2/api/component/{}/auth HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(64 * 1024)
    );
    let many_headers = format!(
        "GET /v2/api/component/catalog/auth HTTP/1.1\r\nHost: x\r\n{}\r\n",
        (0..120)
            .map(|i| format!("X-Filler-{i}: {i}\r\n"))
            .collect::<String>()
    );
    for (request, status) in [(long_path, "414"), (many_headers, "431")] {
        let answer = send_raw(&server, request.as_bytes()).await;
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{status}: {answer}"
        );
        assert!(!answer.contains("x-project-uuid"), "{answer}");
    }
    // 100 header lines in all (Host included) are served.
    let hundred = format!(
        "GET /v2/api/component/catalog/auth HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         X-Client-Id: {CLIENT_ID}\r\nX-Client-Secret: {CLIENT_SECRET}\r\n{}\r\n",
        (0..96)
            .map(|i| format!("X-Filler-{i}: {i}\r\n"))
            .collect::<String>()
    );
    let answer = send_raw(&server, hundred.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    server.shutdown().await;
}

/// The 7.1 envelope in a raw answer: JSON, `code` = status, the project's
/// uuid as a header.
fn assert_envelope(answer: &str, status: u16) {
    let lower = answer.to_ascii_lowercase();
    assert!(lower.contains("content-type: application/json"), "{answer}");
    assert!(
        lower.contains(&format!("x-project-uuid: {PROJECT_UUID}")),
        "{answer}"
    );
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
    let body: serde_json::Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert_eq!(body["code"], status, "{body}");
    assert_eq!(body["status"], false, "{body}");
    assert!(body["request_id"].is_string() && body["message"].is_string());
}
