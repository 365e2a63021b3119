//! The profile `init` writes, from the answers: the server's URL and every
//! secret as `${VAR}`s, then (once the server is asked) the `choices:` it
//! was seen to make.

use std::fmt::Write as _;

use super::{Answers, yaml_quoted};

impl Answers {
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
