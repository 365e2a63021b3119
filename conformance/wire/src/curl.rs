//! A request as a `curl` command a person can paste, with every secret
//! replaced by a shell variable (`$CLIENT_SECRET`, `$AUTH_TOKEN_USERS`,
//! `$PASSWORD`) and every value derived from a secret written as a shell
//! expression over it (`"${CLIENT_SECRET}x"`), so that a reproduction never
//! shows a secret, not even most of one.

use crate::request::Req;
use conformance_model::profile::Profile;

/// A secret of the profile and the variable that stands for it.
#[derive(Clone, Debug)]
pub struct Placeholder {
    pub value: String,
    pub variable: String,
}

/// Every secret of the profile with its variable, longest value first, from
/// [`Profile::secret_values`]: a value the profile read from `${VAR}` is
/// written `$VAR`, the others by a name from their key (`CLIENT_SECRET`,
/// `AUTH_TOKEN_USERS`). A value that holds one read from the environment
/// (`client_secret: pre-${X}`) is written through that variable, so the
/// command runs in the user's own environment.
pub fn placeholders(profile: &Profile) -> Vec<Placeholder> {
    let all = profile.secret_values();
    let from_env: Vec<&str> = all
        .iter()
        .filter(|s| s.from_env && s.value.len() >= MIN_PLACEHOLDER_LEN)
        .map(|s| s.value.as_str())
        .collect();
    let mut out: Vec<Placeholder> = all
        .iter()
        .filter(|s| s.from_env || !from_env.iter().any(|v| s.value.contains(v)))
        .filter(|s| s.value.len() >= MIN_PLACEHOLDER_LEN)
        .map(|s| Placeholder {
            value: s.value.clone(),
            variable: s.variable.clone(),
        })
        .collect();
    out.sort_by_key(|p| std::cmp::Reverse(p.value.len()));
    out
}

/// Shorter values are left as they are: replacing `42` everywhere would
/// splice a variable into unrelated numbers.
const MIN_PLACEHOLDER_LEN: usize = 3;

/// The variable a reproduction writes for `value`, when it is a secret of
/// the profile.
pub fn secret_variable(profile: &Profile, value: &str) -> Option<String> {
    placeholders(profile)
        .into_iter()
        .find(|p| p.value == value)
        .map(|p| p.variable)
}

/// The variable a reproduction writes for `value`, `fallback` when it is
/// no secret of the profile.
pub fn variable(profile: &Profile, value: &str, fallback: &str) -> String {
    secret_variable(profile, value).unwrap_or_else(|| fallback.to_owned())
}

pub use conformance_model::profile::shell_name;

/// A variable a reproduction reads that the profile does not take from the
/// environment: the report prints `export VARIABLE=...` and where the value
/// is, never the value, so that a reproduction runs as pasted once it is set.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Definition {
    pub variable: String,
    /// The profile's key that holds the value, and the file.
    pub location: String,
}

impl Definition {
    /// `export PIN_CATALOG=...   # the value of components[1]... in FILE`
    pub fn line(&self) -> String {
        format!(
            "export {}=...   # the value of {}",
            self.variable, self.location
        )
    }
}

/// The variables reproductions may read whose values the profile holds
/// itself (`file` names it): those read from `${VAR}` are the user's own.
pub fn definitions(profile: &Profile, file: &str) -> Vec<Definition> {
    let all = profile.secret_values();
    let mut out = placeholders(profile)
        .into_iter()
        .filter_map(|p| {
            let s = all
                .iter()
                .find(|s| s.value == p.value && s.variable == p.variable)?;
            (!s.from_env).then(|| Definition {
                variable: p.variable,
                location: format!("`{}` in {file}", s.key),
            })
        })
        .collect::<Vec<_>>();
    out.sort_by(|a, b| a.variable.cmp(&b.variable));
    out
}

/// A header value the command must write as a shell expression rather than
/// literally: a near miss of a secret (`"${CLIENT_SECRET}x"`).
#[derive(Clone, Debug)]
pub struct Derived {
    pub header: &'static str,
    pub expression: String,
}

