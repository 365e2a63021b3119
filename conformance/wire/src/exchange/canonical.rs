//! Text as a reader would take it, for finding secrets in any spelling.
//!
//! A server can echo a secret percent-encoded byte by byte (`%61%64`), with
//! JSON or C escapes (`\u0061`, `\x61`), in another letter case, or in a
//! mixture of these. Listing spellings never ends; instead the text is
//! decoded the ways a reader would decode it (escapes undone, repeatedly for
//! nested ones; letter case folded; `+` read as a space, as forms write it),
//! and every character of the result remembers the bytes of the original it
//! came from. A secret is looked for in the decoded view, and a match is
//! mapped back to the span of the original that spells it.

/// Nested escapes (`%2561`: `%61` percent-encoded) undone at most this deep.
const MAX_ROUNDS: usize = 4;

/// `text` decoded and folded, with for each of its bytes the byte range of
/// the original it stands for.
pub struct Canonical {
    pub text: String,
    /// `None`: each byte of `text` stands for the same byte of the original.
    spans: Option<Vec<(usize, usize)>>,
}

impl Canonical {
    pub fn of(original: &str) -> Self {
        // Most text is ASCII without an escape: folded byte for byte, with
        // no map to keep (the scrubber reads every header and string).
        if original.is_ascii() && !original.bytes().any(|b| matches!(b, b'%' | b'\\')) {
            // (std's own loops: this runs for every string of every answer.)
            let mut text = original.to_ascii_lowercase();
            if text.contains('+') {
                text = text.replace('+', " ");
            }
            return Canonical { text, spans: None };
        }
        let mut bytes: Vec<u8> = original.as_bytes().to_vec();
        let mut spans: Vec<(usize, usize)> = (0..bytes.len()).map(|i| (i, i + 1)).collect();
        for _ in 0..MAX_ROUNDS {
            if !bytes.iter().any(|b| matches!(b, b'%' | b'\\')) {
                break;
            }
            let (next, next_spans) = unescape(&bytes, &spans);
            if next.len() == bytes.len() {
                break;
            }
            bytes = next;
            spans = next_spans;
        }
        let mut text = String::with_capacity(bytes.len());
        let mut out_spans = Vec::with_capacity(bytes.len());
        let mut at = 0;
        for chunk in bytes.utf8_chunks() {
            for (i, c) in chunk.valid().char_indices() {
                let span = (spans[at + i].0, spans[at + i + c.len_utf8() - 1].1);
                fold(c, span, &mut text, &mut out_spans);
            }
            at += chunk.valid().len();
            for _ in chunk.invalid() {
                fold(
                    char::REPLACEMENT_CHARACTER,
                    spans[at],
                    &mut text,
                    &mut out_spans,
                );
                at += 1;
            }
        }
        Canonical {
            text,
            spans: Some(out_spans),
        }
    }

    /// The byte range of the original that the canonical bytes
    /// `start..end` came from.
    pub fn original_range(&self, start: usize, end: usize) -> (usize, usize) {
        match &self.spans {
            Some(spans) => (spans[start].0, spans[end - 1].1),
            None => (start, end),
        }
    }
}

/// Letter case folded; `+` is a space (form encoding).
fn fold(c: char, span: (usize, usize), text: &mut String, spans: &mut Vec<(usize, usize)>) {
    if c.is_ascii() {
        text.push(if c == '+' {
            ' '
        } else {
            c.to_ascii_lowercase()
        });
        spans.push(span);
        return;
    }
    let mut push = |c: char| {
        text.push(c);
        spans.extend(std::iter::repeat_n(span, c.len_utf8()));
    };
    if c == '+' {
        push(' ');
    } else {
        c.to_lowercase().for_each(&mut push);
    }
}

/// One round of decoding: `%XX`, `\uXXXX` (with surrogate pairs), `\xXX`
/// and JSON's one-letter escapes.
fn unescape(bytes: &[u8], spans: &[(usize, usize)]) -> (Vec<u8>, Vec<(usize, usize)>) {
    let mut out = Vec::with_capacity(bytes.len());
    let mut out_spans = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let (decoded, used) = escape_at(bytes, i);
        match decoded {
            Some(Decoded::Byte(b)) => {
                out.push(b);
                out_spans.push((spans[i].0, spans[i + used - 1].1));
            }
            Some(Decoded::Char(c)) => {
                let span = (spans[i].0, spans[i + used - 1].1);
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push(b);
                    out_spans.push(span);
                }
            }
            None => {
                out.push(bytes[i]);
                out_spans.push(spans[i]);
            }
        }
        i += used;
    }
    (out, out_spans)
}

enum Decoded {
    Byte(u8),
    Char(char),
}

/// The escape that starts at `i`, and how many bytes it takes (1 and
/// `None` when none starts there).
fn escape_at(bytes: &[u8], i: usize) -> (Option<Decoded>, usize) {
    let hex = |from: usize, n: usize| -> Option<u32> {
        let digits = bytes.get(from..from + n)?;
        let text = std::str::from_utf8(digits).ok()?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(text, 16).ok()
    };
    match (bytes[i], bytes.get(i + 1)) {
        (b'%', _) => match hex(i + 1, 2) {
            Some(b) => (Some(Decoded::Byte(b as u8)), 3),
            None => (None, 1),
        },
        (b'\\', Some(b'x')) => match hex(i + 2, 2) {
            Some(b) => (Some(Decoded::Byte(b as u8)), 4),
            None => (None, 1),
        },
        (b'\\', Some(b'u')) => {
            let Some(unit) = hex(i + 2, 4) else {
                return (None, 1);
            };
            if (0xD800..0xDC00).contains(&unit) && bytes.get(i + 6..i + 8) == Some(b"\\u") {
                if let Some(low @ 0xDC00..0xE000) = hex(i + 8, 4) {
                    let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    if let Some(c) = char::from_u32(c) {
                        return (Some(Decoded::Char(c)), 12);
                    }
                }
            }
            let c = char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER);
            (Some(Decoded::Char(c)), 6)
        }
        (b'\\', Some(&e)) => {
            let c = match e {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'\'' => '\'',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                _ => return (None, 1),
            };
            (Some(Decoded::Char(c)), 2)
        }
        _ => (None, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(s: &str) -> String {
        Canonical::of(s).text
    }

    #[test]
    fn every_spelling_reads_the_same() {
        let plain = view("adv-Secret");
        for spelling in [
            "%61%64%76%2d%53%65%63%72%65%74",
            "%61%64%76%2D%53%65%63%72%65%74",
            "ADV-SECRET",
            "aDV-sECRET",
            "\\u0061\\u0064\\u0076\\u002D\\u0053ecret",
            "\\u0061\\u0064\\u0076\\u002d\\u0053ecret",
            "a%64\\u0076-SeC%72\\x65t",
            "%5cu0061dv-secret",
        ] {
            assert_eq!(view(spelling), plain, "{spelling}");
        }
    }

    #[test]
    fn a_match_maps_back_to_the_original_span() {
        let original = "x %E2%82%AC\\u00e9 y";
        let c = Canonical::of(original);
        assert_eq!(c.text, "x €é y");
        let start = c.text.find('€').expect("found");
        let end = c.text.find(" y").expect("found");
        let (a, b) = c.original_range(start, end);
        assert_eq!(&original[a..b], "%E2%82%AC\\u00e9");
    }

    #[test]
    fn plus_is_a_space_and_broken_escapes_stay() {
        assert_eq!(view("a+b %zz \\u12 \\q"), "a b %zz \\u12 \\q");
        assert_eq!(view("%FF"), "\u{fffd}");
    }
}
