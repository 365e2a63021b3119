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

use client_runtime::Secret;
use component_auth_bindings::types::{AuthFields, ProjectEnv};

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
    /// A PEM file of CA certificates to trust besides the system's (a
    /// private CA: `ca_cert:`, relative to the profile's folder), as
    /// `--ca-cert` adds one. Default: none.
    pub ca_cert: Option<std::path::PathBuf>,
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

mod budgets;
mod component;
mod errors;
mod form;
mod loading;
mod secrets;
mod values;

pub use budgets::{Budgets, OPERATIONS as BUDGET_OPERATIONS, parse_limit};
pub use form::{
    AuthorizeKeys, ComponentDocument, ComponentKeys, Form, Mapping, ProfileDocument, ProfileKeys,
    SecondModelKeys, Written,
};
pub use loading::MAX_PROFILE_BYTES;
pub use values::is_uuid;

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
mod tests;
