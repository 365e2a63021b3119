//! Servers that misbehave at the HTTP level: garbage bytes, a slow drip, a
//! huge body, a wrong Content-Length, a non-JSON body, no answer at all.
//! The runner never panics and never hangs: every check ends within the
//! per-request time-out, memory stays bounded by the body cap, and each
//! problem is a failed check with its reason. A target that refuses or
//! resets every connection cannot be judged: a run error (exit 2).

use std::time::{Duration, Instant};

use conformance::run;
use conformance_model::profile::Profile;
use conformance_report::report::Status;
use conformance_suite::runner::{RunError, RunOptions};
use conformance_wire::transport::Limits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const PROFILE: &str = include_str!("../../profiles/reference.yaml");

#[derive(Clone, Copy, Debug)]
enum Misbehaviour {
    Garbage,
    Reset,
    SlowDrip,
    HugeBody,
    WrongContentLength,
    NotJson,
    NoAnswer,
    /// Every request redirected to the same path: a redirect loop.
    Redirect,
    /// A 200 whose chunked body never ends.
    EndlessChunks,
}

async fn read_request_head(s: &mut TcpStream) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut seen = Vec::new();
    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
        if seen.len() > 1 << 20 {
            return;
        }
    }
}

async fn serve(mut s: TcpStream, how: Misbehaviour) {
    read_request_head(&mut s).await;
    match how {
        Misbehaviour::Garbage => {
            let _ = s
                .write_all(b"\x00\xffTHIS IS NOT HTTP\r\n\r\n\x13\x37")
                .await;
        }
        Misbehaviour::Reset => {
            let _ = s.set_zero_linger();
            drop(s);
        }
        Misbehaviour::SlowDrip => {
            let _ = s
                .write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{")
                .await;
            loop {
                tokio::time::sleep(Duration::from_millis(50)).await;
                if s.write_all(b" ").await.is_err() {
                    return;
                }
            }
        }
        Misbehaviour::HugeBody => {
            let _ = s
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000000000\r\n\r\n")
                .await;
            let chunk = vec![b' '; 64 * 1024];
            for _ in 0..(1_000_000_000 / chunk.len()) {
                if s.write_all(&chunk).await.is_err() {
                    return;
                }
            }
        }
        Misbehaviour::WrongContentLength => {
            let _ = s
                .write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{\"code\":400}")
                .await;
        }
        Misbehaviour::NotJson => {
            let body = "<html>nope</html>";
            let _ = s
                .write_all(format!("HTTP/1.1 400 Bad Request\r\ncontent-type: text/html\r\ncontent-length: {}\r\n\r\n{body}", body.len()).as_bytes())
                .await;
        }
        Misbehaviour::NoAnswer => {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        Misbehaviour::Redirect => {
            let _ = s
                .write_all(b"HTTP/1.1 302 Found\r\nlocation: /v2/api/component/users/auth\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                .await;
        }
        Misbehaviour::EndlessChunks => {
            let _ = s
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n")
                .await;
            let chunk = format!("4000\r\n{}\r\n", " ".repeat(0x4000));
            loop {
                if s.write_all(chunk.as_bytes()).await.is_err() {
                    return;
                }
            }
        }
    }
}

async fn start(how: Misbehaviour) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((s, _)) = listener.accept().await {
            tokio::spawn(serve(s, how));
        }
    });
    format!("http://{addr}")
}

fn profile(base_url: String) -> Profile {
    let mut p = Profile::from_yaml_str(PROFILE, "reference.yaml", &|_| None).expect("profile");
    p.base_url = base_url;
    p
}

