//! The edge cases, derived from the profile with no data from the user:
//! near misses of each credential and value, odd refs and bodies, and
//! every single change of every field of each `valid_body`.

use std::sync::Arc;

use component_auth_bindings::Error;
use serde_json::Value;

use super::changes::{Change, Fields};
use super::curl::{self, Derived, Placeholder};
use super::literals::{OTHER_TYPES, same_type};
use super::{Case, Family, Judged};
use conformance_model::profile::Component;
use conformance_wire::request::{Op, Probe, Req};
use conformance_wire::target::Target;
use conformance_wire::valid::ValidRequests;

/// One request to send, before it is sent.
struct Pending {
    family: Family,
    label: String,
    req: Result<Req, Error>,
    derived: Vec<Derived>,
    reference: Option<Result<Req, Error>>,
    /// Shell lines the reproduction runs first: how to obtain a value the
    /// run made (a token Authorize issued).
    prelude: Option<String>,
    /// Its component's declared fields and the body sent: the oracle
    /// judges the answer ([`super::oracle`]).
    judged_body: Option<(conformance_model::fields::Fields, String)>,
    /// See [`Case::foreign_token_to`].
    foreign_token_to: Option<usize>,
}

impl Pending {
    fn new(family: Family, label: String, req: Result<Req, Error>) -> Self {
        Pending {
            family,
            label,
            req,
            derived: Vec::new(),
            reference: None,
            prelude: None,
            judged_body: None,
            foreign_token_to: None,
        }
    }
}

/// Every edge case of the families `judged` names whose request is of
/// `op`, sent concurrently, answers in a fixed order; each case knows its
/// position among the cases of every operation.
pub async fn all(t: &Arc<Target>, judged: &Judged, op: Op) -> Vec<Case> {
    let mut pending = Vec::new();
    credentials(&t.requests, &mut pending);
    if judged.judges(Family::Token) {
        tokens(t, &mut pending);
    }
    project_env(&t.requests, &mut pending);
    refs(&t.requests, &mut pending);
    whole_bodies(&t.requests, &mut pending);
    media_types(&t.requests, &mut pending);
    field_changes(&t.requests, &mut pending);
    // A request the bindings could not build tests nothing: left out; so
    // is a family no selected check judges.
    pending.retain(|p| p.req.is_ok() && judged.judges(p.family));
    let pending: Vec<(usize, Pending)> = pending
        .into_iter()
        .enumerate()
        .filter(|(_, p)| matches!(&p.req, Ok(r) if r.op() == op))
        .collect();

    let secrets = t.reproductions.curl_secrets();
    let extra = t.reproductions.curl_headers();
    let curls: Vec<String> = pending
        .iter()
        .map(|(_, p)| p.prelude.clone().unwrap_or_default() + &render(p, secrets) + extra)
        .collect();
    let mut probes = Vec::new();
    let mut references = Vec::new();
    let mut meta = Vec::new();
    for (position, p) in pending {
        if let Some(r) = p.reference {
            references.push(Probe::new(format!("{} (as written)", p.label), r));
        }
        meta.push((
            p.family,
            p.label.clone(),
            position,
            p.judged_body.clone(),
            p.foreign_token_to,
        ));
        probes.push(Probe::new(p.label, p.req));
    }
    let sent = t.send_all(probes).await;
    let mut reference_answers = t.send_all(references).await.into_iter();
    meta.into_iter()
        .zip(sent)
        .zip(curls)
        .map(
            |(((family, label, position, body, foreign_token_to), sent), curl)| {
                let oracle = match &body {
                    Some((declared, body)) => {
                        super::oracle::judge(declared, op, body, &sent, &t.profile().choices)
                    }
                    None => Vec::new(),
                };
                Case {
                    family,
                    label,
                    curl,
                    sent,
                    reference: (family == Family::UuidForm)
                        .then(|| reference_answers.next())
                        .flatten(),
                    position,
                    oracle,
                    foreign_token_to,
                }
            },
        )
        .collect()
}

