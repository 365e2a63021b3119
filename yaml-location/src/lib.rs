//! Where a node of a YAML document is: the 1-based line of every mapping
//! key, sequence item and value, by path.
//!
//! serde_yaml reports where a syntax error is, but not where a value that
//! parsed well and then failed a check came from. This crate reads the
//! document once more with a parser that keeps spans (saphyr-parser) and
//! records the line of each node, so an error can name `file:line` for any
//! key path. JSON is YAML: JSON documents work the same way.
//!
//! ```
//! let text = "components:\n  - name: Users\n    uuid: nope\n";
//! let lines = yaml_location::Lines::of(text);
//! assert_eq!(lines.line(["components", "0", "uuid"]), Some(3));
//! assert_eq!(lines.line_of_path("components[0].uuid"), Some(3));
//! // A path below what the document holds falls back to its deepest ancestor.
//! assert_eq!(lines.line(["components", "0", "tag"]), Some(2));
//! ```

pub mod input;

use std::collections::HashMap;

use saphyr_parser::{Event, Parser};

/// The line of every node of one document, and where the document holds
/// what a reader of plain data should refuse: a key given twice, a tag, a
/// second document, an alias.
#[derive(Clone, Debug, Default)]
pub struct Lines {
    /// Path segments joined with NUL (a character no YAML key path needs).
    by_path: HashMap<String, usize>,
    /// Keys given a second time in the same mapping, as `(line, path)`
    /// (read by [`Lines::of`] only).
    duplicates: Vec<(usize, String)>,
    /// Tagged nodes, as `(line, path, tag)`.
    tags: Vec<(usize, String, String)>,
    /// The line each document starts on.
    documents: Vec<usize>,
    /// The line of the first alias (`*name`).
    first_alias: Option<usize>,
}

/// A tag as written: `!!binary` for the core schema's, else handle and suffix.
fn tag_text(tag: &saphyr_parser::Tag) -> String {
    if tag.handle == "tag:yaml.org,2002:" {
        format!("!!{}", tag.suffix)
    } else {
        format!("{}{}", tag.handle, tag.suffix)
    }
}

/// Where the parser is inside a container.
enum Frame {
    /// In a mapping: the key whose value comes next, or `None` when a key
    /// comes next.
    Map(Option<String>),
    /// In a sequence: the index of the next item.
    Seq(usize),
}

impl Lines {
    /// Reads `text`. Never fails: past a syntax error (which serde_yaml
    /// reports with its own line), what was read so far is kept.
    pub fn of(text: &str) -> Self {
        Self::read(text, None)
    }

