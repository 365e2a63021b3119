//! A check declared as data: what it sends and what must happen, apart.
//!
//! A check is a [`CaseCheck`], the one way to declare one: a [`Sends`]
//! (valid requests changed in one way each, the run's shared error probes,
//! its generated cases of one family, or a few requests in turn on one
//! kept-alive connection) and an [`Expect`] (accepted, refused, a failed
//! validation, the status the server chose, or a judgement in words over
//! each answer or over all of them). A check that needs a run of its own
//! (a procedure, a judgement over the whole run) declares it the same way:
//! [`Sends::Own`] with that run and its words, [`Expect::Own`] with what it
//! holds the answers to.
//! The catalogue's `sends` and `expects` texts are rendered from that data,
//! the profile's needs derived from it, and one runner (`run.rs`,
//! [`Case::run`]) sends and judges every such check, so the words and the judgement cannot
//! drift apart.
//!
//! ```ignore
//! CaseCheck {
//!     sends: Sends::primary(Op::AuthClaims, Change::DropHeader("X-Client-Secret")),
//!     expects: Expect::Refused,
//!     ..
//! }
//! ```

mod run;

use crate::catalogue::Run;
use crate::generate::Family;
use crate::needs::Need;
use crate::probes::ErrorProbe;
use conformance_model::choices::{ChoiceKey, Choices, Chosen};
use conformance_model::profile::Component;
pub use conformance_model::spelling::flip_case;
use conformance_wire::request::{Case as HeaderCase, Op, Sent};

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
    /// Every component with an `auth_token` and an `authorize` section
    /// (a token bound to a model).
    EachWithTokenAndModel,
    /// Every component whose name or tag has a letter (its case can flip).
    EachWithLetters,
}

impl To {
    fn takes(self, c: &Component) -> bool {
        match self {
            To::Primary | To::Each => true,
            To::EachRequiringAuth => c.requires_auth,
            To::EachWithoutAuth => !c.requires_auth,
            To::EachWithInvalidBody => c
                .authorize
                .as_ref()
                .is_some_and(|a| a.invalid_body.is_some()),
            To::EachWithTokenAndModel => c.auth_token.is_some() && c.authorize.is_some(),
            To::EachWithLetters => flip_case(&c.name) != c.name || flip_case(&c.tag) != c.tag,
        }
    }

    fn describe(self, ops: &[Op]) -> &'static str {
        match self {
            To::Primary => "",
            // Every component can take Auth Claims.
            To::Each if ops == [Op::AuthClaims] => " to each component",
            To::Each => " to each component that can take it",
            To::EachRequiringAuth => " to each component that requires auth",
            To::EachWithoutAuth => " to each component that does not require auth",
            To::EachWithInvalidBody => " to each component with an `invalid_body`",
            To::EachWithTokenAndModel => {
                " with the profile's auth_token to each component that has one and an `authorize.model_uuid`"
            }
            To::EachWithLetters => " to each component whose name or tag has a letter",
        }
    }

    fn needs(self, op: Op) -> Option<Need> {
        match (self, op) {
            (To::EachRequiringAuth, Op::AuthClaims) => Some(Need::RequiresAuth),
            (To::EachRequiringAuth, Op::Authorize) => Some(Need::RequiresAuthWithAuthorize),
            (To::EachWithoutAuth, Op::AuthClaims) => Some(Need::NoAuth),
            (To::EachWithoutAuth, Op::Authorize) => Some(Need::NoAuthWithAuthorize),
            (To::EachWithInvalidBody, _) => Some(Need::InvalidBody),
            (To::EachWithTokenAndModel, _) => Some(Need::TokenWithAuthorize),
            _ => None,
        }
    }
}

/// Which of a component's identifiers a ref is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    Name,
    Tag,
    Uuid,
}

impl By {
    pub fn id(self) -> &'static str {
        match self {
            By::Name => "name",
            By::Tag => "tag",
            By::Uuid => "uuid",
        }
    }

    fn of(self, c: &Component) -> &str {
        match self {
            By::Name => &c.name,
            By::Tag => &c.tag,
            By::Uuid => &c.uuid,
        }
    }
}

