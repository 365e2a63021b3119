use super::*;
use std::path::{Path, PathBuf};

const DESCRIPTION: &str = include_str!("../../../spec/interface-description.md");

/// Every numbered heading: (section, byte offset of its line, depth).
fn headings() -> Vec<(&'static str, usize, usize)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in DESCRIPTION.split_inclusive('\n') {
        let depth = line.chars().take_while(|c| *c == '#').count();
        let title = line[depth..].trim();
        if depth >= 2 {
            if let Some(n) = title.split_whitespace().next() {
                let n = n.trim_end_matches('.');
                if n.starts_with(|c: char| c.is_ascii_digit()) {
                    out.push((n, offset, depth));
                }
            }
        }
        offset += line.len();
    }
    out
}

/// The deepest numbered section the byte at `offset` stands in.
fn section_at(offset: usize) -> &'static str {
    headings()
        .into_iter()
        .rev()
        .find(|(_, o, _)| *o <= offset)
        .map_or("", |(n, _, _)| n)
}

/// The one test of the table against the description: each quote stands
/// there word for word, first in the section its row names; ids are the
/// section and a name, unique; no sentence is two rows.
#[test]
fn every_row_quotes_the_description_in_its_section() {
    let mut wrong = Vec::new();
    for (i, r) in REQUIREMENTS.iter().enumerate() {
        match DESCRIPTION.find(r.quote) {
            None => wrong.push(format!("{}: not in the description: {}", r.id, r.quote)),
            Some(at) if section_at(at) != r.section => wrong.push(format!(
                "{}: first stands in §{}, not §{}",
                r.id,
                section_at(at),
                r.section
            )),
            Some(_) => {}
        }
        if r.id.split_once('/').map(|(s, _)| s) != Some(r.section) {
            wrong.push(format!(
                "{}: the id does not start with §{}",
                r.id, r.section
            ));
        }
        for other in &REQUIREMENTS[i + 1..] {
            if other.id == r.id || other.quote == r.quote {
                wrong.push(format!("{} and {} are one row", r.id, other.id));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        Requirement::by_id("7/errors-are-json"),
        Some(&ERRORS_ARE_JSON)
    );
    assert_eq!(Requirement::by_id("7/nothing"), None);
}

/// The workspace's source files outside this crate (tests of a file, after
/// its `#[cfg(test)]`, may search the description for what they assert).
fn sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                let skip = name.starts_with('.')
                    || name == "target"
                    || name == "tests"
                    || name == "benches"
                    || path.ends_with("conformance/requirements");
                if !skip {
                    dirs.push(path);
                }
            } else if name.ends_with(".rs") && path.components().any(|c| c.as_os_str() == "src") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The string literals of `code` outside comments, unescaped enough to
/// compare (`\"` and `\\`).
fn literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let mut chars = line.char_indices().peekable();
        let mut current: Option<String> = None;
        while let Some((_, c)) = chars.next() {
            match (&mut current, c) {
                (None, '"') => current = Some(String::new()),
                (None, '/') if chars.peek().is_some_and(|(_, n)| *n == '/') => break,
                (None, '\'') => {
                    // A char literal ('"') or a lifetime: skip a quoted char.
                    let rest: String = chars.clone().take(3).map(|(_, c)| c).collect();
                    if rest.starts_with("\"'") || rest.starts_with("\\\"") {
                        chars.nth(1);
                    }
                }
                (None, _) => {}
                (Some(s), '\\') => {
                    if let Some((_, n)) = chars.next() {
                        s.push(n);
                    }
                }
                (Some(_), '"') => out.extend(current.take()),
                (Some(s), c) => s.push(c),
            }
        }
    }
    out
}

/// Whether `text` stands in the description outside its headings (a
/// section's title names it: the report's groups say it).
fn quotes_the_description(text: &str) -> bool {
    if text.len() < 16 || !text.contains(' ') {
        return false;
    }
    let a_title = DESCRIPTION.lines().any(|line| {
        let title = line.trim_start_matches('#').trim();
        let title = title.split_once(' ').map_or(title, |(n, rest)| {
            if n.starts_with(|c: char| c.is_ascii_digit()) {
                rest
            } else {
                title
            }
        });
        line.starts_with('#') && title.starts_with(text)
    });
    if a_title {
        return false;
    }
    DESCRIPTION.match_indices(text).any(|(at, _)| {
        let line_start = DESCRIPTION[..at].rfind('\n').map_or(0, |i| i + 1);
        !DESCRIPTION[line_start..].starts_with('#')
    })
}

/// No source file but this crate quotes the description: what quotes it
/// points at a row here.
#[test]
fn no_other_source_file_quotes_the_description() {
    let files = sources();
    assert!(files.len() > 50, "the workspace's sources: {}", files.len());
    let mut quoting = Vec::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let code = text.split("\n#[cfg(test)]").next().unwrap_or(&text);
        for literal in literals(code) {
            if quotes_the_description(&literal) {
                quoting.push(format!("{}: {literal:?}", path.display()));
            }
        }
    }
    assert!(
        quoting.is_empty(),
        "quote the description through conformance-requirements instead:\n{}",
        quoting.join("\n")
    );
}

#[test]
fn the_guard_sees_a_quote() {
    let code = "let a = \"Error responses are JSON.\"; // \"Responses are JSON.\"\n// \"Responses are JSON. x\"\nlet c = '\"'; let b = \"a \\\"quoted\\\" word\";";
    assert_eq!(
        literals(code),
        ["Error responses are JSON.", "a \"quoted\" word"]
    );
    assert!(quotes_the_description("Error responses are JSON."));
    assert!(
        !quotes_the_description("What the service does"),
        "a heading"
    );
    assert!(!quotes_the_description("a \"quoted\" word"));
}
