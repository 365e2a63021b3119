//! A baseline applied to a finished run: listed failures marked KNOWN,
//! and a failing result of its own for each entry that must go.

use crate::catalogue::Level;
use crate::results::{CheckResult, Kind, RunResults, Status};

use super::requirement::requirement_hash_of;
use super::{Baseline, Date, Entry};

/// The requirement every entry is held to, cited by its results.
pub const ENTRY_REQUIREMENT: &str = "Every entry of the baseline names a check that still fails, for the requirement it was written against, before its expiry date.";

/// Marks the failures `baseline` lists as KNOWN and adds a failing
/// `baseline/ID` result for each entry that must go (its check passes, its
/// date passed on or before `today`, its requirement changed). Entries of
/// checks this run did not select are left alone. The only change a
/// baseline makes to what gates (see the module's doc): no verdict of a
/// check is made or undone here, its failure is shown as known.
pub fn apply(run: &mut RunResults, baseline: &Baseline, today: Date) {
    let mut stale = Vec::new();
    for r in &mut run.results {
        let Some(entry) = baseline.entry(&r.id) else {
            continue;
        };
        let current = requirement_hash_of(r).unwrap_or_default();
        let failing = matches!(r.status, Status::Failed | Status::Warned);
        let problem = if entry.expires <= today {
            Some(format!(
                "the entry expired on {}: fix the check or give a new date (reason was: {})",
                entry.expires, entry.reason
            ))
        } else if entry.requirement != current {
            Some(format!(
                "the requirement of `{}` changed since the entry was written ({} -> {current}): judge the failure against the new text, then write the entry again (--write-baseline)",
                r.id, entry.requirement
            ))
        } else if r.status == Status::Passed {
            Some(format!("`{}` passes now: remove this entry", r.id))
        } else {
            None
        };
        match problem {
            Some(why) => stale.push(entry_result(baseline, entry, why)),
            None if failing => {
                r.status = Status::Known;
                let mut note = format!("{} (until {}", entry.reason, entry.expires);
                if let Some(link) = &entry.link {
                    note.push_str(&format!(", {link}"));
                }
                note.push(')');
                r.note = Some(note);
            }
            None => {}
        }
    }
    run.results.extend(stale);
}

fn entry_result(baseline: &Baseline, entry: &Entry, why: String) -> CheckResult {
    let expects = "a check that still fails, the same requirement, a date to come".to_owned();
    CheckResult {
        kind: Kind::Baseline,
        id: format!("baseline/{}", entry.check),
        title: format!("the baseline's entry for `{}` still holds", entry.check),
        section: "baseline".to_owned(),
        section_title: "Known failures (baseline)".to_owned(),
        level: Level::Must,
        requirement: ENTRY_REQUIREMENT.to_owned(),
        sends: format!("nothing: the entry at {}:{}", baseline.file, entry.line),
        expected: Some(expects.clone()),
        expects,
        status: Status::Failed,
        actual: Some(why),
        note: None,
        latency: None,
        stands_at: Some((baseline.file.clone(), entry.line)),
        unmet: None,
        anchor: None,
    }
}
