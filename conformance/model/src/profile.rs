//! The target profile: the YAML file that tells the runner where a server is,
//! which credentials to send and which components (with their tokens and
//! example bodies) the server holds.
//!
//! The profile is the contract between a user and the runner, so a bad one is
//! an error that names the key and the line (``profile.yaml:7: key
//! `components[0].uuid`: `abc` is not a uuid …``), never a strange failure
//! later.
//!
//! `${VAR}` anywhere in a string value is replaced by the environment variable
//! `VAR`; an unset variable is an error naming the key and line. Secrets
//! (`client_secret`, `auth_token`) are held as [`Secret`] and never printed,
//! and so is every body field a component names in `secret_fields`, a
//! password in `base_url`, and every value read from the environment into
//! any key but those that say where and what things are (`base_url` but its
//! password, `name`, `tag`, `uuid`, `model_uuid`, `project_env`). No error
//! prints a value read from the environment or a secret written in the
//! profile: it names the key and what is wrong with the value's form.

use std::fmt;
use std::path::Path;

use client_runtime::Secret;
use component_auth_bindings::types::{AuthFields, ProjectEnv};
use serde::Deserialize;

/// Body fields whose values are secrets by their name, where a component
/// names none (`secret_fields`): redacted in every record, report and
/// reproduction.
pub const SECRET_FIELD_NAMES: &[&str] = &["password", "secret", "token", "pin", "passcode"];

/// A secret of the profile: see [`Profile::secret_values`].
#[derive(Clone, Debug)]
pub struct SecretValue {
    pub value: String,
    /// The shell variable a reproduction writes for it: the profile's own
    /// `${VAR}` when read from one, else a name after its key, which the
    /// user sets to the profile's value.
    pub variable: String,
    /// Read from the environment (and named by its own variable).
    pub from_env: bool,
    /// Scrubbed from text wherever it appears; `false` for a secret body
    /// field that is not a string, redacted by its field name instead.
    pub in_text: bool,
    /// Where the profile holds it (`client_secret`,
    /// `components[1].authorize.valid_body.pin`), for a report to say where
    /// the value of a reproduction's variable is without printing it.
    pub key: String,
}

/// `Café Menü` → `CAF_MEN_`: a shell variable name part.
pub fn shell_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// A parsed and checked profile.
#[derive(Clone, Debug)]
pub struct Profile {
    /// Scheme and host (and port) of the service, without `/v2/api`.
    pub base_url: String,
    pub client_id: String,
    pub client_secret: Secret,
    /// The `X-Project-Env` every request starts from; absent: none is sent.
    pub project_env: Option<ProjectEnv>,
    pub components: Vec<Component>,
    /// Every `${VAR}` the profile read into a place that holds a secret
    /// (see [`Profile::secret_values`]), with its value; a reproduction
    /// writes it as `$VAR`.
    pub env: Vec<(String, Secret)>,
    /// What the server chose where the description is silent
    /// ([`crate::choices`]); what it leaves out is ours.
    pub choices: crate::choices::Choices,
    /// Response headers recorded in snapshots besides the interface's own
    /// (Content-Type, X-Project-Uuid), lower case. Default: none.
    pub snapshot_headers: Vec<String>,
    /// Latency budgets per operation, judged at p95 as MUSTs of the
    /// profile (`budgets/<op>` checks). Default: none.
    pub budgets: Budgets,
    /// Requests a second the server allows this client (`rate:`), which the
    /// run then never exceeds (as `--rate`, which overrides it); where the
    /// server limits its clients, `conformance choices` observes it.
    /// Default: none (the run backs off only when limited).
    pub rate: Option<f64>,
}

/// A component the target holds.
#[derive(Clone)]
pub struct Component {
    pub name: String,
    pub tag: String,
    pub uuid: String,
    pub requires_auth: bool,
    /// A valid token for this component; bound to `authorize.model_uuid`
    /// when both are given. Required where `requires_auth` is true.
    pub auth_token: Option<Secret>,
    pub authorize: Option<Authorize>,
    /// Body fields whose values are secrets (any letter case); default
    /// [`SECRET_FIELD_NAMES`], and every declared field marked `secret`.
    pub secret_fields: Vec<String>,
    /// The component's auth settings, where the profile declares them
    /// ([`crate::fields`]): generated bodies then have a known verdict.
    pub fields: Option<crate::fields::Fields>,
}

