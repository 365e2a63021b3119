//! `conformance init`: a server team's first profile and CI workflow, from
//! a few answers (flags, or questions on a terminal).
//!
//! What is written holds no secret: the client secret, the tokens and any
//! secret body field are `${VAR}`s, read from the environment at run time
//! (in CI, from the repository's secrets through the workflow's `env:`).
//! The CLI then observes the server's choices (`conformance choices`),
//! pastes them in, prints what `check-profile` says of the profile, and
//! writes the workflow from `docs/ci-example.yml`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::Deserialize;

use crate::profile::SECRET_FIELD_NAMES;

/// The CI example the workflow is written from (the same file the README
/// shows): one source, so the two cannot drift.
pub const CI_EXAMPLE: &str = include_str!("../../docs/ci-example.yml");

/// The example's `env:` block of the gate step, replaced by the profile's
/// own variables.
const EXAMPLE_ENV: &str = "          CLIENT_SECRET: ${{ secrets.CONFORMANCE_CLIENT_SECRET }}
          USERS_TOKEN: ${{ secrets.CONFORMANCE_USERS_TOKEN }}
          USERS_PASSWORD: ${{ secrets.CONFORMANCE_USERS_PASSWORD }}
";

/// The answers `init` needs.
#[derive(Clone, Debug)]
pub struct Answers {
    pub base_url: String,
    pub client_id: String,
    /// The environment variable that holds the client secret.
    pub client_secret_env: String,
    pub components: Vec<ComponentAnswer>,
}

/// A component, as `--component` takes it: a YAML mapping, e.g.
/// `{name: Users, tag: users, uuid: 0b6c…, requires_auth: true,
/// token_env: USERS_TOKEN, model_uuid: 5d2e…, valid_body: {email: a@b.c,
/// password: "${USERS_PASSWORD}"}}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentAnswer {
    pub name: String,
    pub tag: String,
    pub uuid: String,
    #[serde(default)]
    pub requires_auth: bool,
    /// The environment variable that holds a valid token of this component
    /// (required where `requires_auth` is true).
    #[serde(default)]
    pub token_env: Option<String>,
    /// A model of the component, for Authorize (with `valid_body`).
    #[serde(default)]
    pub model_uuid: Option<String>,
    /// The auth fields that authorize `model_uuid`; a secret among them as
    /// `"${VAR}"` (`"${VAR:json}"` for a number or boolean).
    #[serde(default)]
    pub valid_body: Option<serde_json::Map<String, serde_json::Value>>,
    /// A body that fails the component's validation (runs the 417 checks).
    #[serde(default)]
    pub invalid_body: Option<serde_json::Map<String, serde_json::Value>>,
}

/// What is wrong with an answer: one message, naming the answer.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InitError(pub String);

fn err(message: impl Into<String>) -> InitError {
    InitError(message.into())
}

/// `NAME`: letters, digits and `_`, not starting with a digit.
pub fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl ComponentAnswer {
    /// Parses one `--component` value (`what` names it in errors).
    pub fn parse(text: &str, what: &str) -> Result<Self, InitError> {
        let c: ComponentAnswer = serde_yaml::from_str(text).map_err(|e| {
            err(format!(
                "{what}: {e}. Expected a YAML mapping such as `{{name: Users, tag: users, uuid: UUID, requires_auth: true, token_env: USERS_TOKEN, model_uuid: UUID, valid_body: {{email: a@example.com, password: \"${{USERS_PASSWORD}}\"}}}}`; allowed keys: name, tag, uuid, requires_auth, token_env, model_uuid, valid_body, invalid_body"
            ))
        })?;
        c.check(what)?;
        Ok(c)
    }

    fn check(&self, what: &str) -> Result<(), InitError> {
        for (key, value) in [
            ("name", &self.name),
            ("tag", &self.tag),
            ("uuid", &self.uuid),
        ] {
            if value.trim().is_empty() {
                return Err(err(format!(
                    "{what}: `{key}` is empty; expected the component's {key}"
                )));
            }
        }
        if uuid::Uuid::parse_str(&self.uuid).is_err() {
            return Err(err(format!(
                "{what}: `uuid` is not a uuid; expected the component's uuid (8-4-4-4-12 hex digits)"
            )));
        }
        match (&self.token_env, self.requires_auth) {
            (Some(var), _) if !is_var_name(var) => {
                return Err(err(format!(
                    "{what}: `token_env` `{var}` is not an environment variable name; expected letters, digits and `_`, not starting with a digit"
                )));
            }
            (None, true) => {
                return Err(err(format!(
                    "{what}: the component requires auth, so a run needs one of its tokens; expected `token_env: VAR`, the environment variable that holds it"
                )));
            }
            _ => {}
        }
        match (&self.model_uuid, &self.valid_body) {
            (Some(m), Some(_)) if uuid::Uuid::parse_str(m).is_err() => Err(err(format!(
                "{what}: `model_uuid` is not a uuid; expected the uuid of a model of the component"
            ))),
            (Some(_), None) | (None, Some(_)) => Err(err(format!(
                "{what}: `model_uuid` and `valid_body` go together (Authorize needs both); expected both or neither"
            ))),
            (None, None) if self.invalid_body.is_some() => Err(err(format!(
                "{what}: `invalid_body` needs `model_uuid` and `valid_body` too; expected all three or no `invalid_body`"
            ))),
            _ => Ok(()),
        }
    }

    /// Body fields whose names make them secrets but whose values are
    /// written out: they would sit in the profile, which is committed.
    pub fn written_secrets(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (key, value) in self.valid_body.iter().flatten() {
            let secret = SECRET_FIELD_NAMES
                .iter()
                .any(|s| key.eq_ignore_ascii_case(s));
            let from_env = value.as_str().is_some_and(|s| s.contains("${"));
            if secret && !from_env {
                out.push(key.clone());
            }
        }
        out
    }
}

