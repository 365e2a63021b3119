//! HTTPS: a certificate made at test time (rcgen), the server in-process and
//! as the binary, real TLS on loopback; bad certificates and keys refused
//! with the file and what is wrong.
//!
//! The client is tokio-rustls on ring with the test certificate as its only
//! root, speaking HTTP/1.1 by hand: reqwest's TLS features would be
//! unified into the whole workspace's reqwest under `cargo test --workspace`.

use crate::common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use reference_server::{Server, ServerOptions, TlsConfig};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

const BIN: &str = env!("CARGO_BIN_EXE_reference-server");

/// A self-signed certificate for 127.0.0.1 and localhost: (cert PEM, key PEM).
fn self_signed() -> (String, String) {
    let names = vec!["127.0.0.1".to_owned(), "localhost".to_owned()];
    let made = rcgen::generate_simple_self_signed(names)
        .unwrap_or_else(|e| panic!("cannot make a certificate: {e}"));
    (made.cert.pem(), made.signing_key.serialize_pem())
}

fn tls(cert: &str, key: &str) -> TlsConfig {
    TlsConfig::from_pem(cert.as_bytes(), key.as_bytes())
        .unwrap_or_else(|e| panic!("TlsConfig refused a good certificate: {e}"))
}

/// A TLS client that trusts `cert_pem` and nothing else.
fn trusting(cert_pem: &str) -> TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(cert_pem.as_bytes()) {
        let cert = cert.unwrap_or_else(|e| panic!("test certificate: {e}"));
        roots
            .add(cert)
            .unwrap_or_else(|e| panic!("test certificate as a root: {e}"));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap_or_else(|e| panic!("{e}"))
        .with_root_certificates(roots)
        .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

fn get_catalog(close: bool) -> String {
    let connection = if close { "Connection: close\r\n" } else { "" };
    format!(
        "GET /v2/api/component/catalog/auth HTTP/1.1\r\nHost: 127.0.0.1\r\n\
         X-Client-Id: {CLIENT_ID}\r\nX-Client-Secret: {CLIENT_SECRET}\r\n{connection}\r\n"
    )
}

/// One answer (head and `Content-Length` body), as a [`Resp`].
async fn read_answer<S: AsyncRead + Unpin>(stream: &mut S) -> Result<Resp, String> {
    let mut buf = Vec::new();
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).into_owned();
            let mut lines = head.lines();
            let status = lines
                .next()
                .and_then(|l| l.split(' ').nth(1))
                .and_then(|s| s.parse::<u16>().ok())
                .ok_or_else(|| format!("no status line in {head:?}"))?;
            let mut headers = reqwest::header::HeaderMap::new();
            for line in lines {
                let (name, value) = line.split_once(':').ok_or(format!("header {line:?}"))?;
                let name = reqwest::header::HeaderName::from_bytes(name.trim().as_bytes());
                let value = reqwest::header::HeaderValue::from_str(value.trim());
                if let (Ok(name), Ok(value)) = (name, value) {
                    headers.append(name, value);
                }
            }
            let length = headers
                .get("content-length")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + length {
                let bytes = buf[end + 4..end + 4 + length].to_vec();
                let json = serde_json::from_slice(&bytes).ok();
                return Ok(Resp {
                    status,
                    headers,
                    bytes,
                    json,
                });
            }
        }
        let mut chunk = [0u8; 4096];
        match stream.read(&mut chunk).await {
            Ok(0) => return Err("closed before a whole answer".to_owned()),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) => return Err(format!("read: {e}")),
        }
    }
}

/// `requests` GETs of `catalog` over one TLS connection to `addr`, the last
/// one closing it; the answers, or why there were none.
async fn https_gets(
    connector: &TlsConnector,
    addr: SocketAddr,
    requests: usize,
) -> Result<Vec<Resp>, String> {
    let work = async {
        let tcp = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let name = ServerName::from(addr.ip());
        let mut stream = connector
            .connect(name, tcp)
            .await
            .map_err(|e| format!("handshake: {e}"))?;
        let mut answers = Vec::new();
        for i in 1..=requests {
            let request = get_catalog(i == requests);
            stream
                .write_all(request.as_bytes())
                .await
                .map_err(|e| format!("write: {e}"))?;
            answers.push(read_answer(&mut stream).await?);
        }
        Ok(answers)
    };
    tokio::time::timeout(Duration::from_secs(5), work)
        .await
        .unwrap_or_else(|_| Err("no answer within 5 s".to_owned()))
}