impl fmt::Debug for Component {
    /// Body fields by name only: their values may be credentials.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fields = |b: &AuthFields| b.keys().cloned().collect::<Vec<_>>();
        f.debug_struct("Component")
            .field("name", &self.name)
            .field("tag", &self.tag)
            .field("uuid", &self.uuid)
            .field("requires_auth", &self.requires_auth)
            .field("auth_token", &self.auth_token)
            .field(
                "model_uuid",
                &self.authorize.as_ref().map(|a| &a.model_uuid),
            )
            .field(
                "valid_body",
                &self.authorize.as_ref().map(|a| fields(&a.valid_body)),
            )
            .field("secret_fields", &self.secret_fields)
            .finish()
    }
}

impl Component {
    /// `true` when the body field `name` holds a secret.
    pub fn is_secret_field(&self, name: &str) -> bool {
        self.secret_fields
            .iter()
            .any(|s| name.eq_ignore_ascii_case(s))
    }
}

/// What a successful Authorize needs, and a body that must fail validation.
#[derive(Clone, Debug)]
pub struct Authorize {
    pub model_uuid: String,
    pub valid_body: AuthFields,
    pub invalid_body: Option<AuthFields>,
    /// A second model of the component the server takes, for the
    /// environments check (§5: X-Project-Env "Selects the environment"):
    /// the first model claimed in `dev`, this one in `live`, each read back.
    pub second_model: Option<SecondModel>,
}

/// `authorize.second_model`: another model of the same component.
#[derive(Clone, Debug)]
pub struct SecondModel {
    pub model_uuid: String,
    /// The body that claims it; default: the first model's `valid_body`.
    pub valid_body: AuthFields,
}

/// Why a profile cannot be used.
pub use crate::input::InputError as ProfileError;

use crate::expand::{expand, plain, read_text, refuse, shown, with_env};

