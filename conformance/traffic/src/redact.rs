//! What a report may show of an exchange: never a secret the client sent
//! (whatever the server echoes it in: a header, a body, a status line),
//! never a terminal's control sequence. Every example a tally keeps passes
//! through [`shown`] with the exchange's secrets ([`secrets_of`]).
//!
//! A secret is found in the spellings a reader would still recognise: any
//! letter case, percent-encoded, JSON- or C-escaped (`\u0061`, `\x61`),
//! or a mixture; the text is decoded into a view whose every byte knows the
//! span of the original it came from, and a match there redacts that span.

use serde_json::Value;

use crate::observed::Request;

/// What stands where a secret was.
pub const REDACTED: &str = "[redacted]";

/// Shorter values are too common to look for (`1`, `ok`).
const MIN_LEN: usize = 4;

/// Headers whose values are credentials (any letter case).
const CREDENTIAL_HEADERS: &[&str] = &[
    "x-client-secret",
    "x-auth-token",
    "authorization",
    "proxy-authorization",
    "cookie",
];

/// Words that make a query parameter, a header or a body field a
/// credential (compared without case, `_` or `-`).
const CREDENTIAL_WORDS: &[&str] = &[
    "secret",
    "token",
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "apikey",
    "accesskey",
    "privatekey",
    "signature",
    "credential",
    "auth",
    "pin",
    "otp",
];

/// Whether a parameter or field called `name` holds a credential.
pub fn is_credential_name(name: &str) -> bool {
    let flat: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' ' | '.'))
        .flat_map(char::to_lowercase)
        .collect();
    // `pin` and `otp` only as the whole name: `shipping`, `options`.
    CREDENTIAL_WORDS
        .iter()
        .any(|w| matches!(*w, "pin" | "otp") && flat == *w || flat.contains(w) && w.len() > 3)
}

/// The secrets `req` carries: its credential headers (and a Basic or Bearer
/// value's parts), the values of query parameters and JSON body fields
/// whose names are credentials (or are among `fields`), and `known` (what
/// the profile holds).
pub fn secrets_of(req: &Request, fields: &[String], known: &[String]) -> Vec<String> {
    let mut out: Vec<String> = known.to_vec();
    for (name, value) in &req.headers {
        let lower = name.to_ascii_lowercase();
        if !(CREDENTIAL_HEADERS.contains(&lower.as_str())
            || lower != "x-client-id" && is_credential_name(&lower))
        {
            continue;
        }
        let text = String::from_utf8_lossy(value).into_owned();
        if let Some((scheme, rest)) = text.split_once(' ') {
            let rest = rest.trim().to_owned();
            if scheme.eq_ignore_ascii_case("basic") {
                use base64::Engine;
                if let Ok(pair) = base64::engine::general_purpose::STANDARD.decode(&rest) {
                    let pair = String::from_utf8_lossy(&pair).into_owned();
                    if let Some((_, password)) = pair.split_once(':') {
                        out.push(password.to_owned());
                    }
                    out.push(pair);
                }
            }
            out.push(rest);
        }
        // A cookie's values one by one.
        if lower == "cookie" {
            for pair in text.split(';') {
                if let Some((_, v)) = pair.split_once('=') {
                    out.push(v.trim().to_owned());
                }
            }
        }
        out.push(text);
    }
    if let Some((_, query)) = req.target.split_once('?') {
        for pair in query.split('&') {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            if is_credential_name(&decode(name)) {
                out.push(decode(value));
            }
        }
    }
    if !req.body.is_empty() {
        if let Ok(body) = serde_json::from_slice::<Value>(&req.body) {
            body_secrets(&body, fields, false, &mut out);
        }
    }
    out.retain(|s| s.chars().count() >= MIN_LEN);
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out.dedup();
    out
}

