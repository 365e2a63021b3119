//! `diff`: what changed between two runs' JSON reports.

use std::path::Path;
use std::process::ExitCode;

use super::fail;
use crate::out;

/// `diff`: what changed between two JSON reports.
pub fn main(old: &Path, new: &Path, markdown: bool) -> ExitCode {
    let read = |path: &Path| conformance_report::diff::RunRecord::from_path(path);
    let (old_run, new_run) = match (read(old), read(new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => return fail(&e.to_string()),
    };
    let changes = conformance_report::diff::diff(&old_run, &new_run);
    out!(
        "{}",
        if markdown {
            changes.markdown()
        } else {
            changes.text()
        }
    );
    if changes.regressions.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