mod budgets;
pub use budgets::{Budgets, OPERATIONS as BUDGET_OPERATIONS, parse_limit};

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
                serde_path_to_error::deserialize::<_, RawProfile>(
                    serde_yaml::Deserializer::from_str(text),
                )
            })
        });
        let profile = match raw {
            Ok(raw) => raw.into_profile(read),
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

    /// Every secret the profile holds, each with the shell variable a
    /// reproduction writes for it: the one source of what is secret, for
    /// scrubbing outputs ([`Profile::secrets`]) and for reproductions
    /// (`generate::curl::placeholders`).
    ///
    /// Secret by their key: `client_secret`, the password in `base_url`,
    /// each `auth_token`, and the secret fields of each `valid_body` (the
    /// invalid body's values are wrong on purpose). Secret by where they
    /// came from: every value read from `${VAR}` into any other key but
    /// those that say where and what things are (`base_url` but its password,
    /// `name`, `tag`, `uuid`, `model_uuid`, `project_env`). Values
    /// read from the environment come first, named by their own variable;
    /// the others are named after their key (`CLIENT_SECRET`,
    /// `AUTH_TOKEN_USERS`, `PASSWORD_USERS`, `BASE_URL_PASSWORD`). A value
    /// is listed once, under its first name.
    pub fn secret_values(&self) -> Vec<SecretValue> {
        let mut all: Vec<SecretValue> = self
            .env
            .iter()
            .map(|(name, value)| SecretValue {
                value: value.expose().to_owned(),
                variable: name.clone(),
                from_env: true,
                in_text: true,
                key: format!("${{{name}}}"),
            })
            .collect();
        let mut keyed = |value: String, variable: String, in_text: bool, key: String| {
            all.push(SecretValue {
                value,
                variable,
                from_env: false,
                in_text,
                key,
            })
        };
        keyed(
            self.client_secret.expose().to_owned(),
            "CLIENT_SECRET".to_owned(),
            true,
            "client_secret".to_owned(),
        );
        if let Some(password) = reqwest::Url::parse(&self.base_url)
            .ok()
            .and_then(|url| url.password().map(str::to_owned))
        {
            keyed(
                password,
                "BASE_URL_PASSWORD".to_owned(),
                true,
                "base_url (its password)".to_owned(),
            );
        }
        for (i, c) in self.components.iter().enumerate() {
            let suffix = shell_name(&c.tag);
            if let Some(t) = &c.auth_token {
                keyed(
                    t.expose().to_owned(),
                    format!("AUTH_TOKEN_{suffix}"),
                    true,
                    format!("components[{i}].auth_token"),
                );
            }
            let Some(a) = &c.authorize else { continue };
            let second = a.second_model.as_ref().map(|m| {
                m.valid_body
                    .iter()
                    .map(move |(n, v)| (n, v, "second_model.valid_body", "_2"))
            });
            let bodies = a
                .valid_body
                .iter()
                .map(|(n, v)| (n, v, "valid_body", ""))
                .chain(second.into_iter().flatten());
            for (name, value, at, second) in bodies {
                if !c.is_secret_field(name) {
                    continue;
                }
                // A number (a PIN) is redacted by its field name, not as
                // text: its digits stand in uuids and counts too.
                let (text, in_text) = match value {
                    serde_json::Value::String(s) => (s.clone(), true),
                    other => (other.to_string(), false),
                };
                keyed(
                    text,
                    format!("{}_{suffix}{second}", shell_name(name)),
                    in_text,
                    format!("components[{i}].authorize.{at}.{name}"),
                );
            }
        }
        all.retain(|s| !s.value.is_empty());
        let mut seen = std::collections::HashSet::new();
        all.retain(|s| seen.insert(s.value.clone()));
        all
    }

    /// Every secret to scrub from outputs as text, in any spelling: the
    /// [`Profile::secret_values`] that are not redacted by key only.
    pub fn secrets(&self) -> Vec<String> {
        self.secret_values()
            .into_iter()
            .filter(|s| s.in_text)
            .map(|s| s.value)
            .collect()
    }

    /// Every body field name that holds a secret in some component.
    pub fn secret_fields(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .components
            .iter()
            .flat_map(|c| c.secret_fields.iter().map(|f| f.to_ascii_lowercase()))
            .collect();
        all.sort();
        all.dedup();
        all
    }

    /// `base_url` with a password in it shown as `[redacted]`, in any
    /// spelling (the one function every message about it uses).
    pub fn shown_base_url(&self) -> String {
        match reqwest::Url::parse(&self.base_url) {
            Ok(url) => without_password(url.as_str().trim_end_matches('/')),
            Err(_) => without_password(&self.base_url),
        }
    }
}

/// A string with `${VAR}` expanded.
struct Text(String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_text(d).map(|(_, value)| Text(value))
    }
}

/// A [`Text`] that names or places something (`name`, `tag`): not a secret
/// when read from the environment.
struct Plain(String);

impl<'de> Deserialize<'de> for Plain {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        plain(|| read_text(d)).map(|(_, value)| Plain(value))
    }
}

/// A string with `${VAR}` expanded that must not be empty (a secret: an
/// empty one would be sent as no credential at all).
struct NonEmpty(String);

impl<'de> Deserialize<'de> for NonEmpty {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Text(value) = Text::deserialize(d)?;
        if value.is_empty() {
            Err(refuse("must not be empty".to_owned()))
        } else {
            Ok(NonEmpty(value))
        }
    }
}

/// A uuid in its canonical text form (8-4-4-4-12 hex digits).
struct Uuid(String);

impl<'de> Deserialize<'de> for Uuid {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (raw, value) = plain(|| read_text(d))?;
        if is_uuid(&value) {
            Ok(Uuid(value))
        } else {
            Err(refuse(format!(
                "{} is not a uuid (8-4-4-4-12 hex digits): {}",
                shown(&raw, &value),
                uuid_form(&value)
            )))
        }
    }
}

