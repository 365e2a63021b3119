//! Coverage of the description (`conformance coverage`): every statement of
//! a requirement in the interface description (table rows, rules, list
//! items, sentences; see [`conformance_wire::description::statements`]) with the
//! checks that enforce it, and those no check enforces.
//!
//! A check enforces the statement its quote stands in: the quote is found
//! in the check's own section of the description (MUST quotes are word for
//! word) and overlaps the statement. Beside the checks, each statement
//! lists the proxy's rules that enforce it on observed traffic (`proxy`,
//! `audit`): those whose quoted sentence stands in it
//! ([`crate::traffic::statements_of`]).

use crate::catalogue::Check;
use crate::checks::catalogue;
use conformance_wire::description::{self, Statement};

/// Each statement with the ids of the checks that enforce it.
#[derive(Clone, Debug)]
pub struct Coverage {
    pub statements: Vec<(Statement, Vec<String>)>,
    /// The ids of the traffic rules that enforce each statement, in the
    /// order of `statements` (a field of its own, so what reads
    /// `statements` reads what it always did).
    pub traffic: Vec<Vec<String>>,
}

/// The statements `check`'s quote stands in (none for a quote that is not
/// the description's: a norm or one of our spec's choices): in the check's
/// section, and in the section of the operation it is about (a §5 header
/// row checked on Auth Claims also enforces §4.1's row).
pub fn statements_of<'a>(check: &Check, statements: &'a [Statement]) -> Vec<&'a Statement> {
    let mut places: Vec<(usize, usize)> = Vec::new();
    let mut sections = vec![check.section];
    // The operation's section holds the rows checked too.
    if let Some(op) = check.subject.op {
        sections.push(op.section());
    }
    for section in &sections {
        if let Some((start, end)) = description::locate(check.quote(), section) {
            let inside =
                description::section_span(section).is_some_and(|(s, e)| s <= start && end <= e);
            if inside || places.is_empty() {
                places.push((start, end));
            }
        }
    }
    let in_sections = |s: &Statement| {
        sections.iter().any(|section| {
            description::section_span(section).is_some_and(|(a, b)| a <= s.start && s.end <= b)
        })
    };
    statements
        .iter()
        .filter(|s| {
            places
                .iter()
                .any(|(start, end)| s.start < *end && *start < s.end)
                || (in_sections(s) && holds_the_row(check, s))
        })
        .collect()
}

/// Whether the check holds the item of table row `s` (its first cell):
/// `headers/auth-claims/x-client-secret/missing` holds `X-Client-Secret`
/// ([`Subject::items`](crate::catalogue::Subject)). Checks quote the
/// sentence that makes a table a rule ("Every request ... carries these
/// headers:"); the rows are what they judge.
fn holds_the_row(check: &Check, s: &Statement) -> bool {
    let Some(item) = s
        .text
        .trim()
        .strip_prefix('|')
        .and_then(|r| r.split('|').next())
    else {
        return false;
    };
    let item = item.trim().trim_matches('`');
    !item.is_empty()
        && check
            .subject
            .items
            .iter()
            .any(|held| held.eq_ignore_ascii_case(item))
}

impl Coverage {
    pub fn of_description() -> Self {
        let statements = description::statements();
        let checks = catalogue();
        let mut out: Vec<(Statement, Vec<String>)> =
            statements.iter().map(|s| (s.clone(), Vec::new())).collect();
        for c in &checks {
            for s in statements_of(c, &statements) {
                if let Some((_, ids)) = out.iter_mut().find(|(x, _)| x == s) {
                    ids.push(c.id.to_owned());
                }
            }
        }
        let traffic = statements
            .iter()
            .map(|s| {
                traffic_rules::RULES
                    .iter()
                    .filter(|r| crate::traffic::statements_of(r, &statements).contains(&s))
                    .map(|r| r.id.to_owned())
                    .collect()
            })
            .collect();
        Coverage {
            statements: out,
            traffic,
        }
    }

    /// The traffic rules that enforce statement `i` of `statements`.
    pub fn traffic_of(&self, i: usize) -> &[String] {
        self.traffic.get(i).map_or(&[], Vec::as_slice)
    }

    /// Statements no check enforces.
    pub fn uncovered(&self) -> impl Iterator<Item = &Statement> {
        self.statements
            .iter()
            .filter(|(_, ids)| ids.is_empty())
            .map(|(s, _)| s)
    }

    pub fn summary(&self) -> String {
        let n = self.statements.len();
        let none = self.uncovered().count();
        format!(
            "{n} statements of requirements in {}: {} enforced by a check, {none} by none",
            description::PATH,
            n - none
        )
    }

    /// One block per statement, then those enforced by none.
    pub fn text(&self) -> String {
        self.text_with("")
    }

