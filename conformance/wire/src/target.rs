//! The server under test, as the checks see it: its parts put together.
//! Each part does one job, and code that needs only one takes only it:
//!
//! - [`ValidRequests`]: the profile and a fully valid request of every
//!   operation, which a negative check changes in exactly one way;
//! - [`Sender`]: how requests travel (pacing, limit answers, time-outs,
//!   sessions), each exchange recorded before any judgement;
//! - [`State`]: what the run learnt of the server's state (the tokens the
//!   settle kept and the server issued, the values that change); the
//!   settle itself is in [`crate::settle`];
//! - [`Reproductions`]: every exchange as a `curl` command to paste.
//!
//! What needs several parts is here: sending a probe (the sender records
//! it as the settled state says, reproduced with the tokens it knows), a
//! batch, a kept-alive session, and finding where `modelUuid` travels.

use std::sync::Arc;

use component_auth_bindings::{Client, Error};
use conformance_model::choices::ModelUuidAt;
use conformance_model::profile::Profile;

use crate::connect::Connect;
use crate::exchange::{Exchange, RequestRecord, Scrubber};
use crate::reproduction::Reproductions;
use crate::request::{Op, Probe, Sent};
use crate::sender::Sender;
use crate::state::State;
use crate::transport::Limits;
use crate::valid::ValidRequests;

/// The server under test.
#[derive(Debug)]
pub struct Target {
    pub requests: ValidRequests,
    pub sender: Sender,
    pub state: State,
    pub reproductions: Reproductions,
}

impl Target {
    pub fn new(profile: Profile, limits: Limits, connect: Connect) -> Result<Self, Error> {
        let mut secrets = profile.secrets();
        secrets.extend(connect.header_values());
        let scrub = Scrubber::new(secrets.clone(), profile.secret_fields());
        let reproductions = Reproductions::new(&profile, &connect);
        let sender = Sender::new(&profile, limits, connect, scrub)?;
        let state = State::new(secrets, profile.secret_fields());
        Ok(Self {
            requests: ValidRequests::new(profile, sender.client().clone()),
            sender,
            state,
            reproductions,
        })
    }

    /// The profile of the server under test.
    pub fn profile(&self) -> &Profile {
        &self.requests.profile
    }

    /// The target within the run's `deadline`: a limit's wait that would
    /// end after it stops the run's sending at once (what is not sent is
    /// not judged), and no back-off is begun past it.
    pub fn with_deadline(mut self, deadline: Option<std::time::Instant>) -> Self {
        self.sender.set_deadline(deadline);
        self
    }

    /// The target sending `modelUuid` where the run saw the server read it
    /// (the profile declares no place; a declared place always wins).
    pub fn with_observed_model_uuid(mut self, at: ModelUuidAt) -> Self {
        self.requests.observe_model_uuid(at);
        self
    }

    /// Sends `req` (or records why it could not be built) and decodes the answer.
    pub async fn send(&self, probe: Probe) -> Sent {
        self.send_via(self.sender.client_for(probe.case), probe)
            .await
    }

    /// Sends through `client`, reproduced and recorded as the run's state
    /// says; a token a success issued is learnt as a secret.
    async fn send_via(&self, client: &Client, probe: Probe) -> Sent {
        let sent = self
            .sender
            .send_via(
                client,
                probe,
                |req| self.reproductions.curl(req, &self.requests, &self.state),
                || {
                    self.state
                        .recording(&self.requests.profile.snapshot_headers)
                },
            )
            .await;
        if let (Some(typed), None) = (&sent.typed, &sent.exchange.limited) {
            self.state.learn_issued(typed);
        }
        sent
    }

    /// A client of its own whose requests, sent one after the other, share
    /// one kept-alive connection (every other request goes on a new one).
    pub fn keep_alive_session(&self) -> Result<Session<'_>, Error> {
        Ok(Session {
            target: self,
            client: self.sender.session_client()?,
        })
    }

    /// Sends every request concurrently; the answers come back in order.
    /// Dropped before the answers are in (the run's deadline passed), it
    /// aborts every request still on its way: nothing of a run goes on
    /// after it, nor prints after its report.
    pub async fn send_all(self: &Arc<Self>, probes: Vec<Probe>) -> Vec<Sent> {
        let handles: Vec<_> = probes
            .into_iter()
            .map(|probe| {
                let target = self.clone();
                let fallback = probe.label.clone();
                (
                    fallback,
                    tokio::spawn(async move {
                        // Never closed; without a permit only the share lifts.
                        let _share = target.sender.bulk().acquire_owned().await.ok();
                        target.send(probe).await
                    }),
                )
            })
            .collect();
        let guard = AbortOnDrop(handles.iter().map(|(_, h)| h.abort_handle()).collect());
        let mut out = Vec::with_capacity(handles.len());
        for (label, handle) in handles {
            out.push(handle.await.unwrap_or_else(|e| Sent {
                exchange: Exchange {
                    label,
                    request: RequestRecord {
                        method: String::new(),
                        path: String::new(),
                        headers: Default::default(),
                        body: None,
                    },
                    response: None,
                    error: Some(format!("the request task failed: {e}")),
                    retried: None,
                    limited: None,
                    unanswered: None,
                    latency: Default::default(),
                    curl: None,
                },
                typed: None,
                read: Default::default(),
                answered_over_cap: false,
            }));
        }
        // Every task is done: aborting them now is nothing.
        drop(guard);
        out
    }

    /// Where modelUuid travels: the first place (of `MODEL_UUID_PLACES`) a
    /// valid Authorize is served with it, and the status it was served with.
    /// The profile must not declare the place (its valid Authorize puts it
    /// in ours, the query).
    pub async fn model_uuid_place(&self) -> Option<(ModelUuidAt, Option<u16>)> {
        let c = self.requests.primary(Op::Authorize)?;
        let model = c.authorize.as_ref().map(|a| a.model_uuid.clone())?;
        for place in MODEL_UUID_PLACES {
            let Ok(at) = place.parse::<ModelUuidAt>() else {
                continue;
            };
            let req = self.requests.valid(Op::Authorize, c).and_then(|r| {
                r.without_model_uuid(&ModelUuidAt::default())
                    .with_model_uuid(&at, &model)
            });
            let sent = self.send(Probe::new("modelUuid", req)).await;
            if sent.status().is_some_and(|st| (200..300).contains(&st)) {
                return Some((at, sent.status()));
            }
        }
        None
    }
}

/// Places tried for `modelUuid`, in order; the first that Authorize
/// serves is the server's.
const MODEL_UUID_PLACES: &[&str] = &[
    "query",
    "header:X-Model-Uuid",
    "body:modelUuid",
    "query:model_uuid",
    "body:model_uuid",
    "header:X-Model-Id",
];

/// Requests sent in turn on one kept-alive connection.
pub struct Session<'a> {
    target: &'a Target,
    client: Client,
}

impl Session<'_> {
    pub async fn send(&self, probe: Probe) -> Sent {
        self.target.send_via(&self.client, probe).await
    }
}

/// Aborts the tasks it holds when dropped (a task already done is left as
/// it is).
struct AbortOnDrop(Vec<tokio::task::AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        for h in &self.0 {
            h.abort();
        }
    }
}
