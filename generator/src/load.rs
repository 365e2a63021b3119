//! Reading a spec file: bytes → YAML (or JSON) → `openapiv3::OpenAPI`.
//!
//! Every failure becomes one [`Diagnostic`] naming the file, the line where
//! one is known, and the JSON pointer of the node.

use std::path::Path;

use openapiv3::OpenAPI;

use crate::error::{Diagnostic, LowerError, Pointer};
use crate::file::{locatable, locate, parse_tree, path_to_pointer, read_text, strip_location};
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

impl Source {
    pub fn read(path: &Path) -> Result<Self, Diagnostic> {
        Self::read_under(path, None)
    }

    /// [`Source::read`], with the folder no referenced file may be outside
    /// of (`--root`; by default the spec's own folder).
    pub fn read_under(path: &Path, root: Option<&Path>) -> Result<Self, Diagnostic> {
        let text = read_text(path)?;
        Self::parse_under(path, text, root)
    }

    pub fn parse(path: &Path, text: String) -> Result<Self, Diagnostic> {
        Self::parse_under(path, text, None)
    }

    /// [`Source::parse`] with a root folder (see [`Source::read_under`]).
    pub fn parse_under(path: &Path, text: String, root: Option<&Path>) -> Result<Self, Diagnostic> {
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
            // 3.2 adds to 3.1 (the `query` method, `itemSchema`, tag
            // hierarchies, ...) and keeps its schemas: read as 3.1, what
            // it adds is named where it is met.
            Some(v) if v.starts_with("3.2.") => normalize::Version::V32,
            Some(v) => {
                let at = Pointer::root().join("openapi");
                return Err(diagnostic(
                    locate(body, &at),
                    &at,
                    format!(
                        "the document is OpenAPI `{v}`, and only 3.0.x, 3.1.x and 3.2.x are supported"
                    ),
                    "convert the document to OpenAPI 3.0.3, 3.1.1 or 3.2.0",
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
        let (mut value, origins) = resolve::bundle(path, text, value, moves, root)?;
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
