//! The HTTP/1.1 message rules hyper leaves to the application (RFC 9112),
//! checked before anything of the interface: a request that breaks them is
//! not a request the interface can judge.
//!
//! - exactly one `Host` on an HTTP/1.1 request, at most one on any (section
//!   3.2: "A server MUST respond with a 400 (Bad Request) status code to any
//!   HTTP/1.1 request message that lacks a Host header field and to any
//!   request message that contains more than one Host header field line");
//! - no transfer coding but `chunked`, the one the server decodes (section
//!   6.1: "A server that receives a request message with a transfer coding
//!   it does not understand SHOULD respond with 501 (Not Implemented)").
//!
//! Both answers come before the body is read, so the connection closes.

use hyper::header::{HOST, TRANSFER_ENCODING};
use hyper::{HeaderMap, Version};

use crate::envelope::Failure;

/// The request's framing, or the 400 / 501 that refuses it.
pub(crate) fn check(version: Version, headers: &HeaderMap) -> Result<(), Failure> {
    let hosts = headers.get_all(HOST).iter().count();
    if hosts > 1 {
        return Err(Failure::bad_request(
            "the request has more than one Host header",
        ));
    }
    if hosts == 0 && version == Version::HTTP_11 {
        return Err(Failure::bad_request(
            "an HTTP/1.1 request needs a Host header",
        ));
    }
    let unknown_coding = headers
        .get_all(TRANSFER_ENCODING)
        .iter()
        .flat_map(|v| v.as_bytes().split(|&b| b == b','))
        .map(<[u8]>::trim_ascii)
        .any(|coding| !coding.eq_ignore_ascii_case(b"chunked"));
    if unknown_coding {
        return Err(Failure::not_implemented(
            "the server decodes no transfer coding but `chunked`",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn host_rules() {
        let one = headers(&[("host", "x")]);
        assert!(check(Version::HTTP_11, &one).is_ok());
        assert!(check(Version::HTTP_11, &headers(&[])).is_err());
        assert!(check(Version::HTTP_10, &headers(&[])).is_ok());
        let two = headers(&[("host", "x"), ("host", "y")]);
        assert!(check(Version::HTTP_10, &two).is_err());
    }

    #[test]
    fn only_chunked_is_decoded() {
        for te in ["chunked", "Chunked", " chunked "] {
            let h = headers(&[("host", "x"), ("transfer-encoding", te)]);
            assert!(check(Version::HTTP_11, &h).is_ok(), "{te}");
        }
        for te in ["gzip, chunked", "identity", "chunked, br"] {
            let h = headers(&[("host", "x"), ("transfer-encoding", te)]);
            assert!(check(Version::HTTP_11, &h).is_err(), "{te}");
        }
    }
}
