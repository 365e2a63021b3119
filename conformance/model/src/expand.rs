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

/// Environment variables that cannot hold a secret of a profile: the
/// shell's, the loader's, the locale's, the proxies' and TLS's, CI's.
/// A secret is scrubbed from every output and a reproduction sets its
/// variable before the command (`PATH=… curl …`), so such a value would
/// blank every path in the report, and pasting a reproduction would
/// change what the shell runs. Exact names; see [`RESERVED_PREFIXES`].
pub const RESERVED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "PWD",
    "OLDPWD",
    "IFS",
    "CDPATH",
    "ENV",
    "BASH_ENV",
    "PS1",
    "PS2",
    "PS4",
    "PROMPT_COMMAND",
    "SHELLOPTS",
    "BASHOPTS",
    "TERM",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    "HOSTNAME",
    "MAIL",
    "EDITOR",
    "CI",
    "NO_COLOR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "CURL_CA_BUNDLE",
    "CURL_HOME",
];

/// Prefixes of reserved names: the dynamic loader's (`LD_PRELOAD`,
/// `DYLD_INSERT_LIBRARIES`), the locale's (`LC_ALL`), GitHub Actions' and
/// its runners' (`GITHUB_ENV`, `GITHUB_PATH`, `RUNNER_TEMP`), bash's
/// exported functions, and the snapshot library's (`INSTA_UPDATE`).
pub const RESERVED_PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "LC_",
    "GITHUB_",
    "RUNNER_",
    "BASH_FUNC_",
    "INSTA_",
];

/// Whether `name` is a reserved environment variable ([`RESERVED`]).
pub fn reserved(name: &str) -> bool {
    RESERVED.contains(&name) || RESERVED_PREFIXES.iter().any(|p| name.starts_with(p))
}

fn reserved_message(name: &str) -> String {
    format!(
        "`${{{name}}}`: `{name}` is a reserved environment variable (the shell's, the loader's, a proxy's or CI's; see \"Reserved variables\" in conformance/README.md) and cannot hold a secret: a reproduction would set it before its command. Put the value in a variable of your own (`${{MY_{name}}}`)"
    )
}

/// The reserved variable among those read since `first` that became a
/// secret (a password inside `base_url` read from `${HOME}`), as an error.
pub fn reserved_secret_since(first: usize) -> Result<(), String> {
    READ.with(|r| {
        match r
            .borrow()
            .iter()
            .skip(first)
            .find(|(name, _, secret)| *secret && reserved(name))
        {
            Some((name, _, _)) => Err(reserved_message(name)),
            None => Ok(()),
        }
    })
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
        if SECRET.with(Cell::get) && reserved(name) {
            return Err(reserved_message(name));
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
