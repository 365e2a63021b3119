//! Settling: before any check, the run puts every component in a known
//! state (one valid Authorize of each, [`Target::settle`]) and learns
//! which body values change between identical requests in that state
//! ([`Target::learn_volatile`]); what it learns is kept in
//! [`crate::state::State`].

use std::sync::Arc;

use component_auth_bindings::types::ProjectEnv;

use crate::request::{Op, Probe, Sent};
use crate::target::Target;

impl Target {
    /// Puts every component that can take Authorize in a known state: one
    /// valid Authorize (the profile's model) in each environment a valid
    /// request of the run names ([`crate::phase::SETTLED_ENVS`]).
    /// Components go at once, the environments of one component in turn,
    /// the profile's own last: two of them may be one environment on the
    /// server (no X-Project-Env taken as `live`, say), and a server that
    /// revokes a token when it issues the next then keeps the token kept
    /// here. Whatever an earlier run left behind, the reads that follow see
    /// the same claims. Returns how many requests it sent; their answers
    /// are judged by no check, and are never compared with another (they
    /// show the state before the settle, which is history).
    pub async fn settle(self: &Arc<Self>) -> usize {
        let own = self.requests.profile.project_env;
        let order: Vec<Option<ProjectEnv>> = crate::phase::SETTLED_ENVS
            .into_iter()
            .filter(|env| *env != own)
            .chain([own])
            .collect();
        let settling: Vec<usize> = (0..self.requests.profile.components.len())
            .filter(|&i| self.requests.profile.components[i].authorize.is_some())
            .collect();
        let mut count = 0;
        let mut settled = vec![None; self.requests.profile.components.len()];
        let retried_before = self.sender.retried();
        for (round, env) in order.iter().enumerate() {
            let probes: Vec<Probe> = settling
                .iter()
                .map(|&i| {
                    let c = &self.requests.profile.components[i];
                    let req = self.requests.valid(Op::Authorize, c).and_then(|r| {
                        if *env == own {
                            return Ok(r);
                        }
                        match env {
                            Some(env) => r.set_header("X-Project-Env", env.as_str()),
                            None => Ok(r.remove_header("X-Project-Env")),
                        }
                    });
                    Probe::new("settle", req)
                })
                .collect();
            count += probes.len();
            let sent = self.send_all(probes).await;
            if round + 1 < order.len() {
                continue;
            }
            for (&i, s) in settling.iter().zip(&sent) {
                settled[i] = issued_by(s);
            }
        }
        // The run's retry count is its checks' requests, as reported.
        self.sender.reset_retried(retried_before);
        self.state.set_settled(settled);
        count
    }

    /// Learns which body values change between identical requests sent in
    /// the same known state: after the settle, a valid Auth Claims and one
    /// refusal, then the settle's own Authorize again, then both reads
    /// again, then the Authorize once more. The state is the settled one
    /// throughout (the Authorize claims what is claimed already), so a
    /// value that differs is one that changes with every request or every
    /// write (a time, a count, a nonce), never one that shows the state an
    /// earlier run left (the claim an Authorize replaced is the settled
    /// one both times). Called once, after the settle, before the checks.
    pub async fn learn_volatile(self: &Arc<Self>) {
        let retried_before = self.sender.retried();
        let reads = || {
            let mut reads = Vec::new();
            if let Some(c) = self.requests.primary(Op::AuthClaims) {
                reads.push(Probe::new(
                    "volatile",
                    self.requests.valid(Op::AuthClaims, c),
                ));
                reads.push(Probe::new(
                    "volatile",
                    self.requests
                        .valid(Op::AuthClaims, c)
                        .map(|r| r.remove_header("X-Client-Id")),
                ));
            }
            reads
        };
        let write = || {
            self.requests
                .primary(Op::Authorize)
                .map(|c| Probe::new("volatile", self.requests.valid(Op::Authorize, c)))
        };
        let mut first = self.send_all(reads()).await;
        let mut second = Vec::new();
        let first_write = match write() {
            Some(w) => Some(self.send(w).await),
            None => None,
        };
        second.append(&mut self.send_all(reads()).await);
        if let (Some(a), Some(w)) = (first_write, write()) {
            let b = self.send(w).await;
            // The token the settle kept is the newest again.
            if let Some(token) = issued_by(&b) {
                let i = self.requests.primary(Op::Authorize).and_then(|p| {
                    self.requests
                        .profile
                        .components
                        .iter()
                        .position(|c| std::ptr::eq(c, p))
                });
                if let Some(i) = i {
                    self.state.replace_settled(i, token);
                }
            }
            first.push(a);
            second.push(b);
        }
        // The run's retry count is its checks' requests, as reported.
        self.sender.reset_retried(retried_before);
        let mut paths = Vec::new();
        for (a, b) in first.iter().zip(&second) {
            // The records, whose known per-request keys are already
            // placeholders: only what they do not name is learnt here.
            let body = |s: &Sent| s.exchange.response.as_ref().and_then(|r| r.body.clone());
            if let (Some(a), Some(b)) = (body(a), body(b)) {
                paths.extend(crate::volatile::differing_paths(&a, &b));
            }
        }
        paths.sort();
        paths.dedup();
        // Set once per run; a second call keeps the first answer.
        self.state.set_volatile(paths);
    }
}

/// The token a successful Authorize issued, if any.
fn issued_by(s: &Sent) -> Option<String> {
    s.raw()
        .filter(|r| (200..300).contains(&r.status))
        .and_then(|r| crate::carried::issued_token_in(&r.body))
}
