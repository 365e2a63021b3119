//! Which checks observed traffic can judge too: each rule of the proxy and
//! `audit` ([`traffic_rules::RULES`]) names the checks of this catalogue
//! that enforce its sentence the same way ([`traffic_rules::Rule::checks`]).
//! `conformance list` marks those checks; `conformance coverage` lists,
//! beside each statement's checks, the rules that enforce it on traffic.

use traffic_rules::{RULES, Rule};

use conformance_wire::description::{self, Statement};

/// The traffic rules that judge what check `id` judges.
pub fn rules_of(id: &str) -> Vec<&'static Rule> {
    RULES
        .iter()
        .copied()
        .filter(|r| r.checks.contains(&id))
        .collect()
}

/// The statements `rule`'s quoted sentence stands in: wherever the
/// description states it (a header's row stands in §4.1, §4.2 and §5, and
/// the rule judges both operations).
pub fn statements_of<'a>(rule: &Rule, statements: &'a [Statement]) -> Vec<&'a Statement> {
    let text = description::TEXT;
    let mut places = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(rule.quote()) {
        places.push((from + at, from + at + rule.quote().len()));
        from += at + rule.quote().len();
    }
    statements
        .iter()
        .filter(|s| places.iter().any(|(a, b)| s.start < *b && *a < s.end))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::catalogue;

    /// Every check a rule names is in the catalogue, and enforces the
    /// rule's sentence: the check's quote and the rule's stand at the same
    /// place of the check's section (or the check's is a row of the table
    /// the rule's introduces), and the sections are one (or one holds the
    /// other, or holds the sentence: a header's row is in both operations'
    /// sections).
    #[test]
    fn every_linked_check_exists_and_quotes_the_rule_s_sentence() {
        let all = catalogue();
        let mut wrong = Vec::new();
        for rule in RULES {
            for id in rule.checks {
                let Some(check) = all.iter().find(|c| c.id == *id) else {
                    wrong.push(format!("{}: no check `{id}` in the catalogue", rule.id));
                    continue;
                };
                let (Some((a, b)), Some((c, d))) = (
                    description::locate(rule.quote(), check.section),
                    description::locate(check.quote(), check.section),
                ) else {
                    wrong.push(format!(
                        "{}: `{id}`'s quote is not the description's",
                        rule.id
                    ));
                    continue;
                };
                // A sentence that introduces a table ("Every request ...
                // carries these headers:") states each of its rows.
                let introduces = rule.quote().ends_with(':') && {
                    let rest = &description::TEXT[b..];
                    let table = rest.len() - rest.trim_start().len();
                    let end = rest[table..].find("\n\n").map_or(rest.len(), |e| table + e);
                    b <= c && d <= b + end
                };
                let overlaps = a < d && c < b;
                if !(overlaps || introduces) {
                    wrong.push(format!(
                        "{}: `{id}` quotes another sentence: {}",
                        rule.id,
                        check.quote()
                    ));
                }
                let nested = |x: &str, y: &str| x == y || x.starts_with(&format!("{y}."));
                let holds =
                    description::section_span(check.section).is_some_and(|(s, e)| s <= a && b <= e);
                if !(nested(rule.section, check.section)
                    || nested(check.section, rule.section)
                    || holds)
                {
                    wrong.push(format!(
                        "{}: §{} and `{id}`'s §{} differ",
                        rule.id, rule.section, check.section
                    ));
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// A check no rule names is not marked, one named is: the marks follow
    /// the links and nothing else.
    #[test]
    fn marks_follow_the_links() {
        assert_eq!(
            rules_of("headers/auth-claims/x-client-secret/missing")
                .iter()
                .map(|r| r.id)
                .collect::<Vec<_>>(),
            [
                "client/x-client-secret",
                "server/refuses-what-a-client-must-not-send"
            ]
        );
        assert!(rules_of("headers/auth-claims/x-client-secret/wrong").is_empty());
        let statements = description::statements();
        for rule in RULES {
            assert!(
                !statements_of(rule, &statements).is_empty(),
                "{} enforces no statement",
                rule.id
            );
        }
    }
}
