//! How strongly a rule is stated: the one notion every stage shares
//! (checks, choices, reports).

use serde::Serialize;

/// How strongly the description states a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    /// Stated by the interface description: a failure fails the run.
    Must,
    /// An HTTP norm or one of our spec's choices where the description is
    /// silent: reported, and fails the run only with `--strict`.
    Should,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
        }
    }
}
