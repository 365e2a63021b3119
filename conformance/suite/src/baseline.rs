//! Known failures that expire: how a team adopts the gate on a server that
//! does not pass yet, without the list of exceptions rotting.
//!
//! A baseline (`--baseline FILE`) is a YAML list of entries:
//!
//! ```yaml
//! - check: headers/authorize/x-client-secret/missing
//!   reason: the gateway answers 403 before our server sees it (PLAT-412)
//!   expires: 2026-03-31
//!   link: https://tracker.example.com/PLAT-412   # optional
//!   requirement: sha256:5c1e0f7d2a9b4e3c        # written for you
//! ```
//!
//! A listed check that fails is reported as KNOWN, with its reason, and does
//! not fail the run. An entry fails the run, saying why, when its check now
//! passes ("remove this entry"), when its date has passed, or when the
//! requirement it was written against changed (the hash of the check's
//! quoted sentence). An entry naming no check is an error of the file (exit
//! 2, with its line), as in a profile. `--write-baseline FILE` writes the
//! entries for a run's failures, with reason and expiry to fill in.
//!
//! A view over a finished run's results: it judges no check (the runner
//! did) and sends nothing. [`apply`] is the one place a baseline changes
//! what gates, and it does so only by marking: a listed failure becomes
//! KNOWN (which [`RunResults::exit_code`] does not count), and an entry
//! that must go becomes a failed result of its own, about the file. The
//! file is the gate's, so it is read and written here, beside the gate;
//! a result's requirement is hashed from the quote its [`Anchor`] carries.
//!
//! [`Anchor`]: crate::results::Anchor

use std::fmt;
use std::path::Path;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::catalogue::Level;
use crate::checks::catalogue;
use crate::results::{CheckResult, Kind, RunResults, SNAPSHOT_REQUIREMENT, Status};

/// What a new entry holds until a person fills it in; refused on reading.
pub const TO_FILL_IN: &str = "TODO";

/// A calendar date, `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    pub year: i32,
    pub month: u32,
    pub day: u32,
}

impl Date {
    /// Today in UTC, from the system clock.
    pub fn today() -> Self {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Self::from_days(i64::try_from(secs / 86_400).unwrap_or(0))
    }

    /// The date `days` after 1970-01-01 (H. Hinnant's civil-from-days).
    pub fn from_days(days: i64) -> Self {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        Date {
            year: i32::try_from(year).unwrap_or(i32::MAX),
            month: u32::try_from(month).unwrap_or(1),
            day: u32::try_from(day).unwrap_or(1),
        }
    }

    /// `2026-03-31`, strictly (a real day of a real month).
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.split('-');
        let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return None;
        }
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if !(digits(y) && digits(m) && digits(d)) {
            return None;
        }
        let (year, month, day): (i32, u32, u32) =
            (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days_in_month = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        (1..=days_in_month)
            .contains(&day)
            .then_some(Date { year, month, day })
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// One known failure.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub check: String,
    pub reason: String,
    pub expires: Date,
    pub link: Option<String>,
    /// `sha256:` and 16 hex digits of the check's quoted requirement when
    /// the entry was written.
    pub requirement: String,
    /// Where the entry starts in its file.
    pub line: usize,
}

/// A baseline file, read and checked.
#[derive(Clone, Debug, Default)]
pub struct Baseline {
    /// As given on the command line, for messages.
    pub file: String,
    pub entries: Vec<Entry>,
}

/// The largest baseline read: 4 MiB, some thousand times what one entry
/// per check takes, so that a wrong path (`/dev/zero`, a log) is refused
/// before it fills memory.
pub const MAX_BASELINE_BYTES: usize = 4 << 20;

/// Why a baseline cannot be used (exit 2).
pub use conformance_model::input::InputError as BaselineError;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    check: String,
    reason: String,
    expires: String,
    #[serde(default)]
    link: Option<String>,
    #[serde(default)]
    requirement: Option<String>,
}

