//! The secrets a profile holds, and how it is shown without them.

use super::values::without_password;
use super::{Profile, SecretValue, shell_name};

impl Profile {
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