impl Answers {
    /// Checks the answers that are not a component's.
    pub fn check(&self) -> Result<(), InitError> {
        let url = self.base_url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(err(
                "--base-url: expected the server's URL, http:// or https://, with any path prefix before /v2/api",
            ));
        }
        if url.contains('@') {
            return Err(err(
                "--base-url: holds credentials (`user:password@`); expected the URL alone (a gateway's header goes in --header at run time)",
            ));
        }
        if self.client_id.trim().is_empty() {
            return Err(err(
                "--client-id: empty; expected the X-Client-Id the runner sends",
            ));
        }
        if !is_var_name(&self.client_secret_env) {
            return Err(err(format!(
                "--client-secret-env: `{}` is not an environment variable name; expected letters, digits and `_`, not starting with a digit",
                self.client_secret_env
            )));
        }
        if self.components.is_empty() {
            return Err(err(
                "no component: expected at least one --component (a component with `requires_auth: true` and one without let every check run)",
            ));
        }
        Ok(())
    }

    /// Every environment variable the profile reads, in order of first use.
    pub fn variables(&self) -> Vec<String> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        let mut add = |v: String| {
            if seen.insert(v.clone()) {
                out.push(v);
            }
        };
        add(self.client_secret_env.clone());
        for c in &self.components {
            if let Some(v) = &c.token_env {
                add(v.clone());
            }
            for body in [&c.valid_body, &c.invalid_body].into_iter().flatten() {
                for value in body.values() {
                    for v in variables_in(value) {
                        add(v);
                    }
                }
            }
        }
        out
    }

    /// The profile, without `choices:` (see [`with_choices`]).
    pub fn profile_yaml(&self) -> String {
        let q = |s: &str| serde_json::Value::from(s).to_string();
        let mut out = String::from(
            "# The conformance profile of this server, written by `conformance init`.\n\
             # Secrets are ${VAR}s, read from the environment at run time: this file\n\
             # can be committed. `conformance check-profile --profile FILE` says what\n\
             # each key lets run; conformance/README.md documents every key.\n",
        );
        let _ = writeln!(out, "base_url: {}", q(self.base_url.trim()));
        let _ = writeln!(out, "client_id: {}", q(&self.client_id));
        let _ = writeln!(out, "client_secret: ${{{}}}", self.client_secret_env);
        out.push_str("components:\n");
        for c in &self.components {
            let _ = writeln!(out, "  - name: {}", q(&c.name));
            let _ = writeln!(out, "    tag: {}", q(&c.tag));
            let _ = writeln!(out, "    uuid: {}", q(&c.uuid));
            let _ = writeln!(out, "    requires_auth: {}", c.requires_auth);
            if let Some(var) = &c.token_env {
                let _ = writeln!(out, "    auth_token: ${{{var}}}");
            }
            if let (Some(model), Some(valid)) = (&c.model_uuid, &c.valid_body) {
                out.push_str("    authorize:\n");
                let _ = writeln!(out, "      model_uuid: {}", q(model));
                let _ = writeln!(
                    out,
                    "      valid_body: {}",
                    serde_json::Value::Object(valid.clone())
                );
                if let Some(invalid) = &c.invalid_body {
                    let _ = writeln!(
                        out,
                        "      invalid_body: {}",
                        serde_json::Value::Object(invalid.clone())
                    );
                }
            }
        }
        out
    }

    /// The CI workflow: `docs/ci-example.yml` with this profile's path,
    /// its baseline, and an `env:` entry per variable it reads, each from a
    /// repository secret `CONFORMANCE_<VAR>`.
    pub fn workflow_yaml(&self, profile: &str, baseline: &str) -> Result<String, InitError> {
        let mut env = String::new();
        for var in self.variables() {
            let _ = writeln!(env, "          {var}: ${{{{ secrets.CONFORMANCE_{var} }}}}");
        }
        let mut text = CI_EXAMPLE.to_owned();
        for (from, to) in [
            (EXAMPLE_ENV, env.as_str()),
            (
                "          profile: conformance/profile.yaml\n",
                &format!("          profile: {profile}\n"),
            ),
            (
                "          baseline: conformance/known-failures.yaml\n",
                &format!("          baseline: {baseline}\n"),
            ),
        ] {
            if !text.contains(from) {
                return Err(err(format!(
                    "docs/ci-example.yml no longer holds {from:?}: init cannot write the workflow from it"
                )));
            }
            text = text.replacen(from, to, 1);
        }
        Ok(text)
    }
}

