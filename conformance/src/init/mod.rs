//! `conformance init`: a server team's first profile and CI workflow, from
//! a few answers (flags, or questions on a terminal).
//!
//! What is written holds no secret: the client secret, the tokens and any
//! secret body field are `${VAR}`s, read from the environment at run time
//! (in CI, from the repository's secrets through the workflow's `env:`).
//! The command ([`command`]) then observes the server's choices
//! (`conformance choices`), pastes them in, prints what `check-profile`
//! says of the profile, and writes the files.
//!
//! One concept per module: the answers and their checks (here), the
//! questions asked on a terminal ([`dialogue`]), the profile written
//! ([`profile`]), the workflow rendered from its template ([`workflow`]),
//! where and how files are written ([`files`]).

use std::collections::BTreeSet;

pub mod command;
mod component;
pub mod dialogue;
pub mod files;
pub mod profile;
pub mod workflow;

pub use component::{COMPONENT_EXAMPLE, ComponentAnswer};

/// The release of the runner this binary is: the version the workflow
/// installs, the one `conformance --version` prints.
pub const VERSION_TAG: &str = concat!("v", env!("CARGO_PKG_VERSION"));

/// Body field and query parameter names that are credentials by their
/// name, compared without case, `_` or `-` (`api_key`, `apiKey`, `API-KEY`
/// are one name): `init` writes their values as `${VAR}`s, never in the
/// profile. The words of a name (split at `_`, `-` and a lower-to-upper
/// change) are compared too, so `user_password` and `sessionToken` are
/// credentials; `pin`, `otp` and `pwd` only as a whole word.
pub const CREDENTIAL_NAMES: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "passcode",
    "secret",
    "clientsecret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "otp",
    "totp",
    "pin",
    "authorization",
    "auth",
    "credential",
    "credentials",
    "cookie",
    "session",
    "signature",
    "sig",
];

/// Whether `name` is a credential by its name ([`CREDENTIAL_NAMES`]).
pub fn looks_like_credential(name: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            words.push(std::mem::take(&mut word));
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            words.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    words.push(word);
    words.retain(|w| !w.is_empty());
    let joined: String = words.concat();
    CREDENTIAL_NAMES.iter().any(|c| {
        joined == *c
            || words.iter().any(|w| w == c)
            // Long names inside another (`userpassword`, `xapikey`).
            || (c.len() >= 6 && joined.contains(c))
    })
}

/// The answers `init` needs.
#[derive(Clone, Debug)]
pub struct Answers {
    /// The server's URL as given: a URL, or `${VAR}`s in it.
    pub base_url: String,
    pub client_id: String,
    /// The environment variable that holds the client secret.
    pub client_secret_env: String,
    pub components: Vec<ComponentAnswer>,
    /// The action the workflow's gate step uses, `owner/name@ref`; empty
    /// where the runner is built from [`Self::source`].
    pub action: String,
    /// Where the workflow builds the runner from when no action is used:
    /// a git repository and a pinned revision, `URL@REV`.
    pub source: String,
    /// The command that starts the server in CI ("" when it runs elsewhere).
    pub start: String,
}

/// A body value `init` took out of the profile because its name makes it a
/// credential: the profile reads it from `variable`.
#[derive(Clone, Debug)]
pub struct Protected {
    pub component: String,
    pub field: String,
    pub variable: String,
    /// The value as the variable must hold it (JSON text for a number).
    pub value: String,
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

/// A string for YAML: a JSON string is a YAML double-quoted scalar, so
/// `#`, `:`, `[`, quotes and line breaks keep their meaning as text.
pub fn yaml_quoted(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// Whether every `${…}` in `text` is closed around a variable name.
fn vars_well_formed(text: &str) -> bool {
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return false;
        };
        if !is_var_name(after[..end].trim_end_matches(":json")) {
            return false;
        }
        rest = &after[end + 1..];
    }
    true
}

/// Why `var` cannot hold a secret in the workflow: a name the shell, the
/// runner or the action itself gives a meaning.
fn reserved(var: &str) -> Option<&'static str> {
    let upper = var.to_ascii_uppercase();
    if [
        "PATH",
        "HOME",
        "SHELL",
        "USER",
        "PWD",
        "IFS",
        "ENV",
        "BASH_ENV",
        "CI",
        "NO_COLOR",
        "TMPDIR",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "NO_PROXY",
        "ALL_PROXY",
    ]
    .contains(&upper.as_str())
    {
        return Some("is one the shell or the runner reads");
    }
    if ["LD_", "DYLD_", "GITHUB_", "RUNNER_", "ACTIONS_", "INPUT_"]
        .iter()
        .any(|p| upper.starts_with(p))
    {
        return Some("is one the loader or GitHub's runner reads");
    }
    upper
        .starts_with("CONFORMANCE_")
        .then_some("is one of the action's own settings (CONFORMANCE_*)")
}

/// Whether `text` is exactly one `${VAR}`; its name.
fn only_var(text: &str) -> Option<&str> {
    let name = text.strip_prefix("${")?.strip_suffix('}')?;
    is_var_name(name).then_some(name)
}

