//! Names in the spec turned into Rust identifiers: the one door every
//! identifier made from spec text goes through.
//!
//! - [`snake`] and [`pascal`] make a valid Rust identifier of any string:
//!   ASCII letters and digits are kept, split into words at punctuation and
//!   case changes; any other letter or digit (`é`, `²`, `①`, `١`) becomes a
//!   word of its own, `u` and its code point in hex (`u00e9`), so identifiers
//!   are always ASCII (no `uncommon_codepoints` or confusable-identifier
//!   lints in the output, no NFC surprises); a leading digit gets a letter
//!   in front; a keyword (strict, reserved, or `gen` of edition 2024) gets a
//!   trailing `_`.
//! - [`Scope`] hands out names within one namespace (the types module, the
//!   fields of a struct, the methods of the client, …) so that no two
//!   things share one: the first comes first (document order), later ones
//!   get a numeric suffix (`Pet`, `Pet2`; `send_2`). Names the generated code
//!   itself uses in that namespace are reserved up front.

use std::collections::BTreeSet;

/// Splits `X-Client-Id`, `modelUuid`, `auth_claims` or `HTTPServer` into
/// lower-case words.
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            if c.is_alphanumeric() {
                words.push(format!("u{:04x}", u32::from(c)));
            }
            continue;
        }
        // `current` is not empty, so the character before is ASCII alphanumeric.
        let boundary = c.is_ascii_uppercase()
            && !current.is_empty()
            && (chars[i - 1].is_ascii_lowercase()
                || chars[i - 1].is_ascii_digit()
                || chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()));
        if boundary {
            words.push(std::mem::take(&mut current));
        }
        current.push(c.to_ascii_lowercase());
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
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
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

/// `SCREAMING_SNAKE_CASE`, for constants.
pub fn screaming(name: &str) -> String {
    let snake = snake(name);
    let upper = snake.trim_end_matches('_').to_ascii_uppercase();
    escape(upper, 'N')
}

/// Words that cannot be identifiers as they are; `syn` knows all but the
/// newest of them.
const RESERVED: &[&str] = &["Self", "self", "crate", "super", "gen", "_"];

fn escape(mut name: String, digit_prefix: char) -> String {
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, digit_prefix);
    }
    while !is_identifier(&name) {
        name.push('_');
    }
    name
}

/// Whether `name` can be written as an identifier in edition 2024 code.
pub fn is_identifier(name: &str) -> bool {
    name.is_ascii()
        && !RESERVED.contains(&name)
        && syn::parse_str::<syn::Ident>(name).is_ok_and(|ident| ident == name)
}

/// One namespace of generated identifiers.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    taken: BTreeSet<String>,
}

impl Scope {
    /// A scope in which `reserved` (names the generated code uses itself)
    /// are already taken.
    pub fn new(reserved: &[&str]) -> Self {
        Self {
            taken: reserved.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// Takes `name`, or, when it is taken, the first free `name2`, `name3`…
    /// (`name_2`… when `name` is snake case).
    pub fn claim(&mut self, name: &str) -> String {
        let separator = if name.starts_with(|c: char| c.is_ascii_lowercase()) {
            "_"
        } else {
            ""
        };
        let base = name.trim_end_matches('_');
        let mut candidate = name.to_owned();
        let mut n = 2;
        while self.taken.contains(&candidate) || !is_identifier(&candidate) {
            candidate = format!("{base}{separator}{n}");
            n += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }

    pub fn is_taken(&self, name: &str) -> bool {
        self.taken.contains(name)
    }
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
        assert_eq!(snake("gen"), "gen_");
        assert_eq!(pascal("authClaims"), "AuthClaims");
        assert_eq!(pascal("dev"), "Dev");
        assert_eq!(pascal("in-progress"), "InProgress");
        assert_eq!(pascal("self"), "Self_");
        assert_eq!(snake("2fa"), "n2fa");
        assert_eq!(pascal("2nd"), "N2nd");
        assert_eq!(screaming("ExpectationFailed"), "EXPECTATION_FAILED");
        assert_eq!(screaming("Self"), "SELF");
    }

    #[test]
    fn any_text_becomes_an_ascii_identifier() {
        assert_eq!(snake("Café"), "caf_u00e9");
        assert_eq!(snake("m²"), "m_u00b2");
        assert_eq!(pascal("①"), "U2460");
        assert_eq!(snake("١abc"), "u0661_abc");
        assert_eq!(snake(""), "value");
        assert_eq!(pascal("--"), "Value");
        assert_eq!(snake("名前"), "u540d_u524d");
        for text in [
            "", "_", "__", "𝔘", "\u{202e}", "a\u{0}b", "Self", "r#type", "1", "_1",
        ] {
            for name in [snake(text), pascal(text), screaming(text)] {
                assert!(is_identifier(&name), "{text:?} → {name:?}");
            }
        }
    }

    #[test]
    fn a_scope_resolves_collisions_in_order() {
        let mut scope = Scope::new(&["send", "new"]);
        assert_eq!(scope.claim("send"), "send_2");
        assert_eq!(scope.claim("get"), "get");
        assert_eq!(scope.claim("get"), "get_2");
        assert_eq!(scope.claim("get"), "get_3");
        let mut types = Scope::default();
        assert_eq!(types.claim(&pascal("pet")), "Pet");
        assert_eq!(types.claim(&pascal("Pet")), "Pet2");
        assert_eq!(types.claim(&pascal("ref")), "Ref");
        assert_eq!(types.claim("Self_"), "Self_");
        assert_eq!(types.claim("Self_"), "Self2");
    }
}
