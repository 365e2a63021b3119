//! What a check sends and what comes back, before any judgement: the two
//! operations ([`Op`]), a request built by the generated bindings and still
//! changeable ([`Req`]), one labelled request ([`Probe`]) and one request
//! sent with its typed answer ([`Sent`]).

use component_auth_bindings::{
    AuthClaimsResponse, AuthorizeResponse, Error, Prepared, RawResponse,
};

use crate::exchange::Exchange;
use conformance_model::choices::ModelUuidAt;

/// The two operations of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    AuthClaims,
    Authorize,
}

impl Op {
    pub const BOTH: [Op; 2] = [Op::AuthClaims, Op::Authorize];

    /// The id segment: `auth-claims`, `authorize`.
    pub fn id(self) -> &'static str {
        match self {
            Op::AuthClaims => "auth-claims",
            Op::Authorize => "authorize",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Op::AuthClaims => "Auth Claims",
            Op::Authorize => "Authorize",
        }
    }

    pub fn method(self) -> &'static str {
        match self {
            Op::AuthClaims => "GET",
            Op::Authorize => "POST",
        }
    }

    /// The section of the description that lists the operation.
    pub fn section(self) -> &'static str {
        match self {
            Op::AuthClaims => "4.1",
            Op::Authorize => "4.2",
        }
    }
}

/// A request of either operation, built by the bindings and still changeable.
#[derive(Debug)]
pub enum Req {
    Claims(Prepared<AuthClaimsResponse>),
    /// With the body field that carries `modelUuid`, where the profile
    /// says it travels in the body: a body put in its place keeps it.
    Authorize(Prepared<AuthorizeResponse>, Option<BodyField>),
}

/// A field every JSON object body of a request carries (`modelUuid`
/// declared as `body:FIELD`).
#[derive(Clone, Debug)]
pub struct BodyField {
    pub name: String,
    pub value: String,
}

impl BodyField {
    /// `body` with the field added, when it is a JSON object without it;
    /// any other body as it is.
    fn put_in(&self, body: bytes::Bytes) -> bytes::Bytes {
        match serde_json::from_slice::<serde_json::Value>(&body) {
            Ok(serde_json::Value::Object(mut map)) if !map.contains_key(&self.name) => {
                map.insert(
                    self.name.clone(),
                    serde_json::Value::String(self.value.clone()),
                );
                serde_json::to_vec(&map).map_or(body, bytes::Bytes::from)
            }
            _ => body,
        }
    }
}

macro_rules! both {
    ($self:ident, $p:ident => $e:expr) => {
        match $self {
            Req::Claims($p) => Req::Claims($e),
            Req::Authorize($p, field) => Req::Authorize($e, field),
        }
    };
}

impl Req {
    /// The operation the request is of.
    pub fn op(&self) -> Op {
        match self {
            Req::Claims(..) => Op::AuthClaims,
            Req::Authorize(..) => Op::Authorize,
        }
    }

    pub fn remove_header(self, name: &str) -> Self {
        both!(self, p => p.remove_header(name))
    }

    pub fn set_header(self, name: &str, value: &str) -> Result<Self, Error> {
        Ok(match self {
            Req::Claims(p) => Req::Claims(p.set_header(name, value)?),
            Req::Authorize(p, f) => Req::Authorize(p.set_header(name, value)?, f),
        })
    }

    /// Puts `body` in place of the request's body (a body-carried
    /// `modelUuid` is added to a JSON object that lacks it).
    pub fn raw_body(self, body: impl Into<bytes::Bytes>) -> Self {
        let body = body.into();
        match self {
            Req::Claims(p) => Req::Claims(p.raw_body(body)),
            Req::Authorize(p, f) => {
                let body = f.as_ref().map_or(body.clone(), |f| f.put_in(body));
                Req::Authorize(p.raw_body(body), f)
            }
        }
    }

