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

/// One line made inert: never a fence nor indented code, and no bracket
/// rustdoc would try to resolve as a link to an item.
pub(crate) fn inert_line(line: &str) -> String {
    escape_shortcut_links(&escape_fences(&cap_indentation(line)))
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

/// `[x]` outside code and not a link of Markdown's own (`[x](url)`,
/// `[x][ref]`, `[x]: url`) escaped as `\[x\]`: rustdoc reads it as a link
/// to an item named `x`, which a spec's prose (`servers[0]`) never means,
/// and warns that there is none.
fn escape_shortcut_links(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut escape = vec![false; chars.len()];
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '`' => {
                // A code span: to the next run of as many backticks, if any.
                let run = chars[i..].iter().take_while(|c| **c == '`').count();
                let close = (i + run..chars.len()).find(|&j| {
                    chars[j..].iter().take_while(|c| **c == '`').count() == run
                        && (j == 0 || chars[j - 1] != '`')
                });
                i = close.map_or(i + run, |j| j + run);
            }
            '[' => {
                let close = matching_bracket(&chars, i);
                match close {
                    Some(j) if !matches!(chars.get(j + 1), Some('(' | '[' | ':')) => {
                        escape[i] = true;
                        escape[j] = true;
                        i += 1;
                    }
                    // A link of Markdown's own: left whole, with the
                    // `[ref]` of a reference link.
                    Some(j) => {
                        i = j + 1;
                        if chars.get(i) == Some(&'[') {
                            i = matching_bracket(&chars, i).map_or(i, |k| k + 1);
                        }
                    }
                    None => {
                        escape[i] = true;
                        i += 1;
                    }
                }
            }
            ']' => {
                escape[i] = true;
                i += 1;
            }
            _ => i += 1,
        }
    }
    let mut out = String::with_capacity(line.len() + 4);
    for (c, escaped) in chars.into_iter().zip(escape) {
        if escaped {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The `]` that closes the `[` at `open` (brackets nest), outside code
/// spans and escapes.
fn matching_bracket(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '`' => return None,
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::inert_line;

    #[test]
    fn brackets_are_text_unless_a_markdown_link() {
        assert_eq!(inert("see servers[0] here"), "see servers\\[0\\] here");
        assert_eq!(
            inert("[a](https://x) and [b][c]"),
            "[a](https://x) and [b][c]"
        );
        assert_eq!(
            inert("`servers[0]` and ``a[0]``"),
            "`servers[0]` and ``a[0]``"
        );
        assert_eq!(inert("a [x [y] z] b"), "a \\[x \\[y\\] z\\] b");
        assert_eq!(
            inert("unbalanced [ and ] alone"),
            "unbalanced \\[ and \\] alone"
        );
        assert_eq!(inert("already \\[x\\]"), "already \\[x\\]");
        assert_eq!(inert("[ref]: https://x"), "[ref]: https://x");
    }

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
