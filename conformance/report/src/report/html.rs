//! One self-contained HTML page a person opens (`--html FILE`): no network,
//! no script, no external style. Sections of the description in document
//! order, each with its pass / warn / fail / known / skipped / N/A counts; every
//! failure with its requirement, what was sent, Expected and Actual, the
//! curl reproductions and the snapshot difference; latency per check and
//! per operation. Filtering by status is pure CSS (radio buttons), so the
//! page works where scripts are blocked (a CI artifact viewer, a mail).
//!
//! Everything from the run is escaped for HTML; secrets were scrubbed from
//! the report before it gets here.

use std::fmt::Write as _;

use crate::report::{CheckResult, Kind, Report, Status, is_snapshot};
use conformance_suite::cause::Cause;

/// The statuses, as CSS classes, filter labels and badges.
const STATUSES: &[(Status, &str, &str)] = &[
    (Status::Failed, "failed", "FAIL"),
    (Status::Warned, "warned", "WARN"),
    (Status::Known, "known", "KNOWN"),
    (Status::Passed, "passed", "PASS"),
    (Status::Skipped, "skipped", "SKIP"),
    (Status::NotApplicable, "not_applicable", "N/A"),
    (Status::NotJudged, "not_judged", "NOT JUDGED"),
];

const STYLE: &str = r#"
:root { --fail: #b3261e; --warn: #a15c00; --known: #6a3fa0; --pass: #1e7a3c; --skip: #666; --line: #ddd; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1b1b1b; background: #fff; }
header, main { max-width: 1100px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 16px; }
h1 { font-size: 22px; margin: 0 0 6px; }
h2 { font-size: 18px; margin: 28px 0 6px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.meta { color: #444; margin: 2px 0; }
.verdict { display: inline-block; font-weight: 700; padding: 2px 10px; border-radius: 4px; color: #fff; }
.verdict.red { background: var(--fail); } .verdict.green { background: var(--pass); }
table.latency { border-collapse: collapse; margin: 10px 0; }
table.latency th, table.latency td { border: 1px solid var(--line); padding: 3px 10px; text-align: right; }
table.latency th:first-child, table.latency td:first-child { text-align: left; }
.filters { position: sticky; top: 0; background: #fff; padding: 8px 20px; border-bottom: 1px solid var(--line); max-width: 1100px; margin: 10px auto 0; z-index: 1; }
.filters input { position: absolute; opacity: 0; }
.filters label { display: inline-block; padding: 3px 10px; margin: 2px; border: 1px solid var(--line); border-radius: 14px; cursor: pointer; }
.counts span { margin-right: 12px; }
.badge { display: inline-block; min-width: 52px; text-align: center; font-weight: 700; font-size: 12px; padding: 1px 6px; border-radius: 3px; color: #fff; margin-right: 2px; }
.b-failed { background: var(--fail); } .b-warned { background: var(--warn); } .b-known { background: var(--known); }
.b-passed { background: var(--pass); } .b-skipped, .b-not_applicable { background: var(--skip); } .b-not_judged { background: var(--warn); }
details.check { border: 1px solid var(--line); border-radius: 4px; margin: 4px 0; }
details.check > summary { padding: 4px 8px; cursor: pointer; display: flex; align-items: baseline; gap: 6px; list-style: none; }
details.check > summary::-webkit-details-marker { display: none; }
details.check > summary::before { content: "\25B8"; color: #888; }
details.check[open] > summary::before { content: "\25BE"; }
.title { flex: 1; min-width: 0; }
details.check.failed { border-left: 4px solid var(--fail); }
details.check.warned { border-left: 4px solid var(--warn); }
details.check.known { border-left: 4px solid var(--known); }
details.check.not_judged { border-left: 4px dashed var(--warn); }
.id { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
.level { font-size: 12px; color: #555; margin-right: 6px; }
tr.never td { color: var(--warn); } tr.never.required td { color: var(--fail); font-weight: 600; }
.took { margin-left: auto; color: #666; font-size: 12px; white-space: nowrap; }
ul.failures { margin: 6px 0; padding-left: 20px; }
ul.failures a { color: inherit; }
dl { margin: 4px 12px 10px; display: grid; grid-template-columns: 110px 1fr; gap: 4px 10px; }
dt { font-weight: 600; color: #444; }
dd { margin: 0; min-width: 0; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; font: 12.5px/1.4 ui-monospace, Menlo, Consolas, monospace; background: #f6f6f6; padding: 6px 8px; border-radius: 3px; }
pre.repro { background: #eef3fb; }
#f-all:checked ~ .filters label[for=f-all],
#f-failed:checked ~ .filters label[for=f-failed],
#f-warned:checked ~ .filters label[for=f-warned],
#f-known:checked ~ .filters label[for=f-known],
#f-passed:checked ~ .filters label[for=f-passed],
#f-skipped:checked ~ .filters label[for=f-skipped],
#f-not_applicable:checked ~ .filters label[for=f-not_applicable],
#f-not_judged:checked ~ .filters label[for=f-not_judged] { background: #1b1b1b; color: #fff; }
#f-failed:checked ~ main details.check:not(.failed),
#f-warned:checked ~ main details.check:not(.warned),
#f-known:checked ~ main details.check:not(.known),
#f-passed:checked ~ main details.check:not(.passed),
#f-skipped:checked ~ main details.check:not(.skipped),
#f-not_applicable:checked ~ main details.check:not(.not_applicable),
#f-not_judged:checked ~ main details.check:not(.not_judged) { display: none; }
footer { max-width: 1100px; margin: 30px auto; padding: 0 20px; color: #666; font-size: 13px; }
"#;

/// Escapes text for HTML content and attribute values (and writes what a
/// reader cannot see as `\u{…}`): [`super::escape::html`].
fn esc(s: &str) -> String {
    super::escape::html(s)
}

/// An element id for check `id` (`/` and other marks become `-`).
fn anchor(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn class_of(status: Status) -> (&'static str, &'static str) {
    STATUSES
        .iter()
        .find(|(s, _, _)| *s == status)
        .map_or(("skipped", "SKIP"), |(_, c, b)| (*c, *b))
}

/// `3 FAIL  2 PASS ...` for a set of results, in the order of [`STATUSES`].
fn counts(results: &[&CheckResult]) -> String {
    let mut out = String::from("<p class=\"counts\">");
    for (status, class, badge) in STATUSES {
        let n = results.iter().filter(|r| r.status == *status).count();
        if n > 0 {
            let _ = write!(
                out,
                "<span><span class=\"badge b-{class}\">{badge}</span>{n}</span>"
            );
        }
    }
    out.push_str("</p>\n");
    out
}

/// The page for `report`.
pub fn render(report: &Report) -> String {
    let s = &report.summary;
    // The suite's gate decides; the page shows its verdict.
    let exit = report.run.exit_code();
    let green = exit == 0;
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Conformance of {target}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <header>\n<h1>Conformance of {target}</h1>\n\
         <p><span class=\"verdict {color}\">{verdict}</span> {last}</p>\n\
         <p class=\"meta\">Generated cases: --seed {seed} --cases {cases}</p>\n\
         <p class=\"meta\">{pace}</p>\n",
        target = esc(&report.run.target),
        color = if green { "green" } else { "red" },
        verdict = match exit {
            0 => "PASSED",
            conformance_suite::gate::NOT_JUDGED_EXIT => "NOT JUDGED",
            _ => "FAILED",
        },
        last = esc(&report.last_line()),
        seed = report.run.generation.seed,
        cases = report.run.generation.cases,
        pace = esc(&report.run.pace.line()),
    );
    if s.warned > 0 {
        let _ = writeln!(
            out,
            "<p class=\"meta\">{} warned: SHOULD checks that failed (not gating without --strict).</p>",
            s.warned
        );
    }
    let gating: Vec<&CheckResult> = report
        .run
        .results
        .iter()
        .filter(|r| r.status == Status::Failed)
        .collect();
    if !report.causes.is_empty() {
        out.push_str(
            "<p class=\"meta\">Causes (each failure names its own):</p>\n<ol class=\"causes\">\n",
        );
        for c in &report.causes.list {
            let _ = write!(
                out,
                "<li><span class=\"badge b-{}\">{}</span> {} (first: <a href=\"#c-{}\"><span class=\"id\">{}</span></a>",
                if c.gating { "failed" } else { "warned" },
                if c.gating { "FAIL" } else { "WARN" },
                esc(&c.says),
                anchor(&c.first),
                esc(&c.first)
            );
            if !c.checks.is_empty() {
                let _ = write!(
                    out,
                    "; also failing: {}",
                    super::plural_count(c.checks.len(), "check")
                );
            }
            if !c.snapshots.is_empty() {
                let _ = write!(
                    out,
                    "; also changed: {}",
                    super::plural_count(c.snapshots.len(), "snapshot")
                );
            }
            out.push(')');
            if let Some(remedy) = &c.remedy {
                let _ = write!(out, "; then: {}", esc(remedy));
            }
            out.push_str("</li>\n");
        }
        out.push_str("</ol>\n");
    }
    if !gating.is_empty() {
        out.push_str("<p class=\"meta\">Failed:</p>\n<ul class=\"failures\">\n");
        for r in gating {
            let _ = writeln!(
                out,
                "<li><a href=\"#c-{}\"><span class=\"id\">{}</span></a> {}</li>",
                anchor(&r.id),
                esc(&r.id),
                esc(&r.title)
            );
        }
        out.push_str("</ul>\n");
    }
    if !report.reproduction_variables.is_empty() {
        out.push_str("<p class=\"meta\">The reproductions read variables whose values are in the profile (not printed here); define them before pasting one:</p>\n<pre class=\"repro\">");
        for d in &report.reproduction_variables {
            out.push_str(&esc(&d.line()));
            out.push('\n');
        }
        out.push_str("</pre>\n");
    }
    if !report.run.latency.is_empty() {
        out.push_str(
            "<table class=\"latency\"><caption>Latency per operation (every request of the run)</caption>\n\
             <tr><th>Operation</th><th>Requests</th><th>median</th><th>p95</th><th>max</th></tr>\n",
        );
        for l in &report.run.latency {
            let _ = writeln!(
                out,
                "<tr><td class=\"id\">{}</td><td>{}</td><td>{} ms</td><td>{} ms</td><td>{} ms</td></tr>",
                esc(&l.operation),
                l.stats.requests,
                l.stats.median_ms,
                l.stats.p95_ms,
                l.stats.max_ms
            );
        }
        out.push_str("</table>\n");
    }
    if !report.run.outcomes.is_empty() {
        out.push_str(
            "<table class=\"latency\"><caption>Documented outcomes seen in this run</caption>\n\
             <tr><th>Operation</th><th>Outcome</th><th>Documented by</th><th>Seen</th></tr>\n",
        );
        for o in &report.run.outcomes {
            let never = if o.seen == 0 {
                if o.required {
                    " class=\"never required\""
                } else {
                    " class=\"never\""
                }
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "<tr{never}><td class=\"id\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&o.operation),
                esc(&o.outcome),
                esc(&o.documented_by),
                if o.seen == 0 {
                    "never".to_owned()
                } else {
                    o.seen.to_string()
                }
            );
        }
        out.push_str("</table>\n");
    }
    out.push_str("</header>\n");

    // The filters: radio buttons before `main`, so CSS can hide what is
    // not chosen (`#f-failed:checked ~ main ...`).
    let all: Vec<&CheckResult> = report.run.results.iter().collect();
    out.push_str("<input type=\"radio\" name=\"filter\" id=\"f-all\" checked hidden>\n");
    for (_, class, _) in STATUSES {
        let _ = writeln!(
            out,
            "<input type=\"radio\" name=\"filter\" id=\"f-{class}\" hidden>"
        );
    }
    // Counted as the last line counts: checks and snapshot assertions
    // named apart, each status on its own (not applicable is not skipped).
    let (checks, snapshots) = (s.checks.total, s.snapshots.total);
    let _ = write!(
        out,
        "<nav class=\"filters\">Show: <label for=\"f-all\">all ({checks} {}, {snapshots} {})</label>",
        super::plural(checks, "check"),
        super::plural(snapshots, "snapshot")
    );
    for (status, class, _) in STATUSES {
        let n = all.iter().filter(|r| r.status == *status).count();
        let _ = write!(
            out,
            "<label for=\"f-{class}\">{} ({n})</label>",
            class.replace('_', " ")
        );
    }
    out.push_str("</nav>\n<main>\n");

    for (section, in_section) in report.by_section() {
        let Some(first) = in_section.first() else {
            continue;
        };
        // A check's section is one of the description's, numbered.
        let heading = if first.kind == Kind::Check {
            format!("§{section} {}", first.section_title)
        } else {
            first.section_title.clone()
        };
        let _ = writeln!(
            out,
            "<section id=\"s-{}\">\n<h2>{}</h2>",
            esc(section),
            esc(&heading)
        );
        out.push_str(&counts(&in_section));
        for r in in_section {
            check(&mut out, r, report.cause_of(r));
        }
        out.push_str("</section>\n");
    }
    out.push_str(
        "</main>\n<footer>Written by conformance. Latency figures differ from run to run; \
         everything else is the same for the same run.</footer>\n</body>\n</html>\n",
    );
    out
}

/// One check: a line that opens on its details (open when it failed,
/// unless it is a snapshot its cause explains).
fn check(out: &mut String, r: &CheckResult, cause: Option<(usize, &Cause)>) {
    let (class, badge) = class_of(r.status);
    let folded = cause.is_some_and(|(_, c)| is_snapshot(r) && c.first != r.id);
    let open = if matches!(r.status, Status::Failed) && !folded {
        " open"
    } else {
        ""
    };
    let took = r.latency.map_or(String::new(), |l| {
        format!(
            "<span class=\"took\">median {} ms · p95 {} ms · max {} ms ({} req.)</span>",
            l.median_ms, l.p95_ms, l.max_ms, l.requests
        )
    });
    let _ = writeln!(
        out,
        "<details class=\"check {class}\" id=\"c-{anchor}\"{open}><summary><span class=\"badge b-{class}\">{badge}</span>\
         <span class=\"level\">{level}</span><span class=\"title\"><span class=\"id\">{id}</span> {title}</span>{took}</summary>",
        level = r.level.as_str(),
        anchor = anchor(&r.id),
        id = esc(&r.id),
        title = esc(&r.title),
    );
    out.push_str("<dl>\n");
    let field = |out: &mut String, name: &str, value: &str, pre: bool| {
        if value.is_empty() {
            return;
        }
        if pre {
            let _ = writeln!(out, "<dt>{name}</dt><dd><pre>{}</pre></dd>", esc(value));
        } else {
            let _ = writeln!(out, "<dt>{name}</dt><dd>{}</dd>", esc(value));
        }
    };
    field(
        out,
        "Requirement",
        &format!("§{} {} “{}”", r.section, r.level.as_str(), r.requirement),
        false,
    );
    field(out, "Sends", &r.sends, false);
    if let Some((n, c)) = cause {
        field(
            out,
            "Cause",
            &format!("{n}: {} (first: {})", c.says, c.first),
            false,
        );
    }
    match r.status {
        Status::Failed | Status::Warned | Status::Known => {
            if r.status == Status::Known {
                field(out, "Known", r.note.as_deref().unwrap_or(""), false);
            }
            field(
                out,
                "Expected",
                r.expected.as_deref().unwrap_or(&r.expects),
                false,
            );
            // Reproductions apart, to copy; the rest (a snapshot's
            // difference included) as it came.
            let actual = r.actual.as_deref().unwrap_or("");
            let (repro, seen): (Vec<&str>, Vec<&str>) = actual
                .lines()
                .partition(|l| l.trim_start().starts_with("reproduce: "));
            let label = if is_snapshot(r) {
                "Difference"
            } else {
                "Actual"
            };
            field(out, label, &seen.join("\n"), true);
            if !repro.is_empty() {
                let _ = writeln!(out, "<dt>Reproduce</dt><dd>");
                for line in repro {
                    let cmd = line.trim_start().trim_start_matches("reproduce: ");
                    let _ = writeln!(out, "<pre class=\"repro\">{}</pre>", esc(cmd));
                }
                out.push_str("</dd>\n");
            }
        }
        Status::NotJudged => {
            field(out, "Expects", &r.expects, false);
            field(out, "Not judged", r.actual.as_deref().unwrap_or(""), true);
        }
        Status::Passed | Status::Skipped | Status::NotApplicable => {
            field(out, "Expects", &r.expects, false);
            field(out, "Note", r.note.as_deref().unwrap_or(""), false);
        }
    }
    out.push_str("</dl></details>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_suite::catalogue::Verdict;
    use conformance_suite::checks::catalogue;
    use conformance_suite::results::RunResults;

    #[test]
    fn self_contained_escaped_and_grouped() {
        let all = catalogue();
        let fail = Verdict::Fail {
            actual:
                "GET Users: <script>alert(1)</script> & more\n    reproduce: curl -sS 'http://x/'"
                    .into(),
        };
        let results = vec![
            CheckResult::from_check(&all[0], all[0].level, &fail, false),
            CheckResult::from_check(&all[1], all[1].level, &Verdict::Pass, false),
        ];
        let report = Report::of(RunResults {
            target: "http://127.0.0.1:1 (client `c`, 1 components)".into(),
            results,
            ..RunResults::default()
        });
        let page = render(&report);
        assert_eq!(page, render(&report), "deterministic");
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(!page.contains("<script"), "nothing from the run is markup");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more"));
        assert!(page.contains("<pre class=\"repro\">curl -sS &#39;http://x/&#39;</pre>"));
        for external in [
            "src=",
            "href=\"http",
            "@import",
            "url(",
            "http-equiv",
            "<link",
        ] {
            assert!(
                !page.contains(external),
                "{external}: the page must stand alone"
            );
        }
        assert!(page.contains(&format!("<h2>§{} ", all[0].section)));
        let anchor = format!("c-{}", anchor(all[0].id));
        assert!(page.contains(&format!(
            "<details class=\"check failed\" id=\"{anchor}\" open>"
        )));
        assert!(page.contains(&format!("<a href=\"#{anchor}\">")));
        assert!(page.contains("<label for=\"f-failed\">failed (1)</label>"));
        assert!(page.contains("<label for=\"f-all\">all (2 checks, 0 snapshots)</label>"));
        assert!(page.contains("<label for=\"f-not_applicable\">not applicable (0)</label>"));
        assert!(page.contains("<label for=\"f-skipped\">skipped (0)</label>"));
    }
}
