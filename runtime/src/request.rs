use std::marker::PhantomData;

use bytes::Bytes;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Url};

use crate::{DecodeResponse, Error};

/// A request built by an operation, not yet sent.
///
/// Everything about it can still be changed, so a test can send what the
/// typed builder would refuse to build (a header dropped, a raw body, another
/// method), and the answer is still decoded by the operation's decoder `R`.
///
/// `Debug` shows the method, the URL without a password, the headers with
/// credentials `[redacted]` and the body's size, never its bytes (an auth
/// field's value, a password).
pub struct Prepared<R> {
    request: reqwest::Request,
    decoder: PhantomData<fn() -> R>,
}

impl<R> std::fmt::Debug for Prepared<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let body = self
            .request
            .body()
            .map(|body| match body.as_bytes() {
                Some(bytes) => format!("{} bytes", bytes.len()),
                None => "streamed".to_owned(),
            })
            .unwrap_or_else(|| "none".to_owned());
        f.debug_struct("Prepared")
            .field("method", &self.request.method().as_str())
            .field("url", &crate::redact::url_text(self.request.url().as_str()))
            .field("headers", &crate::redact::headers(self.request.headers()))
            .field("body", &format_args!("{body}"))
            .finish()
    }
}

impl<R: DecodeResponse> Prepared<R> {
    pub fn new(request: reqwest::Request) -> Self {
        Self {
            request,
            decoder: PhantomData,
        }
    }

    pub fn request(&self) -> &reqwest::Request {
        &self.request
    }

    pub fn request_mut(&mut self) -> &mut reqwest::Request {
        &mut self.request
    }

    pub fn into_request(self) -> reqwest::Request {
        self.request
    }

    /// A copy to send again (a body held in memory always clones; only a
    /// streamed body cannot).
    pub fn try_clone(&self) -> Option<Self> {
        self.request.try_clone().map(Self::new)
    }

    /// Removes every value of the header `name` (any letter case).
    pub fn remove_header(mut self, name: &str) -> Self {
        self.request.headers_mut().remove(name);
        self
    }

    /// Sets the header `name` to exactly `value`, replacing what was there.
    ///
    /// The name is sent in the letter case given, so a test can check that a
    /// server reads header names case-insensitively.
    pub fn set_header(mut self, name: &str, value: impl AsRef<[u8]>) -> Result<Self, Error> {
        let invalid = || Error::InvalidHeader {
            name: name.to_owned(),
        };
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid())?;
        let value = HeaderValue::from_bytes(value.as_ref()).map_err(|_| invalid())?;
        self.request.headers_mut().insert(name, value);
        Ok(self)
    }

    /// Sends `body` as it is, with `Content-Type: application/json` unless
    /// one is already set.
    pub fn raw_body(mut self, body: impl Into<Bytes>) -> Self {
        let body: Bytes = body.into();
        *self.request.body_mut() = Some(body.into());
        self.request
            .headers_mut()
            .entry(CONTENT_TYPE)
            .or_insert(HeaderValue::from_static("application/json"));
        self
    }

    /// Sends no body at all.
    pub fn without_body(mut self) -> Self {
        *self.request.body_mut() = None;
        self.request.headers_mut().remove(CONTENT_TYPE);
        self
    }

    pub fn method(mut self, method: Method) -> Self {
        *self.request.method_mut() = method;
        self
    }

    pub fn url_mut(&mut self) -> &mut Url {
        self.request.url_mut()
    }
}

/// `Debug` of an operation's request builder that holds a body: its
/// parameters (secrets print `[redacted]`) and whether the body is set,
/// never the body itself (auth fields, a password).
#[macro_export]
macro_rules! impl_builder_debug {
    ($name:ident { $($field:ident),* $(,)? }) => {
        impl ::std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(::std::stringify!($name))
                    .field("client", &self.client)
                    $(.field(::std::stringify!($field), &self.$field))*
                    .field("body", &self.body.as_ref().map(|_| "[not shown]"))
                    .finish()
            }
        }
    };
}

/// The `send` of an operation's request builder, whose `build()` gives a
/// [`Prepared`] request for the answers `$response`, sent by its client.
#[macro_export]
macro_rules! impl_send {
    ($response:ty) => {
        /// Builds and sends the request, and decodes the answer.
        #[inline]
        pub async fn send(self) -> $crate::Result<$response> {
            self.client.send(self.build()?).await
        }
    };
}

/// Parses the URL that operation paths are appended to.
pub fn parse_base_url(base_url: &str) -> Result<Url, Error> {
    let invalid = |reason: String| Error::BaseUrl {
        url: crate::redact::url_text(base_url),
        reason,
    };
    let url = Url::parse(base_url).map_err(|e| invalid(e.to_string()))?;
    if url.cannot_be_a_base() {
        return Err(invalid("it cannot carry a path".to_owned()));
    }
    Ok(url)
}