fn options() -> RunOptions {
    RunOptions {
        limits: Limits {
            timeout: Duration::from_millis(400),
            max_body_bytes: 64 * 1024,
            ..Limits::default()
        },
        ..RunOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn misbehaving_servers_are_failed_checks_with_reasons() {
    let all = [
        Misbehaviour::Garbage,
        Misbehaviour::SlowDrip,
        Misbehaviour::HugeBody,
        Misbehaviour::WrongContentLength,
        Misbehaviour::NotJson,
        Misbehaviour::NoAnswer,
    ];
    let runs: Vec<_> = all
        .into_iter()
        .map(|how| {
            tokio::spawn(async move {
                let url = start(how).await;
                let began = Instant::now();
                // A hang guard, not a speed test: generous enough for a
                // loaded machine (speed belongs in benches/).
                let report =
                    tokio::time::timeout(Duration::from_secs(120), run(profile(url), &options()))
                        .await
                        .unwrap_or_else(|_| panic!("{how:?}: the run hung"))
                        .unwrap_or_else(|e| panic!("{how:?}: the run did not complete: {e}"));
                (how, began.elapsed(), report)
            })
        })
        .collect();
    for r in runs {
        let (how, took, report) = r.await.expect("no panic in the run");
        // A server that never answers within the time-out (or drips its
        // answer slower than it) cannot be judged: not judged, exit 3,
        // never a failure of a rule it was never seen to break. The others
        // answered, wrongly: failed, exit 1.
        let silent = matches!(how, Misbehaviour::SlowDrip | Misbehaviour::NoAnswer);
        let (code, status) = match silent {
            true => (conformance_suite::gate::NOT_JUDGED_EXIT, Status::NotJudged),
            false => (1, Status::Failed),
        };
        assert_eq!(
            report.run.exit_code(),
            code,
            "{how:?}: exit {} (in {took:?})",
            report.run.exit_code()
        );
        let must: Vec<_> = report
            .run
            .results
            .iter()
            .filter(|r| r.level == conformance_suite::catalogue::Level::Must)
            .collect();
        // On a busy machine some answers of one that answers come after the
        // time-out: those checks are not judged, never passed.
        let failed = must
            .iter()
            .filter(|r| r.status == status || (!silent && r.status == Status::NotJudged))
            .count();
        assert!(
            failed > must.len() / 2,
            "{how:?}: only {failed} of {} MUST checks {} (or not judged)",
            must.len(),
            status.as_str()
        );
        let shown: Vec<_> = report
            .run
            .results
            .iter()
            .filter(|r| r.status == status)
            .collect();
        for r in &shown {
            let actual = r.actual.as_deref().unwrap_or("");
            assert!(
                !actual.trim().is_empty(),
                "{how:?}: {} {} without a reason",
                r.id,
                status.as_str()
            );
        }
        let reasons: String = shown
            .iter()
            .filter_map(|r| r.actual.clone())
            .collect::<Vec<_>>()
            .join("\n");
        let expected_word = match how {
            Misbehaviour::SlowDrip | Misbehaviour::NoAnswer => "no answer",
            Misbehaviour::HugeBody => "larger than the cap",
            Misbehaviour::NotJson => "non-JSON",
            Misbehaviour::Garbage => "invalid HTTP",
            Misbehaviour::Reset => unreachable!("a run error, tested below"),
            Misbehaviour::Redirect | Misbehaviour::EndlessChunks => {
                unreachable!("choices' probes, tested below")
            }
            Misbehaviour::WrongContentLength => "end of file before message length reached",
        };
        assert!(
            reasons.contains(expected_word),
            "{how:?}: no failure says `{expected_word}`:\n{reasons}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_target_is_a_run_error() {
    // Bind, then drop, to get a port that refuses connections.
    let port = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    match run(profile(format!("http://127.0.0.1:{port}")), &options()).await {
        Err(RunError::Unreachable { reason, .. }) => assert!(!reason.is_empty()),
        other => panic!("expected Unreachable, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_target_that_resets_every_connection_is_a_run_error() {
    let url = start(Misbehaviour::Reset).await;
    let began = Instant::now();
    match run(profile(url), &options()).await {
        Err(RunError::Unreachable { reason, .. }) => assert!(
            reason.contains("reset") || reason.contains("closed"),
            "{reason}"
        ),
        other => panic!("expected Unreachable, got {other:?}"),
    }
    // One attempt, not a time-out per check: the preflight's error ends
    // the run (a check would have been a failure, not this error). No
    // wall clock is asserted: a busy machine is slow, not wrong.
    let _ = began;
}

/// `conformance choices` against what is not a server: a closed port, a
/// reset, garbage, silence, a Content-Length never met, a slow drip. Each
/// is an error (exit 2 in the CLI) within a few time-outs, never a block
/// declaring what was not seen (`body_limit: 0` came of every one of them).
#[tokio::test(flavor = "multi_thread")]
async fn choices_against_what_is_not_a_server_is_an_error_quickly() {
    let port = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let mut targets = vec![("closed port".to_owned(), format!("http://127.0.0.1:{port}"))];
    for how in [
        Misbehaviour::Reset,
        Misbehaviour::Garbage,
        Misbehaviour::NoAnswer,
        Misbehaviour::WrongContentLength,
        Misbehaviour::SlowDrip,
    ] {
        targets.push((format!("{how:?}"), start(how).await));
    }
    for (what, url) in targets {
        let began = Instant::now();
        let seen = conformance_suite::observe::observe_within(profile(url), &options()).await;
        match seen {
            Err(RunError::Unreachable { reason, .. }) => {
                assert!(reason.contains("no HTTP answer"), "{what}: {reason}")
            }
            other => panic!("{what}: expected Unreachable, got {other:?}"),
        }
        // A hang guard only, generous for a loaded machine.
        assert!(
            began.elapsed() < Duration::from_secs(120),
            "{what}: {:?}",
            began.elapsed()
        );
    }
}

/// `conformance choices` against a server that never gives a usable answer
/// to a body (a redirect loop, a chunked body over the cap that never
/// ends): no `body_limit` is declared (it was `none`, "no limit", from
/// every size going unrefused), nor a `body_too_large` status.
#[tokio::test(flavor = "multi_thread")]
async fn choices_declares_no_body_limit_without_a_usable_answer() {
    for how in [Misbehaviour::Redirect, Misbehaviour::EndlessChunks] {
        let url = start(how).await;
        match conformance_suite::observe::observe_within(profile(url), &options()).await {
            Ok(seen) => {
                assert_eq!(seen.body_limit, None, "{how:?}");
                assert_eq!(seen.body_too_large, None, "{how:?}");
            }
            other => panic!("{how:?}: the server answers; expected what was seen, got {other:?}"),
        }
    }
}

/// `choices --deadline`: a server that answers, slowly, is cut off at the
/// deadline with an error, not waited for probe after probe.
#[tokio::test(flavor = "multi_thread")]
async fn choices_ends_at_its_deadline() {
    let server = reference_server::Server::start(reference_server::ServerOptions::default())
        .await
        .expect("server");
    // A proxy that delays every answer by 150 ms: each probe answers, the
    // whole takes far longer than the deadline.
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let upstream = server
        .base_url()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let upstream = upstream.clone();
            tokio::spawn(async move {
                let Ok(mut u) = TcpStream::connect(&upstream).await else {
                    return;
                };
                tokio::time::sleep(Duration::from_millis(150)).await;
                let _ = tokio::io::copy_bidirectional(&mut s, &mut u).await;
            });
        }
    });
    let options = RunOptions {
        deadline: Some(Duration::from_millis(600)),
        ..options()
    };
    let began = Instant::now();
    match conformance_suite::observe::observe_within(profile(format!("http://{addr}")), &options)
        .await
    {
        Err(RunError::Unreachable { reason, .. }) => {
            assert!(reason.contains("deadline"), "{reason}")
        }
        other => panic!("expected the deadline, got {other:?}"),
    }
    // A hang guard only: the deadline's error is the verdict.
    assert!(
        began.elapsed() < Duration::from_secs(120),
        "{:?}",
        began.elapsed()
    );
    server.shutdown().await;
}