/// What is wrong with the form of `value` as a uuid, without repeating it.
fn uuid_form(value: &str) -> String {
    let count = value.chars().count();
    if count != 36 {
        return format!("it has {count} characters, not 36");
    }
    for (i, c) in value.chars().enumerate() {
        let hyphen = matches!(i, 8 | 13 | 18 | 23);
        if hyphen && c != '-' {
            return format!("character {} is not `-`", i + 1);
        }
        if !hyphen && !c.is_ascii_hexdigit() {
            return format!("character {} is not a hex digit", i + 1);
        }
    }
    "it is not in the hyphenated form".to_owned()
}

/// `true` when `s` is a uuid in canonical text form (any letter case).
pub fn is_uuid(s: &str) -> bool {
    // 36 characters: of the forms `uuid` parses, only the hyphenated one.
    s.len() == 36 && uuid::Uuid::try_parse(s).is_ok()
}

struct BaseUrl(String);

impl<'de> Deserialize<'de> for BaseUrl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let first_read = crate::expand::read_so_far();
        let (raw, value) = plain(|| read_text(d))?;
        let trimmed = value.trim_end_matches('/');
        // Shown with any password hidden, and as `${VAR}` when read from one.
        let shown = if raw.contains("${") {
            format!("the value of `{}`", without_password(&raw))
        } else {
            format!("`{}`", without_password(&value))
        };
        let url = match reqwest::Url::parse(trimmed) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => url,
            Ok(_) => {
                return Err(refuse(format!(
                    "{shown} is not an http:// or https:// URL with a host"
                )));
            }
            Err(e) => {
                return Err(refuse(format!(
                    "{shown} is not an http:// or https:// URL ({e})"
                )));
            }
        };
        // A variable that gave the password, or part of it, holds a secret.
        if let Some(password) = url.password() {
            let decoded = percent_encoding::percent_decode_str(password).decode_utf8_lossy();
            crate::expand::secret_since(first_read, |value| {
                !value.is_empty()
                    && (password.contains(value)
                        || decoded.contains(value)
                        || value.contains(password))
            });
            crate::expand::reserved_secret_since(first_read).map_err(refuse)?;
        }
        let problem = if url.path().contains('@') {
            // `http://user:12/ss@host` parses as the host `user`, port 12,
            // path `/ss@host`: a password holding `/` written literally.
            Some(
                "has an `@` after its host: a password in the URL must be percent-encoded (`/` as %2F, `?` as %3F, `#` as %23, `@` as %40), or better, given as ${VAR}",
            )
        } else if url.path().ends_with("/v2/api") {
            Some("ends with /v2/api; give the scheme and host only, the runner adds /v2/api")
        } else if url.query().is_some() {
            Some(
                "has a query (`?…`), which would stand between the path prefix and /v2/api; give the scheme and host only",
            )
        } else if url.fragment().is_some() {
            Some("has a fragment (`#…`), which is never sent; give the scheme and host only")
        } else {
            None
        };
        match problem {
            Some(problem) => Err(refuse(format!("{shown} {problem}"))),
            None => Ok(BaseUrl(trimmed.to_owned())),
        }
    }
}

/// `text` (a URL, perhaps one that does not parse, with or without its
/// scheme) as a message may show it: the password of its user information
/// `[redacted]` whatever characters it holds, and its query and fragment
/// `…`. A password may hold `/`, `?`, `#` or `@` written literally (a
/// parser then ends the authority early and finds no password), so what
/// is hidden is everything from the first `:` after the scheme's `//` to
/// the *last* `@` of the text; a URL with a port and an `@` further on
/// loses more than its password, never less.
fn without_password(text: &str) -> String {
    let start = text.find("://").map_or(0, |i| i + 3);
    let rest = &text[start..];
    let mut shown = text.to_owned();
    if let Some(at) = rest.rfind('@') {
        if let Some(colon) = rest[..at].find(':') {
            shown = format!(
                "{}{}:[redacted]{}",
                &text[..start],
                &rest[..colon],
                &rest[at..]
            );
        }
    }
    // A query's values may be credentials (`?api_key=...`): none shown.
    match shown.find(['?', '#']) {
        Some(i) => format!("{}{}…", &shown[..i], &shown[i..=i]),
        None => shown,
    }
}

