//! Reading a spec file: bytes → YAML (or JSON) → `openapiv3::OpenAPI`.
//!
//! Every failure becomes one [`Diagnostic`] naming the file, the line where
//! one is known, and the JSON pointer of the node.

use std::path::Path;

use openapiv3::OpenAPI;

use crate::error::{Diagnostic, LowerError, Pointer};
use crate::normalize;
use crate::resolve::{self, Origins};
use crate::swagger2;

/// A parsed document (bundled from every file it refers to) and the files
/// it came from (kept to find lines later).
pub struct Source {
    pub path: std::path::PathBuf,
    pub document: OpenAPI,
    /// Every file read, and where each node of the bundle was written.
    pub origins: Origins,
    /// Nodes normalising moved: (now, where written), undone in messages.
    pub moves: Vec<(Pointer, Pointer)>,
    /// What reading ignored (a keyword no vocabulary knows), placed by
    /// [`Source::diagnose_all`] with the lowering's own warnings.
    pub warnings: Vec<LowerError>,
    /// Warnings already placed in the file as written: converting a
    /// Swagger 2.0 document (the first says it was converted).
    pub converted: Vec<Diagnostic>,
}

/// The largest spec read: 8 MiB, far above any real API description (the
/// GitHub REST API, one of the largest, is about 10 MiB as JSON only
/// when all its examples are inlined), and small enough that reading, parsing
/// and lowering stay well under a second.
pub const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// The deepest nesting of mappings and sequences read: 128 levels, what
/// serde_yaml itself allows. Real specs nest about 20 deep.
pub const MAX_DEPTH: usize = 128;

