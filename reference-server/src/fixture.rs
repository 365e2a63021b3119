//! The server's data: project, clients, components with their auth settings,
//! models and tokens already issued, read from a YAML file.
//!
//! A fixture is checked twice before the server starts: serde checks the
//! shape (with the line serde_yaml reports), then `Fixture::check` checks
//! what serde cannot see (duplicates, cross-references, models that break
//! their own settings). Either way the error names the file, the line and
//! the key, so a broken fixture is fixed at once instead of surfacing as a
//! strange answer at run time.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

pub(crate) use crate::settings::is_uuid;
pub use crate::settings::{FieldSetting, FieldType, Pattern, Settings};
use crate::validate;

/// The fixture shipped in the repository, embedded so the server runs from
/// any working directory.
const DEFAULT_YAML: &str = include_str!("../fixtures/default.yaml");
const DEFAULT_NAME: &str = "reference-server/fixtures/default.yaml";

/// Everything the server knows: one project and what it holds.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    /// Sent as `X-Project-Uuid` on every answer.
    #[serde(deserialize_with = "uuid_string")]
    pub project_uuid: String,
    pub clients: Vec<Client>,
    pub components: Vec<Component>,
}

/// A client allowed to call the interface (`X-Client-Id`, `X-Client-Secret`).
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Client {
    pub id: String,
    pub secret: String,
}

/// Debug without the secret: fixtures end up in logs and panics.
impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("id", &self.id)
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// A component, addressed by its uuid, its name or its tag.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Component {
    #[serde(deserialize_with = "uuid_string")]
    pub uuid: String,
    pub name: String,
    pub tag: String,
    pub requires_auth: bool,
    pub settings: Settings,
    #[serde(default)]
    pub models: Vec<Model>,
    /// Tokens issued before the server started (more are issued by Authorize).
    #[serde(default)]
    pub tokens: Vec<IssuedToken>,
}

/// A model of a component: the auth field values that claim it.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    #[serde(deserialize_with = "uuid_string")]
    pub uuid: String,
    #[serde(default)]
    pub fields: Map<String, Value>,
}

/// Debug with field names only: values may be secrets.
impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model")
            .field("uuid", &self.uuid)
            .field("fields", &self.fields.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// A token already issued, bound to a model of the same component.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssuedToken {
    pub token: String,
    /// The uuid of a model of the component the token belongs to.
    pub model: String,
}

/// Debug without the token itself.
impl fmt::Debug for IssuedToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IssuedToken")
            .field("token", &"<redacted>")
            .field("model", &self.model)
            .finish()
    }
}

/// Why a fixture was refused. Its Display is the one line an operator reads.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    #[error("{file}: cannot read the fixture: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}:{line}: {key}: {message}")]
    Invalid {
        file: String,
        /// 1-based.
        line: usize,
        /// Where in the document, e.g. `components[1].tag`.
        key: String,
        message: String,
    },
}

impl Fixture {
    /// The shipped `fixtures/default.yaml`.
    pub fn default_fixture() -> Fixture {
        // The embedded file is ours and a unit test parses it: failing here is
        // a build defect, not bad input.
        Self::from_yaml_str(DEFAULT_YAML, DEFAULT_NAME)
            .unwrap_or_else(|e| panic!("the embedded default fixture is broken: {e}"))
    }

    /// Reads and checks a fixture file.
    pub fn from_path(path: &Path) -> Result<Fixture, FixtureError> {
        let file = path.display().to_string();
        // A regular file only (a FIFO would hang), at most 4 MiB, a
        // byte-order mark dropped; a bad byte named by line, not quoted.
        let text = yaml_location::input::read_text_limited(path, 4 << 20).map_err(|e| {
            let message = match e.line() {
                Some(line) => format!("line {line}: {e}"),
                None => e.to_string(),
            };
            FixtureError::Read {
                file: file.clone(),
                source: std::io::Error::other(message),
            }
        })?;
        Self::from_yaml_str(&text, &file)
    }

    /// Parses and checks fixture text; `file` only names it in errors.
    pub fn from_yaml_str(text: &str, file: &str) -> Result<Fixture, FixtureError> {
        let fixture: Fixture =
            serde_path_to_error::deserialize(serde_yaml::Deserializer::from_str(text))
                .map_err(|e| parse_error(&e, text, file))?;
        fixture.check().map_err(|problem| FixtureError::Invalid {
            file: file.to_owned(),
            line: locate(text, &problem.path),
            key: render_path(&problem.path),
            message: problem.message,
        })?;
        Ok(fixture)
    }

