//! What changed between two runs, from their JSON reports
//! (`conformance diff OLD.json NEW.json`): regressions, fixes, other changes
//! of status, checks added or removed, snapshot changes and latency per
//! operation. Only a regression fails (exit 1): a check present in both runs
//! that did not fail before and fails now.

use std::path::Path;

use crate::report::escape::{markdown_code, terminal, terminal_line};

use serde::Deserialize;

use crate::report::Status;
use conformance_wire::latency::OperationLatency;

/// The part of a JSON report a diff reads.
#[derive(Clone, Debug, Deserialize)]
pub struct RunRecord {
    #[serde(default)]
    pub latency: Vec<OperationLatency>,
    pub results: Vec<ResultRecord>,
}

/// One result of a JSON report.
#[derive(Clone, Debug, Deserialize)]
pub struct ResultRecord {
    pub id: String,
    pub title: String,
    pub section: String,
    pub status: Status,
    #[serde(default)]
    pub actual: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
}

impl ResultRecord {
    /// Whether the result is a snapshot assertion: a JSON report names no
    /// kind, so its section (as the suite writes it) is read, here only.
    pub fn is_snapshot(&self) -> bool {
        self.section == conformance_suite::catalogue::SNAPSHOTS_SECTION
    }
}

/// The largest report read: 64 MiB. A report keeps large bodies as a
/// prefix, their length and hash, so a real one is far smaller; a wrong
/// path (`/dev/zero`, a log) is refused before it fills memory.
pub const MAX_REPORT_BYTES: usize = 64 << 20;

/// Why a report cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// Missing, not a regular file, too large, not UTF-8.
    #[error(transparent)]
    Read(#[from] conformance_model::input::InputError),
    #[error("{file}:{line}:{column}: not a conformance JSON report (--json): {message}")]
    Invalid {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
}

impl RunRecord {
    pub fn from_path(path: &Path) -> Result<Self, DiffError> {
        // A regular file only (a FIFO would hang), capped, BOM dropped.
        let text = conformance_model::input::read_text(path, "report", MAX_REPORT_BYTES)?;
        Self::from_json_str(&text, &path.display().to_string())
    }

    /// One JSON report and nothing after it but whitespace: a report
    /// followed by another (two runs' output concatenated) or by anything
    /// else is refused at the line where that starts.
    pub fn from_json_str(text: &str, file: &str) -> Result<Self, DiffError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut de = serde_json::Deserializer::from_str(text);
        let record = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            // Never a value of the file: a report may hold anything a
            // server sent.
            let full = conformance_model::input::without_values(&inner.to_string());
            let message = full
                .rsplit_once(" at line ")
                .map_or(full.as_str(), |(head, _)| head);
            DiffError::Invalid {
                file: file.to_owned(),
                line: inner.line(),
                column: inner.column(),
                message: if matches!(path.as_str(), "" | ".") {
                    message.to_owned()
                } else {
                    format!("`{path}`: {message}")
                },
            }
        })?;
        de.end().map_err(|e| DiffError::Invalid {
            file: file.to_owned(),
            line: e.line(),
            column: e.column(),
            message: "something follows the report (one report per file; two runs' reports concatenated?)".to_owned(),
        })?;
        Ok(record)
    }
}

/// A check whose status differs between the runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub id: String,
    pub title: String,
    pub from: Status,
    pub to: Status,
    /// What the later run saw, when it failed.
    pub actual: Option<String>,
}

/// A check in one run only.
#[derive(Clone, Debug, PartialEq)]
pub struct OneSided {
    pub id: String,
    pub title: String,
    pub status: Status,
}

/// An operation's latency in both runs (either may be missing).
#[derive(Clone, Debug, PartialEq)]
pub struct LatencyChange {
    pub operation: String,
    pub old: Option<conformance_wire::latency::Stats>,
    pub new: Option<conformance_wire::latency::Stats>,
}

/// Everything that changed, each list in the later run's order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changes {
    /// Did not fail, fails now: the only changes that fail `diff`.
    pub regressions: Vec<Change>,
    /// Failed (or was known or warned), passes now.
    pub fixes: Vec<Change>,
    /// Any other change of status (passed → skipped, failed → known, ...).
    pub changed: Vec<Change>,
    pub added: Vec<OneSided>,
    pub removed: Vec<OneSided>,
    /// Snapshot results whose status, difference or note changed (a
    /// snapshot recorded, updated, or now differing).
    pub snapshots: Vec<Change>,
    pub latency: Vec<LatencyChange>,
}

