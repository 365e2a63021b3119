//! `${VAR}` in a profile's values, expanded from the environment while the
//! profile is read, each variable remembered with whether the place it was
//! read into holds a secret. serde's `Deserialize` cannot take arguments,
//! so the variables are held in a thread-local for the duration of one
//! read ([`with_env`]).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use serde::Deserialize;

pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

thread_local! {
    /// The variables the text mentions, resolved before parsing.
    static ENV: RefCell<HashMap<String, Option<String>>> = RefCell::new(HashMap::new());
    /// The variables read while parsing, with their values and whether the
    /// place they were read into holds a secret, in order.
    static READ: RefCell<Vec<(String, String, bool)>> = const { RefCell::new(Vec::new()) };
    /// Whether a value read now is a secret: true everywhere but in the keys
    /// that say where and what things are ([`plain`]).
    static SECRET: Cell<bool> = const { Cell::new(true) };
}

/// Runs `f` reading `${VAR}`s as values that are not secrets: the parts of
/// `base_url` but its password, `name`, `tag`, `uuid`, `model_uuid` and
/// `project_env`. A reproduction writes them as they are (a port read from
/// `${PORT}` is a port), and the runner's reports show them. Everything else
/// read from the environment (`client_id`, `client_secret`, `auth_token`,
/// body values) is a secret.
pub fn plain<T>(f: impl FnOnce() -> T) -> T {
    let before = SECRET.with(|s| s.replace(false));
    let out = f();
    SECRET.with(|s| s.set(before));
    out
}

/// Runs `f` with the variables `text` mentions resolved through `env`;
/// returns its result and the variables it read into a place that holds a
/// secret, with their values.
pub fn with_env<T>(
    text: &str,
    env: Lookup<'_>,
    f: impl FnOnce() -> T,
) -> (T, Vec<(String, String)>) {
    let mut vars = HashMap::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        if let Some(end) = after.find('}') {
            let name = after[..end].trim_end_matches(":json");
            vars.entry(name.to_owned()).or_insert_with(|| env(name));
        }
        rest = after;
    }
    ENV.with(|e| *e.borrow_mut() = vars);
    READ.with(|r| r.borrow_mut().clear());
    let out = f();
    ENV.with(|e| e.borrow_mut().clear());
    let read = READ.with(|r| std::mem::take(&mut *r.borrow_mut()));
    // A variable read into any place that holds a secret is a secret.
    let mut secrets: Vec<(String, String)> = read
        .into_iter()
        .filter(|(_, _, secret)| *secret)
        .map(|(name, value, _)| (name, value))
        .collect();
    secrets.sort();
    secrets.dedup();
    (out, secrets)
}

pub fn lookup(name: &str) -> Option<String> {
    let value = ENV.with(|e| e.borrow().get(name).cloned().flatten())?;
    let secret = SECRET.with(Cell::get);
    READ.with(|r| {
        r.borrow_mut()
            .push((name.to_owned(), value.clone(), secret))
    });
    Some(value)
}

pub fn refuse<E: serde::de::Error>(message: String) -> E {
    E::custom(message)
}

/// A value in an error: as written when the profile holds it, else only
/// the `${VAR}` it was read from, since a value from the environment is
/// never printed.
pub fn shown(raw: &str, value: &str) -> String {
    if raw.contains("${") {
        format!("the value of `{raw}`")
    } else {
        format!("`{value}`")
    }
}

/// Replaces every `${VAR}` in `text`.
pub fn expand(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        // The text may be a secret written in the profile: never repeated.
        let Some(end) = after.find('}') else {
            return Err("holds `${` without a closing `}`".to_owned());
        };
        let name = &after[..end];
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid {
            return Err(
                "holds `${…}` around something that is not a variable name (letters, digits and `_`, not starting with a digit)"
                    .to_owned(),
            );
        }
        match lookup(name) {
            Some(value) => out.push_str(&value),
            None => return Err(format!("the environment variable `{name}` is not set")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A value of a section that names no secret (`choices`, `budgets`,
/// `snapshot_headers`) as text, `${VAR}` expanded, as every value of a
/// profile may come from the environment; a scalar written as a number or
/// a boolean is read as its text. For the deserializers of those sections.
pub fn plain_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    plain(|| read_text(d)).map(|(_, value)| value)
}

/// The string as written and with `${VAR}` expanded.
pub fn read_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<(String, String), D::Error> {
    let raw = String::deserialize(d)?;
    let value = expand(&raw).map_err(refuse)?;
    Ok((raw, value))
}

/// How many variables have been read so far (for [`secret_since`]).
pub fn read_so_far() -> usize {
    READ.with(|r| r.borrow().len())
}

/// Marks as secrets the variables read since `first` whose value `part`
/// finds part of a secret (a password inside `base_url`).
pub fn secret_since(first: usize, part: impl Fn(&str) -> bool) {
    READ.with(|r| {
        for (_, value, secret) in r.borrow_mut().iter_mut().skip(first) {
            *secret |= part(value.as_str());
        }
    });
}