    /// The semantic checks serde cannot make.
    fn check(&self) -> Result<(), Problem> {
        if self.clients.is_empty() {
            return Err(Problem::at(
                vec![key("clients")],
                "at least one client is needed",
            ));
        }
        // Sets, not lists: a fixture of 100,000 fields (or clients, models,
        // tokens) is checked in linear time.
        let mut ids = HashSet::new();
        for (i, client) in self.clients.iter().enumerate() {
            let at = |k| vec![key("clients"), Seg::Index(i), key(k)];
            if client.id.is_empty() {
                return Err(Problem::at(at("id"), "a client id must not be empty"));
            }
            if client.secret.is_empty() {
                return Err(Problem::at(
                    at("secret"),
                    "a client secret must not be empty",
                ));
            }
            if !ids.insert(client.id.as_str()) {
                return Err(Problem::at(
                    at("id"),
                    format!("duplicate client id `{}`", client.id),
                ));
            }
        }

        // Every reference (uuid, name, tag) must identify one component only,
        // or resolution would depend on the order of the file.
        let mut refs: HashMap<&str, usize> = HashMap::new();
        let mut model_uuids: HashSet<&str> = HashSet::new();
        let mut tokens: HashSet<&str> = HashSet::new();
        for (c, component) in self.components.iter().enumerate() {
            let at = |rest: &[Seg]| {
                let mut path = vec![key("components"), Seg::Index(c)];
                path.extend_from_slice(rest);
                path
            };
            for (k, value) in [
                ("uuid", &component.uuid),
                ("name", &component.name),
                ("tag", &component.tag),
            ] {
                if value.is_empty() {
                    return Err(Problem::at(
                        at(&[key(k)]),
                        format!("a component {k} must not be empty"),
                    ));
                }
                if *refs.entry(value.as_str()).or_insert(c) != c {
                    return Err(Problem::at(
                        at(&[key(k)]),
                        format!("`{value}` already identifies another component"),
                    ));
                }
            }
            check_settings(&component.settings, &at)?;
            for (m, model) in component.models.iter().enumerate() {
                let model_at = |k| at(&[key("models"), Seg::Index(m), key(k)]);
                if !model_uuids.insert(model.uuid.as_str()) {
                    return Err(Problem::at(
                        model_at("uuid"),
                        format!("duplicate model uuid `{}`", model.uuid),
                    ));
                }
                let failures = validate::fields(&component.settings, Some(&model.fields));
                if let Some(first) = failures.first() {
                    return Err(Problem::at(
                        model_at("fields"),
                        format!(
                            "the model breaks its component's settings: {}",
                            first.message
                        ),
                    ));
                }
            }
            let own_models: HashSet<&str> =
                component.models.iter().map(|m| m.uuid.as_str()).collect();
            for (t, issued) in component.tokens.iter().enumerate() {
                let token_at = |k| at(&[key("tokens"), Seg::Index(t), key(k)]);
                if issued.token.is_empty() {
                    return Err(Problem::at(token_at("token"), "a token must not be empty"));
                }
                if !tokens.insert(issued.token.as_str()) {
                    // The token itself is a secret: name its place, not its value.
                    return Err(Problem::at(token_at("token"), "duplicate token"));
                }
                if !own_models.contains(issued.model.as_str()) {
                    return Err(Problem::at(
                        token_at("model"),
                        format!("`{}` is not a model of this component", issued.model),
                    ));
                }
            }
        }
        Ok(())
    }
}