/// The hash of the requirement `check` (as an entry of the file names it)
/// is judged against, or `None` when no check has that id. Ids are the
/// catalogue's (budgets and outcomes included) and `snapshots/NAME`.
pub fn requirement_hash(check: &str) -> Option<String> {
    match check.strip_prefix("snapshots/") {
        Some(group) => (!group.is_empty()).then(|| hash(SNAPSHOT_REQUIREMENT)),
        None => quote_hash(check),
    }
}

/// The hash of the requirement result `r` was judged against, from its
/// kind (a check's, from the quote its anchor carries); `None` for a
/// result about the baseline itself.
fn requirement_hash_of(r: &CheckResult) -> Option<String> {
    match r.kind {
        Kind::Check => r.anchor.map(|a| hash(a.quote)),
        Kind::Snapshot { .. } => Some(hash(SNAPSHOT_REQUIREMENT)),
        Kind::Baseline => None,
    }
}

/// The hash of the quote of the catalogue's check `id`.
fn quote_hash(id: &str) -> Option<String> {
    catalogue()
        .into_iter()
        .find(|c| c.id == id)
        .map(|c| hash(c.quote()))
}

/// `sha256:` and the first 16 hex digits of the hash of `text`.
fn hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

impl Baseline {
    pub fn from_path(path: &Path) -> Result<Self, BaselineError> {
        // A regular file only (a FIFO would hang), capped, BOM dropped.
        let text = conformance_model::input::read_text(path, "baseline", MAX_BASELINE_BYTES)?;
        Self::from_yaml_str(&text, &path.display().to_string())
    }

