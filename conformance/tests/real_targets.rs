//! Targets as they are met outside loopback tests: a server that redirects,
//! and nothing sent to the host a redirect names.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use conformance::profile::Profile;
use conformance::report::Status;
use conformance::runner::{RunOptions, run};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const PROFILE: &str = include_str!("../profiles/reference.yaml");

fn profile(base_url: String) -> Profile {
    let mut p = Profile::from_yaml_str(PROFILE, "reference.yaml", &|_| None).expect("profile");
    p.base_url = base_url;
    p
}

/// Reads one request (head and a `Content-Length` body); `None` at EOF.
async fn read_request(s: &mut TcpStream) -> Option<String> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    };
    let head = String::from_utf8_lossy(&seen[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    while seen.len() < head_end + length {
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    Some(head)
}

/// Counts the connections made to it; answers none.
async fn capturing_server() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    tokio::spawn(async move {
        while let Ok((s, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            drop(s);
        }
    });
    (format!("http://{addr}"), count)
}

/// Answers every request `307` to the same path on `to`.
async fn redirecting_server(to: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let to = to.clone();
            tokio::spawn(async move {
                while let Some(head) = read_request(&mut s).await {
                    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    let answer = format!(
                        "HTTP/1.1 307 Temporary Redirect\r\nlocation: {to}{path}\r\ncontent-length: 0\r\n\r\n"
                    );
                    if s.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_is_an_answer_that_fails_and_is_never_followed() {
    let (elsewhere, connections) = capturing_server().await;
    let url = redirecting_server(elsewhere.clone()).await;
    let report = run(profile(url), &RunOptions::default())
        .await
        .expect("the run completes");
    assert_eq!(report.exit_code(), 1);
    let passed: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.status == Status::Passed)
        .map(|r| r.id.as_str())
        .collect();
    assert!(passed.is_empty(), "passed on redirects: {passed:?}");
    let shown = report
        .failed()
        .filter_map(|r| r.actual.as_deref())
        .any(|a| a.contains("307") && a.contains(&format!("Location {elsewhere}/v2/api/")));
    assert!(shown, "no failure shows the redirect and its Location");
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "a request went to the host the redirect named"
    );
}
