//! What a case expects of its answers: accepted, refused, a failed
//! validation, the status the server chose, or a judgement in words of
//! each answer or of all of them together; each in words for the
//! catalogue.

use crate::probes::ErrorProbe;
use conformance_model::choices::{ChoiceKey, Choices, Chosen};
use conformance_model::profile::Component;
use conformance_wire::request::Sent;

use super::sends::Change;

/// A judgement of one answer.
pub type Judge = fn(&Sent) -> Result<(), String>;

/// One answer of a case, with what it was an answer to.
pub struct Answer<'a> {
    pub label: &'a str,
    pub sent: &'a Sent,
    /// The component the request went to (declared requests only).
    pub component: Option<&'a Component>,
    /// How the valid request was changed (declared requests only).
    pub change: Option<Change>,
    /// The same request with the profile's own value, to compare with
    /// (generated uuid forms only).
    pub reference: Option<&'a Sent>,
    /// Which error probe it answered (the shared probes only): a judgement
    /// of one probe apart picks it by this, never by its label.
    pub probe: Option<ErrorProbe>,
}

/// A judgement of one answer, with what it answered.
pub type JudgeAnswer = fn(&Answer<'_>) -> Result<(), String>;

/// What a judgement of all of a case's answers found.
pub enum Found {
    /// Each a line of the failure; none: the check passes.
    Failures(Vec<String>),
    /// The rule holds "when" something happens, and nothing made it happen.
    NotApplicable(String),
}

/// Each answer's `request_id` (a string in its JSON body), by its label.
pub fn request_ids<'a>(answers: &[Answer<'a>]) -> Vec<(&'a str, String)> {
    answers
        .iter()
        .filter_map(|a| {
            let id = a
                .sent
                .raw()?
                .json()?
                .get("request_id")?
                .as_str()?
                .to_owned();
            Some((a.label, id))
        })
        .collect()
}

/// `answers` in runs of one component each, in order.
pub fn per_component<'a, 'b>(answers: &'b [Answer<'a>]) -> Vec<&'b [Answer<'a>]> {
    let mut out = Vec::new();
    let mut rest = answers;
    while let Some(first) = rest.first() {
        let n = rest
            .iter()
            .take_while(|a| match (a.component, first.component) {
                (Some(x), Some(y)) => std::ptr::eq(x, y),
                _ => false,
            })
            .count()
            .max(1);
        let (run, tail) = rest.split_at(n);
        out.push(run);
        rest = tail;
    }
    out
}

/// A judgement of all of a case's answers together.
pub type JudgeAll = fn(&[Answer<'_>], &Choices) -> Found;

/// What must happen to the answers.
#[derive(Clone)]
pub enum Expect {
    /// A 2xx.
    Accepted,
    /// A refusal of the description ([`conformance_wire::envelope::REFUSED`]).
    Refused,
    /// A 417 in the 7.2 shape.
    ValidationFailed,
    /// The unchanged requests a 2xx, the changed ones a refusal.
    AcceptedUnlessChanged,
    /// The status the profile declares for the choice `key`, else ours;
    /// not applicable where `unless` gives a reason (the profile declares
    /// that the case cannot arise).
    Chosen {
        key: ChoiceKey,
        status: fn(&Choices) -> Chosen<u16>,
        unless: fn(&Choices) -> Option<&'static str>,
        /// The request fails a validation the description's tables state
        /// (a required header, an allowed value, a JSON body): where the
        /// profile declares no status, a 417 is the text's own answer
        /// (§7 rule 1) and passes beside ours.
        fails_validation: bool,
    },
    /// A judgement of the profile's choice `key` (a GET body ignored, a
    /// token checked), described in words.
    Depends {
        key: ChoiceKey,
        text: &'static str,
        judge: fn(&Choices) -> Judge,
    },
    /// Any other judgement of each answer, described in words (where
    /// `{accepted}` and `{refused}` stand for what those words mean).
    Custom {
        text: &'static str,
        judge: JudgeAnswer,
    },
    /// A judgement of each answer `when` picks; not applicable, for the
    /// reason `none`, when it picks none.
    When {
        when: fn(&Sent) -> bool,
        none: &'static str,
        text: &'static str,
        judge: JudgeAnswer,
    },
    /// A judgement of all answers together (compared, counted), described
    /// in words; `choice`: the profile's choice it reads, if any.
    Together {
        text: &'static str,
        choice: Option<ChoiceKey>,
        judge: JudgeAll,
    },
    /// What the run of a [`Sends::Own`](super::sends::Sends::Own) holds the answers to, in words
    /// (that run judges them).
    Own(String),
}

impl Expect {
    /// What must happen, in words, for the catalogue.
    pub fn describe(&self) -> String {
        match self {
            Expect::Accepted => crate::judge::ACCEPTED.to_owned(),
            Expect::Refused => conformance_wire::envelope::REFUSED.to_owned(),
            Expect::ValidationFailed => crate::judge::IS_417.to_owned(),
            Expect::AcceptedUnlessChanged => format!(
                "the valid requests: {}; the others: {}",
                crate::judge::ACCEPTED,
                conformance_wire::envelope::REFUSED
            ),
            Expect::Chosen {
                key,
                status,
                fails_validation,
                ..
            } => format!(
                "the status the profile declares as `choices.{key}`; where it declares none, ours: {}{}",
                status(&Choices::default()).value,
                if *fails_validation {
                    ", or 417 (§7 rule 1: the request fails validation)"
                } else {
                    ""
                }
            ),
            Expect::Depends { text, .. }
            | Expect::Custom { text, .. }
            | Expect::When { text, .. }
            | Expect::Together { text, .. } => text
                .replace("{accepted}", crate::judge::ACCEPTED)
                .replace("{refused}", conformance_wire::envelope::REFUSED),
            Expect::Own(text) => text.clone(),
        }
    }

    /// The choice a check of this expectation judges, if any.
    pub fn choice(&self) -> Option<ChoiceKey> {
        match self {
            Expect::Chosen { key, .. } | Expect::Depends { key, .. } => Some(*key),
            Expect::Together { choice, .. } => *choice,
            _ => None,
        }
    }
}