/// What changed from `old` to `new`.
pub fn diff(old: &RunRecord, new: &RunRecord) -> Changes {
    let mut out = Changes::default();
    let find = |run: &RunRecord, id: &str| run.results.iter().find(|r| r.id == id).cloned();
    for n in &new.results {
        let Some(o) = find(old, &n.id) else {
            out.added.push(OneSided {
                id: n.id.clone(),
                title: n.title.clone(),
                status: n.status,
            });
            continue;
        };
        let change = Change {
            id: n.id.clone(),
            title: n.title.clone(),
            from: o.status,
            to: n.status,
            actual: (n.status == Status::Failed)
                .then(|| n.actual.clone())
                .flatten(),
        };
        if n.is_snapshot() && (o.status != n.status || o.actual != n.actual || o.note != n.note) {
            out.snapshots.push(change.clone());
        }
        if o.status == n.status {
            continue;
        }
        if n.status == Status::Failed {
            out.regressions.push(change);
        } else if n.status == Status::Passed
            && matches!(o.status, Status::Failed | Status::Known | Status::Warned)
        {
            out.fixes.push(change);
        } else {
            out.changed.push(change);
        }
    }
    for o in &old.results {
        if find(new, &o.id).is_none() {
            out.removed.push(OneSided {
                id: o.id.clone(),
                title: o.title.clone(),
                status: o.status,
            });
        }
    }
    let mut operations: Vec<&str> = new
        .latency
        .iter()
        .chain(&old.latency)
        .map(|l| l.operation.as_str())
        .collect();
    operations.dedup();
    let mut seen = Vec::new();
    for op in operations {
        if seen.contains(&op) {
            continue;
        }
        seen.push(op);
        let stats = |run: &RunRecord| {
            run.latency
                .iter()
                .find(|l| l.operation == op)
                .map(|l| l.stats)
        };
        out.latency.push(LatencyChange {
            operation: op.to_owned(),
            old: stats(old),
            new: stats(new),
        });
    }
    out
}

fn p95(stats: Option<conformance_wire::latency::Stats>) -> String {
    stats.map_or("-".to_owned(), |s| format!("{} ms", s.p95_ms))
}

fn median(stats: Option<conformance_wire::latency::Stats>) -> String {
    stats.map_or("-".to_owned(), |s| format!("{} ms", s.median_ms))
}

/// `+12%`, `-3%`, or empty when either side is missing.
fn ratio(l: &LatencyChange) -> String {
    match (l.old, l.new) {
        (Some(o), Some(n)) if o.p95_ms > 0.0 => {
            let pct = ((n.p95_ms / o.p95_ms) - 1.0) * 100.0;
            format!("{pct:+.0}%")
        }
        _ => String::new(),
    }
}

impl Changes {
    /// The first line: counts of each kind of change.
    pub fn headline(&self) -> String {
        let n =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        [
            n(self.regressions.len(), "regression", "regressions"),
            n(self.fixes.len(), "fix", "fixes"),
            n(self.changed.len(), "other change", "other changes"),
            format!("{} added", self.added.len()),
            format!("{} removed", self.removed.len()),
            n(self.snapshots.len(), "snapshot change", "snapshot changes"),
        ]
        .join(", ")
    }

    /// For a terminal or a CI log.
    pub fn text(&self) -> String {
        let mut out = format!("{}\n", self.headline());
        let changes = |out: &mut String, title: &str, list: &[Change]| {
            if list.is_empty() {
                return;
            }
            out.push_str(&format!("\n{title}\n"));
            for c in list {
                out.push_str(&format!(
                    "  {:<8} -> {:<8} {}  {}\n",
                    c.from.as_str(),
                    c.to.as_str(),
                    terminal_line(&c.id),
                    terminal_line(&c.title)
                ));
                // Whole: a reproduction is its comment line and its curl.
                if let Some(actual) = &c.actual {
                    for line in terminal(actual).lines() {
                        out.push_str(&format!("      {line}\n"));
                    }
                }
            }
        };
        changes(
            &mut out,
            "Regressions (did not fail, fail now)",
            &self.regressions,
        );
        changes(&mut out, "Fixes (pass now)", &self.fixes);
        changes(&mut out, "Other changes of status", &self.changed);
        for (title, list) in [("Added", &self.added), ("Removed", &self.removed)] {
            if list.is_empty() {
                continue;
            }
            out.push_str(&format!("\n{title}\n"));
            for c in list.iter() {
                out.push_str(&format!(
                    "  {:<8} {}  {}\n",
                    c.status.as_str(),
                    terminal_line(&c.id),
                    terminal_line(&c.title)
                ));
            }
        }
        changes(&mut out, "Snapshot changes", &self.snapshots);
        if !self.latency.is_empty() {
            out.push_str("\nLatency (p95; median)\n");
            for l in &self.latency {
                out.push_str(&format!(
                    "  {:<12} {} -> {} {}; {} -> {}\n",
                    terminal_line(&l.operation),
                    p95(l.old),
                    p95(l.new),
                    ratio(l),
                    median(l.old),
                    median(l.new)
                ));
            }
        }
        out
    }

