use std::str::FromStr;

use bytes::Bytes;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

/// An answer exactly as it arrived: status, headers and the whole body.
///
/// `Debug` never shows a credential, whatever the server sent: the status,
/// the headers with the values of credential headers (`X-Auth-Token`,
/// `Authorization`, `Set-Cookie`, ...) written `[redacted]`, and the body's
/// size and shape without its values (see [`redact`](crate::redact)). The
/// bytes are read on purpose, from `body` or [`RawResponse::expose_body`].
#[derive(Clone)]
pub struct RawResponse {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl RawResponse {
    /// The first value of header `name` (any letter case), if it is text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Whether the body is one JSON value, whatever its depth: what
    /// [`RawResponse::json`] would return `Some` for, read as a stream
    /// without building a tree (see [`json::is_json`](crate::json::is_json)).
    pub fn is_json(&self) -> bool {
        crate::json::is_json(&self.body)
    }

    /// The body parsed as JSON, if it is JSON, whatever its depth (see
    /// [`json::parse`](crate::json::parse)).
    pub fn json(&self) -> Option<serde_json::Value> {
        crate::json::parse(&self.body)
    }

    /// The body's bytes as they came, which may hold a credential (`Debug`
    /// never prints them).
    pub fn expose_body(&self) -> &[u8] {
        &self.body
    }
}

impl std::fmt::Debug for RawResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawResponse")
            .field("status", &self.status)
            .field("headers", &crate::redact::headers(&self.headers))
            .field("body", &format_args!("{}", crate::redact::body(&self.body)))
            .finish()
    }
}

/// A documented answer: its body decoded into the schema's type, its
/// documented headers into their own struct, and the raw answer kept.
///
/// `Debug` shows the decoded body and headers, and of the raw answer only
/// its status and size: the typed values hold what the spec marks
/// `format: password` in a [`Secret`](crate::Secret) that prints
/// `[redacted]`, which the raw bytes cannot do.
#[derive(Clone)]
pub struct Decoded<T, H> {
    pub body: T,
    pub headers: H,
    pub raw: RawResponse,
}

impl<T: std::fmt::Debug, H: std::fmt::Debug> std::fmt::Debug for Decoded<T, H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoded")
            .field("body", &self.body)
            .field("headers", &self.headers)
            .field(
                "raw",
                &format_args!(
                    "status {}, {} headers, {} bytes (read `raw` for them)",
                    self.raw.status,
                    self.raw.headers.len(),
                    self.raw.body.len()
                ),
            )
            .finish()
    }
}

/// Turns a raw answer into an operation's response enum.
///
/// Decoding cannot fail: an undocumented status, or a documented one whose
/// body does not match its schema, becomes a variant that keeps the raw answer.
pub trait DecodeResponse: Sized {
    fn decode(raw: RawResponse) -> Self;
    fn raw(&self) -> &RawResponse;
    fn status(&self) -> u16 {
        self.raw().status
    }
}

/// Decodes a JSON body, saying why when it does not match: where, and
/// which field or type, never a value of the body (serde quotes the value
/// it did not expect; see [`redact::serde_error`](crate::redact::serde_error)).
pub fn decode_json<T: DeserializeOwned>(raw: &RawResponse) -> Result<T, String> {
    if raw.body.is_empty() {
        return serde_json::from_slice(b"null").map_err(|_| "the body is empty".to_owned());
    }
    serde_json::from_slice(&raw.body).map_err(|e| {
        format!(
            "the body does not match its schema: {}",
            crate::redact::serde_error(&e)
        )
    })
}

/// Parses the header `name` into `T`; `None` when absent or unparseable (the
/// raw value stays in [`RawResponse::headers`]).
pub fn parse_header<T: FromStr>(headers: &HeaderMap, name: &str) -> Option<T> {
    headers.get(name)?.to_str().ok()?.parse().ok()
}

/// A response's documented headers, read from the answer's header map
/// (each `None` when absent or unparseable); `()` when none are documented.
pub trait FromHeaders {
    fn from_headers(headers: &HeaderMap) -> Self;
}

impl FromHeaders for () {
    fn from_headers(_: &HeaderMap) -> Self {}
}

/// What every variant of a response enum holds: the raw answer, decoded or not.
pub trait AsRaw {
    fn as_raw(&self) -> &RawResponse;
}

impl AsRaw for RawResponse {
    fn as_raw(&self) -> &RawResponse {
        self
    }
}

impl<T, H> AsRaw for Decoded<T, H> {
    fn as_raw(&self) -> &RawResponse {
        &self.raw
    }
}

/// How a documented status is decoded, one function per kind of body,
/// named in [`impl_response!`](crate::impl_response): each gets the raw
/// answer, the variant to build, and the `Mismatch` variant for a body
/// that does not match.
pub mod decode {
    use super::{Decoded, FromHeaders, RawResponse, decode_json};
    use serde::de::DeserializeOwned;

