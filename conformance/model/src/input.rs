//! Why a file the runner reads (a profile, a baseline) cannot be used: one
//! type for both, so that every input's errors say where in the same words
//! (exit 2).

use std::path::{Path, PathBuf};

use yaml_location::input::ReadError;

/// Why an input file cannot be used. Every variant says where.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read the {kind} {path}: {source}")]
    Read {
        /// What the file is (`profile`, `baseline`).
        kind: &'static str,
        path: PathBuf,
        /// Missing, not a regular file (a FIFO, a device), ...
        #[source]
        source: ReadError,
    },
    #[error("{file}:{line}: key `{key}`: {message}")]
    Invalid {
        file: String,
        line: usize,
        key: String,
        message: String,
    },
    #[error("{file}: {message}")]
    Syntax { file: String, message: String },
    #[error(
        "{file}: the {kind} is larger than {} KiB; a {kind} is a short file, and nothing of this one was read",
        limit / 1024
    )]
    TooLarge {
        kind: &'static str,
        file: String,
        /// The most read, in bytes.
        limit: usize,
    },
}

/// The text of the input file at `path` (a `kind`: `profile`, `baseline`,
/// `report`), read safely: a regular file only (a FIFO would hang the
/// run, `/dev/zero` never ends), at most `limit` bytes, a byte-order mark
/// dropped, and UTF-8, or an error at the line of the first byte that is
/// not, naming the key it is in and the byte, never the text around it.
pub fn read_text(path: &Path, kind: &'static str, limit: usize) -> Result<String, InputError> {
    let file = path.display().to_string();
    let bytes = yaml_location::input::read_limited(path, limit).map_err(|source| match source {
        ReadError::TooLarge(limit) => InputError::TooLarge {
            kind,
            file: file.clone(),
            limit,
        },
        source => InputError::Read {
            kind,
            path: path.to_owned(),
            source,
        },
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        not_utf8(e.as_bytes(), at, &file, kind)
    })
}

/// A file that is not UTF-8, at the line of its first bad byte.
fn not_utf8(bytes: &[u8], valid_up_to: usize, file: &str, kind: &str) -> InputError {
    let before = &bytes[..valid_up_to];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|b| **b != b'\n').count() + 1;
    // What was read up to there names the key the bad byte is in.
    let lines = yaml_location::Lines::of(std::str::from_utf8(before).unwrap_or_default());
    InputError::Invalid {
        file: file.to_owned(),
        line,
        key: lines
            .path_at(line)
            .unwrap_or_else(|| "(document)".to_owned()),
        message: format!(
            "is not UTF-8 (byte 0x{:02X} at column {column}); save the {kind} as UTF-8",
            bytes[valid_up_to]
        ),
    }
}

/// What a YAML input must not hold, found before serde reads it, each at
/// its line: a control character, a second document, a YAML tag (serde
/// would drop it and read the text beneath), a key given twice. `kind`
/// names the file in the messages (`a baseline is one document`).
pub fn refuse_before_parsing(
    text: &str,
    file: &str,
    lines: &yaml_location::Lines,
    kind: &str,
) -> Result<(), InputError> {
    let invalid = |line: usize, key: Option<String>, message: String| InputError::Invalid {
        file: file.to_owned(),
        line,
        key: key
            .or_else(|| lines.path_at(line))
            .unwrap_or_else(|| "(document)".to_owned()),
        message,
    };
    for (number, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some((column, c)) = line
            .chars()
            .enumerate()
            .find(|(_, c)| c.is_control() && !matches!(c, '\t' | '\r'))
        {
            return Err(invalid(
                number + 1,
                None,
                format!(
                    "holds the control character U+{:04X} at column {}; a {kind} is plain text",
                    c as u32,
                    column + 1
                ),
            ));
        }
    }
    if let Some(&second) = lines.document_lines().get(1) {
        return Err(invalid(
            second,
            Some("(document)".to_owned()),
            format!("a second YAML document starts here; a {kind} is one document"),
        ));
    }
    if let Some((line, path, tag)) = lines.tags().iter().find(|(_, _, tag)| tag != "!!str") {
        let key = (!path.is_empty()).then(|| path.clone());
        return Err(invalid(
            *line,
            key,
            format!("has the YAML tag `{tag}`; a {kind} holds plain values, without tags"),
        ));
    }
    if let Some((line, path)) = lines.duplicate_keys().first() {
        let first = lines.line_of_path(path).unwrap_or(*line);
        return Err(invalid(
            *line,
            Some(path.clone()),
            format!("is given twice (first on line {first}); give each key once"),
        ));
    }
    Ok(())
}