/// `req` as a one-line `curl` command.
pub fn render(req: &Req, secrets: &[Placeholder], derived: &[Derived]) -> String {
    let request = req.request();
    // The URL through the secrets too: a password in `base_url` is
    // written as its variable, not redacted (the command would send that).
    let mut out = format!(
        "curl -sS -X {} {}",
        request.method(),
        substitute(request.url().as_str(), secrets)
    );
    for (name, value) in request.headers() {
        let shown = match derived
            .iter()
            .find(|d| d.header.eq_ignore_ascii_case(name.as_str()))
        {
            Some(d) => format!("\"{}: {}\"", name.as_str(), d.expression),
            // curl drops a header given as `Name: ` with nothing after it;
            // `Name;` sends it with an empty value.
            None if value.is_empty() => quote(&format!("{};", name.as_str())),
            None => {
                let text = String::from_utf8_lossy(value.as_bytes());
                substitute(&format!("{}: {text}", name.as_str()), secrets)
            }
        };
        out.push_str(" -H ");
        out.push_str(&shown);
    }
    if let Some(body) = request.body().and_then(|b| b.as_bytes()) {
        match std::str::from_utf8(body) {
            Ok(text) => {
                out.push_str(" --data-binary ");
                out.push_str(&substitute(text, secrets));
            }
            Err(_) => {
                // Bytes that are not UTF-8 go through printf's escapes.
                let escaped: String = body.iter().map(|b| format!("\\x{b:02x}")).collect();
                out.push_str(&format!(" --data-binary \"$(printf '{escaped}')\""));
            }
        }
    }
    out
}

/// Single-quotes `text` for the shell, with each secret spliced in as
/// `'"$VAR"'`.
fn substitute(text: &str, secrets: &[Placeholder]) -> String {
    // Most headers and bodies hold no secret (every request is rendered).
    if !secrets.iter().any(|p| text.contains(p.value.as_str())) {
        return if text.is_empty() {
            "''".to_owned()
        } else {
            quote(text)
        };
    }
    let mut pieces = vec![(text.to_owned(), false)];
    for p in secrets {
        let mut next = Vec::new();
        for (piece, is_var) in pieces {
            if is_var || !piece.contains(&p.value) {
                next.push((piece, is_var));
                continue;
            }
            let mut parts = piece.split(p.value.as_str()).peekable();
            while let Some(part) = parts.next() {
                next.push((part.to_owned(), false));
                if parts.peek().is_some() {
                    next.push((p.variable.clone(), true));
                }
            }
        }
        pieces = next;
    }
    let mut out = String::new();
    for (piece, is_var) in pieces {
        if is_var {
            out.push_str(&format!("\"${{{piece}}}\""));
        } else if !piece.is_empty() {
            out.push_str(&quote(&piece));
        }
    }
    if out.is_empty() { "''".to_owned() } else { out }
}

/// `text` in single quotes, safe for any shell.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_use_the_profiles_own_variables() {
        let text = "base_url: http://ops:url-pa55@127.0.0.1:${PORT}\nclient_id: c\nclient_secret: pre-${X}\ncomponents:\n  - name: Users\n    tag: users\n    uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11\n    auth_token: tok-literal\n";
        let env = |name: &str| match name {
            "PORT" => Some("18080".to_owned()),
            "X" => Some("from-env-x".to_owned()),
            _ => None,
        };
        let profile = Profile::from_yaml_str(text, "p.yaml", &env).expect("valid");
        let all: Vec<(String, String)> = placeholders(&profile)
            .into_iter()
            .map(|p| (p.value, p.variable))
            .collect();
        let owned = |v: &str, n: &str| (v.to_owned(), n.to_owned());
        assert_eq!(
            all,
            [
                owned("tok-literal", "AUTH_TOKEN_USERS"),
                owned("from-env-x", "X"),
                owned("url-pa55", "BASE_URL_PASSWORD"),
            ],
            "the port is no secret; pre-${{X}} is written through X"
        );
        assert_eq!(
            substitute("x: pre-from-env-x", &placeholders(&profile)),
            r#"'x: pre-'"${X}""#
        );
    }

    #[test]
    fn secrets_become_variables_and_the_rest_is_quoted() {
        let secrets = vec![Placeholder {
            value: "s3cret".into(),
            variable: "CLIENT_SECRET".into(),
        }];
        assert_eq!(
            substitute("a: s3cret's", &secrets),
            r#"'a: '"${CLIENT_SECRET}"''\''s'"#
        );
        assert_eq!(substitute("plain", &secrets), "'plain'");
        assert!(!substitute("xs3cretx", &secrets).contains("s3cret"));
    }
}