/// Checks an action reference, `owner/name[/path]@ref`, and refuses a
/// placeholder: the workflow must run as written.
pub fn check_action(action: &str) -> Result<(), InitError> {
    let expected = "expected the GitHub repository that publishes this runner's action and a release tag or commit of it, `owner/name@v0.1.0`";
    let Some((path, reference)) = action.split_once('@') else {
        return Err(err(format!("--action: no `@REF`; {expected}")));
    };
    let name_ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    let parts: Vec<&str> = path.split('/').collect();
    let reference_ok = !reference.is_empty()
        && reference
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if parts.len() < 2 || !parts.iter().all(|p| name_ok(p)) || !reference_ok {
        return Err(err(format!("--action: not `owner/name@ref`; {expected}")));
    }
    let placeholder = |s: &str| {
        let upper = s.to_ascii_uppercase();
        ["OWNER", "YOUR", "USER", "ORG", "EXAMPLE", "XXX"]
            .iter()
            .any(|p| {
                upper == *p
                    || upper.starts_with(&format!("{p}-"))
                    || upper.starts_with(&format!("{p}_"))
            })
    };
    if placeholder(parts[0]) || placeholder(reference) {
        return Err(err(format!(
            "--action: `{}` is a placeholder, and the workflow would fail on its first run; {expected}",
            parts[0]
        )));
    }
    Ok(())
}

/// Checks `--source`, `URL@REV`: a git repository's URL (https://,
/// ssh:// or git@host:) and a revision of it (a commit, or a tag).
pub fn check_source(source: &str) -> Result<(), InitError> {
    let expected = "expected the git repository of this runner's source and a pinned revision of it (a commit or a tag), `https://github.com/acme/component-auth-conformance@0123abc…`";
    let Some((url, rev)) = source.rsplit_once('@') else {
        return Err(err(format!("--source: no `@REV`; {expected}")));
    };
    let url_ok = ["https://", "ssh://", "git@", "file://"]
        .iter()
        .any(|p| url.starts_with(p))
        && !url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '"');
    let rev_ok = !rev.is_empty()
        && rev
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if !url_ok || !rev_ok {
        return Err(err(format!("--source: not `URL@REV`; {expected}")));
    }
    if url.to_ascii_uppercase().contains("/OWNER/") {
        return Err(err(format!(
            "--source: `OWNER` is a placeholder, and the workflow would fail on its first run; {expected}"
        )));
    }
    Ok(())
}

impl Answers {
    /// Checks the answers that are not a component's, the action's (or
    /// the source's) too.
    pub fn check(&self) -> Result<(), InitError> {
        self.check_but_action()?;
        if self.action.is_empty() {
            check_source(&self.source)
        } else {
            check_action(&self.action)
        }
    }

    /// The repository and revision the runner is built from (`--source`),
    /// where no action is used.
    pub fn source_parts(&self) -> Option<(&str, &str)> {
        if self.action.is_empty() {
            self.source.rsplit_once('@')
        } else {
            None
        }
    }

    /// Checks the answers that are not a component's, but the action. No
    /// message quotes the URL: it may hold a credential.
    pub fn check_but_action(&self) -> Result<(), InitError> {
        let url = self.base_url.trim();
        if url.chars().any(char::is_control) || url.contains(' ') {
            return Err(err(
                "--base-url: holds a space or a control character; expected the server's URL",
            ));
        }
        if !vars_well_formed(url) {
            return Err(err(
                "--base-url: holds a `${` that is not `${VAR}` around a variable name",
            ));
        }
        if !(url.starts_with("${") || url.starts_with("http://") || url.starts_with("https://")) {
            return Err(err(
                "--base-url: expected the server's URL, http:// or https://, with any path prefix before /v2/api, or `${VAR}` (the variable that holds it)",
            ));
        }
        if url.contains('@') {
            return Err(err(
                "--base-url: holds credentials (`user:password@`); expected the URL alone (a gateway's header goes in --header at run time)",
            ));
        }
        if let Some((_, query)) = url.split_once('?') {
            let credential = query
                .split('&')
                .filter_map(|pair| pair.split('=').next())
                .find(|name| looks_like_credential(name));
            return Err(err(match credential {
                Some(name) => format!(
                    "--base-url: its query holds `{name}`, a credential by its name, which would be written into the committed profile; it is neither written nor printed. Pass the URL without its query, and the credential as a header at run time (`--header NAME:VALUE`, its value never printed)"
                ),
                None => "--base-url: holds a query (`?…`), which the runner would not send (it appends /v2/api/… to the URL); expected the URL alone".to_owned(),
            }));
        }
        if url.contains('#') {
            return Err(err(
                "--base-url: holds a fragment (`#…`); expected the URL alone",
            ));
        }
        if self.client_id.trim().is_empty() {
            return Err(err(
                "--client-id: empty; expected the X-Client-Id the runner sends",
            ));
        }
        if !vars_well_formed(&self.client_id) {
            return Err(err(
                "--client-id: holds a `${` that is not `${VAR}` around a variable name",
            ));
        }
        if !is_var_name(&self.client_secret_env) {
            return Err(err(
                "--client-secret-env: not an environment variable name; expected letters, digits and `_`, not starting with a digit",
            ));
        }
        if self.components.is_empty() {
            return Err(err(
                "no component: expected at least one --component (a component with `requires_auth: true` and one without let every check run)",
            ));
        }
        let base = self.base_url_var();
        for var in self.variables() {
            if let Some(why) = reserved(&var) {
                return Err(err(format!(
                    "the variable `{var}` {why}: the workflow would set it for every step; name the secret's variable otherwise (e.g. `MY_{var}`)"
                )));
            }
            if var == base && only_var(self.base_url.trim()).is_none() {
                return Err(err(format!(
                    "the variable `{var}` is the workflow's own (it holds the server's URL); name the secret's variable otherwise"
                )));
            }
        }
        Ok(())
    }

