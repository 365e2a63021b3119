//! The profile `init` writes, from the answers: the model's own profile
//! document ([`ProfileDocument`], the keys a run reads, as written), the
//! server's URL and every secret as `${VAR}`s, then (once the server is
//! asked) the `choices:` it was seen to make.

use conformance_model::profile::ProfileDocument;

use super::{Answers, InitError, err};

impl Answers {
    /// The profile, without `choices:` (see [`with_choices`]); `ca_cert`
    /// is the CA file's path from the profile's folder.
    pub fn profile_yaml(&self, ca_cert: Option<String>) -> Result<String, InitError> {
        let document = ProfileDocument {
            base_url: format!("${{{}}}", self.base_url_var()),
            client_id: self.client_id.clone(),
            client_secret: format!("${{{}}}", self.client_secret_env),
            project_env: None,
            components: self.components.iter().map(|c| c.0.clone()).collect(),
            choices: None,
            snapshot_headers: None,
            budgets: None,
            rate: None,
            ca_cert,
        };
        let yaml = serde_yaml::to_string(&document)
            .map_err(|e| err(format!("cannot write the profile: {e}")))?;
        Ok(format!(
            "# The conformance profile of this server, written by `conformance init`.\n\
             # Secrets are ${{VAR}}s, read from the environment at run time: this file\n\
             # can be committed. `conformance check-profile --profile FILE` says what\n\
             # each key lets run; conformance/README.md documents every key.\n\
             # The server's URL is the workflow's ${} (one place); set it locally too.\n\
             {yaml}",
            self.base_url_var()
        ))
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
