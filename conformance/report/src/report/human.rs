//! The report for people: checks grouped by section of the description, in
//! document order; every failure prints the requirement, what was sent, what
//! was expected and what came. Colour on a terminal unless `NO_COLOR` is set.

use crate::report::escape::{terminal, terminal_line};
use crate::report::{Report, Status, is_snapshot};

/// ANSI colours, or none.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
}

impl Style {
    /// Colour when standard output is a terminal and `NO_COLOR` is not set
    /// (to anything, per no-color.org): CI logs and files get plain text.
    pub fn from_env() -> Self {
        use std::io::IsTerminal;
        Self {
            color: std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal(),
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

pub fn render(report: &Report, style: Style) -> String {
    let mut out = format!(
        "Conformance of {}\nGenerated cases: --seed {} --cases {}\n{}\n",
        terminal_line(&report.run.target),
        report.run.generation.seed,
        report.run.generation.cases,
        report.run.pace.line()
    );
    causes(&mut out, report, style);
    for (section, in_section) in report.by_section() {
        let Some(first) = in_section.first() else {
            continue;
        };
        let heading = if is_snapshot(first) {
            "Snapshots".to_owned()
        } else {
            format!("§{section} {}", first.section_title)
        };
        out.push('\n');
        out.push_str(&style.paint("1", &heading));
        out.push('\n');
        let mut quiet_passes = 0;
        for r in in_section {
            // Matching snapshots are counted, not listed: one per check.
            if is_snapshot(r) && r.status == Status::Passed && r.note.is_none() {
                quiet_passes += 1;
                continue;
            }
            let cause = report.cause_of(r);
            let folded = cause.filter(|(_, c)| is_snapshot(r) && c.first != r.id);
            let tag = match r.status {
                Status::Passed => style.paint("32", "PASS"),
                Status::Failed => style.paint("31;1", "FAIL"),
                Status::Warned => style.paint("33", "WARN"),
                Status::Skipped => style.paint("2", "SKIP"),
                Status::NotApplicable => style.paint("2", "N/A "),
                Status::Known => style.paint("35", "KNOWN"),
                Status::NotJudged => style.paint("33", "NOT JUDGED"),
            };
            // A snapshot a cause explains is said with the cause, once.
            if let Some((n, _)) = folded {
                out.push_str(&format!(
                    "  {tag}  {:<6} {}  {}\n",
                    r.level.as_str(),
                    terminal_line(&r.id),
                    style.paint("2", &format!("changed by cause {n} (see the top)"))
                ));
                continue;
            }
            out.push_str(&format!(
                "  {tag}  {:<6} {}  {}\n",
                r.level.as_str(),
                terminal_line(&r.id),
                style.paint("2", &terminal_line(&r.title))
            ));
            if let Some((n, c)) = cause {
                let others = c.checks.len() + c.snapshots.len();
                if c.first == r.id && others > 0 {
                    field(
                        &mut out,
                        "Cause",
                        &format!("{n}, which {} more failures come from", others),
                    );
                } else if c.first != r.id {
                    field(
                        &mut out,
                        "Cause",
                        &format!("{n}, shown first by {}", c.first),
                    );
                }
            }
            match r.status {
                Status::Failed | Status::Warned => {
                    if !is_snapshot(r) {
                        field(
                            &mut out,
                            "Requirement",
                            &format!("§{} {} \"{}\"", r.section, r.level.as_str(), r.requirement),
                        );
                        field(&mut out, "Sends", &r.sends);
                    }
                    field(
                        &mut out,
                        "Expected",
                        r.expected.as_deref().unwrap_or(&r.expects),
                    );
                    field(&mut out, "Actual", r.actual.as_deref().unwrap_or(""));
                }
                Status::Known => {
                    field(&mut out, "Known", r.note.as_deref().unwrap_or(""));
                    field(&mut out, "Actual", r.actual.as_deref().unwrap_or(""));
                }
                Status::NotJudged => {
                    field(&mut out, "Not judged", r.actual.as_deref().unwrap_or(""));
                }
                Status::Skipped | Status::Passed | Status::NotApplicable => {
                    if let Some(n) = &r.note {
                        field(&mut out, "Note", n);
                    }
                }
            }
        }
        if quiet_passes > 0 {
            out.push_str(&format!(
                "  {}  {quiet_passes} snapshots match\n",
                style.paint("32", "PASS")
            ));
        }
    }
    out.push('\n');
    if !report.reproduction_variables.is_empty() {
        out.push_str("The reproductions read variables whose values are in the profile (not printed here); define them before pasting one:\n");
        for d in &report.reproduction_variables {
            out.push_str(&format!("  {}\n", d.line()));
        }
    }
    for hint in &report.run.hints {
        out.push_str(&format!("Hint: {}\n", terminal(hint)));
    }
    if !report.run.undeclared.is_empty() {
        out.push_str("Choices the profile does not declare, as this run saw the server make them otherwise than ours (each warned once). Paste into the profile to hold the server to them at MUST level (`conformance choices --profile FILE` observes every choice):\nchoices:\n");
        for line in &report.run.undeclared {
            out.push_str(&format!("  {}\n", terminal_line(line)));
        }
    }
    let unseen = conformance_wire::outcomes::unseen_lines(&report.run.outcomes);
    if !unseen.is_empty() {
        out.push_str(&format!(
            "Documented outcomes this run never triggered ({}):\n",
            if report.run.strict {
                "--strict: the required ones fail the run"
            } else {
                "--strict fails the run on the required ones"
            }
        ));
        for line in unseen {
            out.push_str(&format!("  {line}\n"));
        }
    }
    let gaps = report.must_skips();
    if !gaps.is_empty() {
        out.push_str(&format!(
            "{} MUST checks skipped: what they check is not proven{}\n",
            report.summary.skipped_must,
            if report.run.strict {
                " (--strict: the run fails)"
            } else {
                " (--strict fails the run on them)"
            }
        ));
        for (reason, n, remedy) in gaps {
            out.push_str(&format!("  {n:>3}  {reason}"));
            if let Some(remedy) = remedy {
                out.push_str(&format!(": {remedy}"));
            }
            out.push('\n');
        }
    }
    if report.summary.known > 0 {
        out.push_str(&format!(
            "{} known: failure{} listed in the baseline (not gating until they expire)\n",
            report.summary.known,
            if report.summary.known == 1 { "" } else { "s" }
        ));
    }
    if report.summary.warned > 0 {
        out.push_str(&format!(
            "{} warned: SHOULD check{} that failed (not gating; --strict makes them fail the run)\n",
            report.summary.warned,
            if report.summary.warned == 1 { "" } else { "s" }
        ));
    }
    if report.summary.not_judged > 0 {
        out.push_str(&format!(
            "{} not judged: the server's answer never came within what the run waits (its limits, or no answer within the time-out after every try); not a failure of any rule, and not green (exit {})\n",
            report.summary.not_judged,
            conformance_suite::gate::NOT_JUDGED_EXIT
        ));
    }
    if report.run.judged_no_must() && report.summary.not_judged == 0 {
        out.push_str("No MUST check ran: this run proves nothing a release gate needs, so it is not green (select MUST checks, or see what the profile lacks with `conformance check-profile --profile FILE`)\n");
    }
    if !report.causes.is_empty() {
        let failures: usize = report
            .causes
            .list
            .iter()
            .map(|c| 1 + c.checks.len() + c.snapshots.len())
            .sum();
        out.push_str(&format!(
            "{} from {} (listed first in this report)\n",
            crate::report::plural_count(failures, "failure"),
            crate::report::plural_count(report.causes.list.len(), "cause")
        ));
    }
    out.push_str(&report.last_line());
    out.push('\n');
    out
}

/// The causes of the failures, before the sections that list them: what
/// each says, the result that shows it first, how many others come from
/// it (a few named), what to do.
fn causes(out: &mut String, report: &Report, style: Style) {
    if report.causes.is_empty() {
        return;
    }
    out.push('\n');
    out.push_str(&style.paint(
        "1",
        "Causes (each failure below is listed under its section and names its cause)",
    ));
    out.push('\n');
    for (n, c) in report.causes.list.iter().enumerate() {
        let tag = if c.gating {
            style.paint("31;1", "FAIL")
        } else {
            style.paint("33", "WARN")
        };
        out.push_str(&format!("  {}. {tag}  {}\n", n + 1, terminal_line(&c.says)));
        let pad = "          ";
        out.push_str(&format!("{pad}first: {}\n", terminal_line(&c.first)));
        if !c.checks.is_empty() {
            out.push_str(&format!(
                "{pad}also failing: {}: {}\n",
                crate::report::plural_count(c.checks.len(), "check"),
                some(&c.checks)
            ));
        }
        if !c.snapshots.is_empty() {
            out.push_str(&format!(
                "{pad}also changed: {} (under Snapshots; the JSON report lists each with its `cause`)\n",
                crate::report::plural_count(c.snapshots.len(), "snapshot")
            ));
        }
        if let Some(remedy) = &c.remedy {
            out.push_str(&format!("{pad}then: {}\n", terminal_line(remedy)));
        }
    }
}

/// The first few ids, and how many more.
fn some(ids: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut text: Vec<String> = ids.iter().take(SHOWN).map(|id| terminal_line(id)).collect();
    if ids.len() > SHOWN {
        text.push(format!("and {} more", ids.len() - SHOWN));
    }
    text.join(", ")
}

/// A field of a result: its value from outside (an answer, a profile),
/// every line escaped for a terminal.
fn field(out: &mut String, name: &str, value: &str) {
    let pad = " ".repeat(22);
    let value = terminal(value);
    let mut lines = value.lines();
    out.push_str(&format!(
        "          {name:<11} {}\n",
        lines.next().unwrap_or("")
    ));
    for l in lines {
        out.push_str(&pad);
        out.push_str(l);
        out.push('\n');
    }
}