    /// The variable the profile's `base_url` reads: the one given as
    /// `--base-url '${VAR}'`, else `BASE_URL`, which the workflow sets.
    pub fn base_url_var(&self) -> String {
        only_var(self.base_url.trim())
            .unwrap_or("BASE_URL")
            .to_owned()
    }

    /// Whether the base URL is given as `${VAR}`s only (its value is then
    /// the user's to set, and not printed: it may be a secret).
    pub fn base_url_secrets_only(&self) -> bool {
        only_var(self.base_url.trim()).is_some() || !self.base_url_secrets().is_empty()
    }

    /// The base URL's variables that are the repository's secrets (those
    /// of a `--base-url` given with `${VAR}`s).
    fn base_url_secrets(&self) -> Vec<String> {
        variables_in(&serde_json::Value::from(self.base_url.trim()))
    }

    /// The value the workflow gives [`Self::base_url_var`]: the URL given,
    /// each of its `${VAR}`s read from the repository variable
    /// `CONFORMANCE_VAR` (a URL is no secret).
    fn base_url_in_workflow(&self) -> String {
        let mut url = self.base_url.trim().to_owned();
        for var in self.base_url_secrets() {
            url = url.replace(
                &format!("${{{var}}}"),
                &format!("${{{{ vars.CONFORMANCE_{var} }}}}"),
            );
        }
        url
    }

    /// The value of [`Self::base_url_var`] for `init`'s own requests: the
    /// URL given, its `${VAR}`s read through `env`.
    pub fn base_url_value(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<String, InitError> {
        let mut url = self.base_url.trim().to_owned();
        let mut missing = Vec::new();
        for var in self.base_url_secrets() {
            match env(&var) {
                Some(v) => url = url.replace(&format!("${{{var}}}"), &v),
                None => missing.push(format!("${var}")),
            }
        }
        if missing.is_empty() {
            Ok(url)
        } else {
            Err(err(format!(
                "--base-url reads {}, not set: set it to the server's URL",
                missing.join(", ")
            )))
        }
    }

    /// Every environment variable the profile reads but the base URL's,
    /// in order of first use: the gate step's `env:`.
    fn step_variables(&self) -> Vec<String> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        let mut add = |v: String| {
            if seen.insert(v.clone()) {
                out.push(v);
            }
        };
        for v in variables_in(&serde_json::Value::from(self.client_id.as_str())) {
            add(v);
        }
        add(self.client_secret_env.clone());
        for c in &self.components {
            // Every key of the component, whatever keys it has.
            for v in variables_in(&serde_json::to_value(&c.0).unwrap_or_default()) {
                add(v);
            }
        }
        out
    }

    /// The variables that say where and what things are, no secret (as
    /// the profile reads them: `base_url`, a component's `name`, `tag`,
    /// `uuid` and models' uuids): the repository's variables
    /// (`vars.CONFORMANCE_*`), not its secrets.
    pub fn plain_variables(&self) -> Vec<String> {
        let mut out = self.base_url_secrets();
        for c in &self.components {
            let c = &c.0;
            let mut texts = vec![&c.name, &c.tag, &c.uuid];
            if let Some(a) = &c.authorize {
                texts.push(&a.model_uuid);
                texts.extend(a.second_model.as_ref().map(|m| &m.model_uuid));
            }
            for t in texts {
                for v in variables_in(&serde_json::Value::from(t.as_str())) {
                    if !out.contains(&v) {
                        out.push(v);
                    }
                }
            }
        }
        out
    }

    /// The variables the repository holds as secrets: every one the
    /// profile reads but [`Self::plain_variables`].
    pub fn secret_variables(&self) -> Vec<String> {
        let plain = self.plain_variables();
        self.variables()
            .into_iter()
            .filter(|v| !plain.contains(v))
            .collect()
    }

    /// Every environment variable the profile reads, in order of first
    /// use (`BASE_URL` given as a URL is the workflow's own).
    pub fn variables(&self) -> Vec<String> {
        let mut out = self.base_url_secrets();
        for v in self.step_variables() {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }
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
                if is_var_name(name) && !out.iter().any(|o| o == name) {
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
mod tests;