    /// [`Coverage::text`] with `more` (whole lines) before its last two
    /// lines, the traffic line and the summary, which stay last.
    pub fn text_with(&self, more: &str) -> String {
        let mut out = String::new();
        for (i, (s, ids)) in self.statements.iter().enumerate() {
            out.push_str(&format!(
                "§{:<4} line {:>3}  {}\n",
                s.section, s.line, s.text
            ));
            if ids.is_empty() {
                out.push_str("            (no check)\n");
            }
            for id in ids {
                out.push_str(&format!("            {id}\n"));
            }
            for rule in self.traffic_of(i) {
                out.push_str(&format!("            traffic: {rule}\n"));
            }
        }
        out.push_str("\nEnforced by no check:\n");
        for s in self.uncovered() {
            out.push_str(&format!(
                "  §{:<4} line {:>3}  {}\n",
                s.section, s.line, s.text
            ));
        }
        out.push_str(more);
        out.push('\n');
        out.push_str(&self.traffic_line());
        out.push('\n');
        out.push_str(&self.summary());
        out.push('\n');
        out
    }

    /// How many statements observed traffic is judged by.
    pub fn traffic_line(&self) -> String {
        let judged = self.traffic.iter().filter(|t| !t.is_empty()).count();
        format!(
            "Judged on observed traffic too (`proxy`, `audit`): {judged} statements, by {} rules",
            traffic_rules::RULES.len()
        )
    }

    pub fn markdown(&self) -> String {
        let cell = |s: &str| s.replace('|', "\\|");
        let mut out = format!(
            "{}\n\n{}\n\n| § | Line | Statement | Checks | Traffic |\n|---|---|---|---|---|\n",
            self.summary(),
            self.traffic_line()
        );
        for (i, (s, ids)) in self.statements.iter().enumerate() {
            let checks = if ids.is_empty() {
                "**none**".to_owned()
            } else {
                ids.iter()
                    .map(|i| format!("`{i}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let traffic: Vec<String> = self
                .traffic_of(i)
                .iter()
                .map(|r| format!("`{r}`"))
                .collect();
            out.push_str(&format!(
                "| {} | {} | {} | {checks} | {} |\n",
                s.section,
                s.line,
                cell(&s.text),
                traffic.join(", ")
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Level;

    #[test]
    fn every_must_check_enforces_a_statement() {
        let statements = description::statements();
        let orphans: Vec<String> = catalogue()
            .iter()
            .filter(|c| c.level == Level::Must)
            .filter(|c| statements_of(c, &statements).is_empty())
            .map(|c| format!("{}: {}", c.id, c.quote()))
            .collect();
        assert!(orphans.is_empty(), "{}", orphans.join("\n"));
    }

    /// An item a check holds names a row of a table in its sections: a
    /// misspelt one would enforce nothing, silently.
    #[test]
    fn every_item_a_check_holds_is_a_row_it_enforces() {
        let statements = description::statements();
        let stray: Vec<String> = catalogue()
            .iter()
            .flat_map(|c| {
                let enforced = statements_of(c, &statements);
                c.subject
                    .items
                    .iter()
                    .filter(move |item| {
                        !enforced.iter().any(|s| {
                            s.text
                                .trim()
                                .strip_prefix('|')
                                .and_then(|r| r.split('|').next())
                                .is_some_and(|cell| cell.trim().eq_ignore_ascii_case(item))
                        })
                    })
                    .map(move |item| format!("{}: {item}", c.id))
            })
            .collect();
        assert!(stray.is_empty(), "{}", stray.join("\n"));
    }

    #[test]
    fn rules_are_covered_and_gaps_listed() {
        let coverage = Coverage::of_description();
        let of = |text: &str| {
            coverage
                .statements
                .iter()
                .find(|(s, _)| s.text.starts_with(text))
                .map(|(_, ids)| ids.clone())
                .unwrap_or_else(|| panic!("no statement {text}"))
        };
        assert!(!of("1. When validation of the request fails").is_empty());
        assert!(!of("2. When the response is 400").is_empty());
        let text = coverage.text();
        assert!(text.contains("Enforced by no check:"));
        // What the proxy enforces: each rule under the statements it quotes,
        // a header's row in each operation's table and in §5.
        let traffic_of = |text: &str| -> Vec<Vec<String>> {
            coverage
                .statements
                .iter()
                .enumerate()
                .filter(|(_, (s, _))| s.text.contains(text))
                .map(|(i, _)| coverage.traffic_of(i).to_vec())
                .collect()
        };
        let secret = traffic_of("| X-Client-Secret | string | yes | Client secret");
        assert_eq!(
            secret,
            [vec![
                "client/x-client-secret".to_owned(),
                "server/refuses-a-wrong-secret".to_owned()
            ]]
        );
        let env = traffic_of("| X-Project-Env | string | no | Allowed values");
        assert_eq!(env.len(), 2, "§4.1 and §4.2");
        assert!(env.iter().all(|t| t == &["client/x-project-env"]));
        let rule = traffic_of("1. When validation of the request fails");
        assert_eq!(
            rule,
            [vec![
                "server/417-shape".to_owned(),
                "server/validation-417".to_owned()
            ]]
        );
        assert_eq!(
            traffic_of("| Method | GET |"),
            [vec!["server/auth-claims-is-get".to_owned()]]
        );
        assert!(traffic_of("| Path |").iter().all(Vec::is_empty));
        assert!(text.contains("            traffic: client/x-client-secret\n"));
        assert!(text.trim_end().ends_with("by none"));
        assert_eq!(text, Coverage::of_description().text(), "deterministic");
    }
}
