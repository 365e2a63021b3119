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
//!
//! What a case sends is in `sends.rs`, what it expects of the answers in
//! `expect.rs`.

mod expect;
mod run;
mod sends;

pub use expect::{Answer, Expect, Found, Judge, JudgeAll, JudgeAnswer, per_component, request_ids};
pub use sends::{By, Change, Label, Requests, Sends, Step, To};

pub use conformance_model::spelling::flip_case;

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
    use crate::generate::Family;
    use crate::needs::Need;
    use conformance_model::profile::Profile;
    use conformance_wire::request::Op;

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
