//! How the runner reaches a target: the roots it trusts, the certificate it
//! presents, proxies, and headers a gateway in front of the server needs.
//!
//! Every client the runner builds starts from [`Connect::builder`], which
//! starts from the bindings' [`client_builder`]: rustls, and no redirect
//! followed, so no request goes to a host other than the profile's.

use std::fmt;
use std::path::{Path, PathBuf};

use component_auth_bindings::client_builder;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::transport::Limits;

/// Header names the interface itself uses: a `--header` may not replace
/// them, or the checks would no longer send what they say they send.
const RESERVED: &[&str] = &[
    "x-client-id",
    "x-client-secret",
    "x-auth-token",
    "x-project-env",
    "content-type",
    "content-length",
    "host",
    "transfer-encoding",
    "connection",
];

/// How to connect; the default trusts the platform's roots, presents no
/// certificate, honours `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` and adds no
/// header.
#[derive(Clone, Default)]
pub struct Connect {
    /// Extra roots (`--ca-cert`), trusted beside the platform's.
    pub ca_certs: Vec<reqwest::Certificate>,
    /// A client certificate and key for mutual TLS (`--client-cert`, `--client-key`).
    pub identity: Option<reqwest::Identity>,
    /// Connect directly whatever the proxy variables say (the embedded
    /// server, on loopback in this process).
    pub no_proxy: bool,
    /// The target is an `http://` URL reached directly: no TLS is ever
    /// spoken, so the clients do not load the platform's roots (each client
    /// would read and parse every certificate of the system store).
    pub plain_http: bool,
    /// Sent with every request (`--header`); their values are treated as
    /// secrets: never recorded, and scrubbed from whatever the server echoes.
    pub headers: HeaderMap,
}

impl fmt::Debug for Connect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connect")
            .field("ca_certs", &self.ca_certs.len())
            .field("identity", &self.identity.is_some())
            .field("no_proxy", &self.no_proxy)
            .field("plain_http", &self.plain_http)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Why the connection settings cannot be used (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot read {what} {path}: {source}")]
    Read {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{what} {path} is not usable: {reason}")]
    Invalid {
        what: &'static str,
        path: PathBuf,
        reason: String,
    },
    #[error("--client-cert and --client-key go together; only {given} was given")]
    HalfIdentity { given: &'static str },
    #[error("--header `{header}`: {reason}")]
    Header { header: String, reason: String },
}

impl Connect {
    /// Adds the PEM certificates in `path` (one or a bundle) as roots.
    pub fn add_ca_file(&mut self, path: &Path) -> Result<(), ConnectError> {
        let what = "the CA certificate";
        let pem = read(what, path)?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|e| invalid(what, path, &e.to_string()))?;
        if certs.is_empty() {
            return Err(invalid(what, path, "it holds no PEM certificate"));
        }
        self.ca_certs.extend(certs);
        Ok(())
    }

    /// Presents the PEM certificate chain in `cert` with the private key in
    /// `key` (PKCS#8, PKCS#1 or SEC1) to servers that ask for one.
    pub fn set_identity(
        &mut self,
        cert: Option<&Path>,
        key: Option<&Path>,
    ) -> Result<(), ConnectError> {
        match (cert, key) {
            (None, None) => Ok(()),
            (Some(_), None) => Err(ConnectError::HalfIdentity {
                given: "--client-cert",
            }),
            (None, Some(_)) => Err(ConnectError::HalfIdentity {
                given: "--client-key",
            }),
            (Some(cert), Some(key)) => {
                let mut pem = read("the client certificate", cert)?;
                if !contains(&pem, b"CERTIFICATE-----") {
                    return Err(invalid(
                        "the client certificate",
                        cert,
                        "it holds no PEM certificate",
                    ));
                }
                let key_pem = read("the client key", key)?;
                if !contains(&key_pem, b"PRIVATE KEY-----") {
                    return Err(invalid(
                        "the client key",
                        key,
                        "it holds no PEM private key",
                    ));
                }
                pem.push(b'\n');
                pem.extend_from_slice(&key_pem);
                let identity = reqwest::Identity::from_pem(&pem)
                    .map_err(|e| invalid("the client certificate and key", cert, &e.to_string()))?;
                self.identity = Some(identity);
                Ok(())
            }
        }
    }

    /// Adds `NAME:VALUE` (from `--header`).
    pub fn add_header(&mut self, spec: &str) -> Result<(), ConnectError> {
        let refuse = |reason: &str| ConnectError::Header {
            // The value may be a secret: only the name is repeated.
            header: spec.split(':').next().unwrap_or_default().trim().to_owned(),
            reason: reason.to_owned(),
        };
        let (name, value) = spec
            .split_once(':')
            .ok_or_else(|| refuse("write it as NAME:VALUE"))?;
        let name = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| refuse("not a valid header name"))?;
        if RESERVED.contains(&name.as_str()) {
            return Err(refuse(
                "the interface's own headers are set by the checks, not by --header",
            ));
        }
        let mut value = HeaderValue::from_str(value.trim())
            .map_err(|_| refuse("the value is not a valid header value"))?;
        value.set_sensitive(true);
        self.headers.append(name, value);
        Ok(())
    }

    /// The values of `--header`s, for the scrubber.
    pub fn header_values(&self) -> Vec<String> {
        self.headers
            .values()
            .filter_map(|v| v.to_str().ok())
            .map(str::to_owned)
            .collect()
    }

    /// A client builder with these settings and `limits`' connect time-out.
    pub fn builder(&self, limits: &Limits) -> reqwest::ClientBuilder {
        let mut b = client_builder()
            .connect_timeout(limits.timeout)
            .default_headers(self.headers.clone());
        if self.plain_http {
            b = b.tls_certs_only(self.ca_certs.iter().cloned());
        } else if !self.ca_certs.is_empty() {
            b = b.tls_certs_merge(self.ca_certs.iter().cloned());
        }
        if let Some(identity) = &self.identity {
            b = b.identity(identity.clone());
        }
        if self.no_proxy {
            b = b.no_proxy();
        }
        b
    }
}

