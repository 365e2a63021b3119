//! The body limit a server keeps and the status it refuses a larger body
//! with: growing sizes until one is refused, then halving to the byte.

use conformance_wire::request::{Op, Probe, Sent};
use conformance_wire::target::Target;

/// The body limit and the status of its refusal, sent as Authorize of the
/// first component that takes one ([`halve_to_limit`]).
/// A server may answer before reading a large body and close the
/// connection, so the request finds no answer: that size is over the
/// limit too (refused, its status unknown).
pub(super) async fn find_limit(t: &Target) -> Option<(u64, Option<u16>)> {
    let c = t.requests.primary(Op::Authorize)?.clone();
    let size = |len: usize| {
        let c = c.clone();
        async move {
            // A body of `len` bytes as sent: where modelUuid travels in
            // the body, the padding is shorter by what it adds.
            let body = |pad: usize| {
                let pad = "x".repeat(pad);
                t.requests
                    .valid(Op::Authorize, &c)
                    .map(|r| r.raw_body(format!("{{\"pad\":\"{pad}\"}}").into_bytes()))
            };
            let pad = len.saturating_sub(10);
            let extra = body(pad)
                .ok()
                .and_then(|r| r.body_len())
                .map_or(0, |sent| sent.saturating_sub(len));
            let r = body(pad.saturating_sub(extra));
            let sent = t.send(Probe::new("size", r)).await;
            Size::of(&sent)
        }
    };
    // A small body first, answered in full: a server that takes no
    // body at all (a redirect, a 5xx, a refusal of every request, an
    // answer over the cap to each) shows no limit.
    if size(64).await != Size::Taken {
        return None;
    }
    halve_to_limit(size).await
}

/// What one size of body came to, for the body limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Size {
    /// Read and judged: served (2xx), or failed validation (417).
    Taken,
    /// Refused other than by validation (a 4xx), or no answer at all (a
    /// server that closes before reading a large body): over the limit.
    Refused(Option<u16>),
    /// An answer over the run's cap: no refusal of the body (a server
    /// whose 417 echoes it, say), taken where the server gave a usable
    /// answer to a small body; else (an endless chunked answer to every
    /// request) it says nothing of a limit.
    OverCap,
    /// No usable answer: a redirect, a 5xx. It says nothing of a limit.
    Unknown,
}

impl Size {
    fn of(sent: &Sent) -> Size {
        match sent.status() {
            None if sent.answered_over_cap => Size::OverCap,
            None => Size::Refused(None),
            Some(417) => Size::Taken,
            Some(st) if (200..300).contains(&st) => Size::Taken,
            Some(st) if (400..500).contains(&st) => Size::Refused(Some(st)),
            Some(_) => Size::Unknown,
        }
    }
}

/// The body limit `size` finds, with the status of its refusal: growing
/// sizes until one is refused, then halving to the byte. `None` where a
/// size had no usable answer, or no refusal was answered (sizes that found
/// no answer at all say nothing of what the server chose); the largest
/// size tried taken: no limit ([`conformance_model::choices::NO_BODY_LIMIT`]).
async fn halve_to_limit<F, Fut>(size: F) -> Option<(u64, Option<u16>)>
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = Size>,
{
    let mut taken = 0usize;
    let mut refused = None;
    for len in [16 * 1024, 64 * 1024, 1024 * 1024, 8 * 1024 * 1024] {
        match size(len).await {
            Size::Taken | Size::OverCap => taken = len,
            Size::Refused(status) => {
                refused = Some((len, status));
                break;
            }
            Size::Unknown => return None,
        }
    }
    let Some((mut over, mut status)) = refused else {
        return (taken > 0).then_some((conformance_model::choices::NO_BODY_LIMIT, None));
    };
    while over - taken > 1 {
        let mid = taken + (over - taken) / 2;
        match size(mid).await {
            Size::Taken | Size::OverCap => taken = mid,
            Size::Refused(st) => {
                over = mid;
                status = status.or(st);
            }
            Size::Unknown => return None,
        }
    }
    status.map(|st| (taken as u64, Some(st)))
}
