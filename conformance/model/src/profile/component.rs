//! A profile's component: its keys, read (expanded and checked) into a
//! [`Component`](super::Component).

use client_runtime::Secret;
use serde::Deserialize;

use super::form::{ComponentKeys, Read};
use super::{Authorize, Component, SECRET_FIELD_NAMES, SecondModel};

pub(super) struct Components(pub(super) Vec<Component>);

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

struct RawComponent(Component);

impl<'de> Deserialize<'de> for RawComponent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = ComponentKeys::<Read>::deserialize(d)?;
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