/// The text of the file at `path`, at most [`MAX_BYTES`] of UTF-8.
pub fn read_text(path: &Path) -> Result<String, Diagnostic> {
    use yaml_location::input::{ReadError, read_limited};
    let diagnostic = |message: String, hint: &str| Diagnostic {
        file: path.to_owned(),
        line: None,
        pointer: String::new(),
        message,
        hint: hint.into(),
    };
    // A regular file only (a FIFO would wait for a writer forever, a
    // device never ends), bounded: a huge file ends at the limit, not in
    // memory; a byte-order mark is dropped.
    let bytes = match read_limited(path, MAX_BYTES as usize) {
        Ok(bytes) => bytes,
        Err(ReadError::TooLarge(_)) => {
            return Err(diagnostic(
                format!(
                    "the file is larger than {} MiB, the most this generator reads",
                    MAX_BYTES / (1024 * 1024)
                ),
                "split the spec, or check that the path names a spec",
            ));
        }
        Err(ReadError::Io(e)) => {
            return Err(diagnostic(
                format!("cannot read the file: {e}"),
                "check the path and its permissions",
            ));
        }
        Err(e) => {
            return Err(diagnostic(
                format!("cannot read the file: {e}"),
                "give the path of a spec file",
            ));
        }
    };
    String::from_utf8(bytes).map_err(|e| Diagnostic {
        file: path.to_owned(),
        line: None,
        pointer: String::new(),
        message: format!(
            "the file is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
        hint: "save the spec as UTF-8 YAML or JSON".into(),
    })
}

/// The text of a file (named `path` in messages) as a JSON tree: bounded in
/// size and depth, every key of a mapping unique.
pub fn parse_tree(path: &Path, text: &str) -> Result<serde_json::Value, Diagnostic> {
    let diagnostic = |line, message: String, hint: &str| Diagnostic {
        file: path.to_owned(),
        line,
        pointer: String::new(),
        message,
        hint: hint.into(),
    };
    if text.len() as u64 > MAX_BYTES {
        return Err(diagnostic(
            None,
            format!(
                "the document is larger than {} MiB, the most this generator reads",
                MAX_BYTES / (1024 * 1024)
            ),
            "split the spec",
        ));
    }
    // A byte-order mark is not part of the document.
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(line) = too_deep(body, MAX_DEPTH) {
        return Err(diagnostic(
            Some(line),
            format!("the document nests deeper than {MAX_DEPTH} levels"),
            "flatten the document: name deep schemas under `components/schemas`",
        ));
    }
    read_tree(body).map_err(|(line, message)| {
        let hint = if message.contains(TWICE) {
            "keep one of the two: a key names one value"
        } else {
            "fix the syntax at that line"
        };
        diagnostic(line, message, hint)
    })
}

impl Source {
    pub fn read(path: &Path) -> Result<Self, Diagnostic> {
        let text = read_text(path)?;
        Self::parse(path, text)
    }

    pub fn parse(path: &Path, text: String) -> Result<Self, Diagnostic> {
        let value = parse_tree(path, &text)?;
        let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let diagnostic = |line, pointer: &Pointer, message: String, hint: &str| Diagnostic {
            file: path.to_owned(),
            line,
            pointer: if pointer.segments().is_empty() {
                String::new()
            } else {
                pointer.to_string()
            },
            message,
            hint: hint.into(),
        };
        let version = value
            .get("openapi")
            .and_then(|v| v.as_str().map(str::to_owned));
        let swagger = version.is_none() && value.get("swagger").is_some();
        let version = match version.as_deref() {
            Some(v) if v.starts_with("3.0.") => normalize::Version::V30,
            Some(v) if v.starts_with("3.1.") => normalize::Version::V31,
            Some(v) => {
                let at = Pointer::root().join("openapi");
                return Err(diagnostic(
                    locate(body, &at),
                    &at,
                    format!(
                        "the document is OpenAPI `{v}`, and only 3.0.x and 3.1.x are supported"
                    ),
                    "convert the document to OpenAPI 3.0.3 or 3.1.0",
                ));
            }
            None if swagger => normalize::Version::V30,
            None => {
                return Err(diagnostic(
                    Some(1),
                    &Pointer::root(),
                    "the document has no `openapi` version field, so it is not OpenAPI 3".into(),
                    "start the document with `openapi: 3.0.3`",
                ));
            }
        };
        // Swagger 2.0: converted to the 3.0 document it stands for; every
        // node converted is mapped back to where it is written.
        let (value, moves, converted) = if swagger {
            let placed = |errors: Vec<LowerError>| {
                let lines = yaml_location::Lines::of_paths(
                    &locatable(body),
                    errors.iter().map(|e| e.pointer.segments()),
                );
                errors
                    .into_iter()
                    .map(|e| {
                        diagnostic(
                            lines.line(e.pointer.segments()),
                            &e.pointer,
                            e.message,
                            &e.hint,
                        )
                    })
                    .collect::<Vec<_>>()
            };
            let converted = swagger2::convert(&value)
                .map_err(|e| placed(vec![e]).pop().expect("one in, one out"))?;
            (
                converted.document,
                converted.moves,
                placed(converted.warnings),
            )
        } else {
            (value, Vec::new(), Vec::new())
        };
        let (mut value, origins) = resolve::bundle(path, text, value, moves)?;
        let mut source = Self {
            path: path.to_owned(),
            document: OpenAPI::default(),
            origins,
            moves: Vec::new(),
            warnings: Vec::new(),
            converted,
        };
        let normalized =
            normalize::normalize(&mut value, version).map_err(|e| source.diagnose(e))?;
        source.warnings = normalized.warnings;
        source.moves = normalized.moves;
        source.document = serde_path_to_error::deserialize(value).map_err(|e| {
            let at = path_to_pointer(e.path());
            let message = format!(
                "not a valid OpenAPI 3 document: {}",
                strip_location(&e.inner().to_string())
            );
            source.diagnose(LowerError::new(
                &at,
                message,
                "compare the node with the OpenAPI 3.0.3 specification",
            ))
        })?;
        Ok(source)
    }

    /// The root file's text.
    pub fn text(&self) -> &str {
        &self.origins.files[0].text
    }

    /// Places a lowering error in the file where its node is written.
    pub fn diagnose(&self, error: LowerError) -> Diagnostic {
        self.diagnose_all(vec![error])
            .pop()
            .expect("one in, one out")
    }

    /// Places many lowering errors (warnings), each in the file where its
    /// node is written, reading each file's text for lines once: a large
    /// spec can warn thousands of times.
    pub fn diagnose_all(&self, errors: Vec<LowerError>) -> Vec<Diagnostic> {
        if errors.is_empty() {
            return Vec::new();
        }
        let placed: Vec<(usize, Pointer)> = errors
            .iter()
            .map(|error| {
                self.origins
                    .place(&normalize::moved(&self.moves, &error.pointer))
            })
            .collect();
        let mut lines = std::collections::BTreeMap::new();
        for (file, _) in &placed {
            lines.entry(*file).or_insert_with(|| {
                yaml_location::Lines::of_paths(
                    &locatable(&self.origins.files[*file].text),
                    placed
                        .iter()
                        .filter(|(f, _)| f == file)
                        .map(|(_, pointer)| pointer.segments()),
                )
            });
        }
        errors
            .into_iter()
            .zip(placed)
            .map(|(error, (file, pointer))| Diagnostic {
                file: self.origins.files[file].path.clone(),
                line: lines[&file].line(pointer.segments()),
                pointer: if pointer.segments().is_empty() {
                    String::new()
                } else {
                    pointer.to_string()
                },
                message: if self.converted.is_empty() {
                    error.message
                } else {
                    swagger2::as_written(&error.message)
                },
                hint: error.hint,
            })
            .collect()
    }
}

/// The document as a JSON tree, or the line and message of its first
/// syntax error. JSON (a document that starts with `{`) is read by
/// serde_json, several times faster than a YAML parser on large specs; YAML
/// by serde_yaml. Either way a key given twice in one mapping is refused,
/// never silently overwritten by its second value.
fn read_tree(body: &str) -> Result<serde_json::Value, (Option<usize>, String)> {
    if body.trim_start().starts_with('{') {
        let mut reader = serde_json::Deserializer::from_str(body);
        let tree = UniqueKeys::read(&mut reader).and_then(|tree| reader.end().map(|()| tree));
        return tree.map_err(|e| {
            (
                Some(e.line()),
                format!("not valid JSON: {}", strip_location(&e.to_string())),
            )
        });
    }
    UniqueKeys::read(serde_yaml::Deserializer::from_str(body)).map_err(|e| {
        (
            e.location().map(|l| l.line()),
            format!("not valid YAML or JSON: {}", strip_location(&e.to_string())),
        )
    })
}

/// What a key repeated in one mapping is called.
const TWICE: &str = "a key is given twice in one mapping";

/// A JSON tree read with every key of a mapping unique.
struct UniqueKeys;

impl UniqueKeys {
    fn read<'de, D: serde::Deserializer<'de>>(reader: D) -> Result<serde_json::Value, D::Error> {
        reader.deserialize_any(UniqueKeys)
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for UniqueKeys {
    type Value = serde_json::Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, reader: D) -> Result<Self::Value, D::Error> {
        reader.deserialize_any(UniqueKeys)
    }
}

impl<'de> serde::de::Visitor<'de> for UniqueKeys {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<KeyText>()? {
            let value = map.next_value_seed(UniqueKeys)?;
            if object.contains_key(&key.0) {
                return Err(serde::de::Error::custom(format_args!(
                    "{TWICE}: `{}`",
                    key.0
                )));
            }
            object.insert(key.0, value);
        }
        Ok(serde_json::Value::Object(object))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(UniqueKeys)? {
            items.push(item);
        }
        Ok(serde_json::Value::Array(items))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into))
    }

    /// An integer beyond 64 bits (a bound written out in full): kept as
    /// the nearest floating-point number, as JSON readers do.
    fn visit_i128<E>(self, v: i128) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v as f64).map_or(serde_json::Value::Null, Into::into))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v as f64).map_or(serde_json::Value::Null, Into::into))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, reader: D) -> Result<Self::Value, D::Error> {
        reader.deserialize_any(UniqueKeys)
    }
}