/// A serde message with every value it quotes left out: serde writes the
/// value it did not expect (`invalid type: string "TOKEN=s3cr3t", expected
/// a sequence`, ``unknown variant `x`, expected one of ...``), and a file
/// may hold a secret where a value was expected. What is kept says the
/// kind of value and the form expected.
pub fn without_values(message: &str) -> String {
    // serde_yaml may put the path before it (`.[0]: invalid type: ...`).
    for marker in ["invalid type: ", "invalid value: ", "unknown variant "] {
        let Some(at) = message.find(marker) else {
            continue;
        };
        let (head, rest) = (&message[..at + marker.len()], &message[at + marker.len()..]);
        // serde_yaml appends where; kept, it is no value.
        let (rest, location) = match rest.rfind(" at line ") {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let expected = rest.split_once(", expected ").map(|(_, e)| e);
        let kind = if marker == "unknown variant " {
            ""
        } else {
            rest.split(['"', '`', '\'', ','])
                .next()
                .unwrap_or_default()
                .trim_end()
        };
        let head = if kind.is_empty() {
            head.trim_end()
        } else {
            head
        };
        return match expected {
            Some(expected) => format!("{head}{kind}, expected {expected}{location}"),
            None if kind.is_empty() => format!("{head}{location}"),
            None => format!("{head}{kind}{location}"),
        };
    }
    message.to_owned()
}

/// Keys whose values are secrets wherever they are written in a profile:
/// the client secret, tokens, and the fields of a valid Authorize body
/// (a password, a PIN), whichever of them the profile marks.
const SECRET_KEYS: &[&str] = &["client_secret", "auth_token", "valid_body", "invalid_body"];

/// `error` with every secret written literally in `text` (the values of
/// `SECRET_KEYS`, at any depth) replaced by the name of its key: a
/// message about another key may quote its value, and that value may be
/// the secret reused. Values of fewer than four characters are left, as
/// they would replace ordinary words.
pub fn without_secrets(error: InputError, text: &str) -> InputError {
    let InputError::Invalid {
        file,
        line,
        key,
        mut message,
    } = error
    else {
        return error;
    };
    let Ok(doc) = serde_yaml::from_str::<serde_yaml::Value>(text) else {
        return InputError::Invalid {
            file,
            line,
            key,
            message,
        };
    };
    let mut secrets = Vec::new();
    collect_secrets(&doc, None, &mut secrets);
    secrets.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    let mut key = key;
    for (name, value) in secrets.iter().filter(|(_, v)| v.chars().count() >= 4) {
        let hidden = format!("(the value of {name})");
        message = message.replace(value.as_str(), &hidden);
        key = key.replace(value.as_str(), &hidden);
    }
    InputError::Invalid {
        file,
        line,
        key,
        message,
    }
}

fn collect_secrets(node: &serde_yaml::Value, under: Option<&str>, out: &mut Vec<(String, String)>) {
    use serde_yaml::Value;
    match node {
        Value::Mapping(map) => {
            for (k, v) in map {
                let name = k.as_str().unwrap_or_default();
                let under = under.or_else(|| SECRET_KEYS.iter().copied().find(|s| *s == name));
                collect_secrets(v, under, out);
            }
        }
        Value::Sequence(items) => items.iter().for_each(|v| collect_secrets(v, under, out)),
        Value::Tagged(t) => collect_secrets(&t.value, under, out),
        scalar => {
            if let Some(name) = under {
                let text = match scalar {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => return,
                };
                out.push((name.to_owned(), text));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_messages_lose_their_values() {
        assert_eq!(
            without_values("invalid type: string \"TOKEN=s3cr3t\", expected a sequence"),
            "invalid type: string, expected a sequence"
        );
        assert_eq!(
            without_values("unknown variant `s3cr3t`, expected `a` or `b`"),
            "unknown variant, expected `a` or `b`"
        );
        assert_eq!(
            without_values(
                ".[0]: invalid type: string \"s3cr3t\", expected struct RawEntry at line 1 column 3"
            ),
            ".[0]: invalid type: string, expected struct RawEntry at line 1 column 3"
        );
        assert_eq!(
            without_values("invalid value: integer `7`"),
            "invalid value: integer"
        );
        assert_eq!(
            without_values("missing field `reason`"),
            "missing field `reason`"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_refused_at_once_by_name() {
        let start = std::time::Instant::now();
        let e = read_text(Path::new("/dev/zero"), "baseline", 1 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot read the baseline /dev/zero: it is a device, not a regular file; name a file (nothing was read)"
        );
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
    }
}
