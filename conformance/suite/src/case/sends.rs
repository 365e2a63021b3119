//! What a case sends: valid requests of the profile, each changed in one
//! way ([`Change`]) and sent to the components [`To`] names, the run's
//! shared probes or generated cases, steps in turn on one connection, or
//! a run of the check's own; each in words for the catalogue, with what
//! the profile must hold for it to be made.

use crate::catalogue::Run;
use crate::generate::Family;
use crate::needs::Need;
use conformance_model::profile::Component;
pub use conformance_model::spelling::flip_case;
use conformance_wire::request::{Case as HeaderCase, Op};

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
    pub(super) fn takes(self, c: &Component) -> bool {
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

    pub(super) fn describe(self, ops: &[Op]) -> &'static str {
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

    pub(super) fn needs(self, op: Op) -> Option<Need> {
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

    pub(super) fn of(self, c: &Component) -> &str {
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
    pub(super) fn describe(self) -> String {
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
    pub(super) fn label(self) -> String {
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
    /// [`Expect`](super::Expect) is [`Expect::Own`](super::Expect::Own).
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
