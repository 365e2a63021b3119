//! `coverage`: every statement of a requirement in the description with
//! the checks and traffic rules that enforce it, then every requirement of
//! the project's table with what names it (checks, rules, faults,
//! variants); `--requirement ID` prints one.

use std::process::ExitCode;

use super::fail;
use crate::enforcement;
use crate::out;

/// Prints the coverage, or what enforces `requirement`.
pub fn main(markdown: bool, requirement: Option<String>) -> ExitCode {
    if let Some(id) = requirement {
        let Some(found) = enforcement::of(&id) else {
            return fail(&enforcement::unknown(&id));
        };
        let one = [found];
        out!(
            "{}",
            if markdown {
                enforcement::markdown(&one)
            } else {
                one[0].text()
            }
        );
        return ExitCode::SUCCESS;
    }
    let coverage = conformance_suite::coverage::Coverage::of_description();
    let all = enforcement::all();
    out!(
        "{}",
        if markdown {
            coverage.markdown() + &enforcement::markdown(&all)
        } else {
            coverage.text_with(&enforcement::text(&all))
        }
    );
    ExitCode::SUCCESS
}
