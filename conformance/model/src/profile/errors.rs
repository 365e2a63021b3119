//! A serde_yaml error turned into "file:line: key `k`: message".

use super::ProfileError;

/// The error at its key path (from serde_path_to_error) and that key's
/// line (from `yaml-location`); a syntax error at serde_yaml's own line.
/// An error about one variable that is not set names every variable the
/// profile reads that is not set, so that one run says all there is to set.
pub(super) fn all_missing(
    mut error: ProfileError,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> ProfileError {
    let ProfileError::Invalid { message, .. } = &mut error else {
        return error;
    };
    let Some(first) = backticked_after(message, "the environment variable ") else {
        return error;
    };
    if !message.contains("is not set") {
        return error;
    }
    let mut missing: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let mut rest = line;
        while let Some(start) = rest.find("${") {
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else { break };
            let name = after[..end].trim_end_matches(":json");
            let valid = !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit());
            if valid && name != first && env(name).is_none() && !missing.iter().any(|m| m == name) {
                missing.push(name.to_owned());
            }
            rest = &after[end + 1..];
        }
    }
    if !missing.is_empty() {
        let others: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
        message.push_str(&format!(
            "; nor {} {} (the profile reads each: set them all)",
            if others.len() == 1 { "is" } else { "are" },
            others.join(", ")
        ));
    }
    error
}

pub(super) fn locate(
    text: &str,
    file: &str,
    lines: &yaml_location::Lines,
    error: &serde_path_to_error::Error<serde_yaml::Error>,
) -> ProfileError {
    let inner = error.inner();
    let Some(location) = inner.location() else {
        // Without a place of its own (an alias expanded past serde_yaml's
        // limit, say): the first alias is where the expansion starts.
        let message = hide_values(&inner.to_string());
        return match lines.first_alias_line() {
            Some(line) => ProfileError::Invalid {
                file: file.to_owned(),
                line,
                key: lines
                    .path_at(line)
                    .unwrap_or_else(|| "(document)".to_owned()),
                message: format!("{message} (aliases are expanded from here)"),
            },
            None => ProfileError::Syntax {
                file: file.to_owned(),
                message,
            },
        };
    };
    let full = hide_values(&inner.to_string());
    // serde_yaml appends " at line L column C"; the line is given apart.
    let message = full
        .rsplit_once(" at line ")
        .map_or(full.as_str(), |(head, _)| head);
    // serde_yaml may name the enclosing map before the message; the path
    // comes from serde_path_to_error instead.
    let message = match message.split_once(": ") {
        Some((head, tail))
            if !head.is_empty()
                && head
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']')) =>
        {
            tail
        }
        _ => message,
    };
    let raw = error.path().to_string();
    let at_root = matches!(raw.as_str(), "" | "." | "?");
    let about_a_field = ["missing field ", "unknown field "]
        .iter()
        .any(|p| message.starts_with(p));
    // A field missing from (or unknown to) the top level: the field names
    // the key, not whatever else stands on the reported line.
    let (mut line, mut path) = if at_root && about_a_field {
        (location.line(), String::new())
    } else {
        lines.locate(&raw, location.line())
    };
    for prefix in ["missing field ", "unknown field "] {
        if let Some(field) = backticked_after(message, prefix) {
            if !path.ends_with(&field) {
                path = join(&path, &field);
            }
            if prefix.starts_with("unknown") {
                line = lines.line_of_path(&path).unwrap_or(line);
            }
        }
    }
    if path.is_empty() {
        path = "(document)".to_owned();
    }
    ProfileError::Invalid {
        file: file.to_owned(),
        line,
        key: path,
        message: format!("{message}{}", flow_hint(message, text, line)),
    }
}

/// `{ password: ${PW} }` is not YAML: in a flow map or list, `{` and `}`
/// end the value. The README's `${VAR}` advice meets that rule first in a
/// body written on one line, so the error says what to write.
fn flow_hint(message: &str, text: &str, line: usize) -> &'static str {
    let on_line = text
        .lines()
        .nth(line.saturating_sub(1))
        .is_some_and(|l| l.contains("${"));
    if on_line && message.contains("while parsing a flow") {
        " (inside `{ }` or `[ ]`, a `${VAR}` is quoted: \"${VAR}\")"
    } else {
        ""
    }
}

/// serde's "invalid type: string \"s3cret\", expected …" with the value
/// left out ("invalid type: string, expected …"): the value may be a
/// secret written in the profile.
fn hide_values(message: &str) -> String {
    crate::input::without_values(message)
}

fn backticked_after(message: &str, prefix: &str) -> Option<String> {
    let rest = message.strip_prefix(prefix)?.strip_prefix('`')?;
    rest.split_once('`').map(|(name, _)| name.to_owned())
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}