/// Appends path segments to `url`, each percent-encoded as one segment.
pub fn push_path<'a>(
    url: &mut Url,
    segments: impl IntoIterator<Item = &'a str>,
) -> Result<(), Error> {
    let base = crate::redact::url_text(url.as_str());
    let mut path = url.path_segments_mut().map_err(|()| Error::BaseUrl {
        url: base,
        reason: "it has no path that segments can be added to".into(),
    })?;
    path.pop_if_empty();
    for segment in segments {
        path.push(segment);
    }
    Ok(())
}

/// A request for `method` (`"GET"`, ...) to `base` with the path `segments` appended (each
/// percent-encoded as one segment): where every operation's `build()` starts.
pub fn request(method: &str, base: &Url, segments: &[&str]) -> Result<reqwest::Request, Error> {
    let method = Method::from_bytes(method.as_bytes()).map_err(|_| Error::InvalidMethod {
        method: method.to_owned(),
    })?;
    let mut url = base.clone();
    push_path(&mut url, segments.iter().copied())?;
    Ok(reqwest::Request::new(method, url))
}

/// A required path parameter that prints as one string, as its segment, or
/// the error naming it.
pub fn segment<T: std::fmt::Display + ?Sized>(
    value: Option<&T>,
    name: &'static str,
) -> Result<String, Error> {
    required(value, name).map(ToString::to_string)
}

/// The value of a required parameter, or the error naming it.
pub fn required<T>(value: Option<T>, name: &'static str) -> Result<T, Error> {
    value.ok_or(Error::MissingParameter(name))
}

/// Appends `name=value` to the query, percent-encoded.
pub fn append_query(url: &mut Url, name: &str, value: &str) {
    url.query_pairs_mut().append_pair(name, value);
}

/// Appends `name=value` to the query of `request` when there is a value
/// (a parameter that prints as one string), percent-encoded.
pub fn query<T: std::fmt::Display + ?Sized>(
    request: &mut reqwest::Request,
    name: &str,
    value: Option<&T>,
) {
    if let Some(value) = value {
        append_query(request.url_mut(), name, &value.to_string());
    }
}

/// Sets the header `name` (lower case) of `request` when there is a value
/// (a parameter that prints as one string).
pub fn header<T: std::fmt::Display + ?Sized>(
    request: &mut reqwest::Request,
    name: &'static str,
    value: Option<&T>,
) -> Result<(), Error> {
    match value {
        Some(value) => insert_header(request.headers_mut(), name, &value.to_string()),
        None => Ok(()),
    }
}

/// Sets the header `name` (lower case) of `request` to a secret when there
/// is one, marked sensitive.
pub fn secret_header(
    request: &mut reqwest::Request,
    name: &'static str,
    value: Option<&crate::Secret>,
) -> Result<(), Error> {
    match value {
        Some(value) => insert_secret_header(request.headers_mut(), name, value.expose()),
        None => Ok(()),
    }
}

/// Inserts a header, naming it in the error when the value cannot be sent.
pub fn insert_header(
    headers: &mut HeaderMap,
    name: &'static str,
    value: &str,
) -> Result<(), Error> {
    headers.insert(
        HeaderName::from_static(name),
        header_value(name, value, false)?,
    );
    Ok(())
}

/// Inserts a credential header, marked sensitive so that `Debug` of the
/// request (reqwest's, hyper's) never prints it.
pub fn insert_secret_header(
    headers: &mut HeaderMap,
    name: &'static str,
    value: &str,
) -> Result<(), Error> {
    headers.insert(
        HeaderName::from_static(name),
        header_value(name, value, true)?,
    );
    Ok(())
}

/// `value` as the value of header `name`, marked sensitive (left out of
/// `Debug`, not compressed by HTTP/2) when it is a secret.
fn header_value(name: &str, value: &str, sensitive: bool) -> Result<HeaderValue, Error> {
    let mut value = HeaderValue::from_str(value).map_err(|_| Error::InvalidHeader {
        name: name.to_owned(),
    })?;
    value.set_sensitive(sensitive);
    Ok(value)
}

/// Serialises `body` as the JSON body of `request`.
pub fn set_json_body<T: serde::Serialize>(
    request: &mut reqwest::Request,
    body: &T,
) -> Result<(), Error> {
    let bytes = serde_json::to_vec(body).map_err(Error::Encode)?;
    *request.body_mut() = Some(bytes.into());
    request
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(())
}

