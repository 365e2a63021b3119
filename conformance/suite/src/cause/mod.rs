//! Which failures one cause produced. A server that breaks one rule fails
//! every check whose request meets that rule, and changes every snapshot
//! that holds such an answer; one choice made otherwise (201 for 200) fails
//! its check and changes every snapshot of a success. Read one by one,
//! that is twenty problems; [`Causes::find`] makes it one: the rule that
//! broke (or the choice that changed), the check that shows it first, the
//! other checks it fails and the snapshots it changed.
//!
//! A failure's cause, in this order: the status choice its check saw
//! changed ([`choice`]); the first problem of an error answer its words
//! name ([`defect`]: `` `status` is true ``), which is the rule that
//! problem breaks; the sentence its check cites; the check itself. A
//! changed snapshot belongs to a cause that explains every value that
//! changed in it (the changed status; the member the problem names, now
//! with that value); snapshots no cause explains are grouped by what
//! changed in them, and the missing ones together. Grouping only shows:
//! no status changes, and the machine formats keep every failure, each
//! naming its cause (a stale entry of the baseline is the user's file,
//! not the server's: it has none).

pub mod choice;
pub mod defect;

use serde::Serialize;

pub use choice::ChangedChoice;

use crate::catalogue::SECTIONS;
use crate::changes::Change;
use crate::results::{CheckResult, Kind, Status};
use defect::Defect;

/// One cause, and the failures it produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cause {
    /// Stable across runs of the same server: `choices.authorize_success`,
    /// a requirement's id (`7.1/status`), `check:ID`, `snapshots:missing`,
    /// `snapshots:ID` (the first of those changed alike).
    pub key: String,
    /// What happened, in one sentence.
    pub says: String,
    /// What to do about it, where the run can tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remedy: Option<String>,
    /// The result that shows it first (in the report's order).
    pub first: String,
    /// The other failed checks it explains.
    pub checks: Vec<String>,
    /// The failed snapshots it explains (changed by it), besides `first`.
    pub snapshots: Vec<String>,
    /// Some of its failures gate the run (else they only warn).
    pub gating: bool,
}

/// The causes of a run's failures, and each failure's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Causes {
    /// In the order their first failure is shown.
    pub list: Vec<Cause>,
    /// For each result (by its place in the run's results): its cause's
    /// place in `list`.
    of: Vec<Option<usize>>,
}

/// What a cause explains a snapshot's change by.
#[derive(Clone, Debug)]
enum Explains {
    Choice(ChangedChoice),
    Defects(Vec<Defect>),
    /// Snapshots changed alike, no check failing for it: their changes.
    Changed(Vec<Change>),
    Nothing,
}

struct Building {
    key: String,
    says: String,
    remedy: Option<String>,
    members: Vec<usize>,
    explains: Explains,
}

