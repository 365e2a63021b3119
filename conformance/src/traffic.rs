//! Live and recorded traffic judged by the description's rules, both sides
//! of each exchange (`traffic-rules`): `conformance proxy` forwards every
//! request to the profile's server and judges what passes, `conformance
//! audit` judges a HAR file. What the rules know of the server comes from
//! the profile ([`ProfileKnows`]): its components, which require auth,
//! their declared fields, where `modelUuid` travels.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use conformance_model::choices::ModelUuidAt;
use conformance_model::fields::FieldType;
use conformance_model::profile::Profile;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response};
use traffic_rules::{Answer, Component, Field, Kind, Knows, Place, Request, Tally};

/// The largest body the proxy carries either way (the runner's own cap).
pub const MAX_BODY: usize = 1024 * 1024;

/// What a profile tells the rules.
pub struct ProfileKnows<'a>(pub &'a Profile);

impl Knows for ProfileKnows<'_> {
    fn component(&self, reference: &str) -> Option<Component> {
        let c = self
            .0
            .components
            .iter()
            .find(|c| c.uuid == reference || c.name == reference || c.tag == reference)?;
        Some(Component {
            requires_auth: c.requires_auth,
            fields: c.fields.as_ref().map(|fields| {
                fields
                    .0
                    .iter()
                    .map(|f| Field {
                        name: f.name.clone(),
                        kind: match f.kind {
                            FieldType::String => Kind::String,
                            FieldType::Integer => Kind::Integer,
                            FieldType::Number => Kind::Number,
                            FieldType::Boolean => Kind::Boolean,
                        },
                        required: f.required,
                    })
                    .collect()
            }),
        })
    }

    fn model_uuid_at(&self) -> Place {
        match self.0.choices.model_uuid().value {
            ModelUuidAt::Query(name) => Place::Query(name),
            ModelUuidAt::Header(name) => Place::Header(name),
            ModelUuidAt::Body(name) => Place::Body(name),
        }
    }
}

/// Judges one exchange on both sides and counts it.
pub fn judge(tally: &mut Tally, knows: &dyn Knows, req: &Request, answer: Option<&Answer>) {
    let mut findings = traffic_rules::client::judge_request(req, knows);
    if let Some(answer) = answer {
        let server = traffic_rules::server::judge_answer(req, answer, &findings);
        findings.extend(server);
    }
    tally.record_judged(req, answer, &findings, knows);
}

/// Every exchange of the HAR file at `path`, judged; the file is read
/// entry by entry.
pub fn audit(path: &std::path::Path, profile: &Profile) -> Result<Tally, String> {
    let file = std::fs::File::open(path)
        .map_err(|e| format!("{}: cannot read the HAR file: {e}", path.display()))?;
    let knows = ProfileKnows(profile);
    let mut tally = Tally::default();
    traffic_rules::har::read_entries(file, |req, answer| {
        let answer = answer.map(decoded);
        judge(&mut tally, &knows, &req, answer.as_ref());
    })
    .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(tally)
}

/// An answer read as its client reads it: a compressed body decoded (within
/// the cap; one that cannot be is judged as it came).
fn decoded(mut answer: Answer) -> Answer {
    let coding = answer
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-encoding"))
        .map(|(_, v)| String::from_utf8_lossy(v).into_owned());
    if let Some(coding) = coding {
        if let Some(Ok(body)) = conformance_wire::encoding::decode(&coding, &answer.body, MAX_BODY)
        {
            answer.body = body;
        }
    }
    answer
}

/// How the proxy runs.
#[derive(Clone, Debug)]
pub struct ProxyOptions {
    /// Where it listens. Default: a free port on 127.0.0.1.
    pub listen: SocketAddr,
    /// Stop after this many exchanges (tests, a bounded CI job).
    pub max_exchanges: Option<u64>,
    /// Stop after this long.
    pub duration: Option<Duration>,
    /// Time-out of a forwarded exchange.
    pub timeout: Duration,
}

impl Default for ProxyOptions {
    fn default() -> Self {
        ProxyOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            max_exchanges: None,
            duration: None,
            timeout: Duration::from_secs(30),
        }
    }
}

/// A proxy that is listening.
pub struct RunningProxy {
    addr: SocketAddr,
    tally: Arc<Mutex<Tally>>,
    done: tokio::sync::watch::Receiver<bool>,
    stop: tokio::sync::watch::Sender<bool>,
}

