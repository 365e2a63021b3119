//! The server as a mock that judges its clients: every request is held to
//! what the interface description requires of a client (`traffic-rules`,
//! the code the conformance proxy and `conformance audit` judge with), and
//! what it broke is kept, so a client team's test can assert that its
//! client broke no rule ([`crate::RunningServer::client_report`]), and a
//! failure names the rule and quotes its sentence.

use std::borrow::Cow;

use traffic_rules::{Component, Field, Kind, Knows, Place, Request, Tally};

use crate::behaviour::{Behaviour, ModelUuidSource};
use crate::fixture::Fixture;
use crate::settings::FieldType;

/// What the fixture tells the rules.
pub(crate) struct FixtureKnows<'a> {
    pub fixture: &'a Fixture,
    pub behaviour: &'a Behaviour,
}

impl Knows for FixtureKnows<'_> {
    fn component(&self, reference: &str) -> Option<Cow<'_, Component>> {
        let c = self
            .fixture
            .components
            .iter()
            .find(|c| c.uuid == reference || c.name == reference || c.tag == reference)?;
        Some(Cow::Owned(Component {
            requires_auth: c.requires_auth,
            fields: Some(
                c.settings
                    .auth
                    .iter()
                    .map(|f| Field {
                        name: f.name.clone(),
                        kind: match f.kind {
                            FieldType::String => Kind::String,
                            FieldType::Integer => Kind::Integer,
                            FieldType::Boolean => Kind::Boolean,
                        },
                        required: f.required,
                    })
                    .collect(),
            ),
            ..Component::default()
        }))
    }

    fn model_uuid_at(&self) -> Cow<'_, Place> {
        Cow::Owned(match self.behaviour.authorize.model_uuid {
            ModelUuidSource::Query => Place::default(),
            ModelUuidSource::Header(name) => Place::Header(name.to_owned()),
            ModelUuidSource::BodyField(name) => Place::Body(name.to_owned()),
        })
    }
}

/// Judges one request against the client's rules and counts what it broke.
pub(crate) fn judge(
    tally: &std::sync::Mutex<Tally>,
    knows: &FixtureKnows<'_>,
    parts: &hyper::http::request::Parts,
    body: &[u8],
) {
    let request = Request {
        method: parts.method.as_str().to_owned(),
        target: parts
            .uri
            .path_and_query()
            .map_or_else(|| parts.uri.path().to_owned(), |p| p.as_str().to_owned()),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec()))
            .collect(),
        body: body.to_vec(),
        body_cut: false,
    };
    let findings = traffic_rules::client::judge_request(&request, knows);
    tally
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .record(&request, None, &findings);
}