    /// The length of the body as it will be sent (a `modelUuid` carried in
    /// the body included); `None` without a body held in memory.
    pub fn body_len(&self) -> Option<usize> {
        let request = match self {
            Req::Claims(p) => p.request(),
            Req::Authorize(p, _) => p.request(),
        };
        request.body()?.as_bytes().map(<[u8]>::len)
    }

    /// The request with no `modelUuid`, wherever `at` says it travels.
    pub fn without_model_uuid(self, at: &ModelUuidAt) -> Self {
        match at {
            ModelUuidAt::Query(name) => self.without_query_param(name),
            ModelUuidAt::Header(name) => self.remove_header(name),
            ModelUuidAt::Body(name) => match self {
                Req::Authorize(p, _) => {
                    let body = p.request().body().and_then(|b| b.as_bytes()).map(|b| {
                        match serde_json::from_slice::<serde_json::Value>(b) {
                            Ok(serde_json::Value::Object(mut map)) => {
                                map.remove(name);
                                serde_json::to_vec(&map).unwrap_or_else(|_| b.to_vec())
                            }
                            _ => b.to_vec(),
                        }
                    });
                    match body {
                        Some(body) => Req::Authorize(p.raw_body(body), None),
                        None => Req::Authorize(p, None),
                    }
                }
                other => other,
            },
        }
    }

    /// The request with `modelUuid` `value`, wherever `at` says it travels.
    pub fn with_model_uuid(self, at: &ModelUuidAt, value: &str) -> Result<Self, Error> {
        let r = self.without_model_uuid(at);
        match at {
            ModelUuidAt::Query(name) => Ok(r.with_query_param(name, value)),
            ModelUuidAt::Header(name) => r.set_header(name, value),
            ModelUuidAt::Body(name) => Ok(match r {
                Req::Authorize(p, _) => {
                    let field = BodyField {
                        name: name.clone(),
                        value: value.to_owned(),
                    };
                    let body = p
                        .request()
                        .body()
                        .and_then(|b| b.as_bytes())
                        .map(|b| field.put_in(bytes::Bytes::copy_from_slice(b)));
                    let p = match body {
                        Some(body) => p.raw_body(body),
                        None => p,
                    };
                    Req::Authorize(p, Some(field))
                }
                other => other,
            }),
        }
    }

    pub fn method(self, method: reqwest::Method) -> Self {
        both!(self, p => p.method(method))
    }

    pub fn url_mut(&mut self) -> &mut reqwest::Url {
        match self {
            Req::Claims(p) => p.url_mut(),
            Req::Authorize(p, _) => p.url_mut(),
        }
    }

    /// Drops a query parameter (e.g. `modelUuid`), keeping the others.
    pub fn without_query_param(mut self, name: &str) -> Self {
        let url = self.url_mut();
        let kept: Vec<(String, String)> = url
            .query_pairs()
            .filter(|(k, _)| !k.eq_ignore_ascii_case(name))
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if kept.is_empty() {
            url.set_query(None);
        } else {
            url.query_pairs_mut().clear().extend_pairs(kept);
        }
        self
    }

    /// Sets a query parameter, replacing any value it had.
    pub fn with_query_param(self, name: &str, value: &str) -> Self {
        let mut r = self.without_query_param(name);
        r.url_mut().query_pairs_mut().append_pair(name, value);
        r
    }

    /// Removes `prefix` (e.g. `/v2/api`) from the path, wherever the
    /// base URL put it.
    pub fn without_path_prefix(mut self, prefix: &str) -> Self {
        let url = self.url_mut();
        let path = url.path().to_owned();
        if let Some(at) = path.find(&format!("{prefix}/")) {
            let new = format!("{}{}", &path[..at], &path[at + prefix.len()..]);
            url.set_path(&new);
        }
        self
    }

    /// Sends no body (and no `Content-Type`).
    pub fn without_body(self) -> Self {
        both!(self, p => p.without_body())
    }

