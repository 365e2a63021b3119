//! Known failures that expire: how a team adopts the gate on a server that
//! does not pass yet, without the list of exceptions rotting.
//!
//! A baseline (`--baseline FILE`) is a YAML list of entries:
//!
//! ```yaml
//! - check: headers/authorize/x-client-secret/missing
//!   reason: the gateway answers 403 before our server sees it (PLAT-412)
//!   expires: 2026-03-31
//!   link: https://tracker.example.com/PLAT-412   # optional
//!   requirement: sha256:5c1e0f7d2a9b4e3c        # written for you
//! ```
//!
//! A listed check that fails is reported as KNOWN, with its reason, and does
//! not fail the run. An entry fails the run, saying why, when its check now
//! passes ("remove this entry"), when its date has passed, or when the
//! requirement it was written against changed (the hash of the check's
//! quoted sentence). An entry naming no check is an error of the file (exit
//! 2, with its line), as in a profile. `--write-baseline FILE` writes the
//! entries for a run's failures, with reason and expiry to fill in.
//!
//! A view over a finished run's results: it judges no check (the runner
//! did) and sends nothing. [`apply`] is the one place a baseline changes
//! what gates, and it does so only by marking: a listed failure becomes
//! KNOWN (which [`RunResults::exit_code`](crate::results::RunResults::exit_code) does not count), and an entry
//! that must go becomes a failed result of its own, about the file. The
//! file is the gate's, so it is read and written here, beside the gate;
//! a result's requirement is hashed from the quote its [`Anchor`] carries.
//!
//! [`Anchor`]: crate::results::Anchor

mod apply;
mod date;
mod requirement;
mod write;

pub use apply::{ENTRY_REQUIREMENT, apply};
pub use date::Date;
pub use requirement::requirement_hash;
pub use write::write;

use std::path::Path;

use serde::Deserialize;

/// What a new entry holds until a person fills it in; refused on reading.
pub const TO_FILL_IN: &str = "TODO";

/// One known failure.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub check: String,
    pub reason: String,
    pub expires: Date,
    pub link: Option<String>,
    /// `sha256:` and 16 hex digits of the check's quoted requirement when
    /// the entry was written.
    pub requirement: String,
    /// Where the entry starts in its file.
    pub line: usize,
}

/// A baseline file, read and checked.
#[derive(Clone, Debug, Default)]
pub struct Baseline {
    /// As given on the command line, for messages.
    pub file: String,
    pub entries: Vec<Entry>,
}

/// The largest baseline read: 4 MiB, some thousand times what one entry
/// per check takes, so that a wrong path (`/dev/zero`, a log) is refused
/// before it fills memory.
pub const MAX_BASELINE_BYTES: usize = 4 << 20;

/// Why a baseline cannot be used (exit 2).
pub use conformance_model::input::InputError as BaselineError;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    check: String,
    reason: String,
    expires: String,
    #[serde(default)]
    link: Option<String>,
    #[serde(default)]
    requirement: Option<String>,
}

impl Baseline {
    pub fn from_path(path: &Path) -> Result<Self, BaselineError> {
        // A regular file only (a FIFO would hang), capped, BOM dropped.
        let text = conformance_model::input::read_text(path, "baseline", MAX_BASELINE_BYTES)?;
        Self::from_yaml_str(&text, &path.display().to_string())
    }

    pub fn from_yaml_str(text: &str, file: &str) -> Result<Self, BaselineError> {
        // A byte-order mark is how some editors start UTF-8: not content.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.len() > MAX_BASELINE_BYTES {
            return Err(BaselineError::TooLarge {
                kind: "baseline",
                file: file.to_owned(),
                limit: MAX_BASELINE_BYTES,
            });
        }
        let lines = yaml_location::Lines::of(text);
        conformance_model::input::refuse_before_parsing(text, file, &lines, "baseline")?;
        let invalid = |path: &str, reported: usize, message: String| {
            let (line, key) = lines.locate(path, reported);
            BaselineError::Invalid {
                file: file.to_owned(),
                line,
                key,
                message,
            }
        };
        // An empty file (or only comments) is an empty baseline.
        let raw: Vec<RawEntry> = if text.lines().all(|l| {
            let l = l.trim();
            l.is_empty() || l.starts_with('#')
        }) {
            Vec::new()
        } else {
            serde_path_to_error::deserialize(serde_yaml::Deserializer::from_str(text)).map_err(
                |e| {
                    let inner = e.inner();
                    // Messages never quote a value: a baseline may hold a
                    // secret pasted in the wrong place.
                    let full = conformance_model::input::without_values(&inner.to_string());
                    let Some(at) = inner.location() else {
                        return BaselineError::Invalid {
                            file: file.to_owned(),
                            line: 1,
                            key: "(document)".to_owned(),
                            message: full,
                        };
                    };
                    let message = full
                        .rsplit_once(" at line ")
                        .map_or(full.as_str(), |(head, _)| head);
                    invalid(&e.path().to_string(), at.line(), message.to_owned())
                },
            )?
        };
        let mut entries: Vec<Entry> = Vec::with_capacity(raw.len());
        for (i, r) in raw.into_iter().enumerate() {
            let at = |key: &str| format!("[{i}].{key}");
            let line_of = |key: &str| lines.line_of_path(&at(key)).unwrap_or(1);
            let Some(current) = requirement_hash(&r.check) else {
                return Err(invalid(
                    &at("check"),
                    line_of("check"),
                    // Not quoted: what is there may be anything.
                    "names no check (see `conformance list`; snapshots are `snapshots/ID`)"
                        .to_owned(),
                ));
            };
            if let Some(first) = entries.iter().find(|e| e.check == r.check) {
                return Err(invalid(
                    &at("check"),
                    line_of("check"),
                    format!(
                        "`{}` is listed twice (first at line {})",
                        r.check, first.line
                    ),
                ));
            }
            if r.reason.trim().is_empty() || r.reason.trim() == TO_FILL_IN {
                return Err(invalid(
                    &at("reason"),
                    line_of("reason"),
                    "say why this check is known to fail (the report shows it)".to_owned(),
                ));
            }
            let Some(expires) = Date::parse(r.expires.trim()) else {
                let message = if r.expires.trim() == TO_FILL_IN {
                    "give the date this exception ends, as YYYY-MM-DD".to_owned()
                } else {
                    "is not a date (YYYY-MM-DD)".to_owned()
                };
                return Err(invalid(&at("expires"), line_of("expires"), message));
            };
            entries.push(Entry {
                line: lines.line_of_path(&format!("[{i}]")).unwrap_or(1),
                check: r.check,
                reason: r.reason.trim().to_owned(),
                expires,
                link: r.link.filter(|l| !l.trim().is_empty()),
                // Written by hand without one: taken as written today.
                requirement: r.requirement.unwrap_or(current),
            });
        }
        Ok(Baseline {
            file: file.to_owned(),
            entries,
        })
    }

    fn entry(&self, check: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.check == check)
    }
}

#[cfg(test)]
mod tests;
