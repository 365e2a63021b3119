//! X-Auth-Tokens: those the fixture lists and those Authorize issues, each
//! bound to one model of one component. Kept in memory, shared by every
//! connection.
//!
//! Lookup goes through a `HashMap`, whose SipHash keys are random per
//! process: the time a lookup takes does not tell an attacker how much of a
//! guessed token was right.

use std::collections::{HashMap, VecDeque};
use std::sync::{PoisonError, RwLock};

use crate::fixture::Fixture;

/// At most this many tokens issued at run time are kept; the oldest go
/// first. Bounds memory under a stream of Authorize calls. Fixture tokens
/// are never dropped.
const MAX_ISSUED: usize = 100_000;

/// What a token gives access to: indexes into the fixture's components and
/// that component's models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Binding {
    pub component: usize,
    pub model: usize,
}

#[derive(Default)]
struct Inner {
    by_token: HashMap<String, Binding>,
    /// Tokens issued at run time, oldest first.
    issued: VecDeque<String>,
}

pub(crate) struct TokenStore {
    inner: RwLock<Inner>,
}

impl TokenStore {
    /// The tokens the fixture lists (it has checked they name real models).
    pub(crate) fn from_fixture(fixture: &Fixture) -> Self {
        let mut inner = Inner::default();
        for (component, c) in fixture.components.iter().enumerate() {
            // By uuid, not a search of the models per token.
            let models: std::collections::HashMap<&str, usize> = (c.models.iter().enumerate())
                .map(|(i, m)| (m.uuid.as_str(), i))
                .rev()
                .collect();
            for issued in &c.tokens {
                if let Some(&model) = models.get(issued.model.as_str()) {
                    inner
                        .by_token
                        .insert(issued.token.clone(), Binding { component, model });
                }
            }
        }
        TokenStore {
            inner: RwLock::new(inner),
        }
    }

    /// The binding of a token, if it is one (a header value may not be UTF-8).
    pub(crate) fn lookup(&self, token: &[u8]) -> Option<Binding> {
        let token = std::str::from_utf8(token).ok()?;
        // No code panics while holding the lock, so a poisoned lock still
        // holds consistent data.
        let inner = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        inner.by_token.get(token).copied()
    }

    /// The binding of the first known token that `test` accepts, for the
    /// faults that compare tokens other than exactly (never in constant
    /// time, on purpose: they are bugs). First in token order, so the
    /// answer does not depend on the hash map's random order.
    pub(crate) fn find(&self, test: impl Fn(&[u8]) -> bool) -> Option<Binding> {
        let inner = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        let mut found: Vec<(&String, &Binding)> = inner
            .by_token
            .iter()
            .filter(|(t, _)| test(t.as_bytes()))
            .collect();
        found.sort();
        found.first().map(|(_, b)| **b)
    }

    /// Issues a new random token bound to `binding`.
    pub(crate) fn issue(&self, binding: Binding) -> String {
        let token = format!("tok-{}", uuid::Uuid::new_v4().simple());
        let mut inner = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        if inner.issued.len() >= MAX_ISSUED {
            if let Some(oldest) = inner.issued.pop_front() {
                inner.by_token.remove(&oldest);
            }
        }
        inner.by_token.insert(token.clone(), binding);
        inner.issued.push_back(token.clone());
        token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_tokens_and_issued_tokens_resolve() {
        let store = TokenStore::from_fixture(&Fixture::default_fixture());
        let ada = Binding {
            component: 0,
            model: 0,
        };
        assert_eq!(store.lookup(b"users-token-ada-0001"), Some(ada));
        assert_eq!(store.lookup(b"nope"), None);
        assert_eq!(store.lookup(&[0xff, 0xfe]), None);
        let token = store.issue(Binding {
            component: 1,
            model: 0,
        });
        assert_ne!(store.issue(ada), token);
        assert_eq!(
            store.lookup(token.as_bytes()),
            Some(Binding {
                component: 1,
                model: 0
            })
        );
    }
}