fn read(what: &'static str, path: &Path) -> Result<Vec<u8>, ConnectError> {
    // A regular file only (a FIFO would wait for a writer), 1 MiB at most:
    // a PEM file is a few kilobytes.
    yaml_location::input::read_limited(path, 1 << 20).map_err(|e| ConnectError::Read {
        what,
        path: path.to_owned(),
        source: e.into(),
    })
}

fn invalid(what: &'static str, path: &Path, reason: &str) -> ConnectError {
    ConnectError::Invalid {
        what,
        path: path.to_owned(),
        reason: reason.to_owned(),
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_checked_and_the_value_never_repeated() {
        let mut c = Connect::default();
        c.add_header("X-Gateway-Key: s3cr3t-value").expect("valid");
        assert_eq!(c.header_values(), vec!["s3cr3t-value".to_owned()]);
        for bad in [
            "no-colon",
            "X-Client-Secret: s3cr3t-value",
            "bad name: s3cr3t-value",
        ] {
            let e = c.add_header(bad).expect_err(bad).to_string();
            assert!(!e.contains("s3cr3t-value"), "{e}");
        }
    }

    #[test]
    fn a_client_certificate_and_key_load_and_a_bad_key_is_named() {
        let made = rcgen::generate_simple_self_signed(vec!["client".to_owned()]).expect("cert");
        let dir = std::env::temp_dir().join(format!("connect-id-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let (cert, key, bad) = (dir.join("c.pem"), dir.join("k.pem"), dir.join("bad.pem"));
        std::fs::write(&cert, made.cert.pem()).expect("write");
        std::fs::write(&key, made.signing_key.serialize_pem()).expect("write");
        std::fs::write(&bad, "not a key").expect("write");
        let mut c = Connect::default();
        c.set_identity(Some(&cert), Some(&key)).expect("loads");
        assert!(c.identity.is_some());
        let e = c
            .set_identity(Some(&cert), Some(&bad))
            .expect_err("bad key");
        assert!(e.to_string().contains("bad.pem"), "{e}");
        assert!(c.builder(&Limits::default()).build().is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn identity_needs_both_halves() {
        let mut c = Connect::default();
        let e = c
            .set_identity(Some(Path::new("c.pem")), None)
            .expect_err("half");
        assert!(e.to_string().contains("--client-cert"), "{e}");
        let e = c
            .add_ca_file(Path::new("/nonexistent/ca.pem"))
            .expect_err("missing");
        assert!(e.to_string().contains("/nonexistent/ca.pem"), "{e}");
    }
}
