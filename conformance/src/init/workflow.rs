//! The CI workflow `init` writes: the template `workflow.yml` beside this
//! file, its named placeholders (`{{action}}`, `{{base_url}}`, ...) filled
//! in from the answers. `docs/ci-example.yml`, which the README shows, is
//! the same template filled in with example values: a test holds the two
//! together, so they cannot drift.

use std::fmt::Write as _;

use super::{Answers, InitError, VERSION_TAG, err, yaml_quoted};

/// The template, with its own opening comment (up to `name:`).
const TEMPLATE: &str = include_str!("workflow.yml");
/// The gate step with the action (`--action`), its comment `##` lines.
const GATE_ACTION: &str = include_str!("gate-action.yml");
/// The gate step built from source (`--source`), its comment `##` lines.
const GATE_SOURCE: &str = include_str!("gate-source.yml");

/// `template` from its `name:` line on, each `{{name}}` replaced by its
/// value in `values` (a line that is only a placeholder by the value,
/// whole lines with their line breaks); a placeholder without a value, or
/// a value no placeholder takes, is an error.
fn render(template: &str, values: &[(&str, String)]) -> Result<String, InitError> {
    // A snippet's comment is its leading `##` lines; the workflow's, its
    // lines up to `name:`.
    let body = if template.starts_with("##") {
        let mut rest = template;
        while rest.starts_with("##") {
            rest = rest.split_once('\n').map_or("", |(_, r)| r);
        }
        rest
    } else {
        let body_at = template.find("\nname: ").ok_or_else(|| {
            err("the workflow template has no `name:`: init cannot write the workflow from it")
        })?;
        &template[body_at + 1..]
    };
    let mut used = vec![false; values.len()];
    let mut out = String::new();
    for line in body.split_inclusive('\n') {
        let mut rest = line;
        let whole = line.trim_end_matches('\n');
        if let Some(name) = whole.strip_prefix("{{").and_then(|n| n.strip_suffix("}}")) {
            let i = values.iter().position(|(n, _)| *n == name).ok_or_else(|| {
                err(format!(
                    "the workflow template's `{{{{{name}}}}}` has no value"
                ))
            })?;
            used[i] = true;
            out.push_str(&values[i].1);
            continue;
        }
        while let Some(start) = rest.find("{{") {
            let name_end = rest[start + 2..].find("}}").map(|e| start + 2 + e);
            let name = name_end.map(|e| &rest[start + 2..e]);
            // `${{ secrets.X }}` is GitHub's, not a placeholder: names are
            // lower case and `_`, without spaces.
            let placeholder = name
                .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
            let (Some(name), Some(end)) = (placeholder, name_end) else {
                out.push_str(&rest[..start + 2]);
                rest = &rest[start + 2..];
                continue;
            };
            let i = values.iter().position(|(n, _)| *n == name).ok_or_else(|| {
                err(format!(
                    "the workflow template's `{{{{{name}}}}}` has no value"
                ))
            })?;
            used[i] = true;
            out.push_str(&rest[..start]);
            out.push_str(&values[i].1);
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(err(format!(
            "the workflow template has no `{{{{{}}}}}`: init cannot write the workflow from it",
            values[i].0
        )));
    }
    Ok(out)
}

/// Where the workflow's paths lead, from the repository's root.
pub struct Paths<'a> {
    /// The profile.
    pub profile: &'a str,
    /// The baseline.
    pub baseline: &'a str,
    /// The folder init ran in (`.` at the root): the server starts there.
    pub folder: &'a str,
    /// The profile's CA file, if any.
    pub ca_cert: Option<&'a str>,
}

