//! The run's shared error probes (sent once, judged by several checks:
//! envelopes, choices), and the values a check sends where something must
//! be wrong.

use conformance_wire::request::{Op, Probe};
use conformance_wire::valid::ValidRequests;

/// The error probes, in words: what [`probe_requests`] sends.
pub(crate) const PROBES: &str = "the error probes: an unknown ref, a wrong secret, no X-Client-Id, X-Project-Env `staging`, a malformed JSON body, an invalid body, no modelUuid, and one valid request of each operation";

/// Which error probe a request is: a check that judges one probe's answer
/// apart (the one without modelUuid) picks it by this, not by its label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorProbe {
    UnknownRef,
    WrongSecret(Op),
    NoClientId,
    StagingEnv,
    Valid(Op),
    MalformedJson,
    InvalidBody,
    NoModelUuid,
}

/// The requests of the error probes, sent once per run (each in its phase)
/// and shared through the run's context by the checks that judge them
/// (envelopes, choices), each with which probe it is.
pub fn probe_requests(t: &ValidRequests) -> Vec<(ErrorProbe, Probe)> {
    let mut reqs = Vec::new();
    let mut push = |kind: ErrorProbe, label: &str, request| {
        reqs.push((kind, Probe::new(label, request)));
    };
    if let Some(c) = t.primary(Op::AuthClaims) {
        let v = || t.valid(Op::AuthClaims, c);
        push(
            ErrorProbe::UnknownRef,
            "GET unknown ref",
            t.valid_with_ref(Op::AuthClaims, c, UNKNOWN_REF),
        );
        push(
            ErrorProbe::WrongSecret(Op::AuthClaims),
            "GET wrong X-Client-Secret",
            v().and_then(|r| r.set_header("X-Client-Secret", WRONG_SECRET)),
        );
        push(
            ErrorProbe::NoClientId,
            "GET without X-Client-Id",
            v().map(|r| r.remove_header("X-Client-Id")),
        );
        push(
            ErrorProbe::StagingEnv,
            "GET X-Project-Env staging",
            v().and_then(|r| r.set_header("X-Project-Env", "staging")),
        );
        push(ErrorProbe::Valid(Op::AuthClaims), "GET valid", v());
    }
    if let Some(c) = t.primary(Op::Authorize) {
        let v = || t.valid(Op::Authorize, c);
        push(
            ErrorProbe::MalformedJson,
            "POST malformed JSON",
            v().map(|r| r.raw_body(b"{\"email\": ".to_vec())),
        );
        if let Some(r) = t
            .components(Op::Authorize)
            .into_iter()
            .find_map(|c| t.with_invalid_body(Op::Authorize, c))
        {
            push(ErrorProbe::InvalidBody, "POST invalid body", r);
        }
        push(
            ErrorProbe::NoModelUuid,
            "POST without modelUuid",
            v().map(|r| r.without_model_uuid(&t.model_uuid_at())),
        );
        push(
            ErrorProbe::WrongSecret(Op::Authorize),
            "POST wrong X-Client-Secret",
            v().and_then(|r| r.set_header("X-Client-Secret", WRONG_SECRET)),
        );
        push(ErrorProbe::Valid(Op::Authorize), "POST valid", v());
    }
    reqs
}

/// A ref that names no component (and could not be a real one's name).
pub(crate) const UNKNOWN_REF: &str = "conformance-no-such-component-5f1e";
/// A uuid-shaped ref that names no component.
pub(crate) const UNKNOWN_UUID: &str = "00000000-0000-4000-8000-00000000c0de";
/// Values sent where a credential is wrong.
pub(crate) const WRONG_CLIENT_ID: &str = "conformance-unknown-client";
pub(crate) const WRONG_SECRET: &str = "conformance-wrong-secret";
pub(crate) const WRONG_TOKEN: &str = "conformance-wrong-token";
