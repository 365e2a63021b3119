//! The interface description as the runner carries it (the copy in `spec/`,
//! built in): its sections, the sentences that state requirements, and where
//! a check's quote stands in it. Coverage lists the statements; SARIF points
//! each failure at its line.

/// The text of `spec/interface-description.md`, built in.
pub const TEXT: &str = include_str!("../../../spec/interface-description.md");

/// Where the description is in this repository (SARIF's artifact).
pub const PATH: &str = "spec/interface-description.md";

/// Our spec beside it, built in: where our choices are stated.
pub const OPENAPI: &str = include_str!("../../../spec/openapi.yaml");
pub const OPENAPI_PATH: &str = "spec/openapi.yaml";

/// One sentence, table row, rule or item that states something a server
/// must do or be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// The section it stands in (`4.1`).
    pub section: String,
    /// 1-based.
    pub line: usize,
    pub text: String,
    /// Byte range in [`TEXT`].
    pub start: usize,
    pub end: usize,
}

/// The line (1-based) of byte `offset`.
pub fn line_of(offset: usize) -> usize {
    TEXT[..offset.min(TEXT.len())].matches('\n').count() + 1
}

/// Every heading: (section number, byte offset of the heading line, depth).
fn headings() -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in TEXT.split_inclusive('\n') {
        let depth = line.chars().take_while(|c| *c == '#').count();
        if depth >= 2 {
            let title = line[depth..].trim();
            if let Some(number) = title.split_whitespace().next() {
                let number = number.trim_end_matches('.');
                if number.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                    out.push((number.to_owned(), offset, depth));
                }
            }
        }
        offset += line.len();
    }
    out
}

/// The byte range of section `section` (with its subsections).
pub fn section_span(section: &str) -> Option<(usize, usize)> {
    let all = headings();
    let i = all.iter().position(|(n, _, _)| n == section)?;
    let (_, start, depth) = &all[i];
    let end = all[i + 1..]
        .iter()
        .find(|(_, _, d)| d <= depth)
        .map_or(TEXT.len(), |(_, o, _)| *o);
    Some((*start, end))
}

/// The line of section `section`'s heading.
pub fn heading_line(section: &str) -> Option<usize> {
    section_span(section).map(|(start, _)| line_of(start))
}

/// Where `quote` stands: in `section` when it is there (a row such as
/// `X-Client-Secret | string | yes` is in §4.1, §4.2 and §5), else its first
/// place. Byte range.
pub fn locate(quote: &str, section: &str) -> Option<(usize, usize)> {
    if quote.is_empty() {
        return None;
    }
    let within = section_span(section).and_then(|(start, end)| {
        TEXT[start..end]
            .find(quote)
            .map(|at| (start + at, start + at + quote.len()))
    });
    within.or_else(|| TEXT.find(quote).map(|at| (at, at + quote.len())))
}

/// The section a byte offset stands in (the deepest heading before it).
fn section_at(offset: usize) -> String {
    headings()
        .into_iter()
        .rev()
        .find(|(_, o, _)| *o <= offset)
        .map_or_else(String::new, |(n, _, _)| n)
}

