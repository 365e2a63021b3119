use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::{DecodeResponse, Error, Prepared, RawResponse, client_builder};

/// The HTTP client that sends [`Prepared`] requests.
///
/// Defaults: a 10 s time-out for the whole exchange and a 4 MiB cap on a
/// response body, so that a server that drips or floods cannot hang or
/// exhaust the caller. Both are settings, not constants.
#[derive(Clone, Debug)]
pub struct Transport {
    /// Shared by clones. A default transport builds its client on first
    /// use: a generated `Client::new` whose transport is replaced before it
    /// sends (`with_transport`) never reads the platform's roots.
    http: Arc<OnceLock<reqwest::Client>>,
    timeout: Duration,
    max_body_bytes: usize,
}

impl Default for Transport {
    /// A [`client_builder`] client, with the default time-out and body cap.
    /// The time-out is applied to each request (connect to last byte), so
    /// the client itself needs no setting that could fail to build; should
    /// the platform's roots fail to load, HTTPS fails per request instead.
    fn default() -> Self {
        Self {
            http: Arc::new(OnceLock::new()),
            timeout: Self::DEFAULT_TIMEOUT,
            max_body_bytes: Self::DEFAULT_MAX_BODY_BYTES,
        }
    }
}

/// A client that trusts no root, when the platform's fail to load: HTTPS
/// then fails per request, saying why.
#[cfg(any(feature = "rustls", feature = "native-tls"))]
fn without_roots() -> reqwest::Client {
    client_builder()
        .tls_certs_only(Vec::new())
        .build()
        .unwrap_or_default()
}

/// Without TLS, building fails only on what a default client also hits.
#[cfg(not(any(feature = "rustls", feature = "native-tls")))]
fn without_roots() -> reqwest::Client {
    reqwest::Client::default()
}

impl Transport {
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
    pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

    /// A client that gives up connecting after `timeout` too; an error when
    /// reqwest cannot build it (never silently a client without the limit).
    pub fn new(timeout: Duration, max_body_bytes: usize) -> Result<Self, Error> {
        let http = client_builder()
            .connect_timeout(timeout)
            .build()
            .map_err(Error::Transport)?;
        Ok(Self::with_client(http, timeout, max_body_bytes))
    }

    /// Uses a `reqwest::Client` configured by the caller (proxies, TLS, ...);
    /// start it from [`client_builder`] to keep redirects off.
    pub fn with_client(http: reqwest::Client, timeout: Duration, max_body_bytes: usize) -> Self {
        Self {
            http: Arc::new(OnceLock::from(http)),
            timeout,
            max_body_bytes,
        }
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    pub fn max_body_bytes(&self) -> usize {
        self.max_body_bytes
    }

    /// Sends the request and reads the whole answer, within the time-out and
    /// the body cap.
    pub async fn fetch(&self, mut request: reqwest::Request) -> Result<RawResponse, Error> {
        // reqwest's per-request time-out runs from connecting until the
        // last byte of the body, so a slow drip is cut off too.
        *request.timeout_mut() = Some(self.timeout);
        let http = self
            .http
            .get_or_init(|| client_builder().build().unwrap_or_else(|_| without_roots()));
        let url = request.url().clone();
        let failed = |e| Error::from_reqwest_at(e, &url);
        let mut response = http.execute(request).await.map_err(failed)?;
        let status = response.status().as_u16();
        let headers = std::mem::take(response.headers_mut());
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            if body.len() + chunk.len() > self.max_body_bytes {
                return Err(Error::BodyTooLarge {
                    limit: self.max_body_bytes,
                });
            }
            body.extend_from_slice(&chunk);
        }
        Ok(RawResponse {
            status,
            headers,
            body: body.into(),
        })
    }

    /// Sends a prepared request and decodes the answer with its operation's decoder.
    pub async fn execute<R: DecodeResponse>(&self, prepared: Prepared<R>) -> Result<R, Error> {
        self.fetch(prepared.into_request()).await.map(R::decode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_transport_builds_its_client_once_for_all_its_clones() {
        let first = Transport::default();
        let second = first.clone();
        assert!(first.http.get().is_none(), "built before any use");
        let built = first
            .http
            .get_or_init(|| client_builder().build().unwrap_or_else(|_| without_roots()));
        let seen = second.http.get().expect("the clone sees the built client");
        assert!(std::ptr::eq(built, seen));
    }
}
