//! The questions `init` asks on a terminal for what the flags leave out.

/// Asks `question` on the terminal (stderr), when stdin is one; `None`
/// otherwise, or for an empty answer.
pub fn ask(question: &str) -> Option<String> {
    use std::io::{BufRead, IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        return None;
    }
    eprint!("{question}: ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).ok()?;
    let line = line.trim().to_owned();
    (!line.is_empty()).then_some(line)
}

/// A flag's value, else the answer to `question`, else an error naming
/// the flag.
pub fn given_or_asked(value: Option<String>, flag: &str, question: &str) -> Result<String, String> {
    value.or_else(|| ask(question)).ok_or_else(|| {
        format!("init needs {flag} (not given, and stdin is not a terminal to ask on)")
    })
}

/// Components asked one by one on a terminal, as `--component` takes them.
pub fn ask_components() -> Vec<String> {
    let mut out = Vec::new();
    while let Some(name) = ask(&format!(
        "Component {} name (empty: no more)",
        out.len() + 1
    )) {
        let field = |q: &str| ask(q).unwrap_or_default();
        let tag = field("  its tag");
        let uuid = field("  its uuid");
        let requires_auth = field("  requires auth? (y/n)")
            .to_ascii_lowercase()
            .starts_with('y');
        let mut yaml = format!(
            "{{name: {}, tag: {}, uuid: {}, requires_auth: {requires_auth}",
            serde_json::Value::from(name),
            serde_json::Value::from(tag),
            serde_json::Value::from(uuid)
        );
        if requires_auth {
            let var = field("  the environment variable that holds one of its tokens");
            yaml.push_str(&format!(", token_env: {}", serde_json::Value::from(var)));
        }
        if let Some(model) = ask("  a model uuid for Authorize (empty: none)") {
            let body = field(
                "  the fields that authorize it, as YAML (secrets as \"${VAR}\"), e.g. {email: a@example.com, password: \"${USERS_PASSWORD}\"}",
            );
            yaml.push_str(&format!(
                ", model_uuid: {}, valid_body: {body}",
                serde_json::Value::from(model)
            ));
            if let Some(invalid) = ask(
                "  a body that fails its validation, as YAML (runs the 417 checks, which CI's check-profile needs), e.g. {email: 7}",
            ) {
                yaml.push_str(&format!(", invalid_body: {invalid}"));
            }
        }
        yaml.push('}');
        out.push(yaml);
    }
    out
}
