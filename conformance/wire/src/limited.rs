//! The limit answers a run keeps: a server's 429s and 503s with
//! `Retry-After` are waited for and re-sent ([`crate::transport`]), never
//! judged as its answer to a rule; a few of each kind are kept for the
//! check that judges them as error answers.

use component_auth_bindings::RawResponse;

use crate::exchange::{Exchange, Recording, RequestRecord, ResponseRecord, Scrubber};

/// The limit answers kept so far, and the kind of each.
#[derive(Debug, Default)]
pub(crate) struct LimitAnswers {
    kinds: Vec<(u16, String, bool, String)>,
    kept: Vec<Exchange>,
}

impl LimitAnswers {
    /// Keeps a limit answer: the first few of each kind (status, media
    /// type, X-Project-Uuid or not, content coding), so a run holds a
    /// handful whatever the server limits.
    pub(crate) fn keep(
        &mut self,
        label: &str,
        request: &RequestRecord,
        raw: &RawResponse,
        curl: Option<&str>,
        scrub: &Scrubber,
        max_body_bytes: usize,
    ) {
        let kind = (
            raw.status,
            raw.header("content-type").unwrap_or_default().to_owned(),
            raw.header("x-project-uuid").is_some(),
            raw.header("content-encoding")
                .unwrap_or_default()
                .to_owned(),
        );
        let same = self.kinds.iter().filter(|k| **k == kind).count();
        if same >= 2 || self.kept.len() >= 16 {
            return;
        }
        self.kinds.push(kind);
        // Read as any answer is: decoded where it came compressed (a limit
        // answer compresses like the others where the request accepts it).
        let decoded;
        let raw = match raw
            .header("content-encoding")
            .and_then(|coding| crate::encoding::decode(coding, &raw.body, max_body_bytes))
        {
            Some(Ok(body)) => {
                decoded = RawResponse {
                    status: raw.status,
                    headers: raw.headers.clone(),
                    body: body.into(),
                };
                &decoded
            }
            _ => raw,
        };
        self.kept.push(Exchange {
            label: format!("{label} (limited)"),
            request: request.clone(),
            response: Some(ResponseRecord::from_raw(raw, scrub, Recording::default())),
            error: None,
            retried: None,
            limited: None,
            unanswered: None,
            latency: Default::default(),
            curl: curl.map(str::to_owned),
        });
    }

    /// The answers kept, in the order they came.
    pub(crate) fn kept(&self) -> &[Exchange] {
        &self.kept
    }
}
