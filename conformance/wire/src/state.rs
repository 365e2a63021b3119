//! What the run learnt of the server's state: the token each component's
//! settling Authorize issued ([`crate::target::Target::settle`]), the body
//! values that change between identical requests in that state
//! ([`crate::target::Target::learn_volatile`]), and the tokens the server
//! issued (each a secret wherever it is echoed). What a record keeps of an
//! answer and which tokens a reproduction obtains first are read from
//! here.

use std::sync::{Mutex, OnceLock};

use crate::exchange::{Recording, Scrubber};
use crate::request::Typed;

/// What the run learnt of the server's state.
#[derive(Debug)]
pub struct State {
    /// The token each component's settling Authorize issued, by the
    /// component's index.
    settled: Mutex<Vec<Option<String>>>,
    /// Tokens the server issued in a success (an X-Auth-Token is a secret
    /// wherever it is echoed), learnt as answers come.
    issued: Mutex<Vec<String>>,
    /// Body paths whose values changed between two identical requests,
    /// found before the checks run ([`crate::volatile`]).
    volatile: OnceLock<Vec<String>>,
    /// The profile's secrets and the `--header`s' values, and the body
    /// fields that are secret: what the run's outputs are scrubbed of,
    /// with the issued tokens ([`State::final_scrubber`]).
    secrets: Vec<String>,
    secret_fields: Vec<String>,
}

impl State {
    pub(crate) fn new(secrets: Vec<String>, secret_fields: Vec<String>) -> Self {
        Self {
            settled: Default::default(),
            issued: Mutex::new(Vec::new()),
            volatile: OnceLock::new(),
            secrets,
            secret_fields,
        }
    }

    /// The token the `i`th component's settling Authorize issued, if any.
    pub fn settled_token(&self, i: usize) -> Option<String> {
        let settled = self.settled.lock().unwrap_or_else(|p| p.into_inner());
        settled.get(i).cloned().flatten()
    }

    /// Keeps the tokens the settle issued, by component.
    pub(crate) fn set_settled(&self, tokens: Vec<Option<String>>) {
        *self.settled.lock().unwrap_or_else(|p| p.into_inner()) = tokens;
    }

    /// Keeps `token` as the `i`th component's newest settled token.
    pub(crate) fn replace_settled(&self, i: usize, token: String) {
        let mut settled = self.settled.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = settled.get_mut(i) {
            *slot = Some(token);
        }
    }

    /// Keeps the volatile body paths; set once per run, a second call
    /// keeps the first.
    pub(crate) fn set_volatile(&self, paths: Vec<String>) {
        let _ = self.volatile.set(paths);
    }

    /// What a record keeps of an answer: the profile's extra `headers` and
    /// the volatile body paths found so far.
    pub fn recording<'a>(&'a self, headers: &'a [String]) -> Recording<'a> {
        Recording {
            headers,
            volatile: self.volatile.get().map_or(&[], Vec::as_slice),
        }
    }

    /// Keeps a token a success carried, as a secret.
    pub(crate) fn learn_issued(&self, typed: &Typed) {
        let raw = typed.raw();
        if !(200..300).contains(&raw.status) {
            return;
        }
        // Read as a stream: no tree of a large answer is built for this.
        if let Some(token) = crate::carried::issued_token_in(&raw.body) {
            let mut issued = self.issued.lock().unwrap_or_else(|p| p.into_inner());
            if !issued.contains(&token) {
                issued.push(token);
            }
        }
    }

    /// Whether the server issued `token` during the run.
    pub(crate) fn was_issued(&self, token: &str) -> bool {
        let issued = self.issued.lock().unwrap_or_else(|p| p.into_inner());
        issued.iter().any(|t| t == token)
    }

    /// The scrubber for the run's outputs: the profile's secrets and every
    /// token the server issued during the run.
    pub fn final_scrubber(&self) -> Scrubber {
        let mut secrets = self.secrets.clone();
        secrets.extend(
            self.issued
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .cloned(),
        );
        Scrubber::new(secrets, self.secret_fields.clone())
    }
}
