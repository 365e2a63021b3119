//! Compressed answers, read as every real client reads them.
//!
//! Real clients send `Accept-Encoding` (browsers, curl with
//! `--compressed`, most HTTP libraries), and servers compress in a layer of
//! their own (a framework's plugin, a proxy) that can lose what the
//! interface requires: an answer that loses its `Content-Type` only when
//! compressed is still an answer that breaks §7. The runner sends
//! [`ACCEPT_ENCODING`] on a set of probes, never on every request, and
//! decodes what comes back before any judgement, within the body cap: a
//! decompression bomb is an answer that could not be read, never a hang.

use std::io::Read;

/// What the probes that accept compression send.
pub const ACCEPT_ENCODING: &str = "gzip, deflate, br";

/// Why an encoded body could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum Undecodable {
    /// A coding the request did not offer and the runner cannot read.
    Unknown(String),
    /// The bytes are not what the coding says.
    Corrupt { coding: String, why: String },
    /// Decoded, it would pass the body cap.
    TooLarge { coding: String, limit: usize },
}

impl std::fmt::Display for Undecodable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undecodable::Unknown(c) => write!(
                f,
                "the body is `Content-Encoding: {c}`, a coding the request did not offer"
            ),
            Undecodable::Corrupt { coding, why } => {
                write!(f, "the body is not valid {coding}: {why}")
            }
            Undecodable::TooLarge { coding, limit } => write!(
                f,
                "the {coding} body decodes to more than the {limit}-byte cap (a decompression bomb, or an answer too large)"
            ),
        }
    }
}

/// The body decoded through every coding `content_encoding` lists (in the
/// order they were applied), at most `limit` bytes; `None` when there is
/// nothing to decode (no coding, or `identity`).
pub fn decode(
    content_encoding: &str,
    body: &[u8],
    limit: usize,
) -> Option<Result<Vec<u8>, Undecodable>> {
    let codings: Vec<String> = content_encoding
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect();
    if codings.is_empty() || body.is_empty() {
        return None;
    }
    let mut bytes = body.to_vec();
    // Applied in the order listed: undone in reverse.
    for coding in codings.iter().rev() {
        bytes = match one(coding, &bytes, limit) {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
    }
    Some(Ok(bytes))
}

fn one(coding: &str, bytes: &[u8], limit: usize) -> Result<Vec<u8>, Undecodable> {
    let capped = |reader: &mut dyn Read| -> Result<Vec<u8>, Undecodable> {
        let mut out = Vec::new();
        // One byte past the cap tells a body at the cap from one over it.
        match reader.take(limit as u64 + 1).read_to_end(&mut out) {
            Ok(_) if out.len() > limit => Err(Undecodable::TooLarge {
                coding: coding.to_owned(),
                limit,
            }),
            Ok(_) => Ok(out),
            Err(e) => Err(Undecodable::Corrupt {
                coding: coding.to_owned(),
                why: e.to_string(),
            }),
        }
    };
    match coding {
        "gzip" | "x-gzip" => capped(&mut flate2::read::MultiGzDecoder::new(bytes)),
        // RFC 9110's "deflate" is zlib; some servers send raw deflate.
        "deflate" => capped(&mut flate2::read::ZlibDecoder::new(bytes))
            .or_else(|_| capped(&mut flate2::read::DeflateDecoder::new(bytes))),
        "br" => capped(&mut brotli_decompressor::Decompressor::new(bytes, 4096)),
        other => Err(Undecodable::Unknown(other.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).expect("in memory");
        e.finish().expect("in memory")
    }

    #[test]
    fn gzip_and_deflate_are_read_identity_is_nothing_to_do() {
        let body = br#"{"code":400,"status":false}"#;
        assert_eq!(decode("gzip", &gzip(body), 1024), Some(Ok(body.to_vec())));
        assert_eq!(decode("GZip ", &gzip(body), 1024), Some(Ok(body.to_vec())));
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(body).expect("in memory");
        let z = z.finish().expect("in memory");
        assert_eq!(decode("deflate", &z, 1024), Some(Ok(body.to_vec())));
        assert_eq!(decode("identity", body, 1024), None);
        assert_eq!(decode("", body, 1024), None);
    }

    #[test]
    fn a_bomb_stops_at_the_cap_and_garbage_is_corrupt() {
        let bomb = gzip(&vec![b'a'; 10 * 1024 * 1024]);
        assert!(bomb.len() < 20_000);
        assert_eq!(
            decode("gzip", &bomb, 64 * 1024),
            Some(Err(Undecodable::TooLarge {
                coding: "gzip".into(),
                limit: 64 * 1024
            }))
        );
        assert!(matches!(
            decode("gzip", b"not gzip at all", 1024),
            Some(Err(Undecodable::Corrupt { .. }))
        ));
        assert!(matches!(
            decode("br", b"\xff\xff\xff\xff", 1024),
            Some(Err(Undecodable::Corrupt { .. }))
        ));
        assert_eq!(
            decode("zstd", b"x", 1024),
            Some(Err(Undecodable::Unknown("zstd".into())))
        );
    }
}
