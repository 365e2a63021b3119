//! Other spellings of the same text: letter case flipped, percent-encoded.
//! A check sends a name spelt another way to learn whether the server takes
//! it for the same one (RFC 3986 says a percent-encoded unreserved
//! character is; the description says nothing of letter case).

/// `s` with every letter's case flipped (`Users` -> `uSERS`).
pub fn flip_case(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_lowercase() {
                c.to_uppercase().collect::<String>()
            } else {
                c.to_lowercase().collect()
            }
        })
        .collect()
}

/// `true` when `name` changes under percent-encoding of a path segment.
pub fn needs_encoding(name: &str) -> bool {
    !name.bytes().all(unreserved)
}

/// An unreserved byte of RFC 3986 (section 2.3): A-Z a-z 0-9 - . _ ~.
fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~".contains(&b)
}

/// `name` as a path segment with every byte percent-encoded that needs it,
/// and its first unreserved character too (`Users` -> `%55sers`): RFC 3986
/// section 2.3 makes the two spellings the same name, so every name, plain
/// or not, tests that the server decodes what it is sent.
pub fn percent_encoded(name: &str) -> String {
    let mut out = String::new();
    let mut first = true;
    for b in name.bytes() {
        if unreserved(b) && !first {
            out.push(char::from(b));
        } else {
            first &= !unreserved(b);
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_percent_encoded_spelling() {
        assert_eq!(percent_encoded("Users"), "%55sers");
        assert_eq!(percent_encoded("cafe-menu"), "%63afe-menu");
        assert_eq!(percent_encoded("Café Menü"), "%43af%C3%A9%20Men%C3%BC");
        assert_eq!(percent_encoded("-"), "%2D");
        assert!(!needs_encoding("Users") && needs_encoding("Café Menü"));
    }
}
