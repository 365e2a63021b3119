//! A component as `--component` takes it: the profile's own component,
//! read as written, checked for what `init` needs (no secret written out),
//! its credentials taken out of the bodies it writes.

use conformance_model::profile::{ComponentDocument, Mapping};
use serde::Deserialize;

use super::{
    InitError, Protected, err, is_var_name, looks_like_credential, only_var, reserved,
    vars_well_formed,
};

/// A component, as `--component` takes it: the profile's own component
/// ([`ComponentDocument`], one schema: every key a profile's component
/// takes, `authorize.second_model`, `fields`, `secret_fields` and any key
/// added later), as a YAML mapping, e.g. `{name: Users, tag: users, uuid:
/// 0b6c…, requires_auth: true, auth_token: "${USERS_TOKEN}", authorize:
/// {model_uuid: 5d2e…, valid_body: {email: a@b.c, password:
/// "${USERS_PASSWORD}"}}}`.
#[derive(Clone, Debug, serde::Serialize, Deserialize)]
#[serde(transparent)]
pub struct ComponentAnswer(pub ComponentDocument);

/// An example of `--component`, for messages.
pub const COMPONENT_EXAMPLE: &str = "{name: Users, tag: users, uuid: UUID, requires_auth: true, auth_token: \"${USERS_TOKEN}\", authorize: {model_uuid: UUID, valid_body: {email: a@example.com, password: \"${USERS_PASSWORD}\"}}}";

/// What an older `--component` key is now (the keys are the profile's).
fn renamed(message: &str) -> &'static str {
    let key = |k: &str| message.contains(&format!("unknown field `{k}`"));
    if key("token_env") {
        " (`token_env: VAR` is now the profile's `auth_token: \"${VAR}\"`)"
    } else if key("model_uuid") || key("valid_body") || key("invalid_body") {
        " (`model_uuid`, `valid_body` and `invalid_body` go under `authorize:`, as in a profile)"
    } else {
        ""
    }
}

impl ComponentAnswer {
    /// Parses one `--component` value (`what` names it in errors): the
    /// profile's component, read as written (`${VAR}`s kept).
    pub fn parse(text: &str, what: &str) -> Result<Self, InitError> {
        let c: ComponentDocument = serde_yaml::from_str(text).map_err(|e| {
            let e = conformance_model::input::without_values(&e.to_string());
            err(format!(
                "{what}: {e}{}. Expected a profile's component as a YAML mapping, such as `{COMPONENT_EXAMPLE}`",
                renamed(&e)
            ))
        })?;
        let c = ComponentAnswer(c);
        c.check(what)?;
        Ok(c)
    }

    fn check(&self, what: &str) -> Result<(), InitError> {
        let c = &self.0;
        for (key, value) in [("name", &c.name), ("tag", &c.tag), ("uuid", &c.uuid)] {
            if value.trim().is_empty() {
                return Err(err(format!(
                    "{what}: `{key}` is empty; expected the component's {key}"
                )));
            }
        }
        let mut uuids = vec![("uuid", &c.uuid)];
        if let Some(a) = &c.authorize {
            uuids.push(("authorize.model_uuid", &a.model_uuid));
            if let Some(m) = &a.second_model {
                uuids.push(("authorize.second_model.model_uuid", &m.model_uuid));
            }
        }
        let is_uuid = |s: &str| s.contains("${") || uuid::Uuid::parse_str(s).is_ok();
        for (key, value) in &uuids {
            if !is_uuid(value) {
                return Err(err(format!(
                    "{what}: `{key}` is not a uuid; expected a uuid (8-4-4-4-12 hex digits) or a `${{VAR}}` that holds it"
                )));
            }
        }
        let texts = serde_json::to_value(c).unwrap_or_default();
        if !all_strings(&texts, &|s| vars_well_formed(s)) {
            return Err(err(format!(
                "{what}: a value holds a `${{` that is not `${{VAR}}` around a variable name"
            )));
        }
        match (&c.auth_token, c.requires_auth) {
            (Some(token), _) if only_var(token).is_none() => Err(err(format!(
                "{what}: `auth_token` is written out; expected `\"${{VAR}}\"`, the environment variable that holds the token (the profile is committed)"
            ))),
            (None, true) => Err(err(format!(
                "{what}: the component requires auth, so a run needs one of its tokens; expected `auth_token: \"${{VAR}}\"`, the environment variable that holds it"
            ))),
            _ => Ok(()),
        }
    }

