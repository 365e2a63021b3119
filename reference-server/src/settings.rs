//! A component's auth settings as a fixture declares them: each field's
//! name, type and constraints. The data both the fixture (which reads and
//! checks them) and validation (which judges a body by them) rest on.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

/// A component's settings; only the auth section matters to this interface.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The fields a request body carries, in the order errors are reported.
    pub auth: Vec<FieldSetting>,
    /// Each field's position by its name, built on first use: looking a
    /// name up in a list made checking a fixture of 100,000 fields, and
    /// judging a body of 6,000 unknown keys, quadratic.
    #[serde(skip)]
    index: OnceLock<Index>,
}

/// The positions of a component's fields by name.
#[derive(Clone, Debug, Default)]
struct Index {
    exact: HashMap<String, usize>,
    /// By name in ASCII lower case: the first of the fields that fold alike.
    folded: HashMap<String, usize>,
}

impl Settings {
    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let mut index = Index::default();
            for (i, f) in self.auth.iter().enumerate() {
                index.exact.entry(f.name.clone()).or_insert(i);
                index.folded.entry(f.name.to_ascii_lowercase()).or_insert(i);
            }
            index
        })
    }

    /// The field named `name`, exactly (the first, where a broken fixture
    /// names one twice).
    pub fn get(&self, name: &str) -> Option<&FieldSetting> {
        self.index().exact.get(name).map(|&i| &self.auth[i])
    }

    /// Whether a field's name equals `name` ignoring ASCII letter case.
    pub fn defines_ignoring_case(&self, name: &str) -> bool {
        self.index().folded.contains_key(&name.to_ascii_lowercase())
    }
}

/// One auth field: its name, type and constraints.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSetting {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: FieldType,
    /// Default `false`: a field is optional unless the settings say otherwise.
    #[serde(default)]
    pub required: bool,
    /// In characters (Unicode scalar values); strings only.
    #[serde(default)]
    pub min_length: Option<usize>,
    /// In characters (Unicode scalar values); strings only.
    #[serde(default)]
    pub max_length: Option<usize>,
    /// Default `false`. A secret field is compared in constant time and never
    /// shown in a model returned to the client.
    #[serde(default)]
    pub secret: bool,
    /// Integers only: the smallest value allowed.
    #[serde(default)]
    pub minimum: Option<i64>,
    /// Integers only: the largest value allowed.
    #[serde(default)]
    pub maximum: Option<i64>,
    /// Strings only: a regular expression the value must match.
    #[serde(default, deserialize_with = "pattern")]
    pub pattern: Option<Pattern>,
    /// The only values allowed (`enum`).
    #[serde(default, rename = "enum")]
    pub allowed: Option<Vec<Value>>,
}

/// A field's `pattern`: its text and the compiled expression, in the
/// dialect of the runner's oracle (Rust's regex crate, Unicode-aware:
/// `\w` matches `ë`), searched for anywhere in the value unless anchored.
#[derive(Clone)]
pub struct Pattern {
    pub source: String,
    pub regex: regex::Regex,
}

/// Bytes a compiled pattern may take: a short pattern with a counted
/// repetition of a Unicode class can compile to megabytes. The runner's
/// cap on one pattern of a profile is the same (8 MiB).
const PATTERN_COMPILED_BYTES: usize = 8 << 20;

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

fn pattern<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Pattern>, D::Error> {
    let source = String::deserialize(d)?;
    regex::RegexBuilder::new(&source)
        .size_limit(PATTERN_COMPILED_BYTES)
        .build()
        .map(|regex| Some(Pattern { source, regex }))
        .map_err(|e| {
            serde::de::Error::custom(format!("`pattern` is not a regular expression: {e}"))
        })
}

/// The JSON type an auth field must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    String,
    Integer,
    Boolean,
}

impl FieldType {
    /// The word used in validation messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Integer => "integer",
            Self::Boolean => "boolean",
        }
    }

    /// "a string", "an integer", "a boolean".
    pub fn with_article(self) -> &'static str {
        match self {
            Self::String => "a string",
            Self::Integer => "an integer",
            Self::Boolean => "a boolean",
        }
    }
}

/// Whether `s` is a uuid in its usual hyphenated text form (any version).
pub(crate) fn is_uuid(s: &str) -> bool {
    // 36 characters: of the forms `uuid` parses, only the hyphenated one.
    s.len() == 36 && uuid::Uuid::try_parse(s).is_ok()
}