impl RunningProxy {
    /// `http://HOST:PORT`: point clients here instead of the server.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// What the exchanges so far showed.
    pub fn tally(&self) -> Tally {
        self.tally.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Waits until `max_exchanges` or `duration` ends it, or [`Self::stop`].
    pub async fn finished(&mut self) {
        let _ = self.done.wait_for(|d| *d).await;
    }

    /// Stops accepting new exchanges.
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

/// Starts the proxy in front of `profile`'s server.
pub async fn start_proxy(profile: Profile, options: ProxyOptions) -> Result<RunningProxy, String> {
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot listen: {e}"))?;
    // The bindings' builder: TLS through rustls on ring, its provider set.
    let client = component_auth_bindings::client_builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(options.timeout)
        .build()
        .map_err(|e| format!("cannot build the forwarding client: {e}"))?;
    let upstream = profile.base_url.trim_end_matches('/').to_owned();
    let tally = Arc::new(Mutex::new(Tally::default()));
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let (finish, done) = tokio::sync::watch::channel(false);
    let shared = Arc::new(Shared {
        profile,
        client,
        upstream,
        tally: tally.clone(),
        max: options.max_exchanges,
        finish,
    });
    if let Some(d) = options.duration {
        let shared = shared.clone();
        tokio::spawn(async move {
            tokio::time::sleep(d).await;
            let _ = shared.finish.send(true);
        });
    }
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = stopped.changed() => break,
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let shared = shared.clone();
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |req| {
                            let shared = shared.clone();
                            async move { Ok::<_, std::convert::Infallible>(shared.forward(req).await) }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                            .await;
                    });
                }
            }
        }
    });
    Ok(RunningProxy {
        addr,
        tally,
        done,
        stop,
    })
}

struct Shared {
    profile: Profile,
    client: reqwest::Client,
    upstream: String,
    tally: Arc<Mutex<Tally>>,
    max: Option<u64>,
    finish: tokio::sync::watch::Sender<bool>,
}

/// Headers that belong to one connection, not to the exchange (RFC 9110
/// 7.6.1), and `Host`, which the forwarding client sets.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

impl Shared {
    async fn forward(&self, req: HyperRequest<Incoming>) -> Response<Full<Bytes>> {
        let (parts, body) = req.into_parts();
        let body = match Limited::new(body, MAX_BODY).collect().await {
            Ok(b) => b.to_bytes(),
            Err(_) => {
                return plain(413, "the request body is over the proxy's 1 MiB cap");
            }
        };
        let target = parts
            .uri
            .path_and_query()
            .map_or_else(|| "/".to_owned(), |p| p.as_str().to_owned());
        let observed = Request {
            method: parts.method.as_str().to_owned(),
            target: target.clone(),
            headers: parts
                .headers
                .iter()
                .map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec()))
                .collect(),
            body: body.to_vec(),
        };
        let mut out = self
            .client
            .request(parts.method.clone(), format!("{}{target}", self.upstream))
            .body(body);
        for (name, value) in &parts.headers {
            if !HOP_BY_HOP.contains(&name.as_str()) {
                out = out.header(name, value);
            }
        }
        let answered = async {
            let resp = out.send().await?;
            let status = resp.status();
            let headers = resp.headers().clone();
            let body = resp.bytes().await?;
            Ok::<_, reqwest::Error>((status, headers, body))
        }
        .await;
        let (status, headers, body) = match answered {
            Ok(a) if a.2.len() <= MAX_BODY => a,
            Ok(_) => {
                return self.done(
                    &observed,
                    None,
                    plain(502, "the answer is over the proxy's 1 MiB cap"),
                );
            }
            Err(e) => {
                let why = format!("the server gave no answer: {}", e.without_url());
                return self.done(&observed, None, plain(502, &why));
            }
        };
        let seen = decoded(Answer {
            status: status.as_u16(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec()))
                .collect(),
            body: body.to_vec(),
        });
        let mut resp = Response::new(Full::new(body));
        *resp.status_mut() = status;
        for (name, value) in &headers {
            if !HOP_BY_HOP.contains(&name.as_str()) {
                resp.headers_mut().append(name, value.clone());
            }
        }
        self.done(&observed, Some(&seen), resp)
    }

    /// Judges the exchange, counts it, and ends the proxy when its count is
    /// reached.
    fn done(
        &self,
        req: &Request,
        answer: Option<&Answer>,
        resp: Response<Full<Bytes>>,
    ) -> Response<Full<Bytes>> {
        let count = {
            let mut tally = self.tally.lock().unwrap_or_else(|p| p.into_inner());
            judge(&mut tally, &ProfileKnows(&self.profile), req, answer);
            tally.exchanges()
        };
        if self.max.is_some_and(|max| count >= max) {
            let _ = self.finish.send(true);
        }
        resp
    }
}

fn plain(status: u16, text: &str) -> Response<Full<Bytes>> {
    let mut resp = Response::new(Full::new(Bytes::from(format!("{text}\n"))));
    *resp.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::BAD_GATEWAY);
    resp.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}
