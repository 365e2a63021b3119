//! Header fields on their way through the proxy: which are the exchange's
//! (end to end) and which belong to one connection, and the pairs the
//! rules read.

/// Headers that belong to one connection, not to the exchange (RFC 9110
/// 7.6.1), and `Host`, which the forwarding client sets, and
/// `Content-Length`, which each side's HTTP sets from the streamed body's
/// exact length.
pub(super) const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

/// `headers` without [`HOP_BY_HOP`], nor the names a `Connection` header
/// lists (RFC 9110 7.6.1: "a proxy or gateway MUST parse a received
/// Connection header field before a message is forwarded and, for each
/// connection-option in this field, remove any header or trailer field(s)
/// from the message with the same name"), in the order they came: a map
/// built anew, since removing from one moves its last entry into the gap.
/// `host`, where given, stands where the client's `Host` stood (first,
/// where it sent none).
pub(super) fn end_to_end(
    headers: hyper::HeaderMap,
    host: Option<&hyper::header::HeaderValue>,
) -> hyper::HeaderMap {
    let listed: Vec<hyper::header::HeaderName> = headers
        .get_all(hyper::header::CONNECTION)
        .iter()
        .flat_map(|v| v.as_bytes().split(|&b| b == b','))
        .filter_map(|name| hyper::header::HeaderName::from_bytes(name.trim_ascii()).ok())
        .collect();
    let mut out = hyper::HeaderMap::with_capacity(headers.len() + 1);
    if let Some(host) = host.filter(|_| !headers.contains_key(hyper::header::HOST)) {
        out.insert(hyper::header::HOST, host.clone());
    }
    let mut name: Option<hyper::header::HeaderName> = None;
    for (next, value) in headers {
        if let Some(next) = next {
            name = Some(next);
        }
        let Some(name) = &name else { continue };
        if name == hyper::header::HOST {
            if let Some(host) = host {
                out.insert(hyper::header::HOST, host.clone());
            }
            continue;
        }
        if HOP_BY_HOP.contains(&name.as_str()) || listed.contains(name) {
            continue;
        }
        out.append(name.clone(), value);
    }
    out
}

/// Header pairs as the rules read them.
pub(super) fn pairs(headers: &hyper::HeaderMap) -> Vec<(String, Vec<u8>)> {
    headers
        .iter()
        .map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_and_those_connection_lists_are_not_forwarded() {
        let mut headers = hyper::HeaderMap::new();
        for (name, value) in [
            ("host", "proxy.test"),
            ("connection", "keep-alive, X-Trace"),
            ("x-trace", "abc"),
            ("keep-alive", "timeout=5"),
            ("transfer-encoding", "chunked"),
            ("x-client-id", "demo"),
            ("content-type", "application/json"),
        ] {
            headers.append(
                hyper::header::HeaderName::from_static(name),
                hyper::header::HeaderValue::from_static(value),
            );
        }
        let host = hyper::header::HeaderValue::from_static("server.test");
        let headers = end_to_end(headers, Some(&host));
        let left: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.to_str().unwrap_or_default()))
            .collect();
        // In the order they came, Host where the client's stood.
        assert_eq!(
            left,
            [
                ("host", "server.test"),
                ("x-client-id", "demo"),
                ("content-type", "application/json")
            ]
        );
    }

    #[test]
    fn a_request_without_connection_keeps_its_end_to_end_headers() {
        let mut headers = hyper::HeaderMap::new();
        headers.insert(
            "x-client-id",
            hyper::header::HeaderValue::from_static("demo"),
        );
        headers.insert(
            "content-length",
            hyper::header::HeaderValue::from_static("2"),
        );
        let headers = end_to_end(headers, None);
        assert_eq!(headers.len(), 1);
        assert!(headers.contains_key("x-client-id"));
    }
}
