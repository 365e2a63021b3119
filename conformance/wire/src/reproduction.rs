//! Reproductions: every exchange as a `curl` command to paste, sending
//! what the runner sent without showing a secret. The profile's secrets
//! and the `--header`s are shell variables; a token the run had issued is
//! a variable the lines before the command set, by the request that
//! issued it.

use std::borrow::Cow;

use crate::connect::Connect;
use crate::curl::Placeholder;
use crate::request::{Op, Req};
use crate::state::State;
use crate::valid::ValidRequests;
use conformance_model::profile::Profile;

/// How a run's reproductions write its secrets.
#[derive(Debug)]
pub struct Reproductions {
    /// The profile's secrets as its variables; made once, used for every
    /// request sent.
    secrets: Vec<Placeholder>,
    /// The `--header`s as `curl` arguments.
    headers: String,
}

impl Reproductions {
    pub(crate) fn new(profile: &Profile, connect: &Connect) -> Self {
        let headers = connect
            .headers
            .keys()
            .map(|name| {
                let var = conformance_model::profile::shell_name(&format!("header_{name}"));
                format!(" -H '{name}: '\"${{{var}}}\"")
            })
            .collect();
        Self {
            secrets: crate::curl::placeholders(profile),
            headers,
        }
    }

    /// The `--header`s as `curl` arguments, each value a shell variable
    /// (`-H 'x-gateway-key: '"${HEADER_X_GATEWAY_KEY}"`): a reproduction
    /// sends what the runner sent, without showing the value.
    pub fn curl_headers(&self) -> &str {
        &self.headers
    }

    /// The profile's secrets as a reproduction writes them.
    pub fn curl_secrets(&self) -> &[Placeholder] {
        &self.secrets
    }

    /// The lines that set `$var` to what `req` is answered in the body
    /// field `token`: the reproduction of a request that sends an issued
    /// token starts with them.
    pub fn obtain_token(&self, req: &Req, var: &str, what: &str) -> String {
        let command = crate::curl::render(req, &self.secrets, &[]) + &self.headers;
        format!(
            "# {var}: the token {what} issues\n{var}=\"$({command} | sed -n 's/.*\"token\" *: *\"\\([^\"]*\\)\".*/\\1/p')\"\n"
        )
    }

    /// A token the run had issued that `req` sends as its X-Auth-Token: the
    /// variable a reproduction writes for it, and the lines before the
    /// command that set it. The settling Authorize's token is obtained by
    /// an Authorize of the same component; one a check had issued, by the
    /// Authorize the check sent before it.
    fn issued_in(
        &self,
        req: &Req,
        requests: &ValidRequests,
        state: &State,
    ) -> Option<(Placeholder, String)> {
        let sent = req.request().headers().get("x-auth-token")?.to_str().ok()?;
        let settled = requests
            .profile
            .components
            .iter()
            .enumerate()
            .find(|(i, _)| state.settled_token(*i).as_deref() == Some(sent));
        let (variable, prelude) = match settled {
            Some((_, c)) => {
                let variable = format!("ISSUED_TOKEN_{}", crate::curl::shell_name(&c.tag));
                let prelude = requests
                    .valid(Op::Authorize, c)
                    .ok()
                    .map_or_else(String::new, |a| {
                        self.obtain_token(&a, &variable, &format!("an Authorize of {}", c.name))
                    });
                (variable, prelude)
            }
            None => {
                if !state.was_issued(sent) {
                    return None;
                }
                (
                    "ISSUED_TOKEN".to_owned(),
                    "# ISSUED_TOKEN: the `token` this check's Authorize was answered with\n"
                        .to_owned(),
                )
            }
        };
        let placeholder = Placeholder {
            value: sent.to_owned(),
            variable,
        };
        Some((placeholder, prelude))
    }

    /// `req` as a `curl` command to paste: the profile's secrets as its
    /// variables, the `--header`s as theirs, a token the run had issued as
    /// a variable the lines before the command set; a body over 4 KiB is
    /// sent from a file the command names, so the line stays readable.
    pub(crate) fn curl(&self, req: &Req, requests: &ValidRequests, state: &State) -> String {
        let issued = self.issued_in(req, requests, state);
        let secrets: Cow<'_, [Placeholder]> = match &issued {
            None => Cow::Borrowed(&self.secrets),
            Some((token, _)) => {
                let mut all = self.secrets.clone();
                all.push(token.clone());
                all.sort_by_key(|p| std::cmp::Reverse(p.value.len()));
                Cow::Owned(all)
            }
        };
        let mut line = crate::curl::render(req, &secrets, &[]) + &self.headers;
        if line.len() > 4096 {
            if let Some(at) = line.find(" --data-binary ") {
                let bytes = req
                    .request()
                    .body()
                    .and_then(|b| b.as_bytes())
                    .map_or(0, <[u8]>::len);
                let rest = line.split_off(at);
                let headers_after = rest.find(" -H ").map_or("", |i| &rest[i..]).to_owned();
                line.push_str(&format!(
                    " --data-binary @body.json{headers_after}  # body.json: the {bytes}-byte body of the exchange"
                ));
            }
        }
        match issued {
            Some((_, prelude)) => prelude + &line,
            None => line,
        }
    }
}
