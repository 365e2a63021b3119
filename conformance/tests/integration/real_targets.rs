//! Targets as they are met outside loopback tests: a server that redirects,
//! and nothing sent to the host a redirect names.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use conformance::run;
use conformance_model::profile::Profile;
use conformance_report::report::Status;
use conformance_suite::observe::observe;
use conformance_suite::runner::RunOptions;
use conformance_wire::transport::Limits;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use tokio::net::TcpListener;

const PROFILE: &str = include_str!("../../profiles/reference.yaml");

fn profile(base_url: String) -> Profile {
    let mut p = Profile::from_yaml_str(PROFILE, "reference.yaml", &|_| None).expect("profile");
    p.base_url = base_url;
    p
}

/// An HTTP/1.1 server on an ephemeral port answering every request with
/// what `answer` makes of it (hyper reads the requests).
async fn serve<F>(answer: F) -> String
where
    F: Fn(&Request<Incoming>) -> Response<Full<Bytes>> + Clone + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let answer = answer.clone();
            let service = service_fn(move |req| {
                let response = answer(&req);
                async move { Ok::<_, Infallible>(response) }
            });
            tokio::spawn(http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    format!("http://{addr}")
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
    serve(move |req| {
        Response::builder()
            .status(307)
            .header("location", format!("{to}{}", req.uri().path()))
            .body(Full::default())
            .expect("a valid answer")
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_is_an_answer_that_fails_and_is_never_followed() {
    let (elsewhere, connections) = capturing_server().await;
    let url = redirecting_server(elsewhere.clone()).await;
    let report = run(profile(url), &RunOptions::default())
        .await
        .expect("the run completes");
    assert_eq!(report.run.exit_code(), 1);
    // One check judges redirects, over every other check's answers: a MUST,
    // naming each check that was redirected, with the Location.
    let redirects = report
        .run
        .results
        .iter()
        .find(|r| r.id == "answers/no-redirects")
        .expect("the redirect check ran");
    assert_eq!(redirects.status, Status::Failed, "{redirects:?}");
    assert_eq!(redirects.level, conformance_suite::catalogue::Level::Must);
    let actual = redirects.actual.as_deref().unwrap_or_default();
    assert!(
        actual.contains("307") && actual.contains(&format!("Location {elsewhere}/v2/api/")),
        "the failure does not show the redirect and its Location: {actual}"
    );
    assert!(
        actual.contains("headers/auth-claims/valid: "),
        "the failure does not name the check that was redirected: {actual}"
    );
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "a request went to the host the redirect named"
    );
}

/// Answers every request `429` with `Retry-After: 0`.
async fn rate_limited_server() -> String {
    serve(|_| {
        let body = r#"{"code":429,"message":"slow down","request_id":"r","status":false}"#;
        Response::builder()
            .status(429)
            .header("content-type", "application/json")
            .header("x-project-uuid", "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d")
            .header("retry-after", "0")
            .body(Full::new(Bytes::from_static(body.as_bytes())))
            .expect("a valid answer")
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_only_limits_is_not_judged_and_the_run_is_not_green() {
    let url = rate_limited_server().await;
    let options = RunOptions {
        only: vec!["headers/auth-claims/valid".into()],
        ..RunOptions::default()
    };
    let report = run(profile(url), &options).await.expect("run");
    // A 429 is not a pass, nor the server's answer to the rule: not
    // judged, with its own exit code.
    assert_eq!(
        report.run.exit_code(),
        conformance_suite::gate::NOT_JUDGED_EXIT,
        "a 429 is not a pass"
    );
    let result = report
        .run
        .results
        .iter()
        .find(|r| r.id == "headers/auth-claims/valid")
        .expect("the check ran");
    let actual = result.actual.as_deref().unwrap_or_default();
    // Never judged on the limit answer as if it were the server's answer
    // to the rule: not judged, saying why and what pace would avoid it.
    assert!(
        actual.starts_with("not judged: the server limited"),
        "{actual}"
    );
    assert!(actual.contains("--rate"), "{actual}");
    // Re-sent a bounded number of times (the defaults), then given up on:
    // a server that answers nothing but limits does not hold the run.
    assert!(report.run.pace.retried <= 8, "{:?}", report.run.pace);
    assert!(report.run.pace.limited > 0, "{:?}", report.run.pace);
    assert!(
        report.run.pace.line().contains("limit answers"),
        "{}",
        report.run.pace.line()
    );
}

/// The 7.1 envelope of a 429, gzip-compressed (`gzip.compress(..., mtime=0)`).
const GZIPPED_LIMIT: &[u8] = &[
    31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 171, 86, 74, 206, 79, 73, 85, 178, 50, 49, 178, 212, 81, 202,
    77, 45, 46, 78, 76, 7, 242, 148, 138, 115, 242, 203, 21, 82, 242, 203, 243, 148, 116, 148, 138,
    82, 11, 75, 83, 139, 75, 226, 51, 83, 128, 18, 69, 64, 129, 226, 146, 196, 146, 210, 98, 37,
    171, 180, 196, 156, 226, 212, 90, 0, 100, 162, 115, 207, 66, 0, 0, 0,
];

/// A limit answer compresses like any other answer where the request
/// accepts it: the runner decodes it before judging it as an error answer
/// (it judged the gzip bytes, "the body is not JSON", and failed a correct
/// server whenever its compression probe was the request limited).
#[tokio::test(flavor = "multi_thread")]
async fn a_compressed_limit_answer_is_decoded_before_it_is_judged() {
    let url = serve(|req| {
        let gzip = req
            .headers()
            .get("accept-encoding")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("gzip"));
        let answer = Response::builder()
            .status(429)
            .header("content-type", "application/json")
            .header("x-project-uuid", "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d")
            .header("retry-after", "0");
        if gzip {
            answer
                .header("content-encoding", "gzip")
                .body(Full::new(Bytes::from_static(GZIPPED_LIMIT)))
        } else {
            let body = r#"{"code":429,"message":"slow down","request_id":"r","status":false}"#;
            answer.body(Full::new(Bytes::from_static(body.as_bytes())))
        }
        .expect("a valid answer")
    })
    .await;
    let options = RunOptions {
        only: vec![
            "compression/accept-encoding".into(),
            "answers/limit-answers-are-envelopes".into(),
        ],
        // One re-send: the answers kept are the first ones.
        limits: conformance_wire::transport::Limits {
            retries: 1,
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let report = run(profile(url), &options).await.expect("run");
    let envelopes = report
        .run
        .results
        .iter()
        .find(|r| r.id == "answers/limit-answers-are-envelopes")
        .expect("the check ran");
    assert_eq!(envelopes.status, Status::Passed, "{envelopes:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_limits_its_rate_passes_at_any_concurrency() {
    for concurrency in [1, 64] {
        // A server of its own each time: its 30th request is limited
        // whatever the pace, so a run meets the limiter on a busy machine.
        let server = reference_server::Server::start(reference_server::ServerOptions {
            variants: vec![reference_server::Variant::RateLimit],
            ..Default::default()
        })
        .await
        .expect("server");
        let options = RunOptions {
            limits: conformance_wire::transport::Limits {
                concurrency,
                ..Default::default()
            },
            ..RunOptions::default()
        };
        let report = run(profile(server.base_url()), &options)
            .await
            .expect("run");
        let failed: Vec<_> = report
            .failed()
            .map(|r| format!("{}: {}", r.id, r.actual.as_deref().unwrap_or("")))
            .collect();
        assert!(failed.is_empty(), "concurrency {concurrency}: {failed:#?}");
        // The limit answers were honoured (and judged as envelopes), never
        // taken for the server's answer to a rule.
        assert!(report.run.pace.limited > 0, "{:?}", report.run.pace);
        let limits = report
            .run
            .results
            .iter()
            .find(|r| r.id == "answers/limit-answers-are-envelopes")
            .expect("the check ran");
        assert_eq!(limits.status, Status::Passed);
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn rate_and_deadline_are_kept() {
    let server = reference_server::Server::start(reference_server::ServerOptions::default())
        .await
        .expect("server");
    let rate = 40.0;
    let options = RunOptions {
        only: vec!["headers/auth-claims".into()],
        limits: conformance_wire::transport::Limits {
            rate: Some(rate),
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let began = std::time::Instant::now();
    let report = run(profile(server.base_url()), &options)
        .await
        .expect("run");
    let took = began.elapsed();
    assert_eq!(report.run.exit_code(), 0);
    // The preflight and one request per check, 1/rate apart.
    let requests = report.run.results.len() + 1;
    let least = std::time::Duration::from_secs_f64((requests - 1) as f64 / rate);
    assert!(took >= least, "{requests} requests in {took:?} at {rate}/s");
    assert_eq!(report.run.pace.rate, Some(rate));

    let options = RunOptions {
        deadline: Some(std::time::Duration::from_millis(1)),
        limits: conformance_wire::transport::Limits {
            rate: Some(rate),
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let report = run(profile(server.base_url()), &options)
        .await
        .expect("run");
    // Cut off by the deadline: not judged (exit 3), never a failure of a
    // rule they did not get to judge.
    assert_eq!(
        report.run.exit_code(),
        conformance_suite::gate::NOT_JUDGED_EXIT
    );
    assert_eq!(report.summary.failed, 0);
    let late = report
        .run
        .results
        .iter()
        .filter(|r| r.status == conformance_report::report::Status::NotJudged)
        .filter(|r| r.actual.as_deref().unwrap_or("").contains("deadline"))
        .count();
    assert!(late > 10, "checks cut off by the deadline: {late}");
    assert_eq!(report.run.pace.deadline_ms, Some(1));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_suite_passes_over_https_and_refuses_an_untrusted_certificate() {
    use conformance_suite::runner::RunError;
    use conformance_wire::connect::Connect;
    let made =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).expect("a certificate");
    let (cert, key) = (made.cert.pem(), made.signing_key.serialize_pem());
    let server = reference_server::Server::start(reference_server::ServerOptions {
        tls: Some(
            reference_server::TlsConfig::from_pem(cert.as_bytes(), key.as_bytes())
                .expect("tls config"),
        ),
        ..Default::default()
    })
    .await
    .expect("server");
    let url = server.base_url();
    assert!(url.starts_with("https://"), "{url}");

    // Untrusted: one clear refusal, before any check runs.
    let mut options = RunOptions {
        connect: Connect {
            no_proxy: true,
            ..Connect::default()
        },
        ..RunOptions::default()
    };
    match run(profile(url.clone()), &options).await {
        Err(RunError::Unreachable { reason, .. }) => {
            assert!(reason.contains("certificate"), "{reason}");
            assert!(reason.contains("--ca-cert"), "{reason}");
        }
        other => panic!("expected an untrusted certificate to be refused, got {other:?}"),
    }

    // Trusted through --ca-cert: the whole suite passes over https.
    let ca = std::env::temp_dir().join(format!("conformance-ca-{}.pem", std::process::id()));
    std::fs::write(&ca, &cert).expect("write the CA");
    options.connect.add_ca_file(&ca).expect("a PEM certificate");
    let report = run(profile(url), &options).await.expect("run");
    let failed: Vec<_> = report.failed().map(|r| r.id.clone()).collect();
    assert_eq!(report.run.exit_code(), 0, "failed over https: {failed:?}");
    assert!(report.summary.passed > 80);
    let _ = std::fs::remove_file(&ca);
    server.shutdown().await;
}

/// A server that sends its own certificate without the intermediate that
/// links it to the CA the run was given: exit 2, saying which link is
/// missing (not "give its CA with --ca-cert", which was given).
#[tokio::test(flavor = "multi_thread")]
async fn a_chain_without_its_intermediate_says_which_link_is_missing() {
    use conformance_suite::runner::RunError;
    use conformance_wire::connect::Connect;
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
    let ca_params = |name: &str| {
        let mut p = CertificateParams::new(Vec::<String>::new()).expect("params");
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        p.distinguished_name.push(DnType::CommonName, name);
        p
    };
    let ca = CertifiedIssuer::self_signed(
        ca_params("Conformance Test Root"),
        KeyPair::generate().expect("a key"),
    )
    .expect("the root");
    let mid = CertifiedIssuer::signed_by(
        ca_params("Conformance Test Intermediate"),
        KeyPair::generate().expect("a key"),
        &ca,
    )
    .expect("the intermediate");
    let leaf_key = KeyPair::generate().expect("a key");
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .expect("params")
        .signed_by(&leaf_key, &mid)
        .expect("the leaf");
    // The leaf alone: the intermediate is not sent.
    let server = reference_server::Server::start(reference_server::ServerOptions {
        tls: Some(
            reference_server::TlsConfig::from_pem(
                leaf.pem().as_bytes(),
                leaf_key.serialize_pem().as_bytes(),
            )
            .expect("tls config"),
        ),
        ..Default::default()
    })
    .await
    .expect("server");
    let ca_file = std::env::temp_dir().join(format!("conformance-root-{}.pem", std::process::id()));
    std::fs::write(&ca_file, ca.pem()).expect("write the root");
    let mut options = RunOptions {
        connect: Connect {
            no_proxy: true,
            ..Connect::default()
        },
        ..RunOptions::default()
    };
    options
        .connect
        .add_ca_file(&ca_file)
        .expect("a PEM certificate");
    match run(profile(server.base_url()), &options).await {
        Err(RunError::Unreachable { reason, .. }) => {
            assert!(reason.contains("intermediate"), "{reason}");
            assert!(reason.contains("whole chain"), "{reason}");
            assert!(!reason.contains("give its CA"), "{reason}");
        }
        other => panic!("expected the chain to be refused, got {other:?}"),
    }
    let _ = std::fs::remove_file(&ca_file);
    server.shutdown().await;
}

/// Answers every request as a FastAPI service answers a body its model
/// refuses: 417 whose `errors` quote the whole input; a body declared over
/// `limit` bytes, 413.
async fn echoing_server(limit: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let service = service_fn(move |req: Request<Incoming>| async move {
                let declared = req
                    .headers()
                    .get("content-length")
                    .and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
                    .unwrap_or(0);
                let (status, body) = if declared > limit {
                    (
                        413,
                        serde_json::json!({"code": 413, "message": "too large", "status": false}),
                    )
                } else {
                    let bytes = req.into_body().collect().await.map(|b| b.to_bytes());
                    let input = String::from_utf8_lossy(&bytes.unwrap_or_default()).into_owned();
                    let item = serde_json::json!({"msg": "invalid", "input": input});
                    (
                        417,
                        serde_json::json!({"code": 417, "errors": [item], "status": false}),
                    )
                };
                Ok::<_, Infallible>(
                    Response::builder()
                        .status(status)
                        .header("content-type", "application/json")
                        .header("x-project-uuid", "9f0a4c3e-2b1d-4e6f-8a7b-1c2d3e4f5a6b")
                        .body(Full::new(Bytes::from(body.to_string())))
                        .expect("a valid answer"),
                )
            });
            tokio::spawn(http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    format!("http://{addr}")
}

/// `conformance choices` finds the body limit of a server whose refusals
/// echo the body: an answer larger than the run's cap is an answer (the
/// request was taken), not a refusal. It took one for a refusal and printed
/// a limit just under the cap.
#[tokio::test(flavor = "multi_thread")]
async fn an_echoing_answer_over_the_cap_is_no_refusal_of_the_body() {
    let limit = 100 * 1024;
    let url = echoing_server(limit).await;
    let options = RunOptions {
        limits: Limits {
            max_body_bytes: 64 * 1024,
            ..Limits::default()
        },
        ..RunOptions::default()
    };
    let seen = observe(profile(url), &options).await.expect("observed");
    assert_eq!(seen.body_limit, Some(limit as u64), "{seen:?}");
    assert_eq!(seen.body_too_large, Some(413), "{seen:?}");
}

/// A server whose 417 items are not the spec's in every way (its answer to
/// a request without modelUuid does not name it): `choices` observes
/// `validation_items: other`, as the check that holds the choice judges, so
/// the very next run with what it wrote agrees with it.
#[tokio::test(flavor = "multi_thread")]
async fn validation_items_are_observed_as_their_check_judges_them() {
    const ITEMS: &str = r#"{"code":417,"status":false,"errors":[{"field":"email","rule":"format","message":"not an email"}]}"#;
    let url = serve(|_| {
        Response::builder()
            .status(417)
            .header("content-type", "application/json")
            .header("x-project-uuid", "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d")
            .body(Full::new(Bytes::from_static(ITEMS.as_bytes())))
            .expect("an answer")
    })
    .await;
    let observed =
        conformance_suite::observe::observe_within(profile(url.clone()), &RunOptions::default())
            .await
            .expect("observed");
    assert_eq!(
        observed.validation_items().value,
        conformance_model::choices::Shape::Other
    );
    let mut p = profile(url);
    p.choices = observed;
    let options = RunOptions {
        only: vec!["choices/validation-items".into()],
        ..RunOptions::default()
    };
    let report = run(p, &options).await.expect("run");
    let r = report
        .run
        .results
        .iter()
        .find(|r| r.id == "choices/validation-items")
        .expect("the check ran");
    assert_ne!(r.status, Status::Failed, "{:?}", r.actual);
}
