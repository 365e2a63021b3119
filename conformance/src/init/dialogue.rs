//! The questions `init` asks on a terminal for what the flags leave out.
//! An empty answer takes the default, or asks again where there is none:
//! it never ends the dialogue and never throws earlier answers away.

/// What a question got.
enum Asked {
    Answer(String),
    Empty,
    /// No terminal to ask on, or its input ended.
    Nothing,
}

fn ask_once(question: &str) -> Asked {
    use std::io::{BufRead, IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        return Asked::Nothing;
    }
    eprint!("{question}: ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => Asked::Nothing,
        Ok(_) if line.trim().is_empty() => Asked::Empty,
        Ok(_) => Asked::Answer(line.trim().to_owned()),
    }
}

/// Asks `question` on the terminal (stderr), when stdin is one; `None`
/// otherwise, or for an empty answer (the caller's default).
pub fn ask(question: &str) -> Option<String> {
    match ask_once(question) {
        Asked::Answer(a) => Some(a),
        Asked::Empty | Asked::Nothing => None,
    }
}

/// Asks `question` until it gets an answer; `None` only when there is no
/// terminal to ask on (or its input ended).
pub fn ask_required(question: &str) -> Option<String> {
    loop {
        match ask_once(question) {
            Asked::Answer(a) => return Some(a),
            Asked::Empty => eprintln!("  (an answer is needed here)"),
            Asked::Nothing => return None,
        }
    }
}

/// A flag's value, else the answer to `question`, else an error naming
/// the flag.
pub fn given_or_asked(value: Option<String>, flag: &str, question: &str) -> Result<String, String> {
    value.or_else(|| ask_required(question)).ok_or_else(|| {
        format!("init needs {flag} (not given, and stdin is not a terminal to ask on)")
    })
}

/// Components asked one by one on a terminal, each as `--component`
/// takes it (a profile's component, in YAML).
pub fn ask_components() -> Vec<String> {
    let q = |s: String| serde_json::Value::from(s).to_string();
    let mut out = Vec::new();
    while let Some(name) = ask(&format!(
        "Component {} name (empty: no more)",
        out.len() + 1
    )) {
        let (Some(tag), Some(uuid)) = (ask_required("  its tag"), ask_required("  its uuid"))
        else {
            break;
        };
        let requires_auth =
            ask("  requires auth? (y/N)").is_some_and(|a| a.to_ascii_lowercase().starts_with('y'));
        let mut yaml = format!(
            "{{name: {}, tag: {}, uuid: {}, requires_auth: {requires_auth}",
            q(name),
            q(tag),
            q(uuid)
        );
        if requires_auth {
            let Some(var) = ask_required("  the environment variable that holds one of its tokens")
            else {
                break;
            };
            yaml.push_str(&format!(", auth_token: {}", q(format!("${{{var}}}"))));
        }
        if let Some(model) = ask("  a model uuid for Authorize (empty: none)") {
            let Some(body) = ask_required(
                "  the fields that authorize it, as YAML (secrets as \"${VAR}\"), e.g. {email: a@example.com, password: \"${USERS_PASSWORD}\"}",
            ) else {
                break;
            };
            yaml.push_str(&format!(
                ", authorize: {{model_uuid: {}, valid_body: {body}",
                q(model)
            ));
            if let Some(invalid) = ask(
                "  a body that fails its validation, as YAML (runs the 417 checks, which CI's check-profile needs; empty: none), e.g. {email: 7}",
            ) {
                yaml.push_str(&format!(", invalid_body: {invalid}"));
            }
            yaml.push('}');
        }
        yaml.push('}');
        out.push(yaml);
    }
    out
}
