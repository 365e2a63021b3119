//! `--write-baseline`: the entries for a run's failures that gate, what a
//! previous baseline said of them kept.

use crate::catalogue::Level;
use crate::results::{CheckResult, Kind, RunResults, Status};

use super::requirement::requirement_hash_of;
use super::{Baseline, TO_FILL_IN};

/// The baseline for the failures of `run` that gate (failed, known), in
/// result order: what `previous` said of a check is kept where its
/// requirement is unchanged; new entries have reason and expiry to fill in.
pub fn write(run: &RunResults, previous: Option<&Baseline>) -> String {
    let mut out = String::from(
        "# Known failures (conformance --baseline). Each entry: why the check fails,\n\
         # when this exception ends (YYYY-MM-DD) and, optionally, a link. An entry\n\
         # whose check passes, whose date has passed or whose requirement changed\n\
         # fails the run. `requirement` is written for you: leave it.\n",
    );
    // Only what gates the run: a SHOULD warning (outside --strict) needs
    // no exception, so it gets no entry to fill in or delete.
    let gates = |r: &&CheckResult| r.level == Level::Must || run.strict;
    let failing = run.results.iter().filter(|r| {
        matches!(r.status, Status::Failed | Status::Known) && gates(r) && r.kind != Kind::Baseline
    });
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
    let mut any = false;
    for r in failing {
        let Some(requirement) = requirement_hash_of(r) else {
            continue;
        };
        any = true;
        let kept = previous
            .and_then(|b| b.entry(&r.id))
            .filter(|e| e.requirement == requirement);
        out.push_str(&format!("\n# {} ({})\n", r.title, r.level.as_str()));
        out.push_str(&format!("- check: {}\n", quote(&r.id)));
        match kept {
            Some(e) => {
                out.push_str(&format!("  reason: {}\n", quote(&e.reason)));
                out.push_str(&format!("  expires: \"{}\"\n", e.expires));
                if let Some(link) = &e.link {
                    out.push_str(&format!("  link: {}\n", quote(link)));
                }
            }
            None => {
                out.push_str(&format!("  reason: {TO_FILL_IN}\n"));
                out.push_str(&format!("  expires: {TO_FILL_IN}\n"));
            }
        }
        out.push_str(&format!("  requirement: \"{requirement}\"\n"));
    }
    if !any {
        out.push_str("\n# Nothing failed: no entry.\n[]\n");
    }
    out
}
