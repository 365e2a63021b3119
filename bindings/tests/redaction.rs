//! Nothing the bindings print holds a credential, whatever the answer: an
//! issued token in a documented body, in an undocumented one, in a body
//! that does not match its schema (and in serde's reason for it), in a
//! header; a client secret or a URL's password in an error. Every kind is
//! printed with `{:?}` (and `{}` where it has one) and searched for the
//! token in every spelling a printer could give it.

use component_auth_bindings::{
    AuthClaimsResponse, AuthorizeResponse, Client, DecodeResponse, Defaults, RawResponse, Secret,
    server_url,
};

const TOKEN: &str = "tok_Zq81-secret/Value+9";

/// The token as text, JSON-escaped, percent-encoded, in either letter case,
/// as bytes in a `Debug` of `Bytes` (`\"` escapes), and base64.
fn spellings(secret: &str) -> Vec<String> {
    let percent: String = secret
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect();
    let base64 = {
        const TABLE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let bytes = secret.as_bytes();
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n =
                chunk.iter().fold(0u32, |n, b| (n << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
            for i in 0..=chunk.len() {
                out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
            }
        }
        out
    };
    let mut all = vec![
        secret.to_owned(),
        secret.replace('/', "\\/"),
        percent,
        secret.to_ascii_lowercase(),
        secret.to_ascii_uppercase(),
        base64,
    ];
    // The part after any prefix a printer might cut at, long enough to be
    // the secret and no common word.
    all.push(secret["tok_".len()..].to_owned());
    all
}

fn assert_clean(what: &str, printed: &str) {
    for spelling in spellings(TOKEN) {
        assert!(
            !printed.contains(&spelling),
            "{what} prints the token as `{spelling}`: {printed}"
        );
    }
}

fn raw(status: u16, headers: &[(&'static str, &str)], body: &str) -> RawResponse {
    let mut map = component_auth_bindings::http::HeaderMap::new();
    for (name, value) in headers {
        map.insert(*name, value.parse().unwrap());
    }
    RawResponse {
        status,
        headers: map,
        body: body.to_owned().into(),
    }
}

/// A documented success: the token decoded into a `Secret`.
fn documented() -> RawResponse {
    let body = serde_json::json!({
        "code": 200, "status": true, "env": "dev",
        "component": {"uuid": "c", "name": "Users", "tag": "users", "requires_auth": true},
        "model": {"uuid": "m", "fields": {"email": "a@example.com"}},
        "token": TOKEN,
    });
    raw(
        200,
        &[
            ("content-type", "application/json"),
            ("x-auth-token", TOKEN),
            ("set-cookie", &format!("session={TOKEN}; HttpOnly")),
        ],
        &body.to_string(),
    )
}

#[test]
fn no_answer_prints_an_issued_token() {
    let documented = AuthorizeResponse::decode(documented());
    assert_eq!(documented.variant_name(), "Ok");
    // The token is still there, read on purpose.
    let AuthorizeResponse::Ok(ok) = &documented else {
        unreachable!()
    };
    assert_eq!(ok.body.token.expose(), TOKEN);
    assert!(
        String::from_utf8_lossy(ok.raw.expose_body()).contains(TOKEN),
        "the raw bytes stay reachable"
    );
    assert_eq!(ok.raw.header("x-auth-token"), Some(TOKEN));

    // Another server's success shape (a `data` envelope): a mismatch.
    let other_shape = format!(r#"{{"status":true,"data":{{"token":"{TOKEN}","model":"m"}}}}"#);
    let mismatch = AuthorizeResponse::decode(raw(200, &[("x-auth-token", TOKEN)], &other_shape));
    assert_eq!(mismatch.variant_name(), "Mismatch");
    // A token where the schema wants another type: serde's message quotes it.
    let wrong_type = format!(r#"{{"code":"{TOKEN}","status":true}}"#);
    let quoted = AuthClaimsResponse::decode(raw(200, &[], &wrong_type));
    let AuthClaimsResponse::Mismatch { reason, .. } = &quoted else {
        panic!("{quoted:?}")
    };
    assert!(reason.contains("invalid type"), "{reason}");
    // A token in an unknown variant of an enum.
    let wrong_env = documented_body_with("env", TOKEN);
    let variant = AuthorizeResponse::decode(raw(200, &[], &wrong_env));
    assert_eq!(variant.variant_name(), "Mismatch");
    // An undocumented status, the token in its body, a header and a cookie.
    let undocumented = AuthorizeResponse::decode(raw(
        201,
        &[
            ("authorization", &format!("Bearer {TOKEN}")),
            ("cookie", &format!("t={TOKEN}")),
            ("x-client-secret", TOKEN),
        ],
        &format!(r#"{{"issued":"{TOKEN}","n":1}}"#),
    ));
    assert_eq!(undocumented.variant_name(), "Undocumented");
    // Not JSON at all.
    let text = AuthorizeResponse::decode(raw(500, &[], &format!("token={TOKEN}")));

    for (what, answer) in [
        ("a documented success", &documented),
        ("another success shape", &mismatch),
        ("a token of the wrong type", &variant),
        ("an undocumented status", &undocumented),
        ("a text body", &text),
    ] {
        assert_clean(what, &format!("{answer:?}"));
        assert_clean(what, &format!("{answer:#?}"));
        assert_clean(what, &format!("{:?}", answer.raw()));
    }
    assert_clean("a mismatch's reason", &format!("{quoted:?} {reason}"));

    // What is printed still says what came: status, shape, safe headers.
    let printed = format!("{mismatch:?}");
    assert!(
        printed.contains(r#"{"status": bool, "data": {"token": string, "model": string}}"#),
        "{printed}"
    );
    assert!(printed.contains("missing field `code`"), "{printed}");
    let printed = format!("{undocumented:?}");
    assert!(printed.contains("status: 201"), "{printed}");
    assert!(
        printed.contains("\"authorization\": \"[redacted]\""),
        "{printed}"
    );
}

fn documented_body_with(key: &str, value: &str) -> String {
    let mut body: serde_json::Value = serde_json::from_slice(documented().expose_body()).unwrap();
    body[key] = value.into();
    body.to_string()
}

#[test]
fn no_error_or_request_prints_a_credential() {
    let error = Client::new(&format!("http://user:{TOKEN}@ bad host/")).unwrap_err();
    assert_clean("a base URL error", &format!("{error} {error:?}"));
    assert!(error.to_string().contains("user:[redacted]@"), "{error}");

    let client = Client::new(&server_url("http://127.0.0.1:9"))
        .unwrap()
        .with_defaults(Defaults {
            x_client_id: Some("client".into()),
            x_client_secret: Some(Secret::new(TOKEN)),
            ..Defaults::default()
        });
    let mut fields = component_auth_bindings::types::AuthFields::new();
    fields.insert("password".into(), TOKEN.into());
    let builder = client
        .authorize()
        .ref_("users")
        .model_uuid("m")
        .x_auth_token(TOKEN)
        .body(fields);
    let printed = format!("{builder:?}");
    assert_clean("a request builder", &printed);
    assert!(
        printed.contains("[not shown]") && printed.contains("users"),
        "{printed}"
    );
    let prepared = builder.build().unwrap();
    let printed = format!("{prepared:?}");
    assert_clean("a prepared request", &printed);
    assert!(printed.contains("bytes"), "{printed}");

    // A base URL's password (reqwest sends it as basic credentials).
    let client = Client::new("http://user:pw-Base-Url-73@127.0.0.1:9/v2/api").unwrap();
    let printed = format!("{client:?} {:?}", client.auth_claims());
    assert!(!printed.contains("pw-Base-Url-73"), "{printed}");
    assert!(printed.contains("user:[redacted]@127.0.0.1:9"), "{printed}");
}