/// Every string or number under a credential's name in `value`.
fn body_secrets(value: &Value, fields: &[String], under: bool, out: &mut Vec<String>) {
    match value {
        Value::String(s) if under => out.push(s.clone()),
        Value::Number(n) if under => out.push(n.to_string()),
        Value::Array(items) => {
            for item in items {
                body_secrets(item, fields, under, out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let secret = under
                    || is_credential_name(key)
                    || fields.iter().any(|f| f.eq_ignore_ascii_case(key));
                body_secrets(item, fields, secret, out);
            }
        }
        _ => {}
    }
}

fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(&s.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

/// `text` as a report may show it: every span that spells one of
/// `secrets` redacted, then every control or bidirectional character
/// escaped ([`printable`]).
pub fn shown(text: &str, secrets: &[String]) -> String {
    printable(&redact(text, secrets))
}

/// `text` with every span that spells a secret (in any spelling, above)
/// replaced by [`REDACTED`].
pub fn redact(text: &str, secrets: &[String]) -> String {
    if secrets.is_empty() {
        return text.to_owned();
    }
    let view = View::of(text);
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for secret in secrets {
        let needle = View::of(secret).text;
        if needle.chars().count() < MIN_LEN {
            continue;
        }
        for (at, found) in view.text.match_indices(needle.as_str()) {
            ranges.push((view.spans[at].0, view.spans[at + found.len() - 1].1));
        }
    }
    if ranges.is_empty() {
        return text.to_owned();
    }
    ranges.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for (start, end) in ranges {
        let start = (0..=start)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        let end = (end..=text.len())
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(text.len());
        if end <= done {
            continue;
        }
        if start >= done {
            out.push_str(&text[done..start]);
            out.push_str(REDACTED);
        }
        done = end;
    }
    out.push_str(&text[done..]);
    out
}

/// `text` with every control character, and every character that turns
/// a terminal's text direction (U+202A to U+202E, U+2066 to U+2069, the
/// marks U+200E, U+200F, U+061C), written as its escape (`\u{1b}`):
/// a recording's names are shown, never obeyed.
pub fn printable(text: &str) -> String {
    if !text.chars().any(hidden) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{2028}' | '\u{2029}')
}

/// Text decoded as a reader would take it (percent escapes, `\uXXXX`,
/// `\xXX`, `+` as a space, letter case folded), each byte of it knowing
/// the byte range of the original it came from.
struct View {
    text: String,
    spans: Vec<(usize, usize)>,
}

/// Nested escapes (`%2561`) undone at most this deep.
const ROUNDS: usize = 3;

impl View {
    fn of(original: &str) -> View {
        let mut bytes = original.as_bytes().to_vec();
        let mut spans: Vec<(usize, usize)> = (0..bytes.len()).map(|i| (i, i + 1)).collect();
        for _ in 0..ROUNDS {
            let (next, next_spans) = unescape(&bytes, &spans);
            if next.len() == bytes.len() {
                break;
            }
            bytes = next;
            spans = next_spans;
        }
        let mut text = String::with_capacity(bytes.len());
        let mut out = Vec::with_capacity(bytes.len());
        let mut at = 0;
        for chunk in bytes.utf8_chunks() {
            for (i, c) in chunk.valid().char_indices() {
                let span = (spans[at + i].0, spans[at + i + c.len_utf8() - 1].1);
                let c = if c == '+' { ' ' } else { c };
                for lower in c.to_lowercase() {
                    text.push(lower);
                    out.extend(std::iter::repeat_n(span, lower.len_utf8()));
                }
            }
            at += chunk.valid().len();
            for _ in chunk.invalid() {
                text.push(char::REPLACEMENT_CHARACTER);
                out.extend(std::iter::repeat_n(spans[at], 3));
                at += 1;
            }
        }
        View { text, spans: out }
    }
}

/// One round of `%XX`, `\uXXXX` and `\xXX` undone.
fn unescape(bytes: &[u8], spans: &[(usize, usize)]) -> (Vec<u8>, Vec<(usize, usize)>) {
    let hex = |s: &[u8]| -> Option<u32> {
        std::str::from_utf8(s)
            .ok()
            .and_then(|s| u32::from_str_radix(s, 16).ok())
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut out_spans = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escape = match bytes[i] {
            b'%' => bytes
                .get(i + 1..i + 3)
                .and_then(hex)
                .map(|b| (vec![b as u8], 3)),
            b'\\' => match bytes.get(i + 1) {
                Some(b'x') => bytes
                    .get(i + 2..i + 4)
                    .and_then(hex)
                    .map(|b| (vec![b as u8], 4)),
                Some(b'u') => bytes
                    .get(i + 2..i + 6)
                    .and_then(hex)
                    .and_then(char::from_u32)
                    .map(|c| (c.to_string().into_bytes(), 6)),
                _ => None,
            },
            _ => None,
        };
        match escape {
            Some((decoded, len)) => {
                let span = (spans[i].0, spans[i + len - 1].1);
                out_spans.extend(std::iter::repeat_n(span, decoded.len()));
                out.extend(decoded);
                i += len;
            }
            None => {
                out.push(bytes[i]);
                out_spans.push(spans[i]);
                i += 1;
            }
        }
    }
    (out, out_spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_redacted_in_every_spelling() {
        let secrets = vec!["demo-secret-7Qx9".to_owned()];
        for text in [
            "X-Project-Uuid `demo-secret-7Qx9`",
            "X-Project-Uuid `DEMO-SECRET-7QX9`",
            "X-Project-Uuid `%64emo-secret-7Qx9`",
            "X-Project-Uuid `\\u0064emo%2Dsecret-7Qx9`",
            "X-Project-Uuid `demo%252Dsecret-7Qx9`",
        ] {
            let out = redact(text, &secrets);
            assert_eq!(out, "X-Project-Uuid `[redacted]`", "{text}");
        }
        assert_eq!(redact("nothing here", &secrets), "nothing here");
    }

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(
            printable("a\u{1b}[31mb\u{0}c\u{202e}d"),
            "a\\u{1b}[31mb\\u{0}c\\u{202e}d"
        );
        assert_eq!(printable("Café"), "Café");
    }

    #[test]
    fn the_requests_credentials_are_its_secrets() {
        let req = Request {
            method: "POST".into(),
            target: "/v2/api/component/x/auth?client_secret=s3cr%65t-q&modelUuid=m".into(),
            headers: vec![
                ("X-Client-Id".into(), b"client-one".to_vec()),
                ("X-Client-Secret".into(), b"hdr-secret".to_vec()),
                ("Authorization".into(), b"Bearer bearer-tok".to_vec()),
            ],
            body: br#"{"email":"a@b.c","password":"hunter22","pin":1234}"#.to_vec(),
            body_cut: false,
        };
        let got = secrets_of(&req, &[], &["profile-secret".into()]);
        for want in [
            "s3cret-q",
            "hdr-secret",
            "bearer-tok",
            "hunter22",
            "1234",
            "profile-secret",
        ] {
            assert!(got.iter().any(|s| s == want), "{want} in {got:?}");
        }
        assert!(
            !got.iter().any(|s| s == "client-one" || s == "a@b.c"),
            "{got:?}"
        );
        assert!(is_credential_name("X-Api-Key") && is_credential_name("access_token"));
        assert!(!is_credential_name("shipping") && !is_credential_name("modelUuid"));
    }
}
