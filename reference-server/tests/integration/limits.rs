//! The caps that keep memory bounded under load, and the added latency: raw
//! connections on loopback, held open or half-sent on purpose.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use reference_server::{RunningServer, Server, ServerOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn start_with(options: ServerOptions) -> RunningServer {
    Server::start(options)
        .await
        .unwrap_or_else(|e| panic!("cannot start: {e}"))
}

fn head(method: &str, extra: &str) -> String {
    format!(
        "{method} /v2/api/component/catalog/auth HTTP/1.1\r\nHost: x\r\n\
         X-Client-Id: {CLIENT_ID}\r\nX-Client-Secret: {CLIENT_SECRET}\r\n{extra}\r\n"
    )
}

/// Reads one answer (head and `Content-Length` body) from a kept-alive
/// connection; `None` if none is complete within `wait`.
async fn read_answer(stream: &mut TcpStream, wait: Duration) -> Option<String> {
    let deadline = tokio::time::Instant::now() + wait;
    let mut buf = Vec::new();
    loop {
        let text = String::from_utf8_lossy(&buf).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().to_owned())
                })
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + length {
                return Some(text);
            }
        }
        let mut chunk = [0u8; 4096];
        match tokio::time::timeout_at(deadline, stream.read(&mut chunk)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => return None,
            Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

async fn connect(server: &RunningServer) -> TcpStream {
    TcpStream::connect(server.addr())
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"))
}

async fn write(stream: &mut TcpStream, bytes: &[u8]) {
    stream
        .write_all(bytes)
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
}

#[tokio::test]
async fn connections_past_the_cap_wait_until_one_closes() {
    let server = start_with(ServerOptions {
        max_connections: 2,
        ..ServerOptions::default()
    })
    .await;
    let get = head("GET", "");
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = connect(&server).await;
        write(&mut stream, get.as_bytes()).await;
        let answer = read_answer(&mut stream, Duration::from_secs(5)).await;
        let answer = answer.unwrap_or_else(|| panic!("a connection under the cap was not served"));
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        held.push(stream); // kept alive, holding its slot
    }
    // The third is accepted by the kernel but not served while two are open.
    let mut third = connect(&server).await;
    write(&mut third, get.as_bytes()).await;
    assert_eq!(
        read_answer(&mut third, Duration::from_millis(400)).await,
        None,
        "a third connection was served past a cap of 2"
    );
    // One closes: the third is served.
    drop(held.pop());
    let answer = read_answer(&mut third, Duration::from_secs(5)).await;
    let answer = answer.unwrap_or_else(|| panic!("the waiting connection was never served"));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // Kept-alive connections under the cap go on being served.
    write(&mut held[0], get.as_bytes()).await;
    assert!(
        read_answer(&mut held[0], Duration::from_secs(5))
            .await
            .is_some()
    );
    drop(held);
    drop(third);
    server.shutdown().await;
}

/// A slow client that declared 60 000 bytes and sent 100: once the server
/// has reserved its bytes, `probe` (another 60 000) no longer fits in a
/// budget of 100 000. Returns the slow connection and the rest of its body.
async fn hold_60_000(server: &RunningServer) -> (TcpStream, Vec<u8>) {
    let mut slow = connect(server).await;
    let slow_head = head(
        "GET",
        "Content-Type: application/json\r\nContent-Length: 60000\r\n",
    );
    write(&mut slow, slow_head.as_bytes()).await;
    let body = body(60_000);
    write(&mut slow, &body[..100]).await;
    (slow, body[100..].to_vec())
}

fn body(n: usize) -> Vec<u8> {
    let mut body = b"{\"account\":\"acme\",\"pin\":1234}".to_vec();
    body.resize(n, b' ');
    body
}

fn big() -> Req {
    Req::get("catalog")
        .header("Content-Type", "application/json")
        .body(body(60_000))
}

