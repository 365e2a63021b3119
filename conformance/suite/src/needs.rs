//! What a check needs from the profile to run at all: a component with an
//! `authorize` section, one that requires auth, ... A check declares its
//! needs on its [`Run`](crate::catalogue::Run); the runner skips it, with the
//! need's reason, when the profile cannot meet them, and `check-profile`
//! says so before any request is sent, with what to add.

use conformance_model::profile::{Component, Profile};
use conformance_wire::request::Op;

/// One thing a check needs from the profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Need {
    /// A component with an `authorize` section (Authorize can be sent).
    Authorize,
    /// A component with `authorize.invalid_body`.
    InvalidBody,
    /// A component with `requires_auth: true` (and its `auth_token`).
    RequiresAuth,
    /// A component with `requires_auth: true` that also has an `authorize`
    /// section (a token and a model to read claims of).
    RequiresAuthWithAuthorize,
    /// A component with an `auth_token` and an `authorize` section.
    TokenWithAuthorize,
    /// A component with `requires_auth: false`.
    NoAuth,
    /// A component with `requires_auth: false` and an `authorize` section.
    NoAuthWithAuthorize,
    /// A component that declares its `fields` and has an `authorize`
    /// section. Unmet, the checks that need it are SHOULD checks skipped:
    /// declaring the fields is an addition, not a gap.
    DeclaredFields,
    /// A component with `authorize.second_model` (another model the
    /// server takes). Unmet, as [`Need::DeclaredFields`]: an addition.
    SecondModel,
}

impl Need {
    pub const ALL: [Need; 9] = [
        Need::Authorize,
        Need::InvalidBody,
        Need::RequiresAuth,
        Need::RequiresAuthWithAuthorize,
        Need::TokenWithAuthorize,
        Need::NoAuth,
        Need::NoAuthWithAuthorize,
        Need::DeclaredFields,
        Need::SecondModel,
    ];

    /// Whether meeting the need adds checks rather than closing a gap: a
    /// check that needs it is a SHOULD (and skipped) until it is met, so a
    /// profile without it still makes a MUST run.
    pub fn is_addition(self) -> bool {
        matches!(self, Need::DeclaredFields | Need::SecondModel)
    }

    /// `Authorize` for checks of the Authorize operation, nothing otherwise.
    pub fn of(op: Op) -> &'static [Need] {
        match op {
            Op::AuthClaims => &[],
            Op::Authorize => &[Need::Authorize],
        }
    }

    /// Whether `profile` meets this need.
    pub fn met_by(self, profile: &Profile) -> bool {
        profile.components.iter().any(|c| self.met_by_component(c))
    }

    fn met_by_component(self, c: &Component) -> bool {
        match self {
            Need::Authorize => c.authorize.is_some(),
            Need::InvalidBody => c
                .authorize
                .as_ref()
                .is_some_and(|a| a.invalid_body.is_some()),
            Need::RequiresAuth => c.requires_auth,
            Need::RequiresAuthWithAuthorize => {
                c.requires_auth && c.auth_token.is_some() && c.authorize.is_some()
            }
            Need::TokenWithAuthorize => c.auth_token.is_some() && c.authorize.is_some(),
            Need::NoAuth => !c.requires_auth,
            Need::NoAuthWithAuthorize => !c.requires_auth && c.authorize.is_some(),
            Need::DeclaredFields => c.fields.is_some() && c.authorize.is_some(),
            Need::SecondModel => c
                .authorize
                .as_ref()
                .is_some_and(|a| a.second_model.is_some()),
        }
    }

    /// Why a check is skipped when the need is not met.
    pub fn reason(self) -> &'static str {
        match self {
            Need::Authorize => "no component in the profile has an `authorize` section",
            Need::InvalidBody => "no component in the profile has `authorize.invalid_body`",
            Need::RequiresAuth => "no component in the profile requires auth",
            Need::RequiresAuthWithAuthorize => {
                "no component in the profile requires auth and has an `authorize` section"
            }
            Need::TokenWithAuthorize => {
                "no component in the profile has both an `auth_token` and an `authorize` section"
            }
            Need::NoAuth => "every component in the profile requires auth",
            Need::NoAuthWithAuthorize => {
                "no component in the profile does without auth and has an `authorize` section"
            }
            Need::DeclaredFields => {
                "no component in the profile declares its auth settings (`fields`) and has an `authorize` section"
            }
            Need::SecondModel => {
                "no component in the profile has a second model (`authorize.second_model`) to claim in the other environment"
            }
        }
    }

    /// What to add to the profile to meet it.
    pub fn remedy(self) -> &'static str {
        match self {
            Need::Authorize => {
                "add `authorize: { model_uuid, valid_body }` to a component (an Authorize the server accepts)"
            }
            Need::InvalidBody => {
                "add `authorize.invalid_body` to a component (a body that fails validation)"
            }
            Need::RequiresAuth => {
                "add a component with `requires_auth: true` and a valid `auth_token`"
            }
            Need::RequiresAuthWithAuthorize => {
                "give a component with `requires_auth: true` an `authorize` section too"
            }
            Need::TokenWithAuthorize => {
                "give a component with an `auth_token` an `authorize` section too"
            }
            Need::NoAuth => "add a component with `requires_auth: false`",
            Need::NoAuthWithAuthorize => {
                "give a component with `requires_auth: false` an `authorize` section"
            }
            Need::DeclaredFields => {
                "declare a component's auth settings under `fields:` (type, required, lengths, bounds, enum, pattern, secret): every generated body then has a known verdict, 417 or not"
            }
            Need::SecondModel => {
                "give a component a second model the server takes: `authorize.second_model: { model_uuid: UUID, valid_body: {...} }` (its body defaults to `valid_body`); the run then claims one model in `dev` and the other in `live` and reads each back"
            }
        }
    }
}

/// The first of `needs` that `profile` does not meet.
pub fn unmet(needs: &[Need], profile: &Profile) -> Option<Need> {
    needs.iter().copied().find(|n| !n.met_by(profile))
}
