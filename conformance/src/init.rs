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
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

/// The CI example the workflow is written from (the same file the README
/// shows): one source, so the two cannot drift.
pub const CI_EXAMPLE: &str = include_str!("../../docs/ci-example.yml");

/// The lines of the example `init` replaces, each exactly as the example
/// holds it (a test of this file reads them there).
const EXAMPLE_ENV: &str = "          CLIENT_SECRET: ${{ secrets.CONFORMANCE_CLIENT_SECRET }}
          USERS_TOKEN: ${{ secrets.CONFORMANCE_USERS_TOKEN }}
          USERS_PASSWORD: ${{ secrets.CONFORMANCE_USERS_PASSWORD }}
";
const EXAMPLE_BASE_URL: &str = "      BASE_URL: \"http://127.0.0.1:8080\"\n";
const EXAMPLE_POLL: &str = "\"$BASE_URL/\"";
const EXAMPLE_START: &str = "          START: ./scripts/start-server.sh\n";
const EXAMPLE_PROFILE: &str = "          profile: conformance/profile.yaml\n";
const EXAMPLE_BASELINE: &str = "          baseline: conformance/known-failures.yaml\n";
/// The line of the action's reference: `init` writes the one it is given.
pub const EXAMPLE_USES: &str = "        uses: OWNER/component-auth-conformance@v0.1.0\n";
const EXAMPLE_VERSION: &str = "          version: v0.1.0\n";

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
    /// The action the workflow's gate step uses, `owner/name@ref`.
    pub action: String,
    /// The command that starts the server in CI ("" when it runs elsewhere).
    pub start: String,
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
    /// The component's auth settings, as a profile's `fields:` takes them
    /// (`{}`: the component has no auth field).
    #[serde(default)]
    pub fields: Option<serde_json::Map<String, serde_json::Value>>,
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

