//! A check declared as data: what it sends and what must happen, apart.
//!
//! Most checks send a valid request changed in one way (a header dropped, a
//! wrong secret, an unknown ref) and judge each answer the same way
//! (accepted, refused, a failed validation, the status the server chose).
//! Such a check is a [`Case`]: a [`Sends`] and an [`Expect`], from which
//! the catalogue's `sends` and `expects` texts are rendered and the check is
//! run, so the words and the judgement cannot drift apart. Checks whose
//! judgement needs more (shared probes, generated cases, a kept-alive
//! connection) keep a function of their own ([`crate::catalogue::Run`]).
//!
//! ```ignore
//! Case {
//!     sends: Sends::primary(Op::AuthClaims, Change::DropHeader("X-Client-Secret")),
//!     expects: Expect::Refused,
//! }
//! ```

use crate::context::RunContext;
use std::sync::Arc;

use crate::catalogue::{Outcome, Run};
use crate::choices::{Choices, Chosen};
use crate::needs::Need;
use crate::profile::Component;
use crate::target::{Op, Probe, Req, Sent, Target};

/// Which components a case's requests go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum To {
    /// The operation's primary component (the first that requires auth,
    /// so every header is in play; else the first).
    Primary,
    /// Every component that can take the operation.
    Each,
    /// Every component that requires auth.
    EachRequiringAuth,
    /// Every component that does not require auth.
    EachWithoutAuth,
    /// Every component with an `authorize.invalid_body`.
    EachWithInvalidBody,
}