    pub fn from_yaml_str(text: &str, file: &str) -> Result<Self, BaselineError> {
        // A byte-order mark is how some editors start UTF-8: not content.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.len() > MAX_BASELINE_BYTES {
            return Err(BaselineError::TooLarge {
                kind: "baseline",
                file: file.to_owned(),
                limit: MAX_BASELINE_BYTES,
            });
        }
        let lines = yaml_location::Lines::of(text);
        conformance_model::input::refuse_before_parsing(text, file, &lines, "baseline")?;
        let invalid = |path: &str, reported: usize, message: String| {
            let (line, key) = lines.locate(path, reported);
            BaselineError::Invalid {
                file: file.to_owned(),
                line,
                key,
                message,
            }
        };
        // An empty file (or only comments) is an empty baseline.
        let raw: Vec<RawEntry> = if text.lines().all(|l| {
            let l = l.trim();
            l.is_empty() || l.starts_with('#')
        }) {
            Vec::new()
        } else {
            serde_path_to_error::deserialize(serde_yaml::Deserializer::from_str(text)).map_err(
                |e| {
                    let inner = e.inner();
                    // Messages never quote a value: a baseline may hold a
                    // secret pasted in the wrong place.
                    let full = conformance_model::input::without_values(&inner.to_string());
                    let Some(at) = inner.location() else {
                        return BaselineError::Invalid {
                            file: file.to_owned(),
                            line: 1,
                            key: "(document)".to_owned(),
                            message: full,
                        };
                    };
                    let message = full
                        .rsplit_once(" at line ")
                        .map_or(full.as_str(), |(head, _)| head);
                    invalid(&e.path().to_string(), at.line(), message.to_owned())
                },
            )?
        };
        let mut entries: Vec<Entry> = Vec::with_capacity(raw.len());
        for (i, r) in raw.into_iter().enumerate() {
            let at = |key: &str| format!("[{i}].{key}");
            let line_of = |key: &str| lines.line_of_path(&at(key)).unwrap_or(1);
            let Some(current) = requirement_hash(&r.check) else {
                return Err(invalid(
                    &at("check"),
                    line_of("check"),
                    // Not quoted: what is there may be anything.
                    "names no check (see `conformance list`; snapshots are `snapshots/ID`)"
                        .to_owned(),
                ));
            };
            if let Some(first) = entries.iter().find(|e| e.check == r.check) {
                return Err(invalid(
                    &at("check"),
                    line_of("check"),
                    format!(
                        "`{}` is listed twice (first at line {})",
                        r.check, first.line
                    ),
                ));
            }
            if r.reason.trim().is_empty() || r.reason.trim() == TO_FILL_IN {
                return Err(invalid(
                    &at("reason"),
                    line_of("reason"),
                    "say why this check is known to fail (the report shows it)".to_owned(),
                ));
            }
            let Some(expires) = Date::parse(r.expires.trim()) else {
                let message = if r.expires.trim() == TO_FILL_IN {
                    "give the date this exception ends, as YYYY-MM-DD".to_owned()
                } else {
                    "is not a date (YYYY-MM-DD)".to_owned()
                };
                return Err(invalid(&at("expires"), line_of("expires"), message));
            };
            entries.push(Entry {
                line: lines.line_of_path(&format!("[{i}]")).unwrap_or(1),
                check: r.check,
                reason: r.reason.trim().to_owned(),
                expires,
                link: r.link.filter(|l| !l.trim().is_empty()),
                // Written by hand without one: taken as written today.
                requirement: r.requirement.unwrap_or(current),
            });
        }
        Ok(Baseline {
            file: file.to_owned(),
            entries,
        })
    }

    fn entry(&self, check: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.check == check)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Verdict;

    #[test]
    fn dates() {
        assert_eq!(Date::from_days(0).to_string(), "1970-01-01");
        assert_eq!(Date::from_days(20_513).to_string(), "2026-03-01");
        assert_eq!(Date::from_days(11_016).to_string(), "2000-02-29");
        assert_eq!(
            Date::parse("2024-02-29"),
            Some(Date {
                year: 2024,
                month: 2,
                day: 29
            })
        );
        for bad in [
            "2023-02-29",
            "2026-13-01",
            "2026-1-01",
            "26-01-01",
            "2026-01-01x",
        ] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
        assert!(Date::parse("2026-01-02") > Date::parse("2026-01-01"));
    }

    fn report_of(results: &[(&str, Verdict)]) -> RunResults {
        let all = catalogue();
        let results = results
            .iter()
            .map(|(id, v)| {
                let c = all.iter().find(|c| c.id == *id).expect("a check");
                CheckResult::from_check(c, c.level, v, false)
            })
            .collect();
        RunResults {
            target: "t".into(),
            results,
            ..RunResults::default()
        }
    }

    fn count(run: &RunResults, status: Status) -> usize {
        run.results.iter().filter(|r| r.status == status).count()
    }

    const TODAY: Date = Date {
        year: 2026,
        month: 6,
        day: 1,
    };

    #[test]
    fn known_failures_do_not_gate_and_stale_entries_do() {
        let must: Vec<String> = catalogue()
            .iter()
            .filter(|c| c.level == Level::Must)
            .take(5)
            .map(|c| c.id.to_owned())
            .collect();
        let fail = || Verdict::Fail {
            actual: "HTTP 200".into(),
        };
        let report = || {
            report_of(&[
                (&must[0], fail()),
                (&must[1], Verdict::Pass),
                (&must[2], fail()),
                (&must[3], fail()),
                (&must[4], fail()),
            ])
        };
        let written = write(&report(), None);
        assert!(written.contains(&format!("- check: \"{}\"", must[0])));
        assert!(
            !written.contains(&format!("\"{}\"", must[1])),
            "a pass has no entry"
        );
        // As written, reason and expiry are still to fill in.
        let e = Baseline::from_yaml_str(&written, "b.yaml").expect_err("TODO");
        assert!(e.to_string().contains("key `[0].reason`"), "{e}");
        let filled = written
            .replacen("reason: TODO", "reason: gateway answers first", 1)
            .replacen("expires: TODO", "expires: 2026-12-31", 1)
            .replacen("reason: TODO", "reason: old", 1)
            .replacen("expires: TODO", "expires: 2026-06-01", 1)
            .replacen("reason: TODO", "reason: r", 1)
            .replacen("expires: TODO", "expires: 2027-01-01", 1)
            .replacen("reason: TODO", "reason: r", 1)
            .replacen("expires: TODO", "expires: 2027-01-01", 1);
        let mut baseline = Baseline::from_yaml_str(&filled, "b.yaml").expect("valid");
        // must[4]'s quote is said to have changed since its entry.
        baseline.entries[3].requirement = "sha256:0000000000000000".into();
        // An entry for must[1], which passes.
        baseline.entries.push(Entry {
            check: must[1].clone(),
            reason: "r".into(),
            expires: Date::parse("2027-01-01").expect("date"),
            link: None,
            requirement: requirement_hash(&must[1]).expect("hash"),
            line: 99,
        });
        let mut r = report();
        apply(&mut r, &baseline, TODAY);
        let status = |id: &str| {
            r.results
                .iter()
                .find(|x| x.id == id)
                .map(|x| x.status)
                .expect("result")
        };
        assert_eq!(status(&must[0]), Status::Known);
        assert_eq!(status(&must[3]), Status::Known);
        // Expired on the day: the check fails again, and so does its entry.
        assert_eq!(status(&must[2]), Status::Failed);
        assert_eq!(status(&format!("baseline/{}", must[2])), Status::Failed);
        assert_eq!(status(&must[4]), Status::Failed);
        assert_eq!(status(&format!("baseline/{}", must[1])), Status::Failed);
        let passes = r
            .results
            .iter()
            .find(|x| x.id == format!("baseline/{}", must[1]))
            .expect("entry result");
        assert!(
            passes
                .actual
                .as_deref()
                .is_some_and(|a| a.contains("remove this entry"))
        );
        assert_eq!(passes.stands_at.clone(), Some(("b.yaml".to_owned(), 99)));
        let changed = r
            .results
            .iter()
            .find(|x| x.id == format!("baseline/{}", must[4]))
            .expect("entry result");
        assert!(
            changed
                .actual
                .as_deref()
                .is_some_and(|a| a.contains("requirement"))
        );
        assert_eq!(
            (
                count(&r, Status::Known),
                count(&r, Status::Failed),
                r.exit_code()
            ),
            (2, 5, 1)
        );
        // Written again, the known entries keep what people wrote.
        let again = write(&r, Some(&baseline));
        assert!(
            again.contains("reason: \"gateway answers first\""),
            "{again}"
        );
        assert!(again.contains("expires: \"2026-12-31\""));
    }

    #[test]
    fn only_known_failures_give_a_green_run() {
        let id = catalogue()
            .into_iter()
            .find(|c| c.level == Level::Must)
            .expect("must")
            .id;
        let mut r = report_of(&[(
            id,
            Verdict::Fail {
                actual: "HTTP 200".into(),
            },
        )]);
        let text = format!(
            "- check: {id}\n  reason: known\n  expires: 2030-01-01\n  link: https://t.example/1\n"
        );
        let b = Baseline::from_yaml_str(&text, "b.yaml").expect("valid");
        apply(&mut r, &b, TODAY);
        assert_eq!(r.exit_code(), 0);
        assert_eq!(
            r.results[0].note.as_deref(),
            Some("known (until 2030-01-01, https://t.example/1)")
        );
        assert_eq!(count(&r, Status::Known), 1);
    }

    #[test]
    fn bad_entries_name_file_line_and_key() {
        let cases = [
            (
                "- check: no/such/check\n  reason: r\n  expires: 2030-01-01\n",
                "b.yaml:1: key `[0].check`: names no check",
            ),
            (
                "# c\n- check: snapshots/x\n  reason: r\n  expires: 2030-02-30\n",
                "b.yaml:4: key `[0].expires`: is not a date",
            ),
            (
                "- check: snapshots/x\n  reason: r\n  expires: 2030-01-01\n  typo: 1\n",
                "b.yaml:4: key `[0].typo`",
            ),
            (
                "- check: snapshots/x\n  reason: r\n  expires: 2030-01-01\n- check: snapshots/x\n  reason: r\n  expires: 2030-01-01\n",
                "b.yaml:4: key `[1].check`: `snapshots/x` is listed twice (first at line 1)",
            ),
            (
                "check: x\n",
                "b.yaml:1: key `check`: invalid type: map, expected a sequence",
            ),
        ];
        for (text, expected) in cases {
            let e = Baseline::from_yaml_str(text, "b.yaml")
                .expect_err(text)
                .to_string();
            assert!(e.starts_with(expected), "{e}\nwanted: {expected}");
        }
        assert!(
            Baseline::from_yaml_str("# nothing yet\n", "b.yaml")
                .is_ok_and(|b| b.entries.is_empty())
        );
        assert!(Baseline::from_yaml_str("[]\n", "b.yaml").is_ok_and(|b| b.entries.is_empty()));
    }

    /// A baseline holding a secret where a value was expected never prints
    /// it; a byte-order mark is nothing; a second document and a device or
    /// FIFO are refused at once, with their line.
    #[test]
    fn a_baseline_is_read_safely_and_never_echoed() {
        for text in [
            "TOKEN=s3cr3t\n",
            "- check: TOKEN=s3cr3t\n  reason: r\n  expires: 2030-01-01\n",
            "- check: snapshots/x\n  reason: r\n  expires: TOKEN=s3cr3t\n",
            "- check: snapshots/x\n  reason: [TOKEN=s3cr3t]\n  expires: 2030-01-01\n",
            "- TOKEN=s3cr3t\n",
        ] {
            let e = Baseline::from_yaml_str(text, "b.yaml")
                .expect_err(text)
                .to_string();
            assert!(e.starts_with("b.yaml:"), "{e}");
            assert!(!e.contains("s3cr3t"), "{e}");
        }
        let bom = "\u{feff}- check: snapshots/x\n  reason: r\n  expires: 2030-01-01\n";
        assert_eq!(
            Baseline::from_yaml_str(bom, "b.yaml")
                .unwrap()
                .entries
                .len(),
            1
        );
        let two = "- check: snapshots/x\n  reason: r\n  expires: 2030-01-01\n---\n[]\n";
        let e = Baseline::from_yaml_str(two, "b.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("b.yaml:4: key `(document)`: a second YAML document"),
            "{e}"
        );
        let dir = std::env::temp_dir().join(format!("baseline-bom-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.yaml"), bom.as_bytes()).unwrap();
        assert_eq!(
            Baseline::from_path(&dir.join("b.yaml"))
                .unwrap()
                .entries
                .len(),
            1
        );
        #[cfg(unix)]
        {
            let start = std::time::Instant::now();
            let e = Baseline::from_path(Path::new("/dev/zero")).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
            let fifo = dir.join("fifo");
            if std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .is_ok_and(|s| s.success())
            {
                let e = Baseline::from_path(&fifo).unwrap_err();
                assert!(e.to_string().contains("FIFO"), "{e}");
            }
            assert!(start.elapsed() < std::time::Duration::from_secs(2));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `--write-baseline` writes an entry only for what gates the run: a
    /// MUST failure; a SHOULD warning only under `--strict`.
    #[test]
    fn only_failures_that_gate_get_an_entry() {
        let all = catalogue();
        let must = all.iter().find(|c| c.level == Level::Must).expect("a MUST");
        let should = all
            .iter()
            .find(|c| c.level == Level::Should && c.run.chosen_by().is_none())
            .expect("a SHOULD");
        let fail = Verdict::Fail {
            actual: "HTTP 200".into(),
        };
        let run = |strict: bool| {
            let results = [must, should]
                .iter()
                .map(|c| CheckResult::from_check(c, c.level, &fail, strict))
                .collect();
            let run = RunResults {
                target: "t".into(),
                strict,
                results,
                ..RunResults::default()
            };
            write(&run, None)
        };
        let lenient = run(false);
        assert!(
            lenient.contains(&format!("check: \"{}\"", must.id)),
            "{lenient}"
        );
        assert!(
            !lenient.contains(&format!("check: \"{}\"", should.id)),
            "{lenient}"
        );
        let strict = run(true);
        assert!(
            strict.contains(&format!("check: \"{}\"", should.id)),
            "{strict}"
        );
    }
}
