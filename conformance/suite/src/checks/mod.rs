//! The checks: the file is the id. Every check's id begins with the name of
//! the file that declares it (`near-miss/ref` is in `near_miss.rs`), so a
//! report's id says where to read its check; a test holds it.
//!
//! Each file declares its checks one way, as [`CaseCheck`](crate::case::CaseCheck)s:
//! id, level, section and quote, what is sent and what must happen, as
//! data that [`crate::case`] renders into the catalogue's texts and runs.
//! A check that needs a run of its own says why beside it and declares it
//! as [`Sends::Own`](crate::case::Sends::Own): the invariants and the
//! fields checks (they judge shrunk property findings, which are no
//! answers), the checks over the whole run (`answers.rs`, `outcomes.rs`,
//! `budgets.rs`: the runner judges them last), `compression.rs` (answers
//! compared with and without Accept-Encoding), `state.rs` and `choices/issued-token` (a second
//! request carries what the first answered). Judgements shared by several
//! files live here: what counts as "accepted", "refused" and "a 417 in the
//! 7.2 shape".
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
pub(crate) mod choices;
mod compression;
mod connections;
mod errors;
mod fields;
mod headers;
mod http;
mod invariants;
mod media_type;
mod near_miss;
mod outcomes;
mod prefix;
mod project_env;
mod refs;
mod responses;
mod state;
mod validation;

/// A file of checks: its name, which is the first segment of every id it
/// declares (`near_miss` declares `near-miss/...`), and its checks.
struct File {
    // Read by the test that holds every id to it.
    #[cfg_attr(not(test), allow(dead_code))]
    name: &'static str,
    checks: fn() -> Vec<Check>,
}

/// Every file of checks, in catalogue order (the order of `conformance
/// list` and of the report). `body` comes twice: its §1 check has always
/// been listed before the 417 ones of `validation`, its others after them.
const FILES: &[File] = &[
    File {
        name: "responses",
        checks: responses::checks,
    },
    File {
        name: "refs",
        checks: refs::checks,
    },
    File {
        name: "headers",
        checks: headers::checks,
    },
    File {
        name: "auth_token",
        checks: auth_token::checks,
    },
    File {
        name: "project_env",
        checks: project_env::checks,
    },
    File {
        name: "body",
        checks: body::fields_check,
    },
    File {
        name: "validation",
        checks: validation::checks,
    },
    File {
        name: "body",
        checks: body::checks,
    },
    File {
        name: "errors",
        checks: errors::checks,
    },
    File {
        name: "prefix",
        checks: prefix::checks,
    },
    File {
        name: "near_miss",
        checks: near_miss::checks,
    },
    File {
        name: "media_type",
        checks: media_type::checks,
    },
    File {
        name: "connections",
        checks: connections::checks,
    },
    File {
        name: "invariants",
        checks: invariants::checks,
    },
    File {
        name: "fields",
        checks: fields::checks,
    },
    File {
        name: "choices",
        checks: choices::checks,
    },
    File {
        name: "http",
        checks: http::checks,
    },
    File {
        name: "state",
        checks: state::checks,
    },
    File {
        name: "compression",
        checks: compression::checks,
    },
    File {
        name: "answers",
        checks: answers::checks,
    },
    File {
        name: "outcomes",
        checks: outcomes::checks,
    },
    File {
        name: "budgets",
        checks: budgets::checks,
    },
];

/// Every check, in catalogue order: the files' checks one after the other.
pub fn catalogue() -> Vec<Check> {
    FILES.iter().flat_map(|f| (f.checks)()).collect()
}

pub(crate) use crate::judge::{accepted, is_417, judge_all, refused};
pub(crate) use crate::probes::{
    UNKNOWN_REF, UNKNOWN_UUID, WRONG_CLIENT_ID, WRONG_SECRET, WRONG_TOKEN,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::{Cites, Level, SECTIONS};

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

    /// A MUST check cites a requirement of the description, by its key
    /// (the table holds the quote to the description); a norm is cited in
    /// words, names its source, and is not the description's.
    #[test]
    fn must_checks_cite_a_requirement_and_norms_name_their_source() {
        let text = description();
        let mut wrong = Vec::new();
        for c in catalogue() {
            match c.cites {
                Cites::Requirement(r) => assert!(text.contains(r.quote), "{}", r.id),
                Cites::Norm(norm) => {
                    if c.level == Level::Must {
                        wrong.push(format!("{}: a MUST check cites a norm: {norm}", c.id));
                    }
                    let named = norm.starts_with("spec choice")
                        || norm.contains("RFC")
                        || norm.starts_with("the profile's");
                    if !named || text.contains(norm) {
                        wrong.push(format!("{}: a norm names its source: {norm}", c.id));
                    }
                }
            }
            if c.level == Level::Should && c.cites.requirement().is_some() {
                wrong.push(format!("{}: a SHOULD check cites a choice or a norm", c.id));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// The file is the id: every check's id begins with the name of the
    /// file that declares it (`_` for `-`), so an id says where to read it.
    #[test]
    fn each_id_begins_with_its_files_name() {
        let mut wrong = Vec::new();
        for file in FILES {
            let prefix = file.name.replace('_', "-");
            let checks = (file.checks)();
            assert!(
                !checks.is_empty(),
                "checks/{}.rs declares no check",
                file.name
            );
            for c in checks {
                if c.id.split('/').next() != Some(prefix.as_str()) {
                    wrong.push(format!("{} in checks/{}.rs", c.id, file.name));
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "ids whose first segment is not their file's name (move the check to the file its prefix names):\n{}",
            wrong.join("\n")
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
