//! An observed request as a `curl` command a person can paste, with every
//! value that may be secret written as a shell variable: the credentials
//! (`"${CLIENT_SECRET}"`, `"${AUTH_TOKEN}"`, any header not known to be
//! harmless), every query value (`modelUuid='"${MODEL_UUID}"'`) and every
//! string or number of a JSON body (`"pin":'"${PIN}"'`), keeping the shape
//! that broke a rule: which headers came (an empty one as `-H 'Name;'`),
//! the field names, their JSON types, a second JSON text. The server's
//! address is `"${BASE_URL}"`. The proxy does not know the client's
//! secrets, so it does not match values: it never writes one at all.

use serde_json::Value;

use crate::observed::Request;

/// Headers whose values are shown as sent: they say what the request is,
/// never who sends it (`X-Project-Env` is `dev` or `live`, or the fault
/// shown). `X-Client-Id` is not among them: a profile may read it from the
/// environment, as a secret.
const SHOWN: &[&str] = &[
    "accept",
    "accept-encoding",
    "accept-language",
    "content-encoding",
    "content-type",
    "user-agent",
    "x-project-env",
];

/// Headers of one connection, or that curl writes itself: left out.
const LEFT_OUT: &[&str] = &[
    "connection",
    "content-length",
    "host",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// Values shorter than this are not looked for in what is shown (a `1`
/// would be found everywhere).
const MIN_SECRET_LEN: usize = 3;

/// A piece of a shell word: text, or a variable spliced in.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Var(String),
}

/// `req` as one `curl` command line, nothing secret in it.
pub fn curl(req: &Request) -> String {
    let mut hidden: Vec<(String, String)> = Vec::new();
    let mut words: Vec<Vec<Piece>> = Vec::new();
    // The URL: the path as sent, each query value a variable.
    let mut url = vec![Piece::Var("BASE_URL".into())];
    let (path, query) = match req.target.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (req.target.as_str(), None),
    };
    url.push(Piece::Text(path.to_owned()));
    if let Some(query) = query {
        url.push(Piece::Text("?".into()));
        for (i, pair) in query.split('&').enumerate() {
            if i > 0 {
                url.push(Piece::Text("&".into()));
            }
            match pair.split_once('=') {
                Some((name, value)) => {
                    url.push(Piece::Text(format!("{name}=")));
                    if !value.is_empty() {
                        let var = variable(&decode(name));
                        hidden.push((value.to_owned(), var.clone()));
                        hidden.push((decode(value), var.clone()));
                        url.push(Piece::Var(var));
                    }
                }
                None => url.push(Piece::Text(pair.to_owned())),
            }
        }
    }
    words.push(url);
    for (name, value) in &req.headers {
        let lower = name.to_ascii_lowercase();
        if LEFT_OUT.contains(&lower.as_str()) {
            continue;
        }
        let text = String::from_utf8_lossy(value);
        if text.is_empty() {
            // curl drops `Name: ` with nothing after it; `Name;` sends it empty.
            words.push(vec![Piece::Text(format!("{name};"))]);
            continue;
        }
        let shown = SHOWN.contains(&lower.as_str()) && text.chars().all(|c| !c.is_control());
        if shown {
            words.push(vec![Piece::Text(format!("{name}: {text}"))]);
        } else {
            // `x-client-secret` is `CLIENT_SECRET`, `X-Auth-Token` `AUTH_TOKEN`.
            let var = if lower.starts_with("x-") {
                variable(&name[2..])
            } else {
                variable(name)
            };
            hidden.push((text.into_owned(), var.clone()));
            words.push(vec![Piece::Text(format!("{name}: ")), Piece::Var(var)]);
        }
    }
    let body = body(&req.body, &mut hidden);
    // A value shown (a path, X-Client-Id) that holds one written as a
    // variable elsewhere in the request is written through it too.
    hidden.retain(|(v, _)| v.len() >= MIN_SECRET_LEN);
    hidden.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
    // The method is a token of the request line: shown, quoted.
    let mut out = format!(
        "curl -sS -X {} {}",
        shell(&[Piece::Text(req.method.clone())]),
        shell(&scrub(&words[0], &hidden))
    );
    for word in &words[1..] {
        out.push_str(" -H ");
        out.push_str(&shell(&scrub(word, &hidden)));
    }
    if let Some(body) = body {
        out.push_str(" --data-binary ");
        out.push_str(&shell(&scrub(&body, &hidden)));
    }
    out
}

/// The body as pieces: each JSON text with its strings and numbers as
/// variables; a body that is not JSON as `${BODY}` whole.
fn body(bytes: &[u8], hidden: &mut Vec<(String, String)>) -> Option<Vec<Piece>> {
    if bytes.is_empty() {
        return None;
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Some(vec![Piece::Text(String::from_utf8_lossy(bytes).into())]);
    }
    let mut pieces = Vec::new();
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    let mut at = 0;
    loop {
        let before = stream.byte_offset();
        match stream.next() {
            None => break,
            Some(Ok(value)) => {
                // The whitespace before it, as sent.
                let gap = &bytes[at.min(before)..before];
                let lead = gap.iter().take_while(|b| b.is_ascii_whitespace()).count();
                if lead > 0 {
                    pieces.push(Piece::Text(String::from_utf8_lossy(&gap[..lead]).into()));
                }
                json(&value, "BODY", &mut pieces, hidden);
                at = stream.byte_offset();
            }
            Some(Err(_)) => {
                hidden.push((String::from_utf8_lossy(bytes).into(), "BODY".into()));
                return Some(vec![Piece::Var("BODY".into())]);
            }
        }
    }
    let rest = &bytes[at.min(bytes.len())..];
    if !rest.is_empty() {
        pieces.push(Piece::Text(String::from_utf8_lossy(rest).into()));
    }
    Some(pieces)
}