    /// Puts `encoded` (already percent-encoded, sent as it is) in place of
    /// the ref segment, the one before `/auth`.
    pub fn with_encoded_ref(mut self, encoded: &str) -> Self {
        let url = self.url_mut();
        let path = url.path().to_owned();
        if let Some(end) = path.rfind("/auth") {
            let start = path[..end].rfind('/').map_or(0, |i| i + 1);
            let new = format!("{}{encoded}{}", &path[..start], &path[end..]);
            url.set_path(&new);
        }
        self
    }

    pub fn try_clone(&self) -> Option<Self> {
        Some(match self {
            Req::Claims(p) => Req::Claims(p.try_clone()?),
            Req::Authorize(p, f) => Req::Authorize(p.try_clone()?, f.clone()),
        })
    }

    pub fn request(&self) -> &reqwest::Request {
        match self {
            Req::Claims(p) => p.request(),
            Req::Authorize(p, _) => p.request(),
        }
    }
}

/// Which letter case header names travel in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// `x-client-id`: what HTTP/2 requires and reqwest sends by default.
    Lower,
    /// `X-Client-Id`: as the description spells them.
    Title,
}

/// One request a check sends: a label for the report, the request (or why
/// it could not be built) and the letter case its header names travel in.
#[derive(Debug)]
pub struct Probe {
    pub label: String,
    pub request: Result<Req, Error>,
    pub case: Case,
}

impl Probe {
    /// A probe whose header names travel in lower case.
    pub fn new(label: impl Into<String>, request: Result<Req, Error>) -> Self {
        Probe {
            label: label.into(),
            request,
            case: Case::Lower,
        }
    }

    pub fn case(mut self, case: Case) -> Self {
        self.case = case;
        self
    }
}

/// The typed answer, decoded by its operation's decoder.
#[derive(Clone, Debug)]
pub enum Typed {
    Claims(AuthClaimsResponse),
    Authorize(AuthorizeResponse),
}

impl Typed {
    pub fn raw(&self) -> &RawResponse {
        match self {
            Typed::Claims(r) => r.raw(),
            Typed::Authorize(r) => r.raw(),
        }
    }

    /// The name of the decoded variant, one of
    /// [`component_auth_bindings::variants`].
    pub fn variant(&self) -> &'static str {
        match self {
            Typed::Claims(r) => r.variant_name(),
            Typed::Authorize(r) => r.variant_name(),
        }
    }
}

/// One request sent and what came of it.
#[derive(Clone, Debug)]
pub struct Sent {
    pub exchange: Exchange,
    /// `None` when no answer came (the reason is in `exchange.error`).
    pub typed: Option<Typed>,
    /// What the judgements read of the answer's body, read once as it
    /// came (default when no answer came).
    pub read: crate::envelope::BodyRead,
    /// The server answered, with a body over the run's cap (`Limits::max_body_bytes`):
    /// an answer all the same, only not kept.
    pub answered_over_cap: bool,
}

impl Sent {
    pub fn raw(&self) -> Option<&RawResponse> {
        self.typed.as_ref().map(Typed::raw)
    }

    pub fn status(&self) -> Option<u16> {
        self.raw().map(|r| r.status)
    }

    /// Whether an answer came and its body is one JSON value.
    pub fn is_json(&self) -> bool {
        self.raw().is_some() && self.read.is_json
    }

    /// On a 400 or 417: the envelope's members (`envelope::members`).
    pub fn members(&self) -> Option<&serde_json::Value> {
        self.read.members.as_ref()
    }

    /// What is wrong with the answer as a refusal of the description
    /// (`envelope::refusal_problems`); `None` when no answer came.
    pub fn refusal_problems(&self) -> Option<Vec<String>> {
        self.raw()
            .map(|raw| crate::envelope::refusal_problems_read(raw, &self.read))
    }

    /// What is wrong with the answer as an error answer of the description
    /// (`envelope::error_problems`); `None` when no answer came.
    pub fn error_problems(&self) -> Option<Vec<String>> {
        self.raw()
            .map(|raw| crate::envelope::error_problems_read(raw, &self.read))
    }

    /// The answer in a line, secrets removed.
    pub fn summary(&self) -> String {
        self.exchange.summary()
    }
}
