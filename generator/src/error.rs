use std::fmt;
use std::path::PathBuf;

/// One problem with the input, told once: where (file, line, JSON pointer),
/// what is wrong, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: PathBuf,
    pub line: Option<usize>,
    /// JSON pointer of the offending node, e.g. `/paths/~1pets/get/parameters/0`.
    pub pointer: String,
    pub message: String,
    pub hint: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, "error")
    }
}

impl Diagnostic {
    /// The same message as a warning: `warning: FILE:LINE: at POINTER: ...`.
    pub fn as_warning(&self) -> impl fmt::Display + '_ {
        struct Warning<'a>(&'a Diagnostic);
        impl fmt::Display for Warning<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.write(f, "warning")
            }
        }
        Warning(self)
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, severity: &str) -> fmt::Result {
        write!(f, "{severity}: {}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if !self.pointer.is_empty() {
            write!(f, ": at {}", self.pointer)?;
        }
        write!(f, ": {}", self.message)?;
        if !self.hint.is_empty() {
            write!(f, "\n  help: {}", self.hint)?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// A problem found while lowering, before the file and line are known.
///
/// Lowering works on the parsed document; the loader, which still has the
/// source text, turns the pointer into a line and the whole into a
/// [`Diagnostic`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerError {
    pub pointer: Pointer,
    pub message: String,
    pub hint: String,
}

impl LowerError {
    pub fn new(pointer: &Pointer, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            pointer: pointer.clone(),
            message: message.into(),
            hint: hint.into(),
        }
    }
}

/// A path into the document, kept as segments so the loader can find its line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pointer(Vec<String>);

impl Pointer {
    pub fn root() -> Self {
        Self::default()
    }

    /// Parses a local `$ref` target such as `#/components/schemas/Pet`.
    pub fn from_ref(reference: &str) -> Option<Self> {
        let rest = reference.strip_prefix("#/")?;
        Some(Self(
            rest.split('/')
                .map(|s| s.replace("~1", "/").replace("~0", "~"))
                .collect(),
        ))
    }

    pub fn join(&self, segment: impl fmt::Display) -> Self {
        let mut segments = self.0.clone();
        segments.push(segment.to_string());
        Self(segments)
    }

    /// The pointer of the node that holds this one (the root's is itself).
    pub fn parent(&self) -> Self {
        let mut segments = self.0.clone();
        segments.pop();
        Self(segments)
    }

    pub fn segments(&self) -> &[String] {
        &self.0
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("/");
        }
        for segment in &self.0 {
            write!(f, "/{}", segment.replace('~', "~0").replace('/', "~1"))?;
        }
        Ok(())
    }
}