impl Causes {
    /// The causes of the failed and warned results of `results`, given the
    /// status choices the run saw changed.
    pub fn find(results: &[CheckResult], changed: &[ChangedChoice]) -> Causes {
        let order = shown_order(results);
        let failing: Vec<usize> = order
            .into_iter()
            .filter(|&i| matches!(results[i].status, Status::Failed | Status::Warned))
            // An entry of the baseline to remove is a file's line, each
            // its own: no cause of the server's.
            .filter(|&i| results[i].kind != Kind::Baseline)
            .collect();
        let mut building: Vec<Building> = Vec::new();
        for &i in failing.iter().filter(|&&i| !is_snapshot(&results[i])) {
            let r = &results[i];
            let actual = r.actual.as_deref().unwrap_or_default();
            let defects = defect::in_text(actual);
            let choice = changed.iter().find(|c| c.check == r.id).or_else(|| {
                changed
                    .iter()
                    .find(|c| defects.is_empty() && shows_only_status(actual, &c.seen))
            });
            if let Some(c) = choice {
                let key = format!("choices.{}", c.key);
                add(&mut building, key, i, || {
                    (c.says(), None, Explains::Choice(c.clone()))
                });
            } else if let Some(d) = defects.first() {
                let rule = d.requirement();
                let says = format!("§{} \"{}\": {}", rule.section, rule.quote, d.phrase());
                add(&mut building, rule.id.to_owned(), i, || {
                    (says, None, Explains::Defects(Vec::new()))
                });
            } else {
                let key = match r.anchor.and_then(|a| a.requirement) {
                    Some(req) => req.id.to_owned(),
                    None => format!("check:{}", r.id),
                };
                let says = format!(
                    "§{} \"{}\": {}",
                    r.section,
                    r.requirement,
                    first_line(actual).unwrap_or(&r.title)
                );
                add(&mut building, key, i, || {
                    (says, None, Explains::Defects(Vec::new()))
                });
            }
        }
        // What each rule's failures showed wrong, for its snapshots.
        for b in &mut building {
            if let Explains::Defects(list) = &mut b.explains {
                for &i in &b.members {
                    for d in defect::in_text(results[i].actual.as_deref().unwrap_or_default()) {
                        if d.requirement().id == b.key && !list.contains(&d) {
                            list.push(d);
                        }
                    }
                }
            }
        }
        for &i in failing.iter().filter(|&&i| is_snapshot(&results[i])) {
            let r = &results[i];
            let changes = match &r.kind {
                Kind::Snapshot {
                    changes: Some(c), ..
                } if c.complete && !c.list.is_empty() => c.distinct(),
                _ => {
                    let missing = r
                        .actual
                        .as_deref()
                        .is_some_and(|a| a.starts_with("no stored snapshot"));
                    let key = if missing {
                        "snapshots:missing".to_owned()
                    } else {
                        format!("snapshots:{}", r.id)
                    };
                    add(&mut building, key, i, || {
                        let says = if missing {
                            "snapshots were never recorded for this profile".to_owned()
                        } else {
                            first_line(r.actual.as_deref().unwrap_or_default())
                                .unwrap_or(&r.title)
                                .to_owned()
                        };
                        let remedy = missing.then(|| {
                            "`--accept` records them (commit them beside the profile)".to_owned()
                        });
                        (says, remedy, Explains::Nothing)
                    });
                    continue;
                }
            };
            let by = building.iter().position(|b| match &b.explains {
                Explains::Choice(c) => changes.iter().all(|ch| choice_explains(c, ch)),
                Explains::Defects(list) => {
                    changes.iter().all(|ch| list.iter().any(|d| d.explains(ch)))
                }
                Explains::Changed(same) => *same == changes,
                Explains::Nothing => false,
            });
            match by {
                Some(b) => building[b].members.push(i),
                None => {
                    let shown: Vec<String> =
                        changes.iter().take(3).map(ToString::to_string).collect();
                    let more = changes.len().saturating_sub(3);
                    building.push(Building {
                        key: format!("snapshots:{}", r.id),
                        says: format!(
                            "the exchanges changed, and no check failed for it: {}{}",
                            shown.join("; "),
                            if more > 0 {
                                format!(" (and {more} more)")
                            } else {
                                String::new()
                            }
                        ),
                        remedy: Some(
                            "if the server meant it, `--accept` records the snapshots it changed"
                                .to_owned(),
                        ),
                        members: vec![i],
                        explains: Explains::Changed(changes),
                    });
                }
            }
        }
        let mut of = vec![None; results.len()];
        let list = building
            .into_iter()
            .enumerate()
            .map(|(n, b)| {
                for &i in &b.members {
                    of[i] = Some(n);
                }
                finish(b, results)
            })
            .collect();
        Causes { list, of }
    }

