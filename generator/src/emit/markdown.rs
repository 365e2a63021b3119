//! Spec text made inert for a doc comment: no code block in it can become a
//! doctest.
//!
//! rustdoc compiles and runs every Markdown code block of a doc comment
//! that has no language or says `rust`: fenced (```` ``` ````, `~~~`) or
//! indented by four spaces, at the top level or inside a block quote or a
//! list item. Whoever writes a spec must not be able to run code on the
//! machine of whoever generates from it, so no line of spec text may start
//! or end a code block, in any context:
//!
//! - indentation is capped: at most three spaces at the start of a line
//!   (the space after `///` included: rustdoc removes the common
//!   indentation of a doc comment, which a user's own doc comment on the
//!   `mod` holding the generated file can make zero) and after each
//!   block-quote or list marker, which no indented code block can start
//!   with;
//! - a run of three or more backticks or tildes has its characters escaped
//!   (`` \` ``), so it is text, never a fence.
//!
//! Rewriting fences to say `text` instead would keep code looking like
//! code, but is not safe: whether a line opens or closes a fence depends on
//! the list items and quotes around it, and a closing fence read as an
//! opening one starts a Rust block that takes in every line after it. The
//! code of a spec's examples reads as plain text.

/// One line made inert: never a fence nor indented code.
pub(crate) fn inert_line(line: &str) -> String {
    escape_fences(&cap_indentation(line))
}

/// The width of leading whitespace (a tab to the next multiple of four)
/// and the rest of the line.
fn indentation(line: &str) -> (usize, &str) {
    let mut width = 0;
    for (i, c) in line.char_indices() {
        match c {
            ' ' => width += 1,
            '\t' => width += 4 - width % 4,
            _ => return (width, &line[i..]),
        }
    }
    (width, "")
}

/// At most three spaces at the start, and after each `>` and list marker.
fn cap_indentation(line: &str) -> String {
    let (indent, rest) = indentation(line);
    let mut out = " ".repeat(indent.min(3));
    let marker = if rest.starts_with('>') {
        Some(&rest[..1])
    } else {
        list_marker(rest)
    };
    match marker {
        Some(marker) => {
            out.push_str(marker);
            let (after, content) = indentation(&rest[marker.len()..]);
            if !content.is_empty() {
                // One to three spaces after a marker: never code.
                out.push_str(&" ".repeat(after.clamp(1, 3)));
                out.push_str(&cap_indentation(content));
            }
        }
        None => out.push_str(rest),
    }
    out
}

/// `-`, `*`, `+`, or up to nine digits and `.` or `)`, followed by
/// whitespace or the end of the line.
fn list_marker(rest: &str) -> Option<&str> {
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let len = if digits > 0 && digits <= 9 && rest[digits..].starts_with(['.', ')']) {
        digits + 1
    } else if rest.starts_with(['-', '*', '+']) {
        1
    } else {
        return None;
    };
    let after = &rest[len..];
    (after.is_empty() || after.starts_with([' ', '\t'])).then_some(&rest[..len])
}

/// Three or more backticks or tildes in a row, each escaped.
fn escape_fences(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let run = chars[i..].iter().take_while(|x| **x == c).count();
        if matches!(c, '`' | '~') && run >= 3 {
            for _ in 0..run {
                out.push('\\');
                out.push(c);
            }
        } else {
            out.extend(&chars[i..i + run]);
        }
        i += run;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::inert_line;

    fn inert(text: &str) -> String {
        text.lines().map(inert_line).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn fences_are_text() {
        assert_eq!(
            inert("a\n```rust\nstd::fs::write(\"x\", \"\")\n```"),
            "a\n\\`\\`\\`rust\nstd::fs::write(\"x\", \"\")\n\\`\\`\\`"
        );
        assert_eq!(inert("~~~~"), "\\~\\~\\~\\~");
        assert_eq!(inert("> ```rust"), "> \\`\\`\\`rust");
        assert_eq!(inert("1. ~~~"), "1. \\~\\~\\~");
        // Inline code with fewer backticks is left alone.
        assert_eq!(inert("``x`` and `y`"), "``x`` and `y`");
    }

    #[test]
    fn indentation_is_capped_everywhere() {
        assert_eq!(inert("a\n\n    code()"), "a\n\n   code()");
        assert_eq!(inert("\tcode()"), "   code()");
        assert_eq!(inert("-     code()"), "-   code()");
        assert_eq!(inert(">     code()"), ">   code()");
        assert_eq!(inert(">code()"), "> code()");
        assert_eq!(inert("> -      code()"), "> -   code()");
        assert_eq!(inert("1.      code()"), "1.   code()");
        assert_eq!(inert("  - nested"), "  - nested");
    }
}
