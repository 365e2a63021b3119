//! §4.2 "sent as JSON", however HTTP lets the JSON media type be spelt
//! (RFC 9110 section 8.3.1: the type, subtype and parameter names are
//! case-insensitive; parameters may follow). The requests are made once
//! per run (`generate::edges`) and judged here.

use crate::case::{CaseCheck, Expect, Sends};
use crate::catalogue::{Check, Cites, Level, Subject};
use crate::generate::Family;
use conformance_requirements as requirement;

pub fn checks() -> Vec<Check> {
    vec![
        CaseCheck {
            id: "media-type/json-spellings",
            subject: Subject::NONE,
            level: Level::Must,
            section: "4.2",
            cites: Cites::Requirement(&requirement::BODY_AS_JSON),
            title: "a JSON body is taken as JSON however HTTP lets the media type be spelt (RFC 9110 section 8.3.1)".into(),
            sends: Sends::Generated(Family::MediaType),
            expects: Expect::Accepted,
        }
        .into(),
    ]
}