/// The one way a valid request is changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Nothing,
    DropHeader(&'static str),
    Header(&'static str, &'static str),
    /// The ref segment replaced by this one.
    Ref(&'static str),
    /// The body replaced by these bytes.
    Body(&'static str),
    /// The body replaced by the component's `invalid_body`.
    InvalidBody,
    /// `modelUuid` left out, wherever the profile says it travels.
    NoModelUuid,
    /// `modelUuid` naming this model, wherever it travels.
    ModelUuid(&'static str),
    /// A JSON body 6 KiB over the body limit (`choices.body_limit`).
    BodyOverLimit,
}

/// What a case sends: a valid request of `op` to the components `to`
/// names, changed in each of the ways `changes` lists (one request per
/// component and change).
#[derive(Clone, Debug)]
pub struct Sends {
    pub op: Op,
    pub to: To,
    pub changes: Vec<Change>,
}

impl Sends {
    /// The valid request of `op` to its primary component, changed once.
    pub fn primary(op: Op, change: Change) -> Self {
        Sends {
            op,
            to: To::Primary,
            changes: vec![change],
        }
    }

    /// The valid request of `op` to each component `to` names, changed once.
    pub fn each(op: Op, to: To, change: Change) -> Self {
        Sends {
            op,
            to,
            changes: vec![change],
        }
    }

    /// What the profile must hold for the requests to be made.
    pub fn needs(&self) -> Vec<Need> {
        let mut needs: Vec<Need> = Need::of(self.op).to_vec();
        match (self.to, self.op) {
            (To::EachRequiringAuth, Op::AuthClaims) => needs.push(Need::RequiresAuth),
            (To::EachRequiringAuth, Op::Authorize) => needs.push(Need::RequiresAuthWithAuthorize),
            (To::EachWithoutAuth, Op::AuthClaims) => needs.push(Need::NoAuth),
            (To::EachWithoutAuth, Op::Authorize) => needs.push(Need::NoAuthWithAuthorize),
            (To::EachWithInvalidBody, _) => needs.push(Need::InvalidBody),
            _ => {}
        }
        needs
    }

    /// The request in words, for the catalogue.
    pub fn describe(&self) -> String {
        let to = match self.to {
            To::Primary => String::new(),
            To::Each => " to each component that can take it".to_owned(),
            To::EachRequiringAuth => " to each component that requires auth".to_owned(),
            To::EachWithoutAuth => " to each component that does not require auth".to_owned(),
            To::EachWithInvalidBody => " to each component with an `invalid_body`".to_owned(),
        };
        let changes: Vec<String> = self.changes.iter().map(|c| c.describe()).collect();
        let how = match changes.as_slice() {
            [] => String::new(),
            [one] if one.is_empty() => String::new(),
            many => format!(", {}", many.join("; and one ")),
        };
        format!("a valid {} request{to}{how}", self.op.title())
    }
}

impl Change {
    fn describe(self) -> String {
        match self {
            Change::Nothing => String::new(),
            Change::DropHeader(h) => format!("without {h}"),
            Change::Header(h, "") => format!("with an empty {h}"),
            Change::Header(h, v) => format!("with {h}: {v}"),
            Change::Ref(r) => format!("with ref `{r}`"),
            Change::Body(b) => format!("whose body is `{b}`"),
            Change::InvalidBody => "carrying its `invalid_body`".to_owned(),
            Change::NoModelUuid => "without modelUuid anywhere".to_owned(),
            Change::ModelUuid(m) => format!("whose modelUuid is `{m}`"),
            Change::BodyOverLimit => {
                "whose JSON body is 6 KiB over the body limit (`choices.body_limit`, ours 64 KiB)"
                    .to_owned()
            }
        }
    }

    /// A short label for one request, as exchanges show it.
    fn label(self) -> String {
        match self {
            Change::Nothing => "valid".to_owned(),
            other => other.describe(),
        }
    }

    fn apply(
        self,
        t: &Target,
        op: Op,
        c: &Component,
    ) -> Option<Result<Req, component_auth_bindings::Error>> {
        let valid = || t.valid(op, c);
        Some(match self {
            Change::Nothing => valid(),
            Change::DropHeader(h) => valid().map(|r| r.remove_header(h)),
            Change::Header(h, v) => valid().and_then(|r| r.set_header(h, v)),
            Change::Ref(r) => t.valid_with_ref(op, c, r),
            Change::Body(b) => valid().map(|r| r.raw_body(b.as_bytes().to_vec())),
            Change::InvalidBody => t.with_invalid_body(op, c)?,
            Change::NoModelUuid => {
                let at = t.profile.choices.model_uuid().value;
                valid().map(|r| r.without_model_uuid(&at))
            }
            Change::ModelUuid(m) => {
                let at = t.profile.choices.model_uuid().value;
                valid().and_then(|r| r.with_model_uuid(&at, m))
            }
            Change::BodyOverLimit => {
                let limit =
                    usize::try_from(t.profile.choices.body_limit().value).unwrap_or(usize::MAX / 2);
                let pad = "x".repeat(limit.saturating_add(6 * 1024).min(16 << 20));
                valid().map(|r| r.raw_body(format!("{{\"pad\":\"{pad}\"}}").into_bytes()))
            }
        })
    }
}

/// A judgement of one answer.
pub type Judge = fn(&Sent) -> Result<(), String>;

/// What must happen to each answer.
#[derive(Clone, Copy)]
pub enum Expect {
    /// A 2xx.
    Accepted,
    /// A refusal of the description ([`crate::envelope::REFUSED`]).
    Refused,
    /// A 417 in the 7.2 shape.
    ValidationFailed,
    /// The status the profile declares for the choice `key`, else ours.
    Chosen {
        key: &'static str,
        status: fn(&Choices) -> Chosen<u16>,
    },
    /// A judgement of the profile's choice `key` (a GET body ignored, a
    /// token checked), described in words.
    Depends {
        key: &'static str,
        text: &'static str,
        judge: fn(&Choices) -> Judge,
    },
    /// Any other judgement of each answer, described in words.
    Custom { text: &'static str, judge: Judge },
}

impl Expect {
    /// What must happen, in words, for the catalogue.
    pub fn describe(&self) -> String {
        match self {
            Expect::Accepted => crate::checks::ACCEPTED.to_owned(),
            Expect::Refused => crate::envelope::REFUSED.to_owned(),
            Expect::ValidationFailed => crate::checks::IS_417.to_owned(),
            Expect::Chosen { key, status } => format!(
                "the status the profile declares as `choices.{key}`; where it declares none, ours: {}",
                status(&Choices::default()).value
            ),
            Expect::Depends { text, .. } | Expect::Custom { text, .. } => (*text).to_owned(),
        }
    }

    fn judge(&self, choices: &Choices, sent: &Sent) -> Result<(), String> {
        match self {
            Expect::Accepted => crate::checks::accepted(sent),
            Expect::Refused => crate::checks::refused(sent),
            Expect::ValidationFailed => crate::checks::is_417(sent),
            Expect::Chosen { key, status } => crate::checks::status_is(sent, &status(choices), key),
            Expect::Depends { judge, .. } => judge(choices)(sent),
            Expect::Custom { judge, .. } => judge(sent),
        }
    }

    /// The choice a check of this expectation judges, if any.
    pub fn choice(&self) -> Option<&'static str> {
        match self {
            Expect::Chosen { key, .. } | Expect::Depends { key, .. } => Some(key),
            _ => None,
        }
    }
}

/// A check declared by its request and expectation: everything a
/// [`Check`](crate::catalogue::Check) holds but the texts and the run, which are rendered from
/// `sends` and `expects`.
pub struct CaseCheck {
    pub id: String,
    pub level: crate::catalogue::Level,
    pub section: &'static str,
    pub quote: &'static str,
    pub title: String,
    pub sends: Sends,
    pub expects: Expect,
}

impl From<CaseCheck> for crate::catalogue::Check {
    fn from(c: CaseCheck) -> Self {
        let case = Case {
            sends: c.sends,
            expects: c.expects,
        };
        crate::catalogue::Check {
            id: c.id,
            level: c.level,
            section: c.section,
            quote: c.quote,
            title: c.title,
            sends: case.sends.describe(),
            expects: case.expects.describe(),
            run: case.clone().run(),
        }
    }
}

/// A check's request and expectation.
#[derive(Clone)]
pub struct Case {
    pub sends: Sends,
    pub expects: Expect,
}

impl Case {
    /// The check's run: every request sent concurrently, each answer judged.
    pub fn run(self) -> Run {
        let needs = self.sends.needs();
        let choice = self.expects.choice();
        let run = Run::new(move |t| judge(t, self.clone())).needs(&needs);
        match choice {
            Some(key) => run.choice(key),
            None => run,
        }
    }
}

async fn judge(t: Arc<RunContext>, case: Case) -> Outcome {
    let Sends { op, to, changes } = &case.sends;
    let (op, to) = (*op, *to);
    let comps: Vec<&Component> = match to {
        To::Primary => t.primary(op).into_iter().collect(),
        To::Each => t.components(op),
        To::EachRequiringAuth => t
            .components(op)
            .into_iter()
            .filter(|c| c.requires_auth)
            .collect(),
        To::EachWithoutAuth => t
            .components(op)
            .into_iter()
            .filter(|c| !c.requires_auth)
            .collect(),
        To::EachWithInvalidBody => t
            .components(op)
            .into_iter()
            .filter(|c| {
                c.authorize
                    .as_ref()
                    .is_some_and(|a| a.invalid_body.is_some())
            })
            .collect(),
    };
    let mut probes = Vec::new();
    for c in comps {
        for change in changes {
            if let Some(req) = change.apply(&t, op, c) {
                let label = if to == To::Primary {
                    change.label()
                } else {
                    format!("{}: {}", c.name, change.label())
                };
                probes.push(Probe::new(label, req));
            }
        }
    }
    let sent = t.send_all(probes).await;
    let choices = &t.profile.choices;
    crate::checks::judge_all(
        sent.into_iter()
            .map(|s| {
                let v = case.expects.judge(choices, &s);
                (s.exchange.label.clone(), s, v)
            })
            .collect(),
    )
}
