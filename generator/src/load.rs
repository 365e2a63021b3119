//! Reading a spec file: bytes → YAML (or JSON) → `openapiv3::OpenAPI`.
//!
//! Every failure becomes one [`Diagnostic`] naming the file, the line where
//! one is known, and the JSON pointer of the node.

use std::path::Path;

use openapiv3::OpenAPI;

use crate::error::{Diagnostic, LowerError, Pointer};

/// A parsed document and the text it came from (kept to find lines later).
pub struct Source {
    pub path: std::path::PathBuf,
    pub text: String,
    pub document: OpenAPI,
}

impl Source {
    pub fn read(path: &Path) -> Result<Self, Diagnostic> {
        let bytes = std::fs::read(path).map_err(|e| Diagnostic {
            file: path.to_owned(),
            line: None,
            pointer: String::new(),
            message: format!("cannot read the file: {e}"),
            hint: "check the path and its permissions".into(),
        })?;
        let text = String::from_utf8(bytes).map_err(|e| Diagnostic {
            file: path.to_owned(),
            line: None,
            pointer: String::new(),
            message: format!(
                "the file is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
            hint: "save the spec as UTF-8 YAML or JSON".into(),
        })?;
        Self::parse(path, text)
    }

    pub fn parse(path: &Path, text: String) -> Result<Self, Diagnostic> {
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
        let value: serde_yaml::Value = serde_yaml::from_str(&text).map_err(|e| {
            let line = e.location().map(|l| l.line());
            let message = format!("not valid YAML or JSON: {}", strip_location(&e.to_string()));
            diagnostic(
                line,
                &Pointer::root(),
                message,
                "fix the syntax at that line",
            )
        })?;
        let version = value
            .get("openapi")
            .and_then(|v| v.as_str().map(str::to_owned));
        match version.as_deref() {
            Some(v) if v.starts_with("3.0.") => {}
            Some(v) => {
                let at = Pointer::root().join("openapi");
                return Err(diagnostic(
                    locate(&text, &at),
                    &at,
                    format!("the document is OpenAPI `{v}`, and only 3.0.x is supported"),
                    "convert the document to OpenAPI 3.0.3",
                ));
            }
            None => {
                let swagger = value.get("swagger").is_some();
                return Err(diagnostic(
                    Some(1),
                    &Pointer::root(),
                    if swagger {
                        "the document is Swagger 2.0, not OpenAPI 3.0".into()
                    } else {
                        "the document has no `openapi` version field, so it is not OpenAPI 3.0"
                            .into()
                    },
                    "start the document with `openapi: 3.0.3`",
                ));
            }
        }
        let document: OpenAPI = serde_path_to_error::deserialize(value).map_err(|e| {
            let at = path_to_pointer(e.path());
            let message = format!(
                "not a valid OpenAPI 3.0 document: {}",
                strip_location(&e.inner().to_string())
            );
            diagnostic(
                locate(&text, &at),
                &at,
                message,
                "compare the node with the OpenAPI 3.0.3 specification",
            )
        })?;
        Ok(Self {
            path: path.to_owned(),
            text,
            document,
        })
    }

    /// Places a lowering error in this file.
    pub fn diagnose(&self, error: LowerError) -> Diagnostic {
        Diagnostic {
            file: self.path.clone(),
            line: locate(&self.text, &error.pointer),
            pointer: error.pointer.to_string(),
            message: error.message,
            hint: error.hint,
        }
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

/// The 1-based line of the node at `pointer` (or of its deepest ancestor
/// in the document), read by a parser that keeps spans.
pub fn locate(text: &str, pointer: &Pointer) -> Option<usize> {
    yaml_location::Lines::of(text).line(pointer.segments())
}

#[cfg(test)]
mod tests {
    use super::*;

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
