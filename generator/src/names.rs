//! Names in the spec turned into Rust identifiers, the same way every time.

/// Splits `X-Client-Id`, `modelUuid`, `auth_claims` or `HTTPServer` into
/// lower-case words.
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let boundary = c.is_uppercase()
            && !current.is_empty()
            && (chars[i - 1].is_lowercase()
                || chars[i - 1].is_ascii_digit()
                || chars.get(i + 1).is_some_and(|n| n.is_lowercase()));
        if boundary {
            words.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// `snake_case`, with a trailing `_` where the result is a Rust keyword.
pub fn snake(name: &str) -> String {
    let joined = words(name).join("_");
    escape(
        if joined.is_empty() {
            "value".into()
        } else {
            joined
        },
        'n',
    )
}

/// `PascalCase`, with a trailing `_` where the result is a Rust keyword.
pub fn pascal(name: &str) -> String {
    let joined: String = words(name)
        .iter()
        .map(|w| {
            let mut chars = w.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        })
        .collect();
    escape(
        if joined.is_empty() {
            "Value".into()
        } else {
            joined
        },
        'N',
    )
}

fn escape(mut name: String, digit_prefix: char) -> String {
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, digit_prefix);
    }
    let is_identifier = syn::parse_str::<syn::Ident>(&name).is_ok();
    if !is_identifier || name == "Self" || name == "self" || name == "crate" || name == "super" {
        name.push('_');
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_the_usual_shapes() {
        assert_eq!(snake("X-Client-Id"), "x_client_id");
        assert_eq!(snake("modelUuid"), "model_uuid");
        assert_eq!(snake("request_id"), "request_id");
        assert_eq!(snake("HTTPServer"), "http_server");
        assert_eq!(snake("ref"), "ref_");
        assert_eq!(snake("type"), "type_");
        assert_eq!(pascal("authClaims"), "AuthClaims");
        assert_eq!(pascal("dev"), "Dev");
        assert_eq!(pascal("in-progress"), "InProgress");
        assert_eq!(pascal("self"), "Self_");
        assert_eq!(snake("2fa"), "n2fa");
        assert_eq!(pascal("2nd"), "N2nd");
        assert_eq!(snake("Café"), "café");
    }
}
