//! A request as a `curl` command a person can paste, with every secret
//! replaced by a shell variable (`$CLIENT_SECRET`, `$AUTH_TOKEN_USERS`,
//! `$PASSWORD`) and every value derived from a secret written as a shell
//! expression over it (`"${CLIENT_SECRET}x"`), so that a reproduction never
//! shows a secret, not even most of one.

use crate::profile::Profile;
use crate::target::Req;

/// A secret of the profile and the variable that stands for it.
#[derive(Clone, Debug)]
pub struct Placeholder {
    pub value: String,
    pub variable: String,
}

/// Every secret of the profile with its variable, longest value first: a
/// value the profile read from `${VAR}` is written `$VAR`, the others get
/// a name from their place (`CLIENT_SECRET`, `AUTH_TOKEN_USERS`).
pub fn placeholders(profile: &Profile) -> Vec<Placeholder> {
    let mut all: Vec<Placeholder> = profile
        .env
        .iter()
        .map(|(variable, value)| Placeholder {
            value: value.expose().to_owned(),
            variable: variable.clone(),
        })
        .collect();
    all.push(Placeholder {
        value: profile.client_secret.expose().to_owned(),
        variable: "CLIENT_SECRET".to_owned(),
    });
    for c in &profile.components {
        let suffix = shell_name(&c.tag);
        if let Some(t) = &c.auth_token {
            all.push(Placeholder {
                value: t.expose().to_owned(),
                variable: format!("AUTH_TOKEN_{suffix}"),
            });
        }
        let Some(a) = &c.authorize else { continue };
        for (name, value) in a.valid_body.iter() {
            if !c.is_secret_field(name) {
                continue;
            }
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            all.push(Placeholder {
                value: text,
                variable: format!("{}_{suffix}", shell_name(name)),
            });
        }
    }
    all.retain(|p| p.value.len() >= 3);
    // The first name of a value wins (the profile's own variable).
    let mut seen = std::collections::HashSet::new();
    all.retain(|p| seen.insert(p.value.clone()));
    all.sort_by_key(|p| std::cmp::Reverse(p.value.len()));
    all
}

/// The variable a reproduction writes for `value`, `fallback` when it is
/// no secret of the profile.
pub fn variable(profile: &Profile, value: &str, fallback: &str) -> String {
    placeholders(profile)
        .into_iter()
        .find(|p| p.value == value)
        .map_or_else(|| fallback.to_owned(), |p| p.variable)
}

/// `Café Menü` → `CAF_MEN_`: a shell variable name part.
pub(crate) fn shell_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
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
    let mut out = format!(
        "curl -sS -X {} {}",
        request.method(),
        quote(request.url().as_str())
    );
    for (name, value) in request.headers() {
        let shown = match derived
            .iter()
            .find(|d| d.header.eq_ignore_ascii_case(name.as_str()))
        {
            Some(d) => format!("\"{}: {}\"", name.as_str(), d.expression),
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