/// Serialises `body` as the JSON body of `request`, sent with the media
/// type the document declares (`application/merge-patch+json`,
/// `application/json-patch+json`, `application/vnd.api+json`, ...).
pub fn set_json_body_as<T: serde::Serialize>(
    request: &mut reqwest::Request,
    body: &T,
    content_type: &str,
) -> Result<(), Error> {
    let value = HeaderValue::from_str(content_type).map_err(|_| Error::InvalidHeader {
        name: CONTENT_TYPE.as_str().to_owned(),
    })?;
    let bytes = serde_json::to_vec(body).map_err(Error::Encode)?;
    *request.body_mut() = Some(bytes.into());
    request.headers_mut().insert(CONTENT_TYPE, value);
    Ok(())
}

/// Serialises `body` as the `application/x-www-form-urlencoded` body of
/// `request`, each property in `fields` written as its `encoding` says
/// (`deepObject`, `form`, `spaceDelimited`, `pipeDelimited`, exploded or
/// not, or JSON text), the others as [`set_form_body`] writes them.
pub fn set_form_body_encoded<T: serde::Serialize>(
    request: &mut reqwest::Request,
    body: &T,
    fields: &[crate::params::FormField],
) -> Result<(), Error> {
    let pairs = crate::params::form_pairs_encoded(body, fields)?;
    let text = serde_urlencoded::to_string(&pairs).map_err(Error::EncodeForm)?;
    *request.body_mut() = Some(text.into());
    request.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/x-www-form-urlencoded"),
    );
    Ok(())
}

/// Serialises `body` as the `application/x-www-form-urlencoded` body of
/// `request`: each field a `name=value` pair, a `None` left out.
///
/// An array is repeated (`tag=a&tag=b`, `form` exploded, the default for
/// forms); a nested object is sent as its JSON text; a body that is not an
/// object cannot be sent this way and is an error.
pub fn set_form_body<T: serde::Serialize>(
    request: &mut reqwest::Request,
    body: &T,
) -> Result<(), Error> {
    let pairs = crate::params::form_pairs(body)?;
    let text = serde_urlencoded::to_string(&pairs).map_err(Error::EncodeForm)?;
    *request.body_mut() = Some(text.into());
    request.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/x-www-form-urlencoded"),
    );
    Ok(())
}

/// Sends `body` as it is (bytes or text), with `Content-Type: content_type`.
pub fn set_raw_body(
    request: &mut reqwest::Request,
    body: impl Into<Bytes>,
    content_type: &str,
) -> Result<(), Error> {
    let value = HeaderValue::from_str(content_type).map_err(|_| Error::InvalidHeader {
        name: CONTENT_TYPE.as_str().to_owned(),
    })?;
    let body: Bytes = body.into();
    *request.body_mut() = Some(body.into());
    request.headers_mut().insert(CONTENT_TYPE, value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> reqwest::Request {
        reqwest::Request::new(Method::POST, Url::parse("http://localhost/").unwrap())
    }

    fn body(request: &reqwest::Request) -> &[u8] {
        request.body().and_then(|b| b.as_bytes()).unwrap()
    }

    #[derive(serde::Serialize)]
    struct Form {
        criteria: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        start: Option<i64>,
        rows: Option<i64>,
        flag: bool,
    }

    #[test]
    fn form_body_is_url_encoded_and_leaves_out_none() {
        let mut request = request();
        let form = Form {
            criteria: "a b&c=d/é".into(),
            start: None,
            rows: None,
            flag: true,
        };
        set_form_body(&mut request, &form).unwrap();
        assert_eq!(body(&request), b"criteria=a+b%26c%3Dd%2F%C3%A9&flag=true");
        assert_eq!(
            request.headers()[CONTENT_TYPE],
            "application/x-www-form-urlencoded"
        );
    }

    #[test]
    fn a_form_that_is_not_an_object_is_an_error_not_a_panic() {
        let mut request = request();
        let nested = serde_json::json!(["a", "b"]);
        assert!(matches!(
            set_form_body(&mut request, &nested),
            Err(Error::EncodeForm(_))
        ));
    }

    #[test]
    fn raw_body_keeps_bytes_and_content_type() {
        let mut request = request();
        set_raw_body(&mut request, vec![0u8, 255, 10], "application/octet-stream").unwrap();
        assert_eq!(body(&request), [0u8, 255, 10]);
        assert_eq!(request.headers()[CONTENT_TYPE], "application/octet-stream");
        set_raw_body(
            &mut request,
            String::from("héllo"),
            "text/plain; charset=utf-8",
        )
        .unwrap();
        assert_eq!(body(&request), "héllo".as_bytes());
        assert_eq!(request.headers()[CONTENT_TYPE], "text/plain; charset=utf-8");
        assert!(matches!(
            set_raw_body(&mut request, "x", "bad\nvalue"),
            Err(Error::InvalidHeader { .. })
        ));
    }
}
