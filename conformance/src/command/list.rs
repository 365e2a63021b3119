//! `list`: the check catalogue (`--markdown`: the README's table).

use std::process::ExitCode;

use conformance_suite::catalogue::{markdown_table, plain_list};
use conformance_suite::checks::catalogue;

use crate::out;

/// Prints the catalogue.
pub fn main(markdown: bool) -> ExitCode {
    let all = catalogue();
    out!(
        "{}",
        if markdown {
            markdown_table(&all)
        } else {
            plain_list(&all)
        }
    );
    ExitCode::SUCCESS
}
