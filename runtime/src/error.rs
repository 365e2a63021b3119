/// Why a request could not be built, sent or read.
///
/// An answer with an unexpected status or body is not an error: it decodes
/// into the operation's `Undocumented` or `Mismatch` variant instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("required parameter `{0}` was not set")]
    MissingParameter(&'static str),
    #[error("the value for header `{name}` is not a valid HTTP header value")]
    InvalidHeader { name: String },
    #[error("`{method}` is not an HTTP method")]
    InvalidMethod { method: String },
    #[error("`{url}` cannot be used as a base URL: {reason}")]
    BaseUrl { url: String, reason: String },
    #[error("could not encode the request body as JSON: {0}")]
    Encode(#[source] serde_json::Error),
    #[error("could not encode the request body as a form: {0}")]
    EncodeForm(#[source] serde_urlencoded::ser::Error),
    #[error("the request timed out")]
    Timeout,
    #[error("could not connect: {0}")]
    Connect(#[source] reqwest::Error),
    #[error("the exchange failed: {0}")]
    Transport(#[source] reqwest::Error),
    #[error("the response body is larger than the cap of {limit} bytes")]
    BodyTooLarge { limit: usize },
}

impl Error {
    pub(crate) fn from_reqwest(error: reqwest::Error) -> Self {
        // A connect that times out is a connect error: the target cannot
        // be reached, which is not the same as a slow answer.
        if error.is_connect() {
            Self::Connect(error.without_url())
        } else if error.is_timeout() {
            Self::Timeout
        } else {
            Self::Transport(error.without_url())
        }
    }
}
