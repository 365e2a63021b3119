//! The one place a `reqwest` client is configured: HTTPS through the TLS
//! backend the crate's features chose (rustls on ring with the platform's
//! roots by default, or native-tls; plain HTTP only without either) and no
//! redirect followed.
//!
//! Redirects are off because an operation's answer is judged where it comes
//! from: a `307` is an answer, and following it would send `X-Client-Secret`
//! and `X-Auth-Token` to whatever host `Location` names (reqwest strips only
//! `Authorization` and cookies on a cross-host redirect).

#[cfg(feature = "rustls")]
use std::sync::Once;

/// A `reqwest` builder with the runtime's choices; add time-outs, roots,
/// proxies or a client identity, then `build()`.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none())
}

/// Installs rustls's ring provider as the process default, once. A provider
/// the application installed first is kept. Nothing to do without the
/// `rustls` feature.
pub fn install_crypto_provider() {
    #[cfg(feature = "rustls")]
    install_ring();
}

#[cfg(feature = "rustls")]
fn install_ring() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Err only when another thread installed one meanwhile: kept.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}