/// The one way a valid request is changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Nothing,
    DropHeader(&'static str),
    Header(&'static str, &'static str),
    /// The ref segment replaced by this one.
    Ref(&'static str),
    /// The component's name, tag or uuid as ref.
    RefBy(By),
    /// The component's name or tag in flipped letter case as ref; no
    /// request where that changes nothing.
    FlippedRef(By),
    /// The component's name percent-encoded as the path segment, its first
    /// unreserved character too (`%55sers`): the same name (RFC 3986
    /// section 2.3).
    PercentEncodedName,
    /// The body replaced by these bytes.
    Body(&'static str),
    /// The component's valid body, as JSON text, with these bytes before
    /// and after it (`{valid} junk`, `{valid}{valid}`: not one JSON text).
    AroundValidBody(&'static str, &'static str),
    /// The body replaced by the component's `invalid_body`.
    InvalidBody,
    /// `modelUuid` left out, wherever the profile says it travels.
    NoModelUuid,
    /// `modelUuid` naming this model, wherever it travels.
    ModelUuid(&'static str),
    /// A JSON body 6 KiB over the body limit (`choices.body_limit`).
    BodyOverLimit,
    /// Header names sent in this letter case.
    HeaderNames(HeaderCase),
    /// Sent with another method.
    Method(&'static reqwest::Method),
    /// Sent to the path without this prefix.
    PathWithout(&'static str),
}

impl Change {
    fn describe(self) -> String {
        match self {
            Change::Nothing => String::new(),
            Change::DropHeader(h) => format!("without {h}"),
            Change::Header(h, "") => format!("with an empty {h}"),
            Change::Header(h, v) => format!("with {h}: {v}"),
            Change::Ref(r) => format!("with ref `{r}`"),
            Change::RefBy(by) => format!("with its {} as ref", by.id()),
            Change::FlippedRef(by) => {
                format!("with its {} in flipped letter case as ref", by.id())
            }
            Change::PercentEncodedName => "with its name percent-encoded as ref: every character outside A-Z a-z 0-9 - . _ ~, and the first inside (`Users` as `%55sers`)".to_owned(),
            Change::Body(b) => format!("whose body is `{b}`"),
            Change::AroundValidBody("", after) => {
                format!("whose body is its valid body followed by `{after}`")
            }
            Change::AroundValidBody(before, "") => {
                format!("whose body is `{before}` followed by its valid body")
            }
            Change::AroundValidBody(before, after) => {
                format!("whose body is its valid body between `{before}` and `{after}`")
            }
            Change::InvalidBody => "carrying its `invalid_body`".to_owned(),
            Change::NoModelUuid => "without modelUuid anywhere".to_owned(),
            Change::ModelUuid(m) => format!("whose modelUuid is `{m}`"),
            Change::BodyOverLimit => {
                "whose JSON body is 6 KiB over the body limit (`choices.body_limit`, ours 64 KiB)"
                    .to_owned()
            }
            Change::HeaderNames(HeaderCase::Lower) => {
                "with header names in lower case (x-client-id)".to_owned()
            }
            Change::HeaderNames(HeaderCase::Title) => {
                "with header names in Title-Case (X-Client-Id)".to_owned()
            }
            Change::Method(m) => format!("sent with {m}"),
            Change::PathWithout(p) => {
                format!("sent to its path without `{p}` ({{base_url}}/component/{{ref}}/auth)")
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
}

/// How each request of a case is labelled in exchanges and failures.
#[derive(Clone, Copy, Debug)]
pub enum Label {
    /// The change in words, after the component's name where the case
    /// goes to several (and after the method where to both operations).
    Change,
    /// One template for every request: `{component}`, `{method}`, `{op}`,
    /// `{ref}` and `{by}` (of a `RefBy` or `FlippedRef`) are filled in.
    Template(&'static str),
    /// A template per change, in the order of the changes (a change past
    /// the last: `{component}: {change}`).
    PerChange(&'static [&'static str]),
}

/// Valid requests changed: one per operation, component and change, in
/// that order.
#[derive(Clone, Debug)]
pub struct Requests {
    pub ops: Vec<Op>,
    pub to: To,
    pub changes: Vec<Change>,
    pub label: Label,
}

/// One request of a sequence: a valid request of `op` to its primary
/// component, changed.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub op: Op,
    pub change: Change,
    pub label: &'static str,
}

/// What a case sends.
#[derive(Clone, Debug)]
pub enum Sends {
    /// Valid requests, each changed in one way.
    Requests(Requests),
    /// The run's error probes (`checks::probe_requests`), sent once and
    /// judged by several checks, stored as one snapshot. A probe of an
    /// operation the profile cannot send is not made: `needs` says what the
    /// check needs for its answers to exist.
    ErrorProbes { needs: &'static [Need] },
    /// The run's generated cases of one family (`generate::edges`).
    Generated(Family),
    /// The steps one after the other on one new kept-alive connection; a
    /// step whose operation the profile cannot send is left out.
    InTurn(Vec<Step>),
    /// What a run of the check's own sends, in words: a procedure (its
    /// second request carries what the first answered, or it judges shrunk
    /// property findings, which are no answers), requests planned apart, or
    /// nothing (a judgement over the whole run). The run judges too: its
    /// [`Expect`] is [`Expect::Own`].
    Own { text: String, run: Run },
}

impl Sends {
    /// The valid request of `op` to its primary component, changed once.
    pub fn primary(op: Op, change: Change) -> Self {
        Self::each(op, To::Primary, change)
    }

    /// The valid request of `op` to each component `to` names, changed once.
    pub fn each(op: Op, to: To, change: Change) -> Self {
        Sends::Requests(Requests {
            ops: vec![op],
            to,
            changes: vec![change],
            label: Label::Change,
        })
    }

    /// The valid request of each operation to each component `to` names,
    /// changed once.
    pub fn both(to: To, change: Change) -> Self {
        Sends::Requests(Requests {
            ops: Op::BOTH.to_vec(),
            to,
            changes: vec![change],
            label: Label::Change,
        })
    }

    /// The valid request of `op` to each component `to` names, once per change.
    pub fn each_changed(op: Op, to: To, changes: &[Change]) -> Self {
        Sends::Requests(Requests {
            ops: vec![op],
            to,
            changes: changes.to_vec(),
            label: Label::Change,
        })
    }

    /// The error probes the run shares.
    pub fn error_probes() -> Self {
        Sends::ErrorProbes { needs: &[] }
    }

    /// The same requests, labelled by `label` (a template, see [`Label`]).
    pub fn labelled(self, label: Label) -> Self {
        match self {
            Sends::Requests(r) => Sends::Requests(Requests { label, ..r }),
            other => other,
        }
    }

    /// What the profile must hold for the requests to be made.
    pub fn needs(&self) -> Vec<Need> {
        match self {
            Sends::Requests(r) => {
                let mut needs = Vec::new();
                for op in &r.ops {
                    needs.extend_from_slice(Need::of(*op));
                    needs.extend(r.to.needs(*op));
                }
                // A request to both operations needs only one of them.
                if r.ops.len() > 1 {
                    needs.retain(|n| *n != Need::Authorize);
                }
                needs
            }
            Sends::ErrorProbes { needs } => needs.to_vec(),
            Sends::Generated(Family::Token) => vec![Need::RequiresAuth],
            Sends::Generated(Family::MediaType) => vec![Need::Authorize],
            Sends::Generated(_) | Sends::InTurn(_) | Sends::Own { .. } => Vec::new(),
        }
    }

    /// The requests in words, for the catalogue.
    pub fn describe(&self) -> String {
        match self {
            Sends::Requests(r) => {
                let what = match r.ops.as_slice() {
                    [op] => format!("a valid {} request", op.title()),
                    _ => "a valid request of each operation".to_owned(),
                };
                let changes: Vec<String> = r.changes.iter().map(|c| c.describe()).collect();
                let how = match changes.as_slice() {
                    [] => String::new(),
                    [one] if one.is_empty() => String::new(),
                    [one] => format!(", {one}"),
                    [first, rest @ ..] => {
                        let first = if first.is_empty() { "as it is" } else { first };
                        format!(", {first}; and one {}", rest.join("; and one "))
                    }
                };
                format!("{what}{}{how}", r.to.describe(&r.ops))
            }
            Sends::ErrorProbes { .. } => crate::probes::PROBES.to_owned(),
            Sends::Generated(family) => family.describe().to_owned(),
            Sends::InTurn(steps) => {
                let each: Vec<String> = steps
                    .iter()
                    .map(|s| {
                        let how = s.change.describe();
                        let what = format!("a valid {} request", s.op.title());
                        if how.is_empty() {
                            what
                        } else {
                            format!("{what} {how}")
                        }
                    })
                    .collect();
                format!("on one kept-alive connection, in turn: {}", each.join("; "))
            }
            Sends::Own { text, .. } => text.clone(),
        }
    }
}

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
    /// What the run of a [`Sends::Own`] holds the answers to, in words
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

/// A check declared by its request and expectation: everything a
/// [`Check`](crate::catalogue::Check) holds but the texts and the run, which are rendered from
/// `sends` and `expects`. Declared in the file of `checks/` its id's first
/// segment names.
pub struct CaseCheck {
    /// A literal (see [`Check::id`](crate::catalogue::Check::id)).
    pub id: &'static str,
    pub level: crate::catalogue::Level,
    pub section: &'static str,
    /// The requirement enforced, by key (or the norm, for a SHOULD check).
    pub cites: crate::catalogue::Cites,
    pub title: String,
    pub sends: Sends,
    pub expects: Expect,
    /// What it judges, typed ([`Subject`](crate::catalogue::Subject)).
    pub subject: crate::catalogue::Subject,
}

impl From<CaseCheck> for crate::catalogue::Check {
    fn from(c: CaseCheck) -> Self {
        debug_assert!(
            matches!(c.sends, Sends::Own { .. }) == matches!(c.expects, Expect::Own(_)),
            "{}: a run of its own (Sends::Own) goes with Expect::Own, and only with it",
            c.id
        );
        let case = Case {
            sends: c.sends,
            expects: c.expects,
        };
        crate::catalogue::Check {
            id: c.id,
            level: c.level,
            section: c.section,
            cites: c.cites,
            title: c.title,
            sends: case.sends.describe(),
            expects: case.expects.describe(),
            run: case.clone().run(),
            subject: c.subject,
        }
    }
}

/// A check's request and expectation.
#[derive(Clone)]
pub struct Case {
    pub sends: Sends,
    pub expects: Expect,
}

#[cfg(test)]
mod tests {
    use super::run::label;
    use super::*;
    use conformance_model::profile::Profile;

    fn profile() -> Profile {
        let text = "\
base_url: http://127.0.0.1:8080
client_id: client
client_secret: secret
components:
  - name: Users
    tag: users
    uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11
";
        Profile::from_yaml_str(text, "p.yaml", &|_| None).expect("a valid profile")
    }

    fn requests(sends: Sends) -> Requests {
        match sends {
            Sends::Requests(r) => r,
            other => panic!("not requests: {other:?}"),
        }
    }

    #[test]
    fn labels_fill_their_templates() {
        let p = profile();
        let c = &p.components[0];
        let r = requests(
            Sends::each(Op::AuthClaims, To::Each, Change::RefBy(By::Tag))
                .labelled(Label::Template("{component} by {by} `{ref}`")),
        );
        assert_eq!(
            label(&r, 0, Op::AuthClaims, c, Change::RefBy(By::Tag), "users"),
            "Users by tag `users`"
        );
        let r = requests(
            Sends::both(To::Primary, Change::Nothing)
                .labelled(Label::Template("{method} {op} {component}")),
        );
        assert_eq!(
            label(&r, 0, Op::Authorize, c, Change::Nothing, "Users"),
            "POST Authorize Users"
        );
        let r = requests(
            Sends::each_changed(
                Op::AuthClaims,
                To::EachWithLetters,
                &[Change::Nothing, Change::FlippedRef(By::Name)],
            )
            .labelled(Label::PerChange(&[
                "{component} as written",
                "{ref} after {component}",
            ])),
        );
        assert_eq!(
            label(&r, 0, Op::AuthClaims, c, Change::Nothing, "Users"),
            "Users as written"
        );
        assert_eq!(
            label(
                &r,
                1,
                Op::AuthClaims,
                c,
                Change::FlippedRef(By::Name),
                "uSERS"
            ),
            "uSERS after Users"
        );
    }

    #[test]
    fn default_labels_name_what_changed_and_where() {
        let p = profile();
        let c = &p.components[0];
        let drop = Change::DropHeader("X-Client-Id");
        let label_of = |sends: Sends, op| label(&requests(sends), 0, op, c, drop, "Users");
        assert_eq!(
            label_of(Sends::primary(Op::AuthClaims, drop), Op::AuthClaims),
            "without X-Client-Id"
        );
        assert_eq!(
            label_of(Sends::each(Op::AuthClaims, To::Each, drop), Op::AuthClaims),
            "Users: without X-Client-Id"
        );
        assert_eq!(
            label_of(Sends::both(To::Each, drop), Op::Authorize),
            "POST Users: without X-Client-Id"
        );
    }

    #[test]
    fn needs_follow_the_requests() {
        assert_eq!(Sends::both(To::Each, Change::Nothing).needs(), []);
        assert_eq!(
            Sends::primary(Op::Authorize, Change::Nothing).needs(),
            [Need::Authorize]
        );
        assert_eq!(
            Sends::each(Op::AuthClaims, To::EachWithTokenAndModel, Change::Nothing).needs(),
            [Need::TokenWithAuthorize]
        );
        assert_eq!(
            Sends::Generated(Family::Token).needs(),
            [Need::RequiresAuth]
        );
    }

    #[test]
    fn several_changes_are_described_in_turn() {
        let sends = Sends::each_changed(
            Op::AuthClaims,
            To::Primary,
            &[Change::Ref("a"), Change::Ref("b")],
        );
        assert_eq!(
            sends.describe(),
            "a valid Auth Claims request, with ref `a`; and one with ref `b`"
        );
    }

    #[test]
    fn no_catalogue_text_keeps_a_placeholder() {
        let left: Vec<String> = crate::checks::catalogue()
            .iter()
            .filter(|c| c.expects.contains("{refused}") || c.expects.contains("{accepted}"))
            .map(|c| c.id.to_owned())
            .collect();
        assert!(left.is_empty(), "placeholders left in: {left:?}");
    }
}