    /// For a pull-request comment.
    /// Every text from the reports (ids, titles, what came, operations)
    /// is one code span ([`markdown_code`]): a crafted report cannot put a
    /// link, an image or HTML in the comment.
    pub fn markdown(&self) -> String {
        let verdict = if self.regressions.is_empty() {
            "No regression"
        } else {
            "**Regressions**"
        };
        let mut out = format!("### Conformance: {verdict}\n\n{}\n", self.headline());
        let changes = |out: &mut String, title: &str, list: &[Change]| {
            if list.is_empty() {
                return;
            }
            out.push_str(&format!(
                "\n#### {title}\n\n| Check | Was | Now | What came |\n|---|---|---|---|\n"
            ));
            for c in list {
                let actual = c.actual.as_deref().map_or(String::new(), |a| {
                    let first: String = a.lines().next().unwrap_or("").chars().take(200).collect();
                    markdown_code(&first)
                });
                out.push_str(&format!(
                    "| {} {} | {} | {} | {actual} |\n",
                    markdown_code(&c.id),
                    markdown_code(&c.title),
                    c.from.as_str(),
                    c.to.as_str()
                ));
            }
        };
        changes(&mut out, "Regressions", &self.regressions);
        changes(&mut out, "Fixes", &self.fixes);
        changes(&mut out, "Other changes of status", &self.changed);
        for (title, list) in [("Added", &self.added), ("Removed", &self.removed)] {
            if list.is_empty() {
                continue;
            }
            out.push_str(&format!(
                "\n#### {title}\n\n| Check | Status |\n|---|---|\n"
            ));
            for c in list.iter() {
                out.push_str(&format!(
                    "| {} {} | {} |\n",
                    markdown_code(&c.id),
                    markdown_code(&c.title),
                    c.status.as_str()
                ));
            }
        }
        changes(&mut out, "Snapshot changes", &self.snapshots);
        if !self.latency.is_empty() {
            out.push_str("\n#### Latency\n\n| Operation | p95 before | p95 now | Change | median before | median now |\n|---|---|---|---|---|---|\n");
            for l in &self.latency {
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} |\n",
                    markdown_code(&l.operation),
                    p95(l.old),
                    p95(l.new),
                    ratio(l),
                    median(l.old),
                    median(l.new)
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(results: &[(&str, &str)], p95: f64) -> String {
        let results: Vec<String> = results
            .iter()
            .map(|(id, status)| {
                let section = if id.starts_with("snapshots/") { "snapshots" } else { "4" };
                format!(
                    r#"{{"id": "{id}", "title": "t {id}", "section": "{section}", "status": "{status}", "actual": "came {status}"}}"#
                )
            })
            .collect();
        format!(
            r#"{{"target": "x", "latency": [{{"operation": "auth_claims", "requests": 10, "median_ms": 1.0, "p95_ms": {p95}, "max_ms": 9.0}}], "results": [{}]}}"#,
            results.join(", ")
        )
    }

    /// One report per file: anything after it (garbage, a second report)
    /// is refused at its line; a byte-order mark is nothing; a value that
    /// does not fit is never quoted.
    #[test]
    fn a_report_is_one_json_document_and_never_echoed() {
        let one = run(&[("a", "passed")], 1.0);
        assert!(RunRecord::from_json_str(&one, "r.json").is_ok());
        assert!(RunRecord::from_json_str(&format!("\u{feff}{one}\n"), "r.json").is_ok());
        for text in [
            format!("{one}\n{one}"),
            format!("{one}garbage"),
            format!("{one} {{}}"),
        ] {
            let e = RunRecord::from_json_str(&text, "r.json")
                .unwrap_err()
                .to_string();
            assert!(e.contains("something follows the report"), "{e}");
        }
        let e = RunRecord::from_json_str(
            r#"{"target": "TOKEN=s3cr3t", "results": "TOKEN=s3cr3t"}"#,
            "r.json",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("r.json:1:"), "{e}");
        assert!(!e.contains("s3cr3t"), "{e}");
    }

    /// What a crafted report holds reaches neither the terminal nor the
    /// pull-request comment as it is: controls, C1, bidi overrides and DEL
    /// escaped; Markdown and HTML only inside code spans.
    #[test]
    fn crafted_reports_are_escaped_for_terminal_and_markdown() {
        let old = RunRecord::from_json_str(&run(&[("a", "passed")], 1.0), "old.json").unwrap();
        let hostile = r#"{"target": "x", "results": [{"id": "a", "title": "<script>alert(1)</script> [x](javascript:alert(1)) \u001b[2J\u009b31m\u202e", "section": "4", "status": "failed", "actual": "\u009d0;title\u0007 ` | <img src=x onerror=alert(1)> \u007f\uffff"}]}"#;
        let new = RunRecord::from_json_str(hostile, "new.json").unwrap();
        let c = diff(&old, &new);
        let text = c.text();
        for bad in [
            '\u{1b}', '\u{9b}', '\u{9d}', '\u{7}', '\u{7f}', '\u{202e}', '\u{ffff}',
        ] {
            assert!(!text.contains(bad), "{bad:?} in {text}");
        }
        assert!(text.contains("\\u{202e}"), "{text}");
        let md = c.markdown();
        for bad in ['\u{1b}', '\u{9b}', '\u{202e}', '\u{ffff}'] {
            assert!(!md.contains(bad), "{bad:?} in {md}");
        }
        // Every `<` and `javascript:` is inside a code span of its cell.
        let row = md.lines().find(|l| l.contains("script")).expect("the row");
        let mut outside = String::new();
        let mut rest = row;
        while let Some(start) = rest.find('`') {
            outside.push_str(&rest[..start]);
            let fence = rest[start..].chars().take_while(|c| *c == '`').count();
            let after = &rest[start + fence..];
            let end = after.find(&"`".repeat(fence)).expect("closed span");
            rest = &after[end + fence..];
        }
        outside.push_str(rest);
        assert!(
            !outside.contains('<') && !outside.contains("javascript"),
            "{row}"
        );
    }

    #[test]
    fn regressions_fixes_and_the_rest() {
        let old = RunRecord::from_json_str(
            &run(
                &[
                    ("a", "passed"),
                    ("b", "failed"),
                    ("c", "passed"),
                    ("d", "warned"),
                    ("gone", "passed"),
                    // As reports spelt it before `not_applicable`.
                    ("na", "notapplicable"),
                    ("snapshots/a", "passed"),
                ],
                4.0,
            ),
            "old.json",
        )
        .expect("old");
        let new = RunRecord::from_json_str(
            &run(
                &[
                    ("a", "failed"),
                    ("b", "passed"),
                    ("c", "skipped"),
                    ("d", "known"),
                    ("new", "failed"),
                    ("na", "not_applicable"),
                    ("snapshots/a", "failed"),
                ],
                6.0,
            ),
            "new.json",
        )
        .expect("new");
        let c = diff(&old, &new);
        let ids = |l: &[Change]| l.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&c.regressions), ["a", "snapshots/a"]);
        assert_eq!(ids(&c.fixes), ["b"]);
        assert_eq!(ids(&c.changed), ["c", "d"]);
        assert_eq!(ids(&c.snapshots), ["snapshots/a"]);
        assert_eq!(c.added[0].id, "new");
        assert_eq!(c.removed[0].id, "gone");
        let text = c.text();
        assert!(text.starts_with(
            "2 regressions, 1 fix, 2 other changes, 1 added, 1 removed, 1 snapshot change\n"
        ));
        assert!(text.contains("auth_claims  4 ms -> 6 ms +50%"), "{text}");
        assert!(
            c.markdown()
                .contains("| `a` `t a` | passed | failed | `came failed` |")
        );
        // The same run twice: nothing changed, nothing fails.
        let same = diff(&new, &new);
        assert!(same.regressions.is_empty() && same.snapshots.is_empty());
    }

    #[test]
    fn a_file_that_is_no_report_says_where() {
        let e = RunRecord::from_json_str("{\n  \"results\": [{\"id\": 1}]\n}", "r.json")
            .expect_err("bad")
            .to_string();
        assert!(
            e.starts_with("r.json:2:") && e.contains("`results[0].id`"),
            "{e}"
        );
    }
}
