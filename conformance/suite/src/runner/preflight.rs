//! Before any check: one valid request, so that a target that cannot be
//! reached is a usage error (exit 2), not a list of failed checks.

use std::sync::Arc;

use component_auth_bindings::Error;

use conformance_wire::request::Op;
use conformance_wire::target::Target;
use conformance_wire::transport::describe_error;

use super::RunError;

/// One valid request: a target that cannot be reached (connection refused,
/// a connect or TLS handshake that fails or times out, a connection closed
/// or reset before any answer) is a usage error (exit 2), not a list of
/// failed checks. Any answer, or a failure after one began (a time-out
/// waiting for it, garbage), lets the checks run and say what is wrong.
pub(super) async fn preflight(t: &Arc<Target>, ca_given: bool) -> Result<(), RunError> {
    let Some(c) = t.requests.primary(Op::AuthClaims) else {
        return Ok(());
    };
    match t.sender.reach(t.requests.valid(Op::AuthClaims, c)).await {
        Err(e) if unreachable(&e) => {
            let mut reason = t.sender.scrubber().text(&describe_error(&e));
            // Only an unknown issuer is cured by a CA: an expired
            // certificate or a wrong name is the server's to fix. With a
            // CA given, the link missing is the one between them.
            if reason.contains("is not a known certificate authority") {
                reason.push_str(match ca_given {
                    false => " (give its CA with --ca-cert)",
                    true => {
                        " (the CA given with --ca-cert is not the issuer of the certificate the server sent, and the server sent no intermediate certificate that leads to it: a server must send its whole chain, its own certificate then each intermediate, as openssl and curl say with \"unable to get local issuer certificate\"; or --ca-cert names another CA)"
                    }
                });
            }
            Err(RunError::Unreachable {
                url: t.sender.scrubber().text(&t.profile().base_url),
                reason,
            })
        }
        _ => Ok(()),
    }
}

/// Refused, failed or timed-out connects, and connections closed or reset
/// before the first byte of an answer.
fn unreachable(e: &Error) -> bool {
    if matches!(e, Error::Connect(_)) {
        return true;
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::BrokenPipe
            ) {
                return true;
            }
        }
        if s.to_string()
            .contains("connection closed before message completed")
        {
            return true;
        }
        source = s.source();
    }
    false
}