#[tokio::test]
async fn serves_https_to_a_client_that_trusts_the_certificate_only() {
    let (cert, key) = self_signed();
    let server = Server::start(ServerOptions {
        tls: Some(tls(&cert, &key)),
        ..ServerOptions::default()
    })
    .await
    .unwrap_or_else(|e| panic!("cannot start: {e}"));
    assert_eq!(server.base_url(), format!("https://{}", server.addr()));

    // Twice on one connection: the second request rides the kept-alive TLS.
    let client = trusting(&cert);
    let answers = https_gets(&client, server.addr(), 2)
        .await
        .unwrap_or_else(|e| panic!("GET over https: {e}"));
    assert_eq!(answers.len(), 2);
    for resp in &answers {
        assert_eq!(resp.assert_ok()["component"]["tag"], "catalog");
    }

    // A client that trusts another certificate refuses this one.
    let (other, _) = self_signed();
    let refused = https_gets(&trusting(&other), server.addr(), 1).await;
    let err = refused
        .err()
        .unwrap_or_else(|| panic!("an untrusted certificate was accepted"));
    assert!(
        err.starts_with("handshake:") && err.contains("certificate"),
        "{err}"
    );

    // Plain HTTP on the TLS port gets no HTTP answer: the handshake fails.
    let mut plain = TcpStream::connect(server.addr())
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    plain
        .write_all(get_catalog(true).as_bytes())
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), plain.read_to_end(&mut out)).await;
    assert!(
        !out.starts_with(b"HTTP/"),
        "{}",
        String::from_utf8_lossy(&out)
    );

    // The server still serves after both failed handshakes.
    https_gets(&client, server.addr(), 1)
        .await
        .unwrap_or_else(|e| panic!("GET after failed handshakes: {e}"))[0]
        .assert_ok();
    server.shutdown().await;
}

#[test]
fn bad_pem_is_refused_saying_what_is_wrong() {
    let (cert, key) = self_signed();
    let (other_cert, other_key) = self_signed();
    let refuse = |cert: &str, key: &str| match TlsConfig::from_pem(cert.as_bytes(), key.as_bytes())
    {
        Ok(_) => panic!("accepted {cert:.30} with {key:.30}"),
        Err(e) => e.to_string(),
    };
    let e = refuse("", &key);
    assert!(e.starts_with("certificate: no certificate found"), "{e}");
    let e = refuse(&key, &key);
    assert!(e.starts_with("certificate: no certificate found"), "{e}");
    let e = refuse(&cert, &cert);
    assert!(e.starts_with("private key: no private key found"), "{e}");
    let truncated = &cert[..cert.len() / 2];
    let e = refuse(truncated, &key);
    assert!(
        e.starts_with("certificate: a PEM block has no END line"),
        "{e}"
    );
    let e = refuse(&cert, &other_key);
    assert_eq!(
        e,
        "certificate and private key: the private key is not the certificate's"
    );
    // No message shows the key.
    let body = |pem: &str| pem.lines().nth(1).unwrap_or_default().to_owned();
    for e in [refuse(&other_cert, &key), refuse(&cert, &other_key)] {
        assert!(
            !e.contains(&body(&key)) && !e.contains(&body(&other_key)),
            "{e}"
        );
    }
}

/// A scratch directory of its own under the system's temp dir.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "reference-server-tls-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

fn write(path: &PathBuf, text: &str) -> String {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path.display().to_string()
}

#[test]
fn the_binary_refuses_bad_files_with_exit_2_naming_the_file() {
    let dir = scratch("bad");
    let (cert, key) = self_signed();
    let cert_file = write(&dir.join("cert.pem"), &cert);
    let key_file = write(&dir.join("key.pem"), &key);
    let empty_file = write(&dir.join("empty.pem"), "");
    let missing = dir.join("missing.pem").display().to_string();
    let cases: [(&[&str], &str); 5] = [
        (
            &["--tls-cert", &missing, "--tls-key", &key_file],
            "missing.pem: cannot read",
        ),
        (
            &["--tls-cert", &empty_file, "--tls-key", &key_file],
            "empty.pem: no certificate found",
        ),
        (
            &["--tls-cert", &cert_file, "--tls-key", &cert_file],
            "cert.pem: no private key found",
        ),
        // One without the other is a usage error (clap names the flag).
        (&["--tls-cert", &cert_file], "--tls-key"),
        (
            &[
                "--tls-cert",
                &cert_file,
                "--tls-key",
                &key_file,
                "--fault",
                "header-names-case-sensitive",
            ],
            "header-names-case-sensitive",
        ),
    ];
    for (args, says) in cases {
        let output = Command::new(BIN)
            .args(["--port", "0"])
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            !stderr.contains(key.lines().nth(1).unwrap_or("-")),
            "{stderr}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_binary_serves_https_and_says_so_on_its_first_line() {
    let dir = scratch("good");
    let (cert, key) = self_signed();
    let cert_file = write(&dir.join("cert.pem"), &cert);
    let key_file = write(&dir.join("key.pem"), &key);
    let mut child = Command::new(BIN)
        .args(["--port", "0", "--quiet", "--tls-cert", &cert_file])
        .args(["--tls-key", &key_file])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
    let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    let mut first = String::new();
    let read = BufReader::new(stdout).read_line(&mut first);
    let base = first
        .trim_end()
        .strip_prefix("listening on https://")
        .and_then(|addr| addr.parse::<SocketAddr>().ok());
    let served = base.map(|addr| {
        let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
        runtime.block_on(https_gets(&trusting(&cert), addr, 1))
    });
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    read.unwrap_or_else(|e| panic!("reading stdout: {e}"));
    let addr = base.unwrap_or_else(|| panic!("first line was {first:?}"));
    assert!(addr.ip().is_loopback(), "{first:?}");
    let answers = served
        .unwrap_or_else(|| unreachable!())
        .unwrap_or_else(|e| panic!("GET {addr}: {e}"));
    answers[0].assert_ok();
}
