//! The checks, one file per concept of the interface description.
//!
//! Each file returns its checks as declarations ([`CaseCheck`](crate::case::CaseCheck)):
//! id, level, section and quote, what is sent and what must happen, as
//! data that [`crate::case`] renders into the catalogue's texts and runs.
//! Eleven checks keep a procedure of their own, each said why beside it:
//! the seven invariants (they judge shrunk property findings, which are no
//! answers), the three over every answer of the run (`answers.rs`: the
//! runner judges them last) and `choices/issued-token` (its second request carries what
//! the first answered). Judgements shared by several files live here: what
//! counts as "accepted", "refused" and "a 417 in the 7.2 shape".
//!
//! MUST checks judge from the raw answer and assume nothing the description
//! leaves open: a refusal may be any 4xx, as long as its body is an error
//! envelope of the documented shape. The spec's own choices (401 for a wrong
//! secret, 404 for an unknown ref, ...) are pinned by SHOULD checks in
//! `choices.rs`, which judge the typed variants the bindings decode.

use crate::catalogue::Check;

pub(crate) mod answers;
mod auth_token;
mod body;
mod budgets;
mod choices;
mod compression;
mod connections;
mod envelopes;
mod fields;
mod headers;
mod invariants;
mod near_miss;
mod outcomes;
mod prefix;
mod project_env;
mod refs;
mod responses;
mod state;

/// Every check, in catalogue order.
pub fn catalogue() -> Vec<Check> {
    let mut all = Vec::new();
    all.extend(responses::checks());
    all.extend(refs::checks());
    all.extend(headers::checks());
    all.extend(auth_token::checks());
    all.extend(project_env::checks());
    all.extend(body::checks());
    all.extend(envelopes::checks());
    all.extend(prefix::checks());
    all.extend(near_miss::checks());
    all.extend(connections::checks());
    all.extend(invariants::checks());
    all.extend(fields::checks());
    all.extend(choices::checks());
    all.extend(state::checks());
    all.extend(compression::checks());
    all.extend(answers::checks());
    all.extend(outcomes::checks());
    all.extend(budgets::checks());
    all
}

pub(crate) use crate::judge::{accepted, is_417, judge_all, refused};
pub(crate) use crate::probes::{
    UNKNOWN_REF, UNKNOWN_UUID, WRONG_CLIENT_ID, WRONG_SECRET, WRONG_TOKEN,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::{Level, SECTIONS};

    /// The interface description: the copy in `spec/`, which the spec and
    /// every MUST quote are bound to.
    fn description() -> String {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../spec/interface-description.md"
        );
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Where the shared original sits beside the workspace, the copy must
    /// not have drifted from it.
    #[test]
    fn the_copy_of_the_description_is_the_original() {
        let original = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/interface-description.md"
        );
        match std::fs::read_to_string(original) {
            Ok(text) => assert!(
                text == description(),
                "spec/interface-description.md differs from {original}: copy it again"
            ),
            // A clone on its own (CI) has no shared original beside it: say
            // so rather than pass in silence.
            Err(e) => eprintln!("not compared: {original}: {e}"),
        }
    }

    #[test]
    fn must_quotes_are_word_for_word_in_the_description() {
        let text = description();
        let misquoted: Vec<String> = catalogue()
            .iter()
            .filter(|c| c.level == Level::Must && !text.contains(c.quote))
            .map(|c| format!("{}: {}", c.id, c.quote))
            .collect();
        assert!(
            misquoted.is_empty(),
            "not in the description:\n{}",
            misquoted.join("\n")
        );
    }

    #[test]
    fn should_quotes_cite_a_choice_or_a_norm() {
        let vague: Vec<String> = catalogue()
            .iter()
            .filter(|c| c.level == Level::Should)
            .filter(|c| {
                !(c.quote.starts_with("spec choice")
                    || c.quote.contains("RFC")
                    || c.quote.starts_with("the profile's"))
            })
            .map(|c| format!("{}: {}", c.id, c.quote))
            .collect();
        assert!(
            vague.is_empty(),
            "SHOULD checks that cite nothing:\n{}",
            vague.join("\n")
        );
    }

    #[test]
    fn ids_are_unique_and_sections_known() {
        let all = catalogue();
        for (i, c) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|d| d.id != c.id), "{} twice", c.id);
            assert!(
                SECTIONS.iter().any(|(s, _)| *s == c.section),
                "{}: §{}",
                c.id,
                c.section
            );
        }
    }
}