/// `value` as JSON text, its strings and numbers variables named after the
/// field that holds them (`name`).
fn json(value: &Value, name: &str, out: &mut Vec<Piece>, hidden: &mut Vec<(String, String)>) {
    match value {
        Value::Null | Value::Bool(_) => out.push(Piece::Text(value.to_string())),
        Value::Number(n) => {
            hidden.push((n.to_string(), name.to_owned()));
            out.push(Piece::Var(name.to_owned()));
        }
        Value::String(s) => {
            hidden.push((s.clone(), name.to_owned()));
            out.push(Piece::Text("\"".into()));
            out.push(Piece::Var(name.to_owned()));
            out.push(Piece::Text("\"".into()));
        }
        Value::Array(items) => {
            out.push(Piece::Text("[".into()));
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(Piece::Text(",".into()));
                }
                json(item, name, out, hidden);
            }
            out.push(Piece::Text("]".into()));
        }
        Value::Object(map) => {
            out.push(Piece::Text("{".into()));
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(Piece::Text(",".into()));
                }
                out.push(Piece::Text(format!(
                    "{}:",
                    serde_json::to_string(key).unwrap_or_default()
                )));
                json(item, &variable(key), out, hidden);
            }
            out.push(Piece::Text("}".into()));
        }
    }
}

/// Every text piece with each hidden value in it written as its variable.
fn scrub(word: &[Piece], hidden: &[(String, String)]) -> Vec<Piece> {
    let mut pieces = word.to_vec();
    for (value, var) in hidden {
        let mut next = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Text(t) if t.contains(value.as_str()) => {
                    let mut parts = t.split(value.as_str()).peekable();
                    while let Some(part) = parts.next() {
                        if !part.is_empty() {
                            next.push(Piece::Text(part.to_owned()));
                        }
                        if parts.peek().is_some() {
                            next.push(Piece::Var(var.clone()));
                        }
                    }
                }
                other => next.push(other),
            }
        }
        pieces = next;
    }
    pieces
}

/// One shell word: text single-quoted, variables as `"${VAR}"`.
fn shell(word: &[Piece]) -> String {
    let mut out = String::new();
    let mut text = String::new();
    let flush = |text: &mut String, out: &mut String| {
        if !text.is_empty() {
            out.push_str(&format!("'{}'", text.replace('\'', r"'\''")));
            text.clear();
        }
    };
    for piece in word {
        match piece {
            Piece::Text(t) => text.push_str(t),
            Piece::Var(v) => {
                flush(&mut text, &mut out);
                out.push_str(&format!("\"${{{v}}}\""));
            }
        }
    }
    flush(&mut text, &mut out);
    if out.is_empty() { "''".to_owned() } else { out }
}

/// A shell variable's name for a field, parameter or header: `modelUuid`
/// is `MODEL_UUID`, `X-Api-Key` is `API_KEY`.
pub fn variable(name: &str) -> String {
    let mut out = String::new();
    let mut last_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() && last_lower {
            out.push('_');
        }
        last_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_owned();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V_{out}")
    } else {
        out
    }
}

fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(&s.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(method: &str, target: &str, headers: &[(&str, &str)], body: &str) -> Request {
        Request {
            method: method.into(),
            target: target.into(),
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), v.as_bytes().to_vec()))
                .collect(),
            body: body.as_bytes().to_vec(),
            body_cut: false,
        }
    }

    #[test]
    fn values_are_variables_and_the_shape_stays() {
        let r = req(
            "POST",
            "/v2/api/component/catalog/auth?modelUuid=8a9b&x=",
            &[
                ("X-Client-Id", "conformance-client"),
                ("X-Client-Secret", "s3cret-value"),
                ("X-Auth-Token", ""),
                ("Content-Type", "application/json"),
                ("Host", "127.0.0.1:1"),
            ],
            // Keys in order: serde_json keeps them so only where a crate of
            // the build asks it to (`preserve_order`).
            r#"{"account": "acme", "ok": true, "pin": 1234}{"pin":"5678"}"#,
        );
        assert_eq!(
            curl(&r),
            r#"curl -sS -X 'POST' "${BASE_URL}"'/v2/api/component/catalog/auth?modelUuid='"${MODEL_UUID}"'&x=' -H 'X-Client-Id: '"${CLIENT_ID}" -H 'X-Client-Secret: '"${CLIENT_SECRET}" -H 'X-Auth-Token;' -H 'Content-Type: application/json' --data-binary '{"account":"'"${ACCOUNT}"'","ok":true,"pin":'"${PIN}"'}{"pin":"'"${PIN}"'"}'"#
        );
    }

    /// A secret sent where a harmless value goes (in the path, as
    /// X-Project-Env) is written as its variable there too.
    #[test]
    fn a_secret_anywhere_is_a_variable() {
        let r = req(
            "GET",
            "/v2/api/component/s3cret-value/auth",
            &[
                ("X-Project-Env", "s3cret-value"),
                ("X-Client-Secret", "s3cret-value"),
                ("X-Api-Key", "k3y-k3y"),
            ],
            "not json, hunter2",
        );
        let line = curl(&r);
        for secret in ["s3cret", "k3y", "hunter2"] {
            assert!(!line.contains(secret), "{line}");
        }
        assert!(line.contains(r#""${API_KEY}""#) && line.contains(r#"--data-binary "${BODY}""#));
    }

    #[test]
    fn variable_names() {
        assert_eq!(variable("modelUuid"), "MODEL_UUID");
        assert_eq!(variable("Api-Key"), "API_KEY");
        assert_eq!(variable("2fa"), "V_2FA");
        assert_eq!(variable("é"), "V_");
    }
}