    /// The cause of the result at place `i` of the run's results, and its
    /// number (from 1, as reports show it).
    pub fn of(&self, i: usize) -> Option<(usize, &Cause)> {
        self.of
            .get(i)
            .copied()
            .flatten()
            .map(|n| (n + 1, &self.list[n]))
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// Puts the result at place `i` under the cause `key`, made by `make`
/// (what it says, its remedy, what it explains) where it is new.
fn add(
    building: &mut Vec<Building>,
    key: String,
    i: usize,
    make: impl FnOnce() -> (String, Option<String>, Explains),
) {
    match building.iter_mut().find(|b| b.key == key) {
        Some(b) => b.members.push(i),
        None => {
            let (says, remedy, explains) = make();
            building.push(Building {
                key,
                says,
                remedy,
                members: vec![i],
                explains,
            });
        }
    }
}

/// The cause as reports show it: its first failure (for a rule, the first
/// check that cites the rule itself), the others apart.
fn finish(b: Building, results: &[CheckResult]) -> Cause {
    let cites_it = |&&i: &&usize| {
        results[i]
            .anchor
            .and_then(|a| a.requirement)
            .is_some_and(|req| req.id == b.key)
    };
    let first = match &b.explains {
        Explains::Choice(c) => b
            .members
            .iter()
            .find(|&&i| results[i].id == c.check)
            .or(b.members.first()),
        _ => b.members.iter().find(cites_it).or(b.members.first()),
    }
    .copied()
    .unwrap_or_default();
    let (mut checks, mut snapshots) = (Vec::new(), Vec::new());
    for &i in b.members.iter().filter(|&&i| i != first) {
        let id = results[i].id.clone();
        if is_snapshot(&results[i]) {
            snapshots.push(id);
        } else {
            checks.push(id);
        }
    }
    let remedy = match &b.explains {
        Explains::Choice(c) if !snapshots.is_empty() => Some(format!(
            "with `choices.{}: {}` in the profile, `--accept` records the {} it changed",
            c.key,
            c.seen,
            plural(snapshots.len(), "snapshot")
        )),
        _ => b.remedy,
    };
    Cause {
        key: b.key,
        says: b.says,
        remedy,
        first: results.get(first).map(|r| r.id.clone()).unwrap_or_default(),
        checks,
        snapshots,
        gating: b
            .members
            .iter()
            .any(|&i| results[i].status == Status::Failed),
    }
}

/// `n snapshots`, `1 snapshot`.
pub fn plural(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

fn is_snapshot(r: &CheckResult) -> bool {
    matches!(r.kind, Kind::Snapshot { .. })
}

/// A changed status shows in a snapshot as the answer's status and the
/// body's `code` that mirrors it.
fn choice_explains(c: &ChangedChoice, ch: &Change) -> bool {
    matches!(ch.at.as_str(), "response.status" | "response.body.code")
        && ch.was.as_deref() == Some(c.recorded.as_str())
        && ch.now.as_deref() == Some(c.seen.as_str())
}

/// Every failing answer a check lists (its lines that are not indented)
/// is of status `seen`: the check failed on the changed status.
fn shows_only_status(actual: &str, seen: &str) -> bool {
    let status = format!("HTTP {seen}");
    let mut lines = actual.lines().filter(|l| !l.starts_with(' ')).peekable();
    lines.peek().is_some() && lines.all(|l| l.contains(&status))
}

/// The first line of a failure, cut to a reading length.
fn first_line(actual: &str) -> Option<&str> {
    let line = actual.lines().next()?.trim();
    if line.is_empty() {
        return None;
    }
    Some(match line.char_indices().nth(160) {
        Some((at, _)) => &line[..at],
        None => line,
    })
}

/// The results' places in the order reports show them: by section of the
/// description (then any other section, in the order first met), each in
/// the run's order.
fn shown_order(results: &[CheckResult]) -> Vec<usize> {
    let mut sections: Vec<&str> = SECTIONS.iter().map(|(s, _)| *s).collect();
    for r in results {
        if !sections.contains(&r.section.as_str()) {
            sections.push(&r.section);
        }
    }
    let mut order: Vec<usize> = (0..results.len()).collect();
    order.sort_by_key(|&i| {
        sections
            .iter()
            .position(|s| *s == results[i].section)
            .unwrap_or(usize::MAX)
    });
    order
}

#[cfg(test)]
mod tests;
