//! One file of a spec: its bytes read (bounded, a regular file only), its
//! text parsed as a JSON tree (bounded in depth, every key unique), and the
//! line of any node in it. `load` reads the document's own file with it,
//! `resolve` every file a `$ref` names.

use std::path::Path;

use crate::error::{Diagnostic, Pointer};

/// The largest spec read by default: 64 MiB, of one file and of all the
/// files of a split document together (`--max-input-mib` changes it).
/// The largest public descriptions are under it (GitHub's REST description
/// is 12.4 MiB, Microsoft Graph's 19.4 MiB); reading is bounded by it, and
/// the memory a run takes by a multiple of it (the README's "Size" section
/// gives the measured multiple).
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;

thread_local! {
    /// The limit of this run ([`with_max_bytes`]), [`MAX_BYTES`] unless set.
    static LIMIT: std::cell::Cell<u64> = const { std::cell::Cell::new(MAX_BYTES) };
}

/// The most bytes read for the run on this thread: of one file, and of all
/// the files of a split document together.
pub fn max_bytes() -> u64 {
    LIMIT.with(std::cell::Cell::get)
}

/// Runs `work` with `limit` as [`max_bytes`] on this thread (a run is one
/// thread: `lib.rs`'s `guarded`), then restores the limit before.
pub fn with_max_bytes<T>(limit: u64, work: impl FnOnce() -> T) -> T {
    let before = LIMIT.with(|l| l.replace(limit));
    let outcome = work();
    LIMIT.with(|l| l.set(before));
    outcome
}

/// "larger than N MiB" (or KiB, or bytes, for a small limit).
fn limit_text() -> String {
    let limit = max_bytes();
    if limit >= 1024 * 1024 && limit % (1024 * 1024) == 0 {
        format!("{} MiB", limit / (1024 * 1024))
    } else if limit >= 1024 && limit % 1024 == 0 {
        format!("{} KiB", limit / 1024)
    } else {
        format!("{limit} bytes")
    }
}

/// The advice for a spec over the limit.
const TOO_LARGE_HINT: &str = "raise the limit with `--max-input-mib N` if the spec is this large, or check that the path names a spec";

/// The deepest nesting of mappings and sequences read: 128 levels, what
/// serde_yaml itself allows. Real specs nest about 20 deep.
pub const MAX_DEPTH: usize = 128;

/// The text of the file at `path`, at most [`max_bytes`] of UTF-8.
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
    let bytes = match read_limited(path, usize::try_from(max_bytes()).unwrap_or(usize::MAX)) {
        Ok(bytes) => bytes,
        Err(ReadError::TooLarge(_)) => {
            return Err(diagnostic(
                format!(
                    "the file is larger than {}, the most this generator reads",
                    limit_text()
                ),
                TOO_LARGE_HINT,
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

/// What [`read_text_beneath`] refuses.
#[derive(Debug)]
pub enum BeneathError {
    /// The file opened is not under the folder (a symlink on its way, or
    /// one swapped in after the path was checked).
    Outside(std::path::PathBuf),
    Read(Diagnostic),
}

/// The text of the file at `path`, read from one descriptor that is checked
/// to be a regular file under `folder` (a canonical path) *after* it is
/// opened: what was checked is what is read, so a file swapped for a
/// symlink between a check and the open cannot be read from outside.
///
/// The check reads the descriptor's own path (`/proc/self/fd/N` on Linux);
/// where that is not available, the descriptor's device and inode must be
/// those of the canonical path, which must be under `folder`.
pub fn read_text_beneath(path: &Path, folder: &Path) -> Result<String, BeneathError> {
    use std::io::Read;
    let diagnostic = |message: String, hint: &str| {
        BeneathError::Read(Diagnostic {
            file: path.to_owned(),
            line: None,
            pointer: String::new(),
            message,
            hint: hint.into(),
        })
    };
    let io = |e: std::io::Error| {
        diagnostic(
            format!("cannot read the file: {e}"),
            "check the path and its permissions",
        )
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK | O_NOCTTY: opening a FIFO never waits for a writer,
        // a terminal never becomes ours; on a regular file they do nothing.
        options.custom_flags(0o4000 | 0o400);
    }
    #[cfg(not(target_os = "linux"))]
    {
        // Without O_NONBLOCK, a FIFO is refused before it is opened (the
        // descriptor's own check below still decides what is read).
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(diagnostic(
                "cannot read the file: not a regular file".into(),
                "give the path of a spec file",
            ));
        }
    }
    let file = options.open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(diagnostic(
            "cannot read the file: not a regular file".into(),
            "give the path of a spec file",
        ));
    }
    let real = opened_path(&file, path, &meta);
    match &real {
        Some(real) if real.starts_with(folder) => {}
        _ => {
            return Err(BeneathError::Outside(
                real.unwrap_or_else(|| path.to_owned()),
            ));
        }
    }
    let limit = max_bytes();
    let too_large = || {
        diagnostic(
            format!(
                "the file is larger than {}, the most this generator reads",
                limit_text()
            ),
            TOO_LARGE_HINT,
        )
    };
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize + 1);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|e| {
        diagnostic(
            format!(
                "the file is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
            "save the spec as UTF-8 YAML or JSON",
        )
    })
}

/// The real path of the file `file` (opened as `path`): the descriptor's
/// link under `/proc/self/fd`, or else the canonical path when it names
/// the same device and inode as the descriptor; `None` when neither holds.
fn opened_path(
    file: &std::fs::File,
    path: &Path,
    meta: &std::fs::Metadata,
) -> Option<std::path::PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            return Some(real);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
    let canonical = path.canonicalize().ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let now = std::fs::metadata(&canonical).ok()?;
        (now.dev() == meta.dev() && now.ino() == meta.ino()).then_some(canonical)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Some(canonical)
    }
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
    if text.len() as u64 > max_bytes() {
        return Err(diagnostic(
            None,
            format!(
                "the document is larger than {}, the most this generator reads",
                limit_text()
            ),
            TOO_LARGE_HINT,
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

/// A JSON tree read with every key of a mapping unique. Not the runtime's
/// reader of any JSON value (`client_runtime::json::Any`), on purpose: this
/// one reads YAML documents too (a key may be a number or a boolean, an
/// integer may pass 64 bits, a repeated key is named by itself and found
/// after its value is read), and the generator does not depend on the
/// runtime of the code it writes.
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

pub(crate) fn strip_location(message: &str) -> String {
    match message.find(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

pub(crate) fn path_to_pointer(path: &serde_path_to_error::Path) -> Pointer {
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
pub(crate) fn locatable(text: &str) -> std::borrow::Cow<'_, str> {
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