fn render(p: &Pending, secrets: &[Placeholder]) -> String {
    match &p.req {
        Ok(req) => curl::render(req, secrets, &p.derived),
        Err(e) => format!("(the request could not be built: {e})"),
    }
}

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
fn credentials(t: &ValidRequests, out: &mut Vec<Pending>) {
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
fn tokens(t: &Target, out: &mut Vec<Pending>) {
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

fn project_env(t: &ValidRequests, out: &mut Vec<Pending>) {
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

/// Near misses of each name and tag, the uuid in other forms, and refs
/// made to trip a parser.
fn refs(t: &ValidRequests, out: &mut Vec<Pending>) {
    let op = Op::AuthClaims;
    let taken = |r: &str| {
        t.profile
            .components
            .iter()
            .any(|c| c.name == r || c.tag == r || c.uuid == r)
    };
    for c in &t.profile.components {
        for key in [&c.name, &c.tag] {
            let chars: Vec<char> = key.chars().collect();
            let mut variants = Vec::new();
            if chars.len() >= 3 {
                variants.push((chars[..chars.len() - 1].iter().collect(), "its beginning"));
            }
            if chars.len() >= 4 {
                let half = chars.len().div_ceil(2).max(2);
                variants.push((chars[..half].iter().collect(), "its first half"));
            }
            variants.push((format!("{key}x"), "with a character added"));
            variants.push((format!("{key}.json"), "with a `.json` suffix"));
            variants.push((format!(" {key}"), "after a space"));
            variants.push((format!("{key} "), "before a space"));
            for (variant, what) in variants {
                if taken(&variant) {
                    continue;
                }
                out.push(Pending::new(
                    Family::Ref,
                    format!("GET ref `{variant}`: `{key}` {what}"),
                    t.valid_with_ref(op, c, &variant),
                ));
            }
        }
        let uuid = &c.uuid;
        for (form, what) in [
            (uuid.to_uppercase(), "in upper case"),
            (format!("{{{uuid}}}"), "in braces"),
            (format!("urn:uuid:{uuid}"), "as a URN"),
            (uuid.replace('-', ""), "without hyphens"),
        ] {
            if form == *uuid {
                continue;
            }
            let mut p = Pending::new(
                Family::UuidForm,
                format!("GET ref `{form}`: {}'s uuid {what}", c.name),
                t.valid_with_ref(op, c, &form),
            );
            p.reference = Some(t.valid_with_ref(op, c, uuid));
            out.push(p);
        }
    }
    let Some(c) = t.primary(op) else { return };
    let long = format!("conformance-{}", "a".repeat(4096));
    for (reference, what) in [
        (long.as_str(), "of 4 KiB"),
        ("conformance\u{0}ref", "with a NUL (%00)"),
        ("conformance/ref", "with an encoded `/` (%2F)"),
    ] {
        out.push(Pending::new(
            Family::OddRef,
            format!("GET a ref {what}"),
            t.valid_with_ref(op, c, reference),
        ));
    }
    out.push(Pending::new(
        Family::OddRef,
        "GET a ref that is not UTF-8 (%FF%FE)".to_owned(),
        t.valid(op, c).map(|r| r.with_encoded_ref("%FF%FE")),
    ));
}

/// Bodies that are not a JSON object of fields.
fn whole_bodies(t: &ValidRequests, out: &mut Vec<Pending>) {
    for op in Op::BOTH {
        let Some(c) = t.primary(op) else { continue };
        let valid = valid_body_text(c).unwrap_or_else(|| "{}".to_owned());
        let nested = format!("{{\"deep\": {}{}}}", "[".repeat(300), "]".repeat(300));
        let duplicate = match c
            .authorize
            .as_ref()
            .and_then(|a| a.valid_body.keys().next())
        {
            Some(first) => format!("{{\"{first}\": null, {}", &valid[1..]),
            None => "{\"a\": 1, \"a\": 2}".to_owned(),
        };
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(valid.as_bytes());
        let bodies: Vec<(Vec<u8>, &str)> = vec![
            (b"{}".to_vec(), "an empty object"),
            (b"[]".to_vec(), "an array"),
            (b"\"fields\"".to_vec(), "a string"),
            (b"1".to_vec(), "a number"),
            (b"null".to_vec(), "null"),
            (b"{\"email\": \"\xff\xfe\"}".to_vec(), "not UTF-8"),
            (b"{\"email\": ".to_vec(), "cut short"),
            (bom, "after a byte-order mark"),
            (duplicate.into_bytes(), "with a key twice"),
            (nested.into_bytes(), "nested 300 deep"),
        ];
        out.push(Pending::new(
            Family::WholeBody,
            format!("{} {}: no body", op.method(), c.name),
            t.valid(op, c).map(Req::without_body),
        ));
        for (body, what) in bodies {
            out.push(Pending::new(
                Family::WholeBody,
                format!("{} {}: a body that is {what}", op.method(), c.name),
                t.valid(op, c).map(|r| r.raw_body(body)),
            ));
        }
    }
}

/// The JSON media type spelt as HTTP allows (RFC 9110 section 8.3.1:
/// type and subtype are case-insensitive; parameters may follow).
pub const JSON_SPELLINGS: &[&str] = &[
    "application/json; charset=utf-8",
    "Application/JSON",
    "application/json;charset=UTF-8",
];

fn media_types(t: &ValidRequests, out: &mut Vec<Pending>) {
    for op in Op::BOTH {
        for c in t.components(op) {
            if c.authorize.is_none() {
                continue;
            }
            for spelling in JSON_SPELLINGS {
                out.push(Pending::new(
                    Family::MediaType,
                    format!("{} {}: Content-Type `{spelling}`", op.method(), c.name),
                    t.valid(op, c)
                        .and_then(|r| r.set_header("Content-Type", spelling)),
                ));
            }
        }
    }
}

/// Every single change of every field: another value of its type, a value
/// of another type, the field left out; and one unknown field added.
fn field_changes(t: &ValidRequests, out: &mut Vec<Pending>) {
    for op in Op::BOTH {
        for c in t.components(op) {
            let Some(a) = &c.authorize else { continue };
            if let Some(declared) = &c.fields {
                declared_field_changes(t, op, c, declared, out);
                continue;
            }
            let fields = Fields::of(&a.valid_body);
            for (i, value) in a.valid_body.values().enumerate() {
                let other_types = OTHER_TYPES.iter().filter(|lit| !same_kind(value, lit));
                let mut changes: Vec<Change> = same_type(value)
                    .iter()
                    .chain(other_types)
                    .map(|lit| Change::Set(i, std::borrow::Cow::Borrowed(*lit)))
                    .collect();
                changes.push(Change::Drop(i));
                for change in changes {
                    let body = fields.with(std::slice::from_ref(&change));
                    out.push(Pending::new(
                        Family::Fields,
                        format!("{} {}: {}", op.method(), c.name, fields.describe(&change)),
                        t.valid(op, c).map(|r| r.raw_body(body)),
                    ));
                }
            }
            let change = Change::Add(OTHER_TYPES[1]);
            out.push(Pending::new(
                Family::Fields,
                format!("{} {}: {}", op.method(), c.name, fields.describe(&change)),
                t.valid(op, c)
                    .map(|r| r.raw_body(fields.with(std::slice::from_ref(&change)))),
            ));
        }
    }
}

/// Every single change of every declared field: each value its settings
/// make worth sending, left out, its name in another letter case; and one
/// unknown field added. Each answer is judged by the oracle too.
fn declared_field_changes(
    t: &ValidRequests,
    op: Op,
    c: &Component,
    declared: &conformance_model::fields::Fields,
    out: &mut Vec<Pending>,
) {
    let Some(a) = &c.authorize else { return };
    let fields = Fields::with_declared(&a.valid_body, declared);
    let mut changes = Vec::new();
    for i in 0..fields.len() {
        let Some(field) = fields.name(i).and_then(|n| declared.get(n)) else {
            continue;
        };
        changes.extend(
            super::literals::declared_literals(field)
                .into_iter()
                .map(|lit| Change::Set(i, lit)),
        );
        // The valid value itself as a framework may normalise it, where a
        // pattern decides (an enum's values are among the literals).
        let valid = fields
            .name(i)
            .and_then(|n| a.valid_body.get(n))
            .and_then(Value::as_str);
        // Never a secret's value in another spelling: the scrubber knows
        // its spellings, not every normalisation of it.
        if let (Some(valid), Some(_), false) = (valid, &field.pattern, field.secret) {
            changes.extend(
                super::literals::normalised_near_misses(valid)
                    .into_iter()
                    .map(|n| Change::Set(i, Value::String(n).to_string().into())),
            );
        }
        changes.extend([Change::Drop(i), Change::Rename(i)]);
    }
    changes.push(Change::Add(OTHER_TYPES[1]));
    for change in changes {
        let body = fields.with(std::slice::from_ref(&change));
        let mut p = Pending::new(
            Family::Fields,
            format!("{} {}: {}", op.method(), c.name, fields.describe(&change)),
            t.valid(op, c).map(|r| r.raw_body(body.clone())),
        );
        p.judged_body = Some((declared.clone(), body));
        out.push(p);
    }
}

/// Whether a raw JSON literal is of the same JSON type as `value`.
fn same_kind(value: &Value, lit: &str) -> bool {
    match serde_json::from_str::<Value>(lit) {
        Ok(v) => std::mem::discriminant(&v) == std::mem::discriminant(value),
        Err(_) => false,
    }
}

/// The component's valid body as JSON text.
fn valid_body_text(c: &Component) -> Option<String> {
    serde_json::to_string(&c.authorize.as_ref()?.valid_body).ok()
}