impl ComponentAnswer {
    /// Parses one `--component` value (`what` names it in errors).
    pub fn parse(text: &str, what: &str) -> Result<Self, InitError> {
        let c: ComponentAnswer = serde_yaml::from_str(text).map_err(|e| {
            err(format!(
                "{what}: {e}. Expected a YAML mapping such as `{{name: Users, tag: users, uuid: UUID, requires_auth: true, token_env: USERS_TOKEN, model_uuid: UUID, valid_body: {{email: a@example.com, password: \"${{USERS_PASSWORD}}\"}}}}`; allowed keys: name, tag, uuid, requires_auth, token_env, model_uuid, valid_body, invalid_body, fields"
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
            if !vars_well_formed(value) {
                return Err(err(format!(
                    "{what}: `{key}` holds a `${{` that is not `${{VAR}}` around a variable name"
                )));
            }
        }
        let is_uuid = |s: &str| s.contains("${") || uuid::Uuid::parse_str(s).is_ok();
        if !is_uuid(&self.uuid) {
            return Err(err(format!(
                "{what}: `uuid` is not a uuid; expected the component's uuid (8-4-4-4-12 hex digits) or a `${{VAR}}` that holds it"
            )));
        }
        match (&self.token_env, self.requires_auth) {
            (Some(var), _) if !is_var_name(var) => {
                return Err(err(format!(
                    "{what}: `token_env` is not an environment variable name; expected letters, digits and `_`, not starting with a digit"
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
            (Some(m), Some(_)) if !is_uuid(m) => Err(err(format!(
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

    /// Replaces each value of `valid_body` whose name makes it a
    /// credential ([`looks_like_credential`]) and that is written out by a
    /// `${VAR}` (`${VAR:json}` for a number or boolean): the profile is
    /// committed. Returns what was taken out, to say so and to set the
    /// variables for `init`'s own requests.
    pub fn protect(&mut self) -> Vec<Protected> {
        let mut out = Vec::new();
        let prefix = conformance_model::profile::shell_name(&self.tag);
        let Some(body) = self.valid_body.as_mut() else {
            return out;
        };
        for (key, value) in body.iter_mut() {
            if !looks_like_credential(key) {
                continue;
            }
            let (text, json) = match &*value {
                serde_json::Value::String(s) if s.contains("${") => continue,
                serde_json::Value::String(s) => (s.clone(), false),
                serde_json::Value::Null => continue,
                other => (other.to_string(), true),
            };
            let mut variable = format!("{prefix}_{}", conformance_model::profile::shell_name(key));
            if !is_var_name(&variable) || reserved(&variable).is_some() {
                variable = format!("SECRET_{variable}");
            }
            *value = serde_json::Value::from(if json {
                format!("${{{variable}:json}}")
            } else {
                format!("${{{variable}}}")
            });
            out.push(Protected {
                component: self.name.clone(),
                field: key.clone(),
                variable,
                value: text,
            });
        }
        out
    }
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

impl Answers {
    /// Checks the answers that are not a component's, the action's too.
    pub fn check(&self) -> Result<(), InitError> {
        self.check_but_action()?;
        check_action(&self.action)
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
    /// each of its `${VAR}`s read from the secret `CONFORMANCE_VAR`.
    fn base_url_in_workflow(&self) -> String {
        let mut url = self.base_url.trim().to_owned();
        for var in self.base_url_secrets() {
            url = url.replace(
                &format!("${{{var}}}"),
                &format!("${{{{ secrets.CONFORMANCE_{var} }}}}"),
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
            for text in [&c.name, &c.tag, &c.uuid]
                .into_iter()
                .chain(c.model_uuid.as_ref())
            {
                for v in variables_in(&serde_json::Value::from(text.as_str())) {
                    add(v);
                }
            }
            if let Some(v) = &c.token_env {
                add(v.clone());
            }
            for body in [&c.valid_body, &c.invalid_body, &c.fields]
                .into_iter()
                .flatten()
            {
                for v in variables_in(&serde_json::Value::Object(body.clone())) {
                    add(v);
                }
            }
        }
        out
    }

    /// Every environment variable the profile reads, in order of first
    /// use: the secrets the repository needs (`BASE_URL` given as a URL is
    /// the workflow's own, not a secret).
    pub fn variables(&self) -> Vec<String> {
        let mut out = self.base_url_secrets();
        for v in self.step_variables() {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }

    /// The profile, without `choices:` (see [`with_choices`]).
    pub fn profile_yaml(&self) -> String {
        let q = |s: &str| yaml_quoted(s);
        let mut out = String::from(
            "# The conformance profile of this server, written by `conformance init`.\n\
             # Secrets are ${VAR}s, read from the environment at run time: this file\n\
             # can be committed. `conformance check-profile --profile FILE` says what\n\
             # each key lets run; conformance/README.md documents every key.\n",
        );
        let _ = writeln!(
            out,
            "# The server's URL is the workflow's ${} (one place); set it locally too.",
            self.base_url_var()
        );
        let _ = writeln!(out, "base_url: ${{{}}}", self.base_url_var());
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
            if let Some(fields) = &c.fields {
                let _ = writeln!(
                    out,
                    "    fields: {}",
                    serde_json::Value::Object(fields.clone())
                );
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

    /// The CI workflow: `docs/ci-example.yml` with its opening comment
    /// replaced, this action, the server's URL and start command, the
    /// profile's and baseline's paths (from the repository's root), and an
    /// `env:` entry per variable the profile reads, each from a repository
    /// secret `CONFORMANCE_<VAR>`. Every value is quoted for YAML.
    pub fn workflow_yaml(&self, profile: &str, baseline: &str) -> Result<String, InitError> {
        let mut env = String::new();
        for var in self.step_variables() {
            let _ = writeln!(env, "          {var}: ${{{{ secrets.CONFORMANCE_{var} }}}}");
        }
        let base_var = self.base_url_var();
        let body_at = CI_EXAMPLE.find("\nname: ").ok_or_else(|| {
            err("docs/ci-example.yml has no `name:`: init cannot write the workflow from it")
        })?;
        let mut text = format!(
            "# The conformance gate of this server, written by `conformance init`\n\
             # {VERSION_TAG}: docs/ci-example.yml of the runner explains each step.\n\
             # The server's URL is ${base_var} below, in one place: the profile reads it.\n\
             # The secrets the gate step reads are the repository's CONFORMANCE_* secrets.\n{}",
            &CI_EXAMPLE[body_at + 1..]
        );
        for (from, to) in [
            (EXAMPLE_ENV, env),
            (
                EXAMPLE_BASE_URL,
                format!(
                    "      {base_var}: {}\n",
                    yaml_quoted(&self.base_url_in_workflow())
                ),
            ),
            (EXAMPLE_POLL, format!("\"${base_var}/\"")),
            (
                EXAMPLE_START,
                format!("          START: {}\n", yaml_quoted(&self.start)),
            ),
            (
                EXAMPLE_USES,
                format!("        uses: {}\n", yaml_quoted(&self.action)),
            ),
            (
                EXAMPLE_VERSION,
                format!("          version: {}\n", yaml_quoted(VERSION_TAG)),
            ),
            (
                EXAMPLE_PROFILE,
                format!("          profile: {}\n", yaml_quoted(profile)),
            ),
            (
                EXAMPLE_BASELINE,
                format!("          baseline: {}\n", yaml_quoted(baseline)),
            ),
        ] {
            if !text.contains(from) {
                return Err(err(format!(
                    "docs/ci-example.yml no longer holds {from:?}: init cannot write the workflow from it"
                )));
            }
            text = text.replacen(from, &to, 1);
        }
        // The comment that names the profile names this one.
        Ok(text.replacen(
            "        # conformance/profile.yaml` prints them)",
            &format!("        # {profile}` prints them)"),
            1,
        ))
    }
}

/// The root of the git repository `cwd` is in (`git rev-parse
/// --show-toplevel`), canonical: `init` writes only inside it.
pub fn repo_root(cwd: &Path) -> Result<PathBuf, InitError> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args(["rev-parse", "--show-toplevel"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| err(format!("cannot run git to find the repository's root: {e}")))?;
    if !out.status.success() {
        return Err(err(
            "not inside a git repository: run init in your server's repository (its workflow goes to the root's .github/workflows/, the profile beside your code)",
        ));
    }
    let root = String::from_utf8_lossy(&out.stdout)
        .trim_end_matches(['\n', '\r'])
        .to_owned();
    std::fs::canonicalize(&root)
        .map_err(|e| err(format!("cannot resolve the repository's root: {e}")))
}

/// `path` (relative to `cwd`, or absolute) as a path relative to `root`,
/// `.` and `..` resolved by their names; refused when it leaves the
/// repository or holds a control character (it is written into YAML and
/// printed).
pub fn inside(root: &Path, cwd: &Path, path: &Path, what: &str) -> Result<PathBuf, InitError> {
    let shown = path.display().to_string();
    if shown.chars().any(char::is_control) {
        return Err(err(format!(
            "{what}: holds a control character (a line break?); expected a path inside the repository"
        )));
    }
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut normal = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !normal.pop() {
                    return Err(err(format!(
                        "{what}: `{shown}` leaves the file system's root"
                    )));
                }
            }
            other => normal.push(other.as_os_str()),
        }
    }
    match normal.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => Ok(rel.to_path_buf()),
        Ok(_) => Err(err(format!(
            "{what}: `{shown}` is the repository's root itself; expected a folder or file inside it"
        ))),
        Err(_) => Err(err(format!(
            "{what}: `{shown}` is outside the repository ({}); init writes only inside it",
            root.display()
        ))),
    }
}

/// A path relative to the root as the workflow writes it: `/`-separated.
pub fn slashed(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Refuses what stands at `root/rel`: a link (a dangling one too) always,
/// a file unless `replace`. `write_file` checks again when it writes.
pub fn refuse_existing(root: &Path, rel: &Path, replace: bool) -> Result<(), InitError> {
    let shown = slashed(rel);
    match std::fs::symlink_metadata(root.join(rel)) {
        Ok(m) if m.file_type().is_symlink() => Err(err(format!(
            "{shown} is a symbolic link; init writes only regular files inside the repository, never through a link (remove it first)"
        ))),
        Ok(m) if !m.is_file() => Err(err(format!("{shown} exists and is not a regular file"))),
        Ok(_) if !replace => Err(err(format!("{shown} exists; pass --force to replace it"))),
        _ => Ok(()),
    }
}

/// Writes `text` at `root/rel` as a regular file, never through a symbolic
/// link (a folder on the way or the file itself) and never over a file
/// that exists unless `replace` (and then only a regular file), through
/// the workspace's one writer ([`file_writer`]).
pub fn write_file(root: &Path, rel: &Path, text: &str, replace: bool) -> Result<(), InitError> {
    let target = root.join(rel);
    let shown = target.display();
    let mut dir = root.to_path_buf();
    if let Some(parent) = rel.parent() {
        for part in parent.components() {
            dir.push(part.as_os_str());
            match std::fs::symlink_metadata(&dir) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(err(format!(
                        "{} is a symbolic link; init writes only inside the repository, never through a link",
                        dir.display()
                    )));
                }
                Ok(m) if !m.is_dir() => {
                    return Err(err(format!("{} is not a folder", dir.display())));
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    std::fs::create_dir(&dir)
                        .map_err(|e| err(format!("cannot create {}: {e}", dir.display())))?;
                }
                Err(e) => return Err(err(format!("cannot read {}: {e}", dir.display()))),
            }
        }
    }
    match std::fs::symlink_metadata(&target) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(err(format!(
                "{shown} is a symbolic link; init writes only regular files inside the repository, never through a link (remove it first)"
            )));
        }
        Ok(m) if !m.is_file() => {
            return Err(err(format!("{shown} exists and is not a regular file")));
        }
        Ok(_) if !replace => {
            return Err(err(format!("{shown} exists; pass --force to replace it")));
        }
        Ok(_) | Err(_) => {}
    }
    // The workspace's one writer: an exclusive temporary file beside it,
    // then a rename (with `replace`) or a link that never replaces (a file
    // that appeared meanwhile is kept and reported).
    let existing = if replace {
        file_writer::Existing::Replace
    } else {
        file_writer::Existing::Keep
    };
    match file_writer::write_with(&target, "it", text.as_bytes(), existing) {
        Ok(()) => Ok(()),
        Err(file_writer::WriteError {
            why: file_writer::Why::Exists,
            ..
        }) => Err(err(format!(
            "{shown} appeared while init ran; it is kept (pass --force to replace it)"
        ))),
        Err(e) => Err(err(format!("cannot write {shown}: {}", e.why))),
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
            action: "acme/component-auth-conformance@v0.1.0".into(),
            start: "./start.sh".into(),
        };
        answers.check().unwrap();
        assert_eq!(
            answers.variables(),
            ["CLIENT_SECRET", "USERS_TOKEN", "USERS_PASSWORD"]
        );
        let env = |name: &str| match name {
            "BASE_URL" => Some("http://127.0.0.1:8080".to_owned()),
            _ => Some(format!("value-of-{name}")),
        };
        let profile = conformance_model::profile::Profile::from_yaml_str(
            &answers.profile_yaml(),
            "p.yaml",
            &env,
        )
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
        let body = written.valid_body.as_mut().unwrap();
        body.insert("password".into(), "hunter2".into());
        body.insert("apiKey".into(), "k-123".into());
        body.insert("otp".into(), 123456.into());
        body.insert("email".into(), "a@b.c".into());
        let taken = written.protect();
        let names: Vec<&str> = taken.iter().map(|p| p.variable.as_str()).collect();
        assert_eq!(names, ["USERS_PASSWORD", "USERS_APIKEY", "USERS_OTP"]);
        let body = written.valid_body.as_ref().unwrap();
        assert_eq!(body["otp"], "${USERS_OTP:json}");
        assert_eq!(body["email"], "a@b.c");
    }

    #[test]
    fn credentials_are_known_by_their_usual_names() {
        for name in [
            "password",
            "passwd",
            "api_key",
            "apiKey",
            "API-KEY",
            "client_secret",
            "otp",
            "pin",
            "PIN",
            "Authorization",
            "x-api-key",
            "sessionToken",
            "user_password",
            "secret",
        ] {
            assert!(looks_like_credential(name), "{name}");
        }
        for name in [
            "email", "login", "account", "spinner", "shipping", "username", "name",
        ] {
            assert!(!looks_like_credential(name), "{name}");
        }
    }

    #[test]
    fn an_action_reference_is_real_or_refused() {
        check_action("acme/component-auth-conformance@v0.1.0").unwrap();
        check_action("acme/component-auth-conformance@0123456789abcdef0123456789abcdef01234567")
            .unwrap();
        for var in ["PATH", "LD_PRELOAD", "GITHUB_ENV", "CONFORMANCE_ARGS"] {
            assert!(reserved(var).is_some(), "{var}");
        }
        assert!(reserved("USERS_TOKEN").is_none());
        for bad in [
            "OWNER/component-auth-conformance@v0.1.0",
            "acme/component-auth-conformance",
            "acme@v1",
            "acme/x@v 1",
        ] {
            assert!(check_action(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn paths_stay_inside_the_repository() {
        let root = Path::new("/r");
        let cwd = Path::new("/r/sub");
        assert_eq!(
            inside(root, cwd, Path::new("conformance"), "--dir").unwrap(),
            Path::new("sub/conformance")
        );
        assert_eq!(
            inside(root, cwd, Path::new("../x"), "--dir").unwrap(),
            Path::new("x")
        );
        for bad in ["../../x", "/etc", "..", "a\nb"] {
            assert!(
                inside(root, cwd, Path::new(&bad), "--dir").is_err(),
                "{bad}"
            );
        }
    }
}
