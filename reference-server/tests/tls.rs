//! HTTPS: a certificate made at test time (rcgen), the server in-process and
//! as the binary, real TLS on loopback; bad certificates and keys refused
//! with the file and what is wrong.

mod common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::*;
use reference_server::{Server, ServerOptions, TlsConfig};

const BIN: &str = env!("CARGO_BIN_EXE_reference-server");

/// A self-signed certificate for 127.0.0.1 and localhost: (cert PEM, key PEM).
fn self_signed() -> (String, String) {
    let names = vec!["127.0.0.1".to_owned(), "localhost".to_owned()];
    let made = rcgen::generate_simple_self_signed(names)
        .unwrap_or_else(|e| panic!("cannot make a certificate: {e}"));
    (made.cert.pem(), made.signing_key.serialize_pem())
}

/// A client that trusts `cert_pem` and nothing else.
fn trusting(cert_pem: &str) -> reqwest::Client {
    install_ring();
    let cert = reqwest::Certificate::from_pem(cert_pem.as_bytes())
        .unwrap_or_else(|e| panic!("reqwest refused the test certificate: {e}"));
    reqwest::Client::builder()
        .no_proxy()
        .tls_certs_only([cert])
        .build()
        .unwrap_or_else(|e| panic!("cannot build a client: {e}"))
}

fn tls(cert: &str, key: &str) -> TlsConfig {
    TlsConfig::from_pem(cert.as_bytes(), key.as_bytes())
        .unwrap_or_else(|e| panic!("TlsConfig refused a good certificate: {e}"))
}

async fn get_catalog(client: &reqwest::Client, base_url: &str) -> reqwest::Result<Resp> {
    let url = format!("{base_url}/v2/api/component/catalog/auth");
    let response = client
        .get(&url)
        .header("X-Client-Id", CLIENT_ID)
        .header("X-Client-Secret", CLIENT_SECRET)
        .send()
        .await?;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.bytes().await?.to_vec();
    let json = serde_json::from_slice(&bytes).ok();
    Ok(Resp {
        status,
        headers,
        bytes,
        json,
    })
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
    let base = server.base_url();
    assert!(base.starts_with("https://127.0.0.1:"), "{base}");

    // Twice on one client: the second request rides the kept-alive TLS connection.
    let client = trusting(&cert);
    for _ in 0..2 {
        let resp = get_catalog(&client, &base)
            .await
            .unwrap_or_else(|e| panic!("GET over https: {e:?}"));
        assert_eq!(resp.assert_ok()["component"]["tag"], "catalog");
    }

    // A client that trusts another certificate refuses this one.
    let (other, _) = self_signed();
    let refused = get_catalog(&trusting(&other), &base).await;
    let err = refused
        .err()
        .unwrap_or_else(|| panic!("an untrusted certificate was accepted"));
    assert!(err.is_connect(), "{err:?}");

    // Plain HTTP on the TLS port gets no answer: the handshake fails.
    let plain = base.replacen("https://", "http://", 1);
    assert!(get_catalog(&client, &plain).await.is_err());

    // The server still serves after both failed handshakes.
    get_catalog(&client, &base)
        .await
        .unwrap_or_else(|e| panic!("GET after failed handshakes: {e:?}"))
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
        .strip_prefix("listening on ")
        .map(str::to_owned);
    let served = base.as_deref().map(|base| {
        let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
        runtime.block_on(get_catalog(&trusting(&cert), base))
    });
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    read.unwrap_or_else(|e| panic!("reading stdout: {e}"));
    let base = base.unwrap_or_else(|| panic!("first line was {first:?}"));
    assert!(base.starts_with("https://127.0.0.1:"), "{first:?}");
    let resp = served
        .unwrap_or_else(|| unreachable!())
        .unwrap_or_else(|e| panic!("GET {base}: {e:?}"));
    resp.assert_ok();
}