fn check_settings(settings: &Settings, at: &dyn Fn(&[Seg]) -> Vec<Seg>) -> Result<(), Problem> {
    let mut names: HashSet<&str> = HashSet::new();
    for (f, field) in settings.auth.iter().enumerate() {
        let field_at = |k| at(&[key("settings"), key("auth"), Seg::Index(f), key(k)]);
        if field.name.is_empty() {
            return Err(Problem::at(
                field_at("name"),
                "a field name must not be empty",
            ));
        }
        if !names.insert(field.name.as_str()) {
            return Err(Problem::at(
                field_at("name"),
                format!("duplicate field `{}`", field.name),
            ));
        }
        for (k, limit) in [
            ("min_length", field.min_length),
            ("max_length", field.max_length),
        ] {
            if limit.is_some() && field.kind != FieldType::String {
                return Err(Problem::at(
                    field_at(k),
                    format!(
                        "{k} applies to strings only, not to a {}",
                        field.kind.as_str()
                    ),
                ));
            }
        }
        if let (Some(min), Some(max)) = (field.min_length, field.max_length) {
            if min > max {
                return Err(Problem::at(
                    field_at("max_length"),
                    "max_length is below min_length",
                ));
            }
        }
    }
    Ok(())
}

fn uuid_string<'de, D: serde::Deserializer<'de>>(de: D) -> Result<String, D::Error> {
    let s = String::deserialize(de)?;
    if is_uuid(&s) {
        Ok(s)
    } else {
        Err(serde::de::Error::custom(format!("`{s}` is not a uuid")))
    }
}

/// One step of a key path inside the document.
#[derive(Clone, Debug)]
enum Seg {
    Key(&'static str),
    Index(usize),
}

fn key(k: &'static str) -> Seg {
    Seg::Key(k)
}

/// A semantic problem, located by key path (lines are found afterwards).
struct Problem {
    path: Vec<Seg>,
    message: String,
}

impl Problem {
    fn at(path: Vec<Seg>, message: impl Into<String>) -> Self {
        Problem {
            path,
            message: message.into(),
        }
    }
}

fn render_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Turns a serde_yaml error into file, line and key: the key path from
/// serde_path_to_error (for a missing field, its mapping, which the message
/// completes), its line from `yaml-location`; a syntax error at serde_yaml's
/// own line.
fn parse_error(
    err: &serde_path_to_error::Error<serde_yaml::Error>,
    text: &str,
    file: &str,
) -> FixtureError {
    let inner = err.inner();
    let mut message = inner.to_string();
    // serde_yaml appends " at line L column C"; the line is given apart.
    if let Some(at) = message.rfind(" at line ") {
        message.truncate(at);
    }
    // It may also name the enclosing map first; the path comes from
    // serde_path_to_error instead.
    if let Some((head, rest)) = message.split_once(": ") {
        if !head.is_empty()
            && head
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '[' | ']'))
        {
            message = rest.to_owned();
        }
    }
    let lines = yaml_location::Lines::of(text);
    let reported = inner.location().map_or(1, |l| l.line());
    let (line, key) = lines.locate(&err.path().to_string(), reported);
    FixtureError::Invalid {
        file: file.to_owned(),
        line,
        key,
        message,
    }
}

/// The 1-based line of a key path (or of its deepest part in the text).
fn locate(text: &str, path: &[Seg]) -> usize {
    let segments = path.iter().map(|seg| match seg {
        Seg::Key(k) => (*k).to_owned(),
        Seg::Index(i) => i.to_string(),
    });
    yaml_location::Lines::of(text).line(segments).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_fixture_parses() {
        let f = Fixture::default_fixture();
        assert_eq!(f.components.len(), 3);
        assert_eq!(f.components[2].name, "Café Menü");
    }

    #[test]
    fn locate_finds_nested_keys() {
        let text = DEFAULT_YAML;
        let line = locate(text, &[key("components"), Seg::Index(1), key("tag")]);
        assert_eq!(
            text.lines().nth(line - 1).map(str::trim),
            Some("tag: catalog")
        );
        let line = locate(
            text,
            &[
                key("components"),
                Seg::Index(0),
                key("tokens"),
                Seg::Index(0),
                key("model"),
            ],
        );
        assert!(
            text.lines()
                .nth(line - 1)
                .is_some_and(|l| l.trim().starts_with("model:"))
        );
        let line = locate(text, &[key("components"), Seg::Index(0), key("uuid")]);
        assert!(
            text.lines()
                .nth(line - 1)
                .is_some_and(|l| l.contains("0b6c1c1e"))
        );
    }

    #[test]
    fn uuid_shape() {
        assert!(is_uuid("7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d"));
        assert!(!is_uuid("7f3c2a105b4e4d2a9c610e8f5a2b3c4d"));
        assert!(!is_uuid("7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4g"));
    }
}