impl Answers {
    /// The CI workflow: the template with its opening comment replaced,
    /// the gate step (the action, or the runner built from source), the
    /// server's URL and start command, the paths (from the repository's
    /// root), and an `env:` entry per variable the profile reads, each
    /// from the repository's secret `CONFORMANCE_<VAR>` (a variable that
    /// holds no secret: its variable `vars.CONFORMANCE_<VAR>`). Every
    /// value is quoted for YAML.
    pub fn workflow_yaml(&self, paths: &Paths) -> Result<String, InitError> {
        let plain = self.plain_variables();
        let mut secrets = String::new();
        for var in self.step_variables() {
            let kind = if plain.contains(&var) {
                "vars"
            } else {
                "secrets"
            };
            let _ = writeln!(
                secrets,
                "          {var}: ${{{{ {kind}.CONFORMANCE_{var} }}}}"
            );
        }
        let base_var = self.base_url_var();
        let gate = match self.source_parts() {
            None => render(
                GATE_ACTION,
                &[
                    ("secrets", secrets),
                    ("action", yaml_quoted(&self.action)),
                    ("version", yaml_quoted(VERSION_TAG)),
                    ("profile", yaml_quoted(paths.profile)),
                    ("profile_path", paths.profile.to_owned()),
                    ("baseline", yaml_quoted(paths.baseline)),
                ],
            )?,
            Some((git, rev)) => render(
                GATE_SOURCE,
                &[
                    ("secrets", secrets),
                    ("source_git", yaml_quoted(git)),
                    ("source_rev", yaml_quoted(rev)),
                    ("profile", yaml_quoted(paths.profile)),
                    ("baseline", yaml_quoted(paths.baseline)),
                ],
            )?,
        };
        let body = render(
            TEMPLATE,
            &[
                ("base_var", base_var.clone()),
                ("base_url", yaml_quoted(&self.base_url_in_workflow())),
                ("folder", yaml_quoted(paths.folder)),
                ("start", yaml_quoted(&self.start)),
                ("ca_cert", yaml_quoted(paths.ca_cert.unwrap_or(""))),
                ("gate", gate),
            ],
        )?;
        let runner = match self.source_parts() {
            None => format!("the action {}", self.action),
            Some((git, rev)) => format!("the runner built from {git} at {rev}"),
        };
        Ok(format!(
            "# The conformance gate of this server, written by `conformance init`\n\
             # {VERSION_TAG} ({runner}): docs/ci-example.yml of the runner explains each step.\n\
             # The server's URL is ${base_var} below, in one place: the profile reads it.\n\
             # The secrets the gate step reads are the repository's CONFORMANCE_* secrets.\n{body}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/ci-example.yml is the template filled in with its example
    /// values, below its own opening comment.
    #[test]
    fn the_ci_example_is_the_template_filled_in() {
        let example = include_str!("../../../docs/ci-example.yml");
        let body = &example[example.find("\nname: ").expect("name:") + 1..];
        let secrets = ["CLIENT_SECRET", "USERS_TOKEN", "USERS_PASSWORD"]
            .map(|v| format!("          {v}: ${{{{ secrets.CONFORMANCE_{v} }}}}\n"))
            .concat();
        let gate = render(
            GATE_ACTION,
            &[
                ("secrets", secrets),
                ("action", "OWNER/component-auth-conformance@v0.1.0".into()),
                ("version", "v0.1.0".into()),
                ("profile", "conformance/profile.yaml".into()),
                ("profile_path", "conformance/profile.yaml".into()),
                ("baseline", "conformance/known-failures.yaml".into()),
            ],
        )
        .expect("renders");
        let filled = render(
            TEMPLATE,
            &[
                ("base_var", "BASE_URL".into()),
                ("base_url", "\"http://127.0.0.1:8080\"".into()),
                ("folder", "\".\"".into()),
                ("start", "./scripts/start-server.sh".into()),
                ("ca_cert", "\"\"".into()),
                ("gate", gate),
            ],
        )
        .expect("renders");
        assert_eq!(filled, body);
    }

    /// A placeholder without a value, or a value without its placeholder,
    /// is an error; GitHub's `${{ ... }}` is no placeholder.
    #[test]
    fn placeholders_and_values_match() {
        let t = "# c\nname: {{a}}\n  x: ${{ secrets.X }}\n{{b}}\n";
        let ok = render(t, &[("a", "A".into()), ("b", "  b: 1\n".into())]).expect("renders");
        assert_eq!(ok, "name: A\n  x: ${{ secrets.X }}\n  b: 1\n");
        assert!(render(t, &[("a", "A".into())]).is_err(), "no b");
        let extra = [("a", "A".into()), ("b", String::new()), ("c", "C".into())];
        assert!(render(t, &extra).is_err(), "no {{c}}");
    }
}