    /// A JSON body, decoded into its schema's type.
    pub fn json<T: DeserializeOwned, H: FromHeaders, R>(
        raw: RawResponse,
        ok: fn(Decoded<T, H>) -> R,
        mismatch: fn(RawResponse, String) -> R,
    ) -> R {
        match decode_json(&raw) {
            Ok(body) => ok(Decoded {
                headers: H::from_headers(&raw.headers),
                body,
                raw,
            }),
            Err(reason) => mismatch(raw, reason),
        }
    }

    /// No documented body: whatever came is kept in `raw` only.
    pub fn empty<H: FromHeaders, R>(
        raw: RawResponse,
        ok: fn(Decoded<(), H>) -> R,
        _mismatch: fn(RawResponse, String) -> R,
    ) -> R {
        ok(Decoded {
            headers: H::from_headers(&raw.headers),
            body: (),
            raw,
        })
    }

    /// An undocumented status: the answer as it is.
    pub fn raw<R>(
        raw: RawResponse,
        ok: fn(RawResponse) -> R,
        _mismatch: fn(RawResponse, String) -> R,
    ) -> R {
        ok(raw)
    }
}

/// Implements, for an operation's response enum, the inherent `status`,
/// `raw` and `variant_name` and [`DecodeResponse`]: each arm is a status
/// pattern (exact codes before ranges: the first that matches wins), the
/// variant it decodes into, and how its body is read (a function of
/// [`decode`]). The enum has a `Mismatch { raw, reason }` variant besides
/// those of the arms; the arms end with one matching any status.
///
/// ```
/// use client_runtime::{Decoded, RawResponse};
///
/// #[derive(Clone, Debug)]
/// pub enum GetResponse {
///     Ok(Decoded<Vec<u32>, ()>),
///     ClientError(Decoded<(), ()>),
///     Undocumented(RawResponse),
///     Mismatch { raw: RawResponse, reason: String },
/// }
/// client_runtime::impl_response!(
///     GetResponse,
///     200 => Ok json,
///     400..=499 => ClientError empty,
///     _ => Undocumented raw,
/// );
///
/// let answer = |status, body: &'static str| RawResponse {
///     status,
///     headers: Default::default(),
///     body: body.into(),
/// };
/// use client_runtime::DecodeResponse;
/// assert!(matches!(GetResponse::decode(answer(200, "[1]")), GetResponse::Ok(d) if d.body == [1]));
/// assert_eq!(GetResponse::decode(answer(200, "{")).variant_name(), "Mismatch");
/// assert_eq!(GetResponse::decode(answer(404, "")).variant_name(), "ClientError");
/// assert_eq!(GetResponse::decode(answer(500, "")).status(), 500);
/// ```
///
/// An enum generic in its bodies' and headers' types, which operations of
/// one shape share, is given its parameters with their bounds first:
/// `impl_response!([B: DeserializeOwned] Answers<B>, 200 => Ok json, ...)`.
#[macro_export]
macro_rules! impl_response {
    ($name:ident, $($pattern:pat => $variant:ident $how:ident),+ $(,)?) => {
        $crate::impl_response!([] $name<>, $($pattern => $variant $how),+);
    };
    ([$($bounds:tt)*] $name:ident <$($param:ident),*>, $($pattern:pat => $variant:ident $how:ident),+ $(,)?) => {
        impl<$($bounds)*> $name<$($param),*> {
            /// The HTTP status of the answer.
            pub fn status(&self) -> u16 {
                $crate::DecodeResponse::raw(self).status
            }

            /// The answer as it arrived.
            pub fn raw(&self) -> &$crate::RawResponse {
                $crate::DecodeResponse::raw(self)
            }

            /// The name of the variant the answer decoded as: one of the
            /// constants of the module `variants`, to compare without a typo.
            pub fn variant_name(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => ::std::stringify!($variant),)+
                    Self::Mismatch { .. } => "Mismatch",
                }
            }
        }

        // `#[inline]`: decoding is compiled where an answer is decoded (in
        // the crate that sends), not for every operation of the API.
        impl<$($bounds)*> $crate::DecodeResponse for $name<$($param),*> {
            #[inline]
            fn decode(raw: $crate::RawResponse) -> Self {
                match raw.status {
                    $($pattern => $crate::decode::$how(raw, Self::$variant, |raw, reason| {
                        Self::Mismatch { raw, reason }
                    }),)+
                }
            }

            #[inline]
            fn raw(&self) -> &$crate::RawResponse {
                match self {
                    $(Self::$variant(variant) => $crate::AsRaw::as_raw(variant),)+
                    Self::Mismatch { raw, .. } => raw,
                }
            }
        }
    };
}
