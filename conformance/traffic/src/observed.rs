//! An exchange as it was seen on the wire: raw bytes and header pairs, as
//! a proxy, a HAR file or a server's handler has them.

/// A request as sent.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub method: String,
    /// Path and query, as sent (`/v2/api/component/Users/auth?modelUuid=...`).
    pub target: String,
    /// Header names and values, in order; a name may repeat.
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
    /// The body was not kept whole (a proxy forwards a body over its cap
    /// unchanged, keeping none of it): the rules that read it are not
    /// judged.
    pub body_cut: bool,
}

/// An answer as given.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, Vec<u8>)>,
    /// The body as a client reads it (decoded where it came compressed).
    pub body: Vec<u8>,
    /// As [`Request::body_cut`]: the body's rules are not judged.
    pub body_cut: bool,
}

/// Every value of header `name` (any letter case).
pub(crate) fn values<'a>(
    headers: &'a [(String, Vec<u8>)],
    name: &'a str,
) -> impl Iterator<Item = &'a [u8]> + 'a {
    headers
        .iter()
        .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_slice())
}

/// The value of header `name` as one field: its field lines joined with
/// `, ` (RFC 9110 §5.3: a recipient may combine them so, and the message
/// means the same), empty lines left out; `None` where there is no line.
/// So two lines judge as one line holding both, whatever the client's
/// library did.
pub(crate) fn combined(headers: &[(String, Vec<u8>)], name: &str) -> Option<Vec<u8>> {
    let mut lines = values(headers, name).peekable();
    lines.peek()?;
    let mut out: Vec<u8> = Vec::new();
    for line in lines.filter(|v| !v.is_empty()) {
        if !out.is_empty() {
            out.extend_from_slice(b", ");
        }
        out.extend_from_slice(line);
    }
    Some(out)
}

/// The first value of header `name`, as text.
pub(crate) fn first<'a>(headers: &'a [(String, Vec<u8>)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .and_then(|(_, v)| std::str::from_utf8(v).ok())
}

impl Request {
    /// The path without its query.
    pub fn path(&self) -> &str {
        self.target.split(['?', '#']).next().unwrap_or_default()
    }

    /// The query's `name` parameters, percent-decoded.
    pub fn query(&self, name: &str) -> Vec<String> {
        let Some((_, query)) = self.target.split_once('?') else {
            return Vec::new();
        };
        query
            .split('&')
            .filter_map(|pair| {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                let k = decode(&k.replace('+', " "));
                (k == name).then(|| decode(&v.replace('+', " ")))
            })
            .collect()
    }

    /// Whether the request is addressed to the interface at all: its path
    /// has an `api` segment (`/v2/api/...`, a wrong version `/v1/api/...`,
    /// under a prefix) or a `component` one. A page, its scripts and
    /// `/favicon.ico`, which a browser's recording holds beside the calls,
    /// are not: their rules are not the interface's.
    pub fn on_interface(&self) -> bool {
        self.path().split('/').any(|segment| {
            segment.eq_ignore_ascii_case("api") || segment.eq_ignore_ascii_case("component")
        })
    }

    /// The operation's reference (`{ref}`), percent-decoded, where the path
    /// is the interface's.
    pub fn reference(&self) -> Option<String> {
        let path = self.path();
        let at = path.find("/v2/api/component/")?;
        let rest = &path[at + "/v2/api/component/".len()..];
        let reference = rest.strip_suffix("/auth")?;
        (!reference.is_empty() && !reference.contains('/')).then(|| decode(reference))
    }

    /// A one-line description without secrets: method, path (the query's
    /// names only) and header names.
    pub fn describe(&self) -> String {
        let mut line = format!("{} {}", self.method, self.path());
        if let Some((_, query)) = self.target.split_once('?') {
            let names: Vec<&str> = query
                .split('&')
                .map(|p| p.split('=').next().unwrap_or_default())
                .collect();
            line.push_str(&format!("?{}", names.join("&")));
        }
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        if !names.is_empty() {
            line.push_str(&format!(" [headers: {}]", names.join(", ")));
        }
        line
    }
}

pub(crate) fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}
