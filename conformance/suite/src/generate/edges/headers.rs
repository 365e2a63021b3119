//! Near misses of each header value the profile gives: the client's
//! credentials, each component's token (and another component's, or one
//! the run had issued), and X-Project-Env.

use crate::generate::Family;
use crate::generate::curl::{self, Derived};
use conformance_wire::request::Op;
use conformance_wire::target::Target;
use conformance_wire::valid::ValidRequests;

use super::Pending;

/// A value with one thing wrong, and how to say it.
struct NearMiss {
    what: &'static str,
    value: String,
    /// The same change as a shell expression over `$VAR`.
    shell: String,
}

/// A character added, the last removed, the last changed, the letter case
/// flipped: the comparisons written in a hurry (`starts_with`, a compare
/// over the sent length, `eq_ignore_ascii_case`) let one of these through.
fn near_misses(value: &str, var: &str) -> Vec<NearMiss> {
    let mut out = vec![NearMiss {
        what: "with a character added",
        value: format!("{value}x"),
        shell: format!("${{{var}}}x"),
    }];
    let mut chars: Vec<char> = value.chars().collect();
    if let Some(last) = chars.pop() {
        if !chars.is_empty() {
            out.push(NearMiss {
                what: "with its last character removed",
                value: chars.iter().collect(),
                shell: format!("${{{var}%?}}"),
            });
        }
        let other = if last == '0' { '1' } else { '0' };
        out.push(NearMiss {
            what: "with its last character changed",
            value: chars.iter().chain([&other]).collect(),
            shell: format!("${{{var}%?}}{other}"),
        });
    }
    let flipped: String = value
        .chars()
        .map(|c| {
            if c.is_ascii_lowercase() {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    if flipped != value {
        out.push(NearMiss {
            what: "in flipped letter case",
            value: flipped,
            shell: format!("$(printf %s \"${var}\" | tr a-zA-Z A-Za-z)"),
        });
    }
    out
}

/// X-Client-Secret and X-Client-Id near misses, on each operation.
pub(super) fn credentials(t: &ValidRequests, out: &mut Vec<Pending>) {
    let secret = t.profile.client_secret.expose().to_owned();
    let secret_var = curl::variable(&t.profile, &secret, "CLIENT_SECRET");
    let id = t.profile.client_id.clone();
    // A client id read from the environment is a secret too: its near
    // misses are written over its variable.
    let id_var = curl::secret_variable(&t.profile, &id);
    for op in Op::BOTH {
        let Some(c) = t.primary(op) else { continue };
        for (family, header, value, var) in [
            (
                Family::Secret,
                "X-Client-Secret",
                &secret,
                Some(secret_var.as_str()),
            ),
            (Family::ClientId, "X-Client-Id", &id, id_var.as_deref()),
        ] {
            for miss in near_misses(value, var.unwrap_or("CLIENT_ID")) {
                let mut p = Pending::new(
                    family,
                    format!("{} {}: {header} {}", op.method(), c.name, miss.what),
                    t.valid(op, c)
                        .and_then(|r| r.set_header(header, &miss.value)),
                );
                if var.is_some() {
                    p.derived.push(Derived {
                        header: if family == Family::Secret {
                            "x-client-secret"
                        } else {
                            "x-client-id"
                        },
                        expression: miss.shell,
                    });
                }
                out.push(p);
            }
        }
    }
}

/// X-Auth-Token where the component requires auth: empty, near misses of
/// its own token, and a token of another component.
pub(super) fn tokens(t: &Target, out: &mut Vec<Pending>) {
    for (i, c) in t.profile().components.iter().enumerate() {
        let (true, Some(token)) = (c.requires_auth, &c.auth_token) else {
            continue;
        };
        let var = curl::variable(
            t.profile(),
            token.expose(),
            &format!("AUTH_TOKEN_{}", curl::shell_name(&c.tag)),
        );
        let mut variants: Vec<TokenValue> = near_misses(token.expose(), &var)
            .into_iter()
            .map(|m| TokenValue {
                what: m.what.to_owned(),
                value: m.value,
                shell: m.shell,
                prelude: None,
                foreign: false,
            })
            .collect();
        variants.push(TokenValue {
            what: "empty".to_owned(),
            value: String::new(),
            shell: String::new(),
            prelude: None,
            foreign: false,
        });
        if let Some(foreign) = foreign_token(t, i) {
            variants.push(TokenValue {
                what: "of another component".to_owned(),
                value: foreign.value,
                shell: foreign.shell,
                prelude: foreign.prelude,
                foreign: true,
            });
        }
        for op in Op::BOTH {
            if op == Op::Authorize && c.authorize.is_none() {
                continue;
            }
            for v in &variants {
                let mut p = Pending::new(
                    Family::Token,
                    format!("{} {}: X-Auth-Token {}", op.method(), c.name, v.what),
                    t.requests
                        .valid(op, c)
                        .and_then(|r| r.set_header("X-Auth-Token", &v.value)),
                );
                p.derived.push(Derived {
                    header: "x-auth-token",
                    expression: v.shell.clone(),
                });
                p.prelude = v.prelude.clone();
                p.foreign_token_to = v.foreign.then_some(i);
                out.push(p);
            }
        }
    }
}

/// One X-Auth-Token sent to a component, and how a reproduction writes it.
struct TokenValue {
    what: String,
    value: String,
    shell: String,
    prelude: Option<String>,
    /// Another component's token: the run notes a component sent none
    /// ([`Case::foreign_token_to`]).
    foreign: bool,
}

/// A token of another component, and how a reproduction writes it.
struct ForeignToken {
    value: String,
    /// `${VAR}`: the profile's own variable, or one the prelude sets.
    shell: String,
    /// For a token the run had issued: the lines that obtain one.
    prelude: Option<String>,
}

/// A token valid for another component than the `i`th: from the profile,
/// else the one Authorize issued to another component when the run settled
/// the state ([`conformance_wire::phase`]; read wherever the success body puts it). A
/// token equal to the component's own is no "other component's token" (a
/// profile may give one token to several components, as the description's
/// single `<AUTH_TOKEN>` allows): it is passed over, and with no other, the
/// case is not made.
fn foreign_token(t: &Target, i: usize) -> Option<ForeignToken> {
    let own = t.profile().components[i]
        .auth_token
        .as_ref()
        .map(|s| s.expose().to_owned());
    let others = t
        .profile()
        .components
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i);
    for (_, other) in others.clone() {
        if let Some(token) = &other.auth_token {
            if Some(token.expose()) == own.as_deref() {
                continue;
            }
            let var = curl::variable(
                t.profile(),
                token.expose(),
                &format!("AUTH_TOKEN_{}", curl::shell_name(&other.tag)),
            );
            return Some(ForeignToken {
                value: token.expose().to_owned(),
                shell: format!("${{{var}}}"),
                prelude: None,
            });
        }
    }
    for (j, other) in others {
        let Some(token) = t
            .state
            .settled_token(j)
            .filter(|token| Some(token.as_str()) != own.as_deref())
        else {
            continue;
        };
        let var = format!("ISSUED_TOKEN_{}", curl::shell_name(&other.tag));
        let prelude = t.requests.valid(Op::Authorize, other).ok().map(|req| {
            t.reproductions
                .obtain_token(&req, &var, &format!("an Authorize of {}", other.name))
        });
        return Some(ForeignToken {
            value: token,
            shell: format!("${{{var}}}"),
            prelude,
        });
    }
    None
}

/// Values of X-Project-Env that are near `dev` and `live` but neither.
/// (Surrounding white space is not part of a field value in HTTP: never sent.)
const ENV_NEAR_MISSES: &[(&str, &str)] = &[
    ("DEV", "in upper case"),
    ("Live", "in title case"),
    ("development", "a longer word"),
    ("production", "another word"),
    ("", "empty"),
];

pub(super) fn project_env(t: &ValidRequests, out: &mut Vec<Pending>) {
    for op in Op::BOTH {
        let Some(c) = t.primary(op) else { continue };
        for (value, what) in ENV_NEAR_MISSES {
            out.push(Pending::new(
                Family::ProjectEnv,
                format!(
                    "{} {}: X-Project-Env `{value}` ({what})",
                    op.method(),
                    c.name
                ),
                t.valid(op, c)
                    .and_then(|r| r.set_header("X-Project-Env", value)),
            ));
        }
    }
}