    /// Reads `text`, keeping only the lines [`Lines::line`] needs for the
    /// paths given: much less work on a large document when a few nodes are
    /// asked for, since nothing outside them and their ancestors is kept.
    pub fn of_paths<P, S>(text: &str, paths: impl IntoIterator<Item = P>) -> Self
    where
        P: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut wanted = std::collections::HashSet::new();
        wanted.insert(String::new());
        for segments in paths {
            let mut path = String::new();
            for segment in segments {
                push(&mut path, segment.as_ref());
                wanted.insert(path.clone());
            }
        }
        Self::read(text, Some(&wanted))
    }

    /// Reads `text`; with `wanted`, records only the paths it holds.
    fn read(text: &str, wanted: Option<&std::collections::HashSet<String>>) -> Self {
        let mut lines = Lines::default();
        let mut stack: Vec<Frame> = Vec::new();
        // Whether each open container is wanted: the children of one that is
        // not cannot be, and are passed over without building their path.
        let mut open_wanted: Vec<bool> = Vec::new();
        let record = |lines: &mut Lines, stack: &[Frame], open: &[bool], line| match wanted {
            None => {
                lines.record(stack, line, None);
                true
            }
            Some(_) if open.last() == Some(&false) => false,
            Some(wanted) => lines.record(stack, line, Some(wanted)),
        };
        // The keys seen in each open mapping (for `of` only: finding a key
        // given twice means keeping them all).
        let mut keys: Vec<std::collections::HashSet<String>> = Vec::new();
        let mut past_first = false;
        for event in Parser::new_from_str(text) {
            let Ok((event, span)) = event else { break };
            let line = span.start.line();
            if past_first {
                // Only where later documents start, and their tags.
                if let Event::DocumentStart(_) = event {
                    lines.documents.push(line);
                }
                continue;
            }
            let tag = match &event {
                Event::Scalar(_, _, _, tag)
                | Event::MappingStart(_, tag)
                | Event::SequenceStart(_, tag) => tag.as_deref().map(tag_text),
                _ => None,
            };
            if let Some(tag) = tag {
                let path = lines.path_of(&stack);
                lines.tags.push((line, path, tag));
            }
            match event {
                Event::DocumentStart(_) => lines.documents.push(line),
                Event::Scalar(value, ..) => {
                    let is_key = matches!(stack.last(), Some(Frame::Map(None)));
                    if is_key && wanted.is_none() {
                        if let Some(seen) = keys.last_mut() {
                            if !seen.insert(value.to_string()) {
                                let mut path = lines.path_of(&stack[..stack.len() - 1]);
                                if !path.is_empty() {
                                    path.push('.');
                                }
                                path.push_str(&value);
                                lines.duplicates.push((line, path));
                            }
                        }
                    }
                    if let Some(Frame::Map(key @ None)) = stack.last_mut() {
                        *key = Some(value.into_owned());
                        record(&mut lines, &stack, &open_wanted, line);
                    } else {
                        record(&mut lines, &stack, &open_wanted, line);
                        advance(&mut stack);
                    }
                }
                Event::Alias(_) => {
                    lines.first_alias.get_or_insert(line);
                    if let Some(Frame::Map(key @ None)) = stack.last_mut() {
                        *key = Some(String::new());
                    } else {
                        record(&mut lines, &stack, &open_wanted, line);
                        advance(&mut stack);
                    }
                }
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    if let Some(Frame::Map(key @ None)) = stack.last_mut() {
                        // A complex key: its contents have no path of their own.
                        *key = Some(String::new());
                    }
                    let is_wanted = record(&mut lines, &stack, &open_wanted, line);
                    open_wanted.push(is_wanted);
                    keys.push(Default::default());
                    stack.push(if matches!(event, Event::MappingStart(..)) {
                        Frame::Map(None)
                    } else {
                        Frame::Seq(0)
                    });
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    stack.pop();
                    open_wanted.pop();
                    keys.pop();
                    advance(&mut stack);
                }
                Event::DocumentEnd => past_first = true,
                _ => {}
            }
        }
        lines
    }

    /// The first line recorded for the node the stack points at (when
    /// `wanted` holds its path, if given); whether it was wanted.
    fn record(
        &mut self,
        stack: &[Frame],
        line: usize,
        wanted: Option<&std::collections::HashSet<String>>,
    ) -> bool {
        let mut path = String::new();
        for frame in stack {
            match frame {
                Frame::Map(Some(key)) => push(&mut path, key),
                Frame::Map(None) => return false,
                Frame::Seq(i) => push(&mut path, &i.to_string()),
            }
        }
        if wanted.is_some_and(|wanted| !wanted.contains(&path)) {
            return false;
        }
        self.by_path.entry(path).or_insert(line);
        true
    }

    /// The path the stack points at, written `components[0].uuid`.
    fn path_of(&self, stack: &[Frame]) -> String {
        let segments = stack.iter().map(|frame| match frame {
            Frame::Map(Some(key)) => key.clone(),
            Frame::Map(None) => String::new(),
            Frame::Seq(i) => i.to_string(),
        });
        render_path(segments.filter(|s| !s.is_empty()))
    }

    /// Every key given a second time in one mapping, as `(line, path)` of
    /// the second: serde reports the key's name but where the first one is.
    /// Found by [`Lines::of`] only.
    pub fn duplicate_keys(&self) -> &[(usize, String)] {
        &self.duplicates
    }

    /// Every tagged node (`!!binary`, `!custom`), as `(line, path, tag)`.
    pub fn tags(&self) -> &[(usize, String, String)] {
        &self.tags
    }

    /// The line each document of the stream starts on (one entry for a
    /// plain file; a second `---` adds one).
    pub fn document_lines(&self) -> &[usize] {
        &self.documents
    }

    /// The line of the first alias (`*name`): where an expansion that grows
    /// too large starts.
    pub fn first_alias_line(&self) -> Option<usize> {
        self.first_alias
    }

    /// The line of the node at `segments` (map keys and sequence indexes),
    /// or of its deepest ancestor the document holds.
    pub fn line<I, S>(&self, segments: I) -> Option<usize>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut path = String::new();
        let mut found = self.by_path.get("").copied();
        for segment in segments {
            push(&mut path, segment.as_ref());
            match self.by_path.get(&path) {
                Some(&line) => found = Some(line),
                None => break,
            }
        }
        found
    }

    /// The line of a path written `components[0].uuid` (serde's and
    /// serde_path_to_error's form).
    pub fn line_of_path(&self, path: &str) -> Option<usize> {
        self.line(split_path(path))
    }

    /// Where a deserialization error is, as `(line, key path)`: `path` is
    /// serde_path_to_error's (`.` or `?` when it has none, as for a syntax
    /// error) and `reported` the line the parser gave. With a path: that
    /// key's line; without: the reported line and the deepest key on it
    /// (`(document)` when none).
    pub fn locate(&self, path: &str, reported: usize) -> (usize, String) {
        if path.is_empty() || path == "." || path == "?" {
            let key = self
                .path_at(reported)
                .unwrap_or_else(|| "(document)".to_owned());
            (reported, key)
        } else if let Some(parent) = path.strip_suffix(".?") {
            // A syntax error inside a map, before its next key was read:
            // the deepest key on the reported line within that map, else
            // the map itself (never a `?` a reader cannot look up).
            let deepest = self.deepest_at(reported);
            let key = match deepest.as_slice() {
                [one] => Some(render_path(one.split('\0'))),
                // Several keys on the line (a flow map): which one the
                // parser stopped in is not known, the map is.
                _ => None,
            }
            .filter(|k| k.starts_with(parent))
            .unwrap_or_else(|| parent.to_owned());
            (reported, key)
        } else {
            (self.line_of_path(path).unwrap_or(reported), path.to_owned())
        }
    }

    /// The deepest path that starts on `line`, written `components[0].uuid`:
    /// what a syntax or type error reported at that line is about.
    pub fn path_at(&self, line: usize) -> Option<String> {
        self.deepest_at(line)
            .first()
            .map(|path| render_path(path.split('\0')))
    }

    /// The deepest keys that start on `line`, in one order whatever the
    /// map's (a flow map puts several keys on one line).
    fn deepest_at(&self, line: usize) -> Vec<&str> {
        let on_line = || {
            self.by_path
                .iter()
                .filter(move |(path, l)| **l == line && !path.is_empty())
                .map(|(path, _)| path.as_str())
        };
        let Some(depth) = on_line().map(|p| p.matches('\0').count()).max() else {
            return Vec::new();
        };
        let mut deepest: Vec<&str> = on_line()
            .filter(|p| p.matches('\0').count() == depth)
            .collect();
        deepest.sort_unstable();
        deepest
    }
}

