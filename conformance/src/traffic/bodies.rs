//! Bodies streamed through the proxy both ways as they arrive, the first
//! [`MAX_BODY`] bytes of each teed aside for judging ([`Kept`]); the
//! exchange judged once the answer's body has passed ([`Answering`]'s
//! drop).

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use hyper::Response;
use hyper::body::{Body as _, Incoming};
use traffic_rules::{Answer, Request};

use super::proxy::Shared;
use super::{MAX_BODY, decoded, lock};

/// The first [`MAX_BODY`] bytes of a streamed body, kept for judging while
/// every byte is forwarded as it arrives. Past the cap nothing is kept
/// (the body is judged by no rule that reads it); the wire never sees the
/// cap.
#[derive(Default)]
pub(super) struct Kept {
    pub(super) chunks: Vec<Bytes>,
    pub(super) len: usize,
    /// Over the cap: `chunks` dropped.
    pub(super) over: bool,
    /// The body's end was seen.
    pub(super) ended: bool,
}

impl Kept {
    fn keep(&mut self, chunk: &Bytes) {
        if self.over {
            return;
        }
        self.len += chunk.len();
        if self.len > MAX_BODY {
            self.over = true;
            self.chunks = Vec::new();
        } else if !chunk.is_empty() {
            // A clone of `Bytes` is a count, not a copy.
            self.chunks.push(chunk.clone());
        }
    }

    /// The body as judged, and whether it was cut (over the cap, or its
    /// end never seen).
    pub(super) fn take(&mut self) -> (Vec<u8>, bool) {
        if self.over || !self.ended {
            return (Vec::new(), true);
        }
        (std::mem::take(&mut self.chunks).concat(), false)
    }
}

/// The client's request body on its way to the server: each frame passed
/// on as it comes, its data teed into the exchange's [`Kept`]; or none.
pub(super) struct Sending {
    pub(super) inner: Option<(Incoming, Arc<Mutex<Kept>>)>,
}

impl hyper::body::Body for Sending {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, hyper::Error>>> {
        let Some((body, kept)) = &mut self.inner else {
            return std::task::Poll::Ready(None);
        };
        let polled = std::pin::Pin::new(&mut *body).poll_frame(cx);
        match &polled {
            std::task::Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    let mut kept = lock(kept);
                    kept.keep(data);
                    // The last frame of a body of known length: its reader
                    // may not poll again.
                    kept.ended |= body.is_end_stream();
                }
            }
            std::task::Poll::Ready(None) => lock(kept).ended = true,
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.as_ref().is_none_or(|(b, _)| b.is_end_stream())
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.as_ref().map_or_else(
            || hyper::body::SizeHint::with_exact(0),
            |(b, _)| b.size_hint(),
        )
    }
}

/// The proxy's answer to its client: the server's body streamed through
/// (teed into a [`Kept`]), or the proxy's own short text. The exchange is
/// judged when hyper is done with the body (its last byte handed to the
/// connection, or the client gone): after the answer is forwarded, on the
/// connection's task, before the connection reads its next request.
pub(super) struct Answering {
    pub(super) inner: Inner,
    pub(super) kept: Kept,
    pub(super) pending: Option<Pending>,
}

pub(super) enum Inner {
    Plain(Option<Bytes>),
    /// From hyper's client, with the exchange's deadline (its timer set
    /// only when the body makes it wait).
    Streamed {
        body: Incoming,
        deadline: tokio::time::Instant,
        timer: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
    },
    /// From the bindings' client, which keeps its own deadline.
    Bindings(reqwest::Body),
}

pub(super) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What judging the exchange needs once its answer's body has passed.
pub(super) struct Pending {
    pub(super) shared: Arc<Shared>,
    pub(super) req: Request,
    /// The request body's [`Kept`]; `None`: it had none.
    pub(super) req_body: Option<Arc<Mutex<Kept>>>,
    pub(super) status: u16,
    pub(super) headers: Vec<(String, Vec<u8>)>,
}

impl Answering {
    pub(super) fn plain(status: u16, text: &str) -> Response<Answering> {
        let mut resp = Response::new(Answering {
            inner: Inner::Plain(Some(Bytes::from(format!("{text}\n")))),
            kept: Kept::default(),
            pending: None,
        });
        *resp.status_mut() =
            hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::BAD_GATEWAY);
        resp.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        resp
    }
}

impl hyper::body::Body for Answering {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, BoxError>>> {
        use std::task::Poll;
        let this = &mut *self;
        let polled: Poll<Option<Result<hyper::body::Frame<Bytes>, BoxError>>> =
            match &mut this.inner {
                Inner::Plain(text) => {
                    return Poll::Ready(text.take().map(|t| Ok(hyper::body::Frame::data(t))));
                }
                Inner::Streamed {
                    body,
                    deadline,
                    timer,
                } => match std::pin::Pin::new(&mut *body).poll_frame(cx) {
                    Poll::Pending => {
                        let timer = timer
                            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(*deadline)));
                        match timer.as_mut().poll(cx) {
                            Poll::Ready(()) => Poll::Ready(Some(Err(
                                "the server's answer took longer than the time-out".into(),
                            ))),
                            Poll::Pending => Poll::Pending,
                        }
                    }
                    Poll::Ready(frame) => Poll::Ready(frame.map(|f| f.map_err(Into::into))),
                },
                Inner::Bindings(body) => std::pin::Pin::new(body)
                    .poll_frame(cx)
                    .map(|frame| frame.map(|f| f.map_err(Into::into))),
            };
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.kept.keep(data);
                }
            }
            Poll::Ready(Some(Err(_))) => this.kept.over = true,
            Poll::Ready(None) => this.kept.ended = true,
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            Inner::Plain(text) => text.is_none(),
            Inner::Streamed { body, .. } => body.is_end_stream(),
            Inner::Bindings(body) => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        match &self.inner {
            Inner::Plain(text) => {
                hyper::body::SizeHint::with_exact(text.as_ref().map_or(0, |t| t.len() as u64))
            }
            Inner::Streamed { body, .. } => body.size_hint(),
            Inner::Bindings(body) => body.size_hint(),
        }
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        let Some(mut p) = self.pending.take() else {
            return;
        };
        // hyper may stop polling once the body's length is reached.
        self.kept.ended |= match &self.inner {
            Inner::Plain(_) => true,
            Inner::Streamed { body, .. } => body.is_end_stream(),
            Inner::Bindings(body) => body.is_end_stream(),
        };
        if let Some(kept) = &p.req_body {
            let (body, cut) = lock(kept).take();
            p.req.body = body;
            p.req.body_cut = cut;
        }
        let (body, body_cut) = self.kept.take();
        let seen = decoded(Answer {
            status: p.status,
            headers: std::mem::take(&mut p.headers),
            body,
            body_cut,
        });
        p.shared.done(&p.req, Some(&seen));
    }
}