/// A mapping key as text, as the document writes it: YAML allows plain
/// numbers and booleans as keys (`200:` for a status), which JSON writes as
/// strings.
struct KeyText(String);

impl<'de> serde::Deserialize<'de> for KeyText {
    fn deserialize<D: serde::Deserializer<'de>>(reader: D) -> Result<Self, D::Error> {
        reader.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl serde::de::Visitor<'_> for KeyVisitor {
    type Value = KeyText;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a scalar mapping key")
    }

    fn visit_str<E>(self, v: &str) -> Result<KeyText, E> {
        Ok(KeyText(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<KeyText, E> {
        Ok(KeyText(v))
    }

    fn visit_bool<E>(self, v: bool) -> Result<KeyText, E> {
        Ok(KeyText(v.to_string()))
    }

    fn visit_i64<E>(self, v: i64) -> Result<KeyText, E> {
        Ok(KeyText(v.to_string()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<KeyText, E> {
        Ok(KeyText(v.to_string()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<KeyText, E> {
        Ok(KeyText(v.to_string()))
    }

    fn visit_unit<E>(self) -> Result<KeyText, E> {
        Ok(KeyText("null".into()))
    }
}

fn strip_location(message: &str) -> String {
    match message.find(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

fn path_to_pointer(path: &serde_path_to_error::Path) -> Pointer {
    use serde_path_to_error::Segment;
    let mut pointer = Pointer::root();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => pointer = pointer.join(index),
            Segment::Map { key } => pointer = pointer.join(key),
            Segment::Enum { variant } => pointer = pointer.join(variant),
            Segment::Unknown => {}
        }
    }
    pointer
}

/// The line where nesting first passes `max`, found in one pass over the
/// text before any parser sees it (a YAML parser's time grows with the
/// square of flow-style depth).
///
/// Flow collections (`[`, `{`) are counted where they can start one: inside
/// another, or in block context as the first thing of a value (after
/// indentation, `- ` or `: `), outside quotes and comments. Block nesting is
/// estimated from indentation (two columns a level) and `- ` items; deeper
/// block nesting than that estimate is still stopped by serde_yaml's own
/// recursion limit (128).
fn too_deep(text: &str, max: usize) -> Option<usize> {
    let mut flow = 0usize;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if flow == 0 {
            let indent = line.len() - trimmed.len();
            let dashes = trimmed.split(' ').take_while(|piece| *piece == "-").count();
            if indent / 2 + dashes > max {
                return Some(index + 1);
            }
        }
        let mut quote: Option<char> = None;
        let mut previous = ' ';
        // In block context: the last character that was not a space.
        let mut last_solid: Option<char> = None;
        let mut escaped = false;
        for c in line.chars() {
            if let Some(q) = quote {
                if escaped {
                    escaped = false;
                } else if q == '"' && c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
                previous = c;
                continue;
            }
            let starts_value = flow > 0
                || (matches!(previous, ' ' | '\t') && matches!(last_solid, None | Some(':' | '-')));
            match c {
                '"' | '\'' if starts_value || flow > 0 => quote = Some(c),
                '#' if matches!(previous, ' ' | '\t') => break,
                '[' | '{' if starts_value => {
                    flow += 1;
                    if flow > max {
                        return Some(index + 1);
                    }
                }
                ']' | '}' if flow > 0 => flow -= 1,
                _ => {}
            }
            if !matches!(c, ' ' | '\t') {
                last_solid = Some(c);
            }
            previous = c;
        }
    }
    None
}

/// The 1-based line of the node at `pointer` (or of its deepest ancestor
/// in the document), read by a parser that keeps spans.
pub fn locate(text: &str, pointer: &Pointer) -> Option<usize> {
    yaml_location::Lines::of(&locatable(text)).line(pointer.segments())
}

/// `text` as the line finder can read it: a JSON `\uD83D\uDE00` (a
/// character outside the Basic Multilingual Plane, escaped as a surrogate
/// pair) is not a YAML escape, and a YAML reader stops at it, so each such
/// escape is replaced by `\u0020`, of the same length on the same line.
fn locatable(text: &str) -> std::borrow::Cow<'_, str> {
    let surrogate = |s: &str| {
        let b = s.as_bytes();
        b.len() >= 6
            && b[0] == b'\\'
            && b[1] == b'u'
            && b[2].eq_ignore_ascii_case(&b'd')
            && matches!(b[3].to_ascii_lowercase(), b'8'..=b'9' | b'a'..=b'f')
            && b[4].is_ascii_hexdigit()
            && b[5].is_ascii_hexdigit()
    };
    if !text.contains("\\u")
        || !text
            .match_indices("\\u")
            .any(|(i, _)| surrogate(&text[i..]))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("\\u") {
        out.push_str(&rest[..i]);
        if surrogate(&rest[i..]) {
            out.push_str("\\u0020");
            rest = &rest[i + 6..];
        } else {
            out.push_str("\\u");
            rest = &rest[i + 2..];
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_surrogate_escapes_do_not_hide_lines() {
        let text = "{\n  \"a\": \"\\ud83d\\ude00\",\n  \"b\": {\"c\": 1}\n}\n";
        assert_eq!(locate(text, &Pointer::root().join("b").join("c")), Some(3));
    }

    #[test]
    fn locates_nested_keys_and_items() {
        let text = "openapi: 3.0.3\npaths:\n  /a:\n    get:\n      parameters:\n        - name: x\n        - name: y\n          in: path\n";
        let at = Pointer::root()
            .join("paths")
            .join("/a")
            .join("get")
            .join("parameters")
            .join(1);
        assert_eq!(locate(text, &at), Some(7));
        assert_eq!(locate(text, &at.join("in")), Some(8));
        assert_eq!(locate(text, &at.join("name")), Some(7));
        assert_eq!(locate(text, &Pointer::root().join("openapi")), Some(1));
    }
}