/// The node at the top of the stack is complete: move past it.
fn advance(stack: &mut [Frame]) {
    match stack.last_mut() {
        Some(Frame::Map(key)) => *key = None,
        Some(Frame::Seq(i)) => *i += 1,
        None => {}
    }
}

fn push(path: &mut String, segment: &str) {
    if !path.is_empty() || !segment.is_empty() {
        path.push('\0');
    }
    path.push_str(segment);
}

/// `components`, `0`, `uuid` → `components[0].uuid`.
pub fn render_path<I, S>(segments: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out = String::new();
    for segment in segments {
        let segment = segment.as_ref();
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{segment}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(segment);
        }
    }
    out
}

/// `components[0].uuid` → `components`, `0`, `uuid`.
pub fn split_path(path: &str) -> Vec<String> {
    path.split('.')
        .flat_map(|part| part.split('['))
        .map(|s| s.trim_end_matches(']').to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_yaml_keys_items_and_values() {
        let text = "openapi: 3.0.3\npaths:\n  /a:\n    get:\n      parameters:\n        - name: x\n        - name: y\n          in: path\n";
        let l = Lines::of(text);
        let at = ["paths", "/a", "get", "parameters", "1"];
        assert_eq!(l.line(at), Some(7));
        assert_eq!(l.line(at.iter().chain(&["in"])), Some(8));
        assert_eq!(l.line(at.iter().chain(&["name"])), Some(7));
        assert_eq!(l.line(["openapi"]), Some(1));
        assert_eq!(l.line(["nope"]), Some(1), "the root's line");
    }

    #[test]
    fn json_and_flow_style() {
        let text = "{\n  \"a\": {\n    \"b\": [\n      1,\n      {\"c\": 2}\n    ]\n  }\n}\n";
        let l = Lines::of(text);
        assert_eq!(l.line(["a", "b", "1", "c"]), Some(5));
        assert_eq!(l.line(["a", "b", "0"]), Some(4));
        assert_eq!(l.line(["a"]), Some(2));
    }

    #[test]
    fn quoted_keys_comments_and_paths() {
        let text = "# a comment\n'x y': 1\ncomponents:\n  # between\n  - name: A\n  - name: B\n    uuid: nope\n";
        let l = Lines::of(text);
        assert_eq!(l.line(["x y"]), Some(2));
        assert_eq!(l.line_of_path("components[1].uuid"), Some(7));
        assert_eq!(split_path("a[0].b[12]"), ["a", "0", "b", "12"]);
        assert_eq!(render_path(split_path("a[0].b[12]")), "a[0].b[12]");
        assert_eq!(l.path_at(7).as_deref(), Some("components[1].uuid"));
        assert_eq!(l.path_at(5).as_deref(), Some("components[0].name"));
        assert_eq!(l.path_at(4), None, "a comment line");
    }

    #[test]
    fn a_syntax_error_inside_a_map_names_the_key_on_its_line() {
        // serde_path_to_error's `a.b.?`: a key not yet read when the
        // parser failed.
        let text = "a:\n  f: {g: 1}\n  b: { c: 1, d: ${X} }\n  e: 2\n";
        let l = Lines::of(text);
        assert_eq!(
            l.locate("a.f.?", 2),
            (2, "a.f.g".to_owned()),
            "one key: the key"
        );
        assert_eq!(
            l.locate("a.b.?", 3),
            (3, "a.b".to_owned()),
            "two keys on the line: the map"
        );
        // Reported on a line of another map: the map the path names.
        assert_eq!(l.locate("a.?", 1), (1, "a".to_owned()));
        for _ in 0..20 {
            assert_eq!(
                Lines::of(text).path_at(3).as_deref(),
                Some("a.b.c"),
                "one order"
            );
        }
    }

    #[test]
    fn only_the_paths_asked_for_agree_with_the_whole() {
        let text = "openapi: 3.0.3\npaths:\n  /a:\n    get:\n      parameters:\n        - name: x\n        - name: y\n          in: path\n  /b: {}\n";
        let whole = Lines::of(text);
        let asked = [
            vec!["paths", "/a", "get", "parameters", "1", "in"],
            vec!["paths", "/a", "get", "parameters", "7", "in"],
            vec!["paths", "/c"],
        ];
        let some = Lines::of_paths(text, asked.iter().map(|p| p.iter()));
        for path in &asked {
            assert_eq!(some.line(path), whole.line(path), "{path:?}");
        }
        assert_eq!(
            some.line(["paths", "/a", "get", "parameters", "1", "in"]),
            Some(8)
        );
        // What was not asked for is not kept: its ancestor answers.
        assert_eq!(some.line(["paths", "/b"]), Some(2));
        assert_eq!(whole.line(["paths", "/b"]), Some(9));
    }

    #[test]
    fn duplicates_tags_documents_and_aliases() {
        let text = "a: 1\nb:\n  c: !!binary aGk=\n  c: 2\nd: &x [1]\ne: *x\na: 3\n---\nz: 1\n";
        let l = Lines::of(text);
        assert_eq!(
            l.duplicate_keys(),
            [(4, "b.c".to_owned()), (7, "a".to_owned())]
        );
        assert_eq!(l.tags(), [(3, "b.c".to_owned(), "!!binary".to_owned())]);
        assert_eq!(l.document_lines(), [1, 8]);
        assert_eq!(l.first_alias_line(), Some(6));
        assert_eq!(l.line(["a"]), Some(1), "the first of a key given twice");
        assert_eq!(l.line(["z"]), Some(1), "later documents add no paths");
    }

    #[test]
    fn a_broken_document_keeps_what_was_read() {
        let l = Lines::of("a: 1\nb: [\n");
        assert_eq!(l.line(["a"]), Some(1));
    }
}