struct Env(ProjectEnv);

impl<'de> Deserialize<'de> for Env {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (raw, value) = plain(|| read_text(d))?;
        value.parse::<ProjectEnv>().map(Env).map_err(|_| {
            refuse(format!(
                "{} is not one of: {}",
                shown(&raw, &value),
                ProjectEnv::ALL
                    .iter()
                    .map(|e| e.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }
}

/// A JSON object written in YAML, with `${VAR}` expanded in its strings.
struct Body(AuthFields);

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut value = serde_json::Value::deserialize(d)?;
        expand_json(&mut value).map_err(refuse)?;
        // Its values may be credentials: only their kind is named.
        let kind = match value {
            serde_json::Value::Object(map) => {
                use crate::limits::{BODY_BYTES, FIELDS_PER_COMPONENT, over};
                if map.len() > FIELDS_PER_COMPONENT {
                    return Err(refuse(over(
                        "the number of the body's fields",
                        map.len(),
                        FIELDS_PER_COMPONENT,
                    )));
                }
                let bytes = serde_json::to_string(&map).map_or(0, |t| t.len());
                if bytes > BODY_BYTES {
                    return Err(refuse(over(
                        "the body's length as JSON, in bytes,",
                        bytes,
                        BODY_BYTES,
                    )));
                }
                return Ok(Body(map));
            }
            serde_json::Value::Null => "null",
            serde_json::Value::Bool(_) => "a boolean",
            serde_json::Value::Number(_) => "a number",
            serde_json::Value::String(_) => "a string",
            serde_json::Value::Array(_) => "a list",
        };
        Err(refuse(format!(
            "a body must be a mapping of field names to values, not {kind}"
        )))
    }
}

/// Expands `${VAR}` in every string of a body. A string that is exactly
/// `${VAR:json}` becomes the JSON value the variable holds (`1234`, `true`,
/// `"text"`): a secret that is a number, such as a PIN, can come from the
/// environment too.
fn expand_json(value: &mut serde_json::Value) -> Result<(), String> {
    match value {
        serde_json::Value::String(s) => {
            if let Some(name) = s.strip_prefix("${").and_then(|r| r.strip_suffix(":json}")) {
                let placeholder = format!("${{{name}}}");
                let text = expand(&placeholder)?;
                *value = serde_json::from_str(&text).map_err(|e| {
                    format!(
                        "the environment variable `{name}` does not hold a JSON value ({e}); use `${{{name}}}` for text"
                    )
                })?;
                return Ok(());
            }
            *s = expand(s)?;
        }
        serde_json::Value::Array(items) => {
            for item in items {
                expand_json(item)?;
            }
        }
        serde_json::Value::Object(map) => {
            for item in map.values_mut() {
                expand_json(item)?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    base_url: BaseUrl,
    client_id: Text,
    client_secret: NonEmpty,
    #[serde(default)]
    project_env: Option<Env>,
    components: Components,
    #[serde(default)]
    choices: crate::choices::Choices,
    #[serde(default)]
    snapshot_headers: Capped<HeaderName, { crate::limits::SNAPSHOT_HEADERS }>,
    #[serde(default)]
    budgets: Budgets,
    #[serde(default)]
    rate: Option<Rate>,
}

/// `rate:`, requests a second: a positive, finite number.
struct Rate(f64);

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
struct Capped<T, const CAP: usize>(Vec<T>);

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
struct HeaderName(String);

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

struct Components(Vec<Component>);

impl<'de> Deserialize<'de> for Components {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let list = Vec::<RawComponent>::deserialize(d)?;
        if list.len() > crate::limits::COMPONENTS {
            return Err(serde::de::Error::custom(crate::limits::over(
                "the number of components",
                list.len(),
                crate::limits::COMPONENTS,
            )));
        }
        if list.is_empty() {
            return Err(serde::de::Error::custom("at least one component is needed"));
        }
        Ok(Components(list.into_iter().map(|c| c.0).collect()))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawComponentFields {
    name: Plain,
    tag: Plain,
    uuid: Uuid,
    #[serde(default)]
    requires_auth: bool,
    #[serde(default)]
    auth_token: Option<Text>,
    #[serde(default)]
    authorize: Option<RawAuthorize>,
    #[serde(default)]
    secret_fields: Option<Capped<String, { crate::limits::SECRET_FIELDS }>>,
    #[serde(default)]
    fields: Option<crate::fields::Fields>,
}

struct RawComponent(Component);

impl<'de> Deserialize<'de> for RawComponent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawComponentFields::deserialize(d)?;
        let auth_token = raw.auth_token.map(|t| Secret::new(t.0));
        if raw.requires_auth && auth_token.as_ref().is_none_or(|t| t.expose().is_empty()) {
            return Err(serde::de::Error::custom(format!(
                "component `{}`: `auth_token` is required where `requires_auth` is true",
                raw.name.0
            )));
        }
        if let Some(a) = &raw.authorize {
            if a.second_model
                .as_ref()
                .is_some_and(|m| m.model_uuid.0.eq_ignore_ascii_case(&a.model_uuid.0))
            {
                return Err(serde::de::Error::custom(format!(
                    "component `{}`: `authorize.second_model.model_uuid` is `model_uuid` again: give another model of the component, one the server takes",
                    raw.name.0
                )));
            }
        }
        if let (Some(fields), Some(a)) = (&raw.fields, &raw.authorize) {
            let broken = fields.broken_by(&a.valid_body.0);
            if !broken.is_empty() {
                // A number or boolean from the environment is `${VAR:json}`:
                // `${VAR}` is always text.
                let hint = if broken.iter().any(|b| b.contains(" is a string where ")) {
                    " (a number or boolean read from the environment is written `\"${VAR:json}\"`: `${VAR}` is text)"
                } else {
                    ""
                };
                return Err(serde::de::Error::custom(format!(
                    "component `{}`: `authorize.valid_body` does not keep its declared `fields`: {}{hint}",
                    raw.name.0,
                    broken.join("; ")
                )));
            }
            if let Some(invalid) = &a.invalid_body {
                if fields
                    .judge(&serde_json::Value::Object(invalid.0.clone()))
                    .keeps()
                    && fields.broken_by(&invalid.0).is_empty()
                {
                    return Err(serde::de::Error::custom(format!(
                        "component `{}`: `authorize.invalid_body` keeps every declared field's settings: it would not fail validation",
                        raw.name.0
                    )));
                }
            }
        }
        let mut secret_fields = raw
            .secret_fields
            .map(|c| c.0)
            .unwrap_or_else(|| SECRET_FIELD_NAMES.iter().map(|s| (*s).to_owned()).collect());
        if let Some(fields) = &raw.fields {
            for name in fields.secret_names() {
                if !secret_fields.iter().any(|s| s.eq_ignore_ascii_case(name)) {
                    secret_fields.push(name.to_owned());
                }
            }
        }
        Ok(RawComponent(Component {
            name: raw.name.0,
            tag: raw.tag.0,
            uuid: raw.uuid.0,
            requires_auth: raw.requires_auth,
            auth_token,
            authorize: raw.authorize.map(|a| Authorize {
                second_model: a.second_model.map(|m| SecondModel {
                    model_uuid: m.model_uuid.0,
                    valid_body: m.valid_body.map_or_else(|| a.valid_body.0.clone(), |b| b.0),
                }),
                model_uuid: a.model_uuid.0,
                valid_body: a.valid_body.0,
                invalid_body: a.invalid_body.map(|b| b.0),
            }),
            secret_fields,
            fields: raw.fields,
        }))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAuthorize {
    model_uuid: Uuid,
    valid_body: Body,
    #[serde(default)]
    invalid_body: Option<Body>,
    #[serde(default)]
    second_model: Option<RawSecondModel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSecondModel {
    model_uuid: Uuid,
    #[serde(default)]
    valid_body: Option<Body>,
}

impl RawProfile {
    fn into_profile(self, env: Vec<(String, String)>) -> Profile {
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
            choices: self.choices,
            snapshot_headers: self.snapshot_headers.0.into_iter().map(|h| h.0).collect(),
            budgets: self.budgets,
            rate: self.rate.map(|r| r.0),
        }
    }
}

// ---------------------------------------------------------------------------
// Turning a serde_yaml error into "file:line: key `k`: message".

/// The error at its key path (from serde_path_to_error) and that key's
/// line (from `yaml-location`); a syntax error at serde_yaml's own line.
/// An error about one variable that is not set names every variable the
/// profile reads that is not set, so that one run says all there is to set.
fn all_missing(
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

fn locate(
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

impl fmt::Display for Profile {
    /// A one-line description without secrets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A client id read from the environment is a secret: shown as the
        // variable it came from.
        let mut client = self.client_id.clone();
        let mut secrets = self.secret_values();
        secrets.sort_by_key(|s| std::cmp::Reverse(s.value.len()));
        for s in secrets.iter().filter(|s| s.in_text) {
            client = client.replace(&s.value, &format!("${{{}}}", s.variable));
        }
        write!(
            f,
            "{} (client `{client}`, {} component{})",
            self.shown_base_url(),
            self.components.len(),
            if self.components.len() == 1 { "" } else { "s" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "\
base_url: http://127.0.0.1:8080
client_id: ${CID}
client_secret: ${CSECRET}
project_env: live
components:
  - name: Users
    tag: users
    uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11
    requires_auth: true
    auth_token: ${TOKEN}
    authorize:
      model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01
      valid_body: { email: ada@example.com, password: \"${PW}\" }
      invalid_body: { email: 42 }
";

    fn env(name: &str) -> Option<String> {
        match name {
            "CID" => Some("client".into()),
            "CSECRET" => Some("s3cret".into()),
            "TOKEN" => Some("tok".into()),
            "PW" => Some("correct-horse".into()),
            _ => None,
        }
    }

    fn parse(text: &str) -> Result<Profile, ProfileError> {
        Profile::from_yaml_str(text, "p.yaml", &env)
    }

    fn invalid(text: &str) -> (usize, String, String) {
        match parse(text) {
            Err(ProfileError::Invalid {
                line, key, message, ..
            }) => (line, key, message),
            other => panic!("expected an invalid profile, got {other:?}"),
        }
    }

    #[test]
    fn parses_and_expands() {
        let p = parse(GOOD).expect("valid");
        assert_eq!(p.client_id, "client");
        assert_eq!(p.client_secret.expose(), "s3cret");
        assert_eq!(p.project_env, Some(ProjectEnv::Live));
        let c = &p.components[0];
        assert_eq!(c.auth_token.as_ref().map(Secret::expose), Some("tok"));
        let a = c.authorize.as_ref().expect("authorize");
        assert_eq!(a.valid_body["password"], "correct-horse");
        assert_eq!(
            a.invalid_body.as_ref().map(|b| b["email"].clone()),
            Some(42.into())
        );
        assert!(!format!("{p:?}").contains("s3cret"));
    }

    #[test]
    fn every_value_from_the_environment_is_a_secret() {
        let p = parse(&GOOD.replace(
            "http://127.0.0.1:8080",
            "https://ops:pa%20ss@api.example.com",
        ))
        .expect("valid");
        let names: Vec<&str> = p.env.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["CID", "CSECRET", "PW", "TOKEN"]);
        let secrets = p.secrets();
        for s in ["client", "s3cret", "tok", "correct-horse", "pa%20ss"] {
            assert!(secrets.iter().any(|x| x == s), "{s} in {secrets:?}");
        }
        assert!(!p.to_string().contains("pa%20ss"), "{p}");
        assert!(p.to_string().contains("[redacted]"), "{p}");
        assert!(!format!("{p:?}").contains("correct-horse"));
    }

    #[test]
    fn a_body_value_from_the_environment_can_be_a_number() {
        let text = GOOD.replace(
            "invalid_body: { email: 42 }",
            "invalid_body: { email: \"${PIN:json}\" }",
        );
        let env = |name: &str| match name {
            "PIN" => Some("8642".to_owned()),
            other => env(other),
        };
        let p = Profile::from_yaml_str(&text, "p.yaml", &env).expect("valid");
        let body = p.components[0]
            .authorize
            .as_ref()
            .and_then(|a| a.invalid_body.as_ref());
        assert_eq!(body.map(|b| b["email"].clone()), Some(8642.into()));
        assert!(p.secrets().iter().any(|s| s == "8642"));
        let bad = |name: &str| match name {
            "PIN" => Some("not json".to_owned()),
            other => env(other),
        };
        match Profile::from_yaml_str(&text, "p.yaml", &bad) {
            Err(ProfileError::Invalid { key, message, .. }) => {
                assert!(key.contains("invalid_body"), "{key}");
                assert!(
                    message.contains("`PIN` does not hold a JSON value"),
                    "{message}"
                );
                assert!(
                    !message.contains("not json"),
                    "the value is not repeated: {message}"
                );
            }
            other => panic!("expected an invalid profile, got {other:?}"),
        }
    }

    #[test]
    fn secret_fields_and_an_empty_secret() {
        let p = parse(&GOOD.replace(
            "    auth_token: ${TOKEN}\n",
            "    auth_token: ${TOKEN}\n    secret_fields: [email]\n",
        ))
        .expect("valid");
        assert!(p.components[0].is_secret_field("Email"));
        assert!(!p.components[0].is_secret_field("password"));
        let (line, key, message) =
            invalid(&GOOD.replace("client_secret: ${CSECRET}", "client_secret: \"\""));
        assert_eq!((line, key.as_str()), (3, "client_secret"));
        assert!(message.contains("empty"), "{message}");
    }

    #[test]
    fn unset_variable_names_key_and_line() {
        let text = GOOD.replace("${TOKEN}", "${NOT_SET_ANYWHERE}");
        let (line, key, message) = invalid(&text);
        assert_eq!(line, 10);
        assert_eq!(key, "components[0].auth_token");
        assert!(message.contains("NOT_SET_ANYWHERE"), "{message}");
    }

    #[test]
    fn non_uuid_names_key_and_line() {
        let text = GOOD.replace("5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01", "not-a-uuid");
        let (line, key, message) = invalid(&text);
        assert_eq!(line, 12);
        assert!(key.ends_with("model_uuid"), "{key}");
        assert!(message.contains("not a uuid"));
    }

    #[test]
    fn missing_key_is_named() {
        let text = GOOD.replace("    tag: users\n", "");
        let (line, key, _) = invalid(&text);
        assert_eq!(key, "components[0].tag");
        assert_eq!(line, 6);
        let text = GOOD.replace("client_id: ${CID}\n", "");
        let (_, key, _) = invalid(&text);
        assert_eq!(key, "client_id");
    }

    #[test]
    fn other_mistakes() {
        let (_, key, _) = invalid(&GOOD.replace("project_env: live", "project_env: prod"));
        assert_eq!(key, "project_env");
        let (line, key, _) =
            invalid(&GOOD.replace("    tag: users\n", "    tag: users\n    colour: red\n"));
        assert_eq!((line, key.as_str()), (8, "components[0].colour"));
        let (_, key, message) = invalid(&GOOD.replace("    auth_token: ${TOKEN}\n", ""));
        assert!(message.contains("auth_token"), "{key}: {message}");
        let (_, key, _) = invalid(&GOOD.replace("http://127.0.0.1:8080", "ftp://x"));
        assert_eq!(key, "base_url");
        assert!(matches!(
            parse("base_url: [\n"),
            Err(ProfileError::Invalid { .. } | ProfileError::Syntax { .. })
        ));
    }
}