async fn finish(mut slow: TcpStream, rest: &[u8]) {
    write(&mut slow, rest).await;
    let answer = read_answer(&mut slow, Duration::from_secs(5)).await;
    let answer = answer.unwrap_or_else(|| panic!("the slow request was not answered"));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[tokio::test]
async fn bodies_past_the_byte_budget_wait_then_get_503_with_retry_after() {
    let wait = Duration::from_millis(200);
    let server = start_with(ServerOptions {
        max_inflight_body_bytes: 100_000,
        body_budget_wait: wait,
        ..ServerOptions::default()
    })
    .await;
    let client = client();
    let (slow, rest) = hold_60_000(&server).await;

    // Until the server has reserved the slow body's bytes, a big one passes;
    // then it waits for room, and is refused unread: 503, Retry-After, 7.1.
    let deadline = Instant::now() + Duration::from_secs(5);
    let refused = loop {
        let started = Instant::now();
        let resp = send(&client, &server, &big()).await;
        if resp.status == 503 {
            assert!(started.elapsed() >= wait, "refused without waiting");
            break resp;
        }
        assert_eq!(resp.status, 200, "{}", String::from_utf8_lossy(&resp.bytes));
        assert!(
            Instant::now() < deadline,
            "no 503 while 60 000 of 100 000 bytes were held"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    refused.assert_error(503);
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(refused.header("connection"), Some("close"));
    // What fits still passes, and a request without a body is never refused.
    let small = Req::get("catalog").json(serde_json::json!({"account": "acme", "pin": 1234}));
    send(&client, &server, &small).await.assert_ok();
    send(&client, &server, &Req::get("catalog"))
        .await
        .assert_ok();

    // The slow body completes and is answered: its bytes are given back.
    finish(slow, &rest).await;
    send(&client, &server, &big()).await.assert_ok();
    server.shutdown().await;
}

#[tokio::test]
async fn a_body_waiting_for_the_budget_is_read_once_room_is_made() {
    let server = start_with(ServerOptions {
        max_inflight_body_bytes: 100_000,
        ..ServerOptions::default() // waits up to 5 s
    })
    .await;
    let client = client();
    let (slow, rest) = hold_60_000(&server).await;
    // Give the server time to read the slow head (a small GET on another
    // connection is answered only after the accept loop has run again).
    send(&client, &server, &Req::get("catalog"))
        .await
        .assert_ok();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let waiting = {
        let (client, url) = (client.clone(), server.base_url());
        tokio::spawn(async move {
            let started = Instant::now();
            let resp = client
                .get(format!("{url}/v2/api/component/catalog/auth"))
                .header("X-Client-Id", CLIENT_ID)
                .header("X-Client-Secret", CLIENT_SECRET)
                .header("Content-Type", "application/json")
                .body(body(60_000))
                .send()
                .await
                .map(|r| r.status().as_u16());
            (resp, started.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !waiting.is_finished(),
        "a body past the budget was read at once"
    );
    finish(slow, &rest).await;
    let (status, took) = waiting.await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.ok(), Some(200));
    assert!(took >= Duration::from_millis(300), "{took:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn a_budget_smaller_than_a_body_refuses_it_and_a_chunked_body_reserves_the_limit() {
    // A wait for room would last a minute: an answer well before it is
    // one that did not wait, on however busy a machine.
    let server = start_with(ServerOptions {
        max_inflight_body_bytes: 1_000,
        body_budget_wait: Duration::from_secs(60),
        ..ServerOptions::default()
    })
    .await;
    let client = client();
    let fits = Req::get("catalog").json(serde_json::json!({"account": "acme", "pin": 1234}));
    send(&client, &server, &fits).await.assert_ok();
    // Larger than the whole budget: it could never fit, so no wait.
    let started = Instant::now();
    send(&client, &server, &Req::get("catalog").body(body(1_001)))
        .await
        .assert_error(503);
    assert!(started.elapsed() < Duration::from_secs(30));
    // Chunked: no declared length, so the whole 64 KiB limit is reserved.
    let raw = format!(
        "{}0\r\n\r\n",
        head("GET", "Transfer-Encoding: chunked\r\nConnection: close\r\n")
    );
    let answer = send_raw(&server, raw.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    server.shutdown().await;
}

#[tokio::test]
async fn latency_delays_every_answer() {
    let latency = Duration::from_millis(150);
    let server = start_with(ServerOptions {
        latency,
        ..ServerOptions::default()
    })
    .await;
    let client = client();
    for req in [Req::get("catalog"), Req::get("nope")] {
        let started = Instant::now();
        let resp = send(&client, &server, &req).await;
        let took = started.elapsed();
        assert!(took >= latency, "answered {} in {took:?}", resp.status);
    }
    server.shutdown().await;
}

/// Sends `n` valid Auth Claims at once, each on its own task; the answers'
/// statuses and the first limit answer.
async fn burst(server: &RunningServer, n: usize) -> (Vec<u16>, Option<reqwest::Response>) {
    // At most this many in flight: a machine's descriptor limit (1,024 on
    // many CI runners) is never the thing a burst finds.
    const IN_FLIGHT: usize = 64;
    let client = reqwest::Client::new();
    let url = format!("{}/v2/api/component/catalog/auth", server.base_url());
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..n {
        let (client, url, slots) = (client.clone(), url.clone(), slots.clone());
        tasks.spawn(async move {
            let _slot = slots
                .acquire_owned()
                .await
                .expect("the semaphore stays open");
            client
                .get(url)
                .header("X-Client-Id", CLIENT_ID)
                .header("X-Client-Secret", CLIENT_SECRET)
                .send()
                .await
        });
    }
    let mut statuses = Vec::new();
    let mut limited = None;
    while let Some(joined) = tasks.join_next().await {
        let resp = match joined.expect("no panic") {
            Ok(resp) => resp,
            Err(e) => panic!("no answer to one request of the burst: {e:?}"),
        };
        statuses.push(resp.status().as_u16());
        if resp.status() == 429 && limited.is_none() {
            limited = Some(resp);
        }
    }
    (statuses, limited)
}

/// A burst far past the rate (1,000 requests, 64 at once, against 200 a
/// second with a burst of 20; and the variant limits the server's 30th
/// request whatever the pace, so a slow machine still sees one) is limited: 429 in the 7.1 shape with Retry-After and
/// the RateLimit headers; under the fault, in plain text without
/// X-Project-Uuid. Every other answer is the correct server's.
#[tokio::test(flavor = "multi_thread")]
async fn a_burst_past_the_rate_is_limited_in_the_envelope_or_in_text_under_the_fault() {
    use reference_server::{Fault, Variant};
    let limited_server = start_with(ServerOptions {
        variants: vec![Variant::RateLimit],
        ..ServerOptions::default()
    })
    .await;
    let (statuses, limited) = burst(&limited_server, 1_000).await;
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 429),
        "{statuses:?}"
    );
    let resp = limited.expect("a burst past the rate is limited");
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    assert_eq!(header("retry-after").as_deref(), Some("1"));
    assert_eq!(header("ratelimit-policy").as_deref(), Some("200;w=1"));
    assert_eq!(header("ratelimit-remaining").as_deref(), Some("0"));
    assert!(header("x-project-uuid").is_some());
    assert_eq!(header("content-type").as_deref(), Some("application/json"));
    let bytes = resp.bytes().await.expect("a body");
    let body: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
    assert_eq!(body["code"], 429);
    assert_eq!(body["status"], false);
    assert!(body["request_id"].is_string() && body["message"].is_string());
    limited_server.shutdown().await;

    let faulty = start_with(ServerOptions {
        fault: Some(Fault::LimitAnswerText),
        ..ServerOptions::default()
    })
    .await;
    let (_, limited) = burst(&faulty, 1_000).await;
    let resp = limited.expect("a burst past the rate is limited");
    assert!(resp.headers().get("x-project-uuid").is_none());
    assert_eq!(
        resp.headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("text/plain; charset=utf-8")
    );
    faulty.shutdown().await;

    // Without the variant nothing is ever limited.
    let correct = start_with(ServerOptions::default()).await;
    let (statuses, limited) = burst(&correct, 300).await;
    assert!(
        limited.is_none() && statuses.iter().all(|s| *s == 200),
        "{statuses:?}"
    );
    correct.shutdown().await;
}
