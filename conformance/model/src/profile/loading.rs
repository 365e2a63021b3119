//! Reading a profile: the file, its keys (`RawProfile`), then the checks
//! across keys (empty names, the caps).

use std::path::Path;

use serde::Deserialize;

use super::errors::{all_missing, locate};
use super::form::{ProfileKeys, Read};
use super::{Profile, ProfileError};
use crate::expand::{plain, read_text, refuse, shown, with_env};
use client_runtime::Secret;

/// The largest profile read (1 MiB, where a real one is a few KiB): a huge
/// file is a mistake, and parsing it would take seconds and gigabytes.
pub const MAX_PROFILE_BYTES: usize = 1 << 20;

impl Profile {
    /// Reads and checks the profile at `path`, expanding `${VAR}` from the
    /// process environment. At most [`MAX_PROFILE_BYTES`] are read.
    pub fn from_path(path: &Path) -> Result<Profile, ProfileError> {
        // A regular file only (a FIFO would hang), capped, BOM dropped.
        let text = crate::input::read_text(path, "profile", MAX_PROFILE_BYTES)?;
        let file = path.display().to_string();
        Self::from_yaml_str(&text, &file, &|name| std::env::var(name).ok())
    }

    /// Parses `text` (named `file` in errors), reading `${VAR}` through `env`.
    pub fn from_yaml_str(
        text: &str,
        file: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Profile, ProfileError> {
        // No message quotes a secret written in the file, even where the
        // same value stands under another key.
        Self::parse_yaml_str(text, file, env).map_err(|e| crate::input::without_secrets(e, text))
    }

    fn parse_yaml_str(
        text: &str,
        file: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Profile, ProfileError> {
        if text.len() > MAX_PROFILE_BYTES {
            return Err(ProfileError::TooLarge {
                kind: "profile",
                file: file.to_owned(),
                limit: MAX_PROFILE_BYTES,
            });
        }
        // A byte-order mark is how some editors start UTF-8: not content.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let lines = yaml_location::Lines::of(text);
        // A control character, a second document, a YAML tag (other than
        // `!!str`: serde would drop it and read the text beneath), a key
        // given twice: each at its line, before serde reads anything.
        crate::input::refuse_before_parsing(text, file, &lines, "profile")?;
        let (raw, read) = with_env(text, env, || {
            crate::limits::counting_patterns(|| {
                serde_path_to_error::deserialize::<_, ProfileKeys<Read>>(
                    serde_yaml::Deserializer::from_str(text),
                )
            })
        });
        let profile = match raw {
            Ok(raw) => raw.into_profile(read, file),
            Err(error) => return Err(all_missing(locate(text, file, &lines, &error), text, env)),
        };
        profile.refuse_empty_names(file, &lines)?;
        profile.refuse_over_caps(file, &lines)?;
        Ok(profile)
    }

    /// Names that are sent and must say something: an empty `client_id`,
    /// component `name` or `tag` would make every check test nothing.
    fn refuse_empty_names(
        &self,
        file: &str,
        lines: &yaml_location::Lines,
    ) -> Result<(), ProfileError> {
        let mut empty = Vec::new();
        if self.client_id.is_empty() {
            empty.push("client_id".to_owned());
        }
        for (i, c) in self.components.iter().enumerate() {
            for (key, value) in [("name", &c.name), ("tag", &c.tag)] {
                if value.is_empty() {
                    empty.push(format!("components[{i}].{key}"));
                }
            }
        }
        match empty.into_iter().next() {
            Some(key) => Err(ProfileError::Invalid {
                file: file.to_owned(),
                line: lines.line_of_path(&key).unwrap_or(1),
                key,
                message: "must not be empty".to_owned(),
            }),
            None => Ok(()),
        }
    }

    /// The cap on the fields that get generated changes, across components
    /// ([`crate::limits`]), refused at the component that crosses it (the
    /// `pattern`s are counted as they are read: [`crate::limits::count_pattern`]).
    fn refuse_over_caps(
        &self,
        file: &str,
        lines: &yaml_location::Lines,
    ) -> Result<(), ProfileError> {
        use crate::limits::{FIELDS_PER_PROFILE, over};
        let mut fields = 0;
        for (i, c) in self.components.iter().enumerate() {
            let (key, count) = match (&c.fields, &c.authorize) {
                (Some(declared), _) => (format!("components[{i}].fields"), declared.0.len()),
                (None, Some(a)) => (
                    format!("components[{i}].authorize.valid_body"),
                    a.valid_body.len(),
                ),
                (None, None) => continue,
            };
            fields += count;
            if fields > FIELDS_PER_PROFILE {
                let message = over(
                    "the number of fields across the profile (declared, or a `valid_body`'s where none are declared)",
                    fields,
                    FIELDS_PER_PROFILE,
                );
                return Err(ProfileError::Invalid {
                    file: file.to_owned(),
                    line: lines.line_of_path(&key).unwrap_or(1),
                    key,
                    message,
                });
            }
        }
        Ok(())
    }
}

/// `rate:`, requests a second: a positive, finite number.
pub(super) struct Rate(pub(super) f64);

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (raw, value) = plain(|| read_text(d))?;
        match value.trim().parse::<f64>() {
            Ok(r) if r.is_finite() && r > 0.0 => Ok(Rate(r)),
            _ => Err(refuse(format!(
                "{} is not a positive number of requests a second",
                shown(&raw, &value)
            ))),
        }
    }
}

/// A list of at most `CAP` items ([`crate::limits`]).
pub(super) struct Capped<T, const CAP: usize>(pub(super) Vec<T>);

impl<T, const CAP: usize> Default for Capped<T, CAP> {
    fn default() -> Self {
        Capped(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>, const CAP: usize> Deserialize<'de> for Capped<T, CAP> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let list = Vec::<T>::deserialize(d)?;
        if list.len() > CAP {
            return Err(serde::de::Error::custom(crate::limits::over(
                "the number of names",
                list.len(),
                CAP,
            )));
        }
        Ok(Capped(list))
    }
}

/// A response header name, as a profile lists it for snapshots.
pub(super) struct HeaderName(pub(super) String);

impl<'de> Deserialize<'de> for HeaderName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (raw, text) = plain(|| read_text(d))?;
        reqwest::header::HeaderName::from_bytes(text.as_bytes())
            .map(|h| HeaderName(h.as_str().to_owned()))
            .map_err(|_| {
                serde::de::Error::custom(format!("{} is not a header name", shown(&raw, &text)))
            })
    }
}

impl ProfileKeys<Read> {
    fn into_profile(self, env: Vec<(String, String)>, file: &str) -> Profile {
        Profile {
            env: env
                .into_iter()
                .map(|(name, value)| (name, Secret::new(value)))
                .collect(),
            base_url: self.base_url.0,
            client_id: self.client_id.0,
            client_secret: Secret::new(self.client_secret.0),
            project_env: self.project_env.map(|e| e.0),
            components: self.components.0,
            choices: self.choices.unwrap_or_default(),
            snapshot_headers: self
                .snapshot_headers
                .map(|h| h.0.into_iter().map(|h| h.0).collect())
                .unwrap_or_default(),
            budgets: self.budgets.unwrap_or_default(),
            rate: self.rate.map(|r| r.0),
            // Relative to the profile's folder, wherever the run starts.
            ca_cert: self
                .ca_cert
                .map(|c| Path::new(file).parent().unwrap_or(Path::new("")).join(c.0)),
        }
    }
}