/// `profile` with the observed `choices:` block after it.
pub fn with_choices(profile: &str, choices_yaml: &str) -> String {
    format!(
        "{profile}# What the server was seen to choose where the description is silent\n\
         # (`conformance choices`): a run holds it to each at MUST level. Read it\n\
         # before committing: it records the server as it is, bugs included.\n\
         {choices_yaml}"
    )
}

/// The `${VAR}` and `${VAR:json}` names in a value's strings.
fn variables_in(value: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    match value {
        serde_json::Value::String(s) => {
            let mut rest = s.as_str();
            while let Some(start) = rest.find("${") {
                let after = &rest[start + 2..];
                let Some(end) = after.find('}') else { break };
                let name = after[..end].trim_end_matches(":json");
                if is_var_name(name) {
                    out.push(name.to_owned());
                }
                rest = &after[end + 1..];
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| out.extend(variables_in(v))),
        serde_json::Value::Object(map) => map.values().for_each(|v| out.extend(variables_in(v))),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn users() -> ComponentAnswer {
        ComponentAnswer::parse(
            "{name: Users, tag: users, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11, requires_auth: true, token_env: USERS_TOKEN, model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01, valid_body: {email: ada@example.com, password: \"${USERS_PASSWORD}\"}}",
            "--component 1",
        )
        .unwrap()
    }

    #[test]
    fn the_profile_reads_every_secret_from_the_environment() {
        let answers = Answers {
            base_url: "http://127.0.0.1:8080".into(),
            client_id: "ci".into(),
            client_secret_env: "CLIENT_SECRET".into(),
            components: vec![users()],
        };
        answers.check().unwrap();
        assert_eq!(
            answers.variables(),
            ["CLIENT_SECRET", "USERS_TOKEN", "USERS_PASSWORD"]
        );
        let env = |name: &str| Some(format!("value-of-{name}"));
        let profile =
            crate::profile::Profile::from_yaml_str(&answers.profile_yaml(), "p.yaml", &env)
                .unwrap();
        assert_eq!(profile.client_secret.expose(), "value-of-CLIENT_SECRET");
        assert_eq!(
            profile.components[0].auth_token.as_ref().unwrap().expose(),
            "value-of-USERS_TOKEN"
        );
        let workflow = answers
            .workflow_yaml(
                "conformance/profile.yaml",
                "conformance/known-failures.yaml",
            )
            .unwrap();
        assert!(
            workflow
                .contains("          USERS_PASSWORD: ${{ secrets.CONFORMANCE_USERS_PASSWORD }}\n")
        );
        let parsed: serde_yaml::Value = serde_yaml::from_str(&workflow).unwrap();
        assert!(parsed["jobs"]["conformance"].is_mapping());
    }

    #[test]
    fn a_bad_answer_says_what_was_expected() {
        for (text, expected) in [
            ("{name: A, tag: a}", "missing field `uuid`"),
            ("{name: A, tag: a, uuid: x}", "`uuid` is not a uuid"),
            (
                "{name: A, tag: a, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11, requires_auth: true}",
                "expected `token_env: VAR`",
            ),
            (
                "{name: A, tag: a, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11, model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01}",
                "go together",
            ),
            ("{name: A, colour: red}", "allowed keys: name, tag"),
        ] {
            let e = ComponentAnswer::parse(text, "--component 1").unwrap_err().0;
            assert!(
                e.starts_with("--component 1: ") && e.contains(expected),
                "{e}"
            );
        }
        let mut written = users();
        written
            .valid_body
            .as_mut()
            .unwrap()
            .insert("password".into(), "hunter2".into());
        assert_eq!(written.written_secrets(), ["password"]);
    }
}
