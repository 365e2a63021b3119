//! TLS: a certificate chain and its private key, PEM, served with rustls on
//! the `ring` provider (no C toolchain, no system library).
//!
//! [`TlsConfig`] is built once, before the server listens, so a bad file is
//! an error at start-up naming the file and what is wrong, never a failed
//! handshake later. The key's bytes never reach a message, a log or `Debug`.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// A certificate chain and its private key, ready to serve.
#[derive(Clone)]
pub struct TlsConfig {
    pub(crate) server: Arc<ServerConfig>,
    /// How many certificates the chain holds (for `Debug`).
    chain_len: usize,
}

/// Why a certificate or key was refused. `origin` names where it came from:
/// the file's path, or `certificate`/`private key` for bytes.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("{origin}: cannot read: {error}")]
    Read {
        origin: String,
        #[source]
        error: std::io::Error,
    },
    #[error("{origin}: {what}")]
    Pem { origin: String, what: String },
    #[error("{cert} and {key}: {what}")]
    Mismatch {
        cert: String,
        key: String,
        what: String,
    },
}

impl TlsConfig {
    /// From PEM files: `cert` holds the chain (leaf first), `key` the
    /// private key (PKCS#8, PKCS#1 or SEC1).
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<TlsConfig, TlsError> {
        let read = |path: &Path| {
            // A regular file only (a FIFO would wait for a writer), 1 MiB
            // at most: a certificate chain is a few kilobytes.
            yaml_location::input::read_limited(path, 1 << 20).map_err(|e| TlsError::Read {
                origin: path.display().to_string(),
                error: e.into(),
            })
        };
        let cert_pem = read(cert)?;
        let key_pem = read(key)?;
        build(
            &cert_pem,
            cert.display().to_string(),
            &key_pem,
            key.display().to_string(),
        )
    }

    /// From PEM bytes, e.g. a certificate made at test time.
    pub fn from_pem(cert_pem: &[u8], key_pem: &[u8]) -> Result<TlsConfig, TlsError> {
        build(
            cert_pem,
            "certificate".to_owned(),
            key_pem,
            "private key".to_owned(),
        )
    }
}

impl fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsConfig")
            .field("chain_len", &self.chain_len)
            .finish_non_exhaustive()
    }
}

fn build(
    cert_pem: &[u8],
    cert_source: String,
    key_pem: &[u8],
    key_source: String,
) -> Result<TlsConfig, TlsError> {
    let chain = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pem_error(&cert_source, e))?;
    if chain.is_empty() {
        return Err(TlsError::Pem {
            origin: cert_source,
            what: "no certificate found (expected a PEM block `-----BEGIN CERTIFICATE-----`)"
                .to_owned(),
        });
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| match e {
        pem::Error::NoItemsFound => TlsError::Pem {
            origin: key_source.clone(),
            what: "no private key found (expected a PEM block `-----BEGIN PRIVATE KEY-----`, \
                   `RSA PRIVATE KEY` or `EC PRIVATE KEY`)"
                .to_owned(),
        },
        other => pem_error(&key_source, other),
    })?;
    let chain_len = chain.len();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mismatch = |what: String| TlsError::Mismatch {
        cert: cert_source.clone(),
        key: key_source.clone(),
        what,
    };
    let mut server = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| mismatch(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| mismatch(describe(&e)))?;
    // The server speaks HTTP/1.1 only.
    server.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsConfig {
        server: Arc::new(server),
        chain_len,
    })
}

fn pem_error(source: &str, e: pem::Error) -> TlsError {
    let what = match e {
        pem::Error::NoItemsFound => "no PEM block found".to_owned(),
        pem::Error::MissingSectionEnd { .. } => "a PEM block has no END line".to_owned(),
        pem::Error::IllegalSectionStart { .. } => "a PEM BEGIN line is malformed".to_owned(),
        pem::Error::Base64Decode(_) => "a PEM block is not valid base64".to_owned(),
        other => format!("not valid PEM: {other}"),
    };
    TlsError::Pem {
        origin: source.to_owned(),
        what,
    }
}

/// rustls's reasons, in a user's words where they are terse.
fn describe(e: &rustls::Error) -> String {
    match e {
        rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch) => {
            "the private key is not the certificate's".to_owned()
        }
        rustls::Error::General(msg) if msg.contains("key") => {
            format!("the private key cannot be used: {msg}")
        }
        other => format!("the certificate or key cannot be used: {other}"),
    }
}