/// Every statement of a requirement, in document order: table rows (not
/// header rows), numbered rules, list items and the sentences of prose
/// paragraphs, leaving out what states nothing (text saying "not shown",
/// lines that introduce a table or list, and the preamble before §1).
pub fn statements() -> Vec<Statement> {
    let lines: Vec<(usize, &str)> = {
        let mut offset = 0;
        TEXT.split_inclusive('\n')
            .map(|l| {
                let at = offset;
                offset += l.len();
                (at, l.trim_end_matches(['\n', '\r']))
            })
            .collect()
    };
    let first_section = headings().first().map_or(0, |(_, o, _)| *o);
    let mut out = Vec::new();
    for (i, (offset, line)) in lines.iter().enumerate() {
        let trimmed = line.trim();
        // A label (`Rules:`, `Path parameters:`) introduces; a longer line
        // ending in a colon states ("Every request ... carries these headers:").
        let label = trimmed.ends_with(':') && trimmed.split_whitespace().count() <= 3;
        if *offset < first_section || trimmed.is_empty() || label || trimmed.starts_with("## ") {
            continue;
        }
        let push = |out: &mut Vec<Statement>, start: usize, text: &str| {
            out.push(Statement {
                section: section_at(start),
                line: line_of(start),
                text: text.to_owned(),
                start,
                end: start + text.len(),
            });
        };
        // An operation or a shape is named by its heading (`### 4.1 Auth
        // Claims: get the model ...`).
        if let Some(title) = trimmed.strip_prefix("### ") {
            if title.starts_with(|c: char| c.is_ascii_digit()) {
                push(&mut out, *offset, line);
            }
            continue;
        }
        // A table row states its item even where a part of it is not shown.
        if trimmed.starts_with('|') {
            let separator = |l: &str| l.trim().starts_with("|---") || l.trim().starts_with("| ---");
            let is_header = lines.get(i + 1).is_some_and(|(_, next)| separator(next));
            if !separator(trimmed) && !is_header {
                push(&mut out, *offset, line);
            }
            continue;
        }
        let is_item = trimmed.starts_with("- ")
            || trimmed
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if is_item {
            push(&mut out, *offset, line);
            continue;
        }
        // Prose: one statement per sentence; a sentence that only says what
        // is not shown states nothing.
        let mut sentences = Vec::new();
        let mut start = 0;
        for (at, _) in line.match_indices(". ") {
            sentences.push((start, &line[start..=at]));
            start = at + 2;
        }
        if start < line.len() {
            sentences.push((start, &line[start..]));
        }
        for (start, sentence) in sentences {
            if !sentence.contains("not shown") {
                push(&mut out, offset + start, sentence);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_and_quotes_are_found_where_they_stand() {
        let (start, end) = section_span("4.1").expect("4.1");
        assert!(TEXT[start..end].starts_with("### 4.1 Auth Claims"));
        assert!(!TEXT[start..end].contains("### 4.2"));
        let (s4, e4) = section_span("4").expect("4");
        assert!(s4 < start && e4 > end, "§4 holds §4.1");
        let row = "| X-Client-Secret | string | yes |";
        let in_5 = locate(row, "5").expect("in §5");
        let in_41 = locate(row, "4.1").expect("in §4.1");
        assert!(in_41.0 < in_5.0);
        assert_eq!(section_at(in_5.0), "5");
        assert_eq!(
            heading_line("7.2").map(|l| TEXT.lines().nth(l - 1)),
            Some(Some(
                "### 7.2 417 (described as a conflict, validation failed)"
            ))
        );
    }

    #[test]
    fn statements_are_rows_rules_and_sentences() {
        let all = statements();
        let texts: Vec<&str> = all.iter().map(|s| s.text.as_str()).collect();
        assert!(texts.contains(
            &"1. When validation of the request fails, the response status is 417 and has the 7.2 shape."
        ));
        assert!(texts.contains(&"Error responses are JSON."));
        assert!(texts.contains(&"| code | integer | Error code. |"));
        assert!(
            !texts
                .iter()
                .any(|t| t.contains("not shown") && !t.starts_with('|'))
        );
        assert!(texts.contains(&"Every request to both operations carries these headers:"));
        assert!(!texts.contains(&"Rules:"));
        assert!(!texts.contains(&"| Field | Type | Notes |"), "a header row");
        assert!(!texts.iter().any(|t| t.starts_with("|---")));
        for s in &all {
            assert_eq!(&TEXT[s.start..s.end], s.text);
            assert!(
                TEXT.lines()
                    .nth(s.line - 1)
                    .is_some_and(|l| l.contains(&s.text))
            );
        }
    }
}