    /// Whether the body field `name` holds a credential: by its name
    /// ([`looks_like_credential`]), or as the component says
    /// (`secret_fields`, a declared field's `secret: true`).
    fn is_secret(&self, name: &str) -> bool {
        let c = &self.0;
        looks_like_credential(name)
            || c.secret_fields
                .iter()
                .flatten()
                .any(|s| s.eq_ignore_ascii_case(name))
            || c.fields.as_ref().is_some_and(|f| {
                f.get(name)
                    .and_then(|d| d.get("secret"))
                    .and_then(serde_json::Value::as_bool)
                    == Some(true)
            })
    }

    /// Replaces each value of the bodies that claim a model (`valid_body`,
    /// `second_model.valid_body`) that is a credential (`Self::is_secret`)
    /// and written out by a `${VAR}` (`${VAR:json}` for a number or
    /// boolean): the profile is committed. Returns what was taken out, to
    /// say so and to set the variables for `init`'s own requests.
    pub fn protect(&mut self) -> Vec<Protected> {
        let mut out = Vec::new();
        let prefix = conformance_model::profile::shell_name(&self.0.tag);
        let name = self.0.name.clone();
        let secret: Vec<String> = self
            .bodies()
            .flat_map(|(_, b)| b.keys().cloned())
            .filter(|k| self.is_secret(k))
            .collect();
        let Some(a) = self.0.authorize.as_mut() else {
            return out;
        };
        let second = a.second_model.as_mut().and_then(|m| m.valid_body.as_mut());
        for (body, suffix) in [(Some(&mut a.valid_body), ""), (second, "_2")] {
            let Some(body) = body else { continue };
            for (key, value) in body.iter_mut() {
                if !secret.contains(key) {
                    continue;
                }
                let (text, json) = match &*value {
                    serde_json::Value::String(s) if s.contains("${") => continue,
                    serde_json::Value::String(s) => (s.clone(), false),
                    serde_json::Value::Null => continue,
                    other => (other.to_string(), true),
                };
                let mut variable = format!(
                    "{prefix}_{}{suffix}",
                    conformance_model::profile::shell_name(key)
                );
                if !is_var_name(&variable) || reserved(&variable).is_some() {
                    variable = format!("SECRET_{variable}");
                }
                *value = serde_json::Value::from(if json {
                    format!("${{{variable}:json}}")
                } else {
                    format!("${{{variable}}}")
                });
                out.push(Protected {
                    component: name.clone(),
                    field: key.clone(),
                    variable,
                    value: text,
                });
            }
        }
        out
    }

    /// The component's bodies that claim a model, by key.
    fn bodies(&self) -> impl Iterator<Item = (&'static str, &Mapping)> {
        let a = self.0.authorize.as_ref();
        let second = a
            .and_then(|a| a.second_model.as_ref())
            .and_then(|m| m.valid_body.as_ref());
        a.map(|a| ("valid_body", &a.valid_body))
            .into_iter()
            .chain(second.map(|b| ("second_model.valid_body", b)))
    }
}

/// Whether every string in `value` passes `ok`.
fn all_strings(value: &serde_json::Value, ok: &dyn Fn(&str) -> bool) -> bool {
    match value {
        serde_json::Value::String(s) => ok(s),
        serde_json::Value::Array(items) => items.iter().all(|v| all_strings(v, ok)),
        serde_json::Value::Object(map) => map.values().all(|v| all_strings(v, ok)),
        _ => true,
    }
}
