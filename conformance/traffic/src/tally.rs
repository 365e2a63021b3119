//! Every finding of a stream of exchanges: each rule's count and its first
//! few examples, so memory stays flat whatever the traffic (each exchange
//! is judged, then dropped). Rendered as text or JSON, with nothing
//! secret: a request is shown by its method, path, query names and header
//! names ([`crate::Request::describe`]), and reproduced as a `curl` whose
//! values are shell variables ([`crate::reproduce::curl`]).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::knowledge::Knows;
use crate::observed::{Answer, Request};
use crate::rules::{Finding, Level, RULES, Rule, Side};

/// Examples kept per rule.
const EXAMPLES: usize = 3;

/// What a stream of exchanges showed.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    exchanges: u64,
    /// Exchanges with a body not kept whole (over a proxy's cap).
    bodies_not_judged: u64,
    by_rule: BTreeMap<&'static str, Seen>,
    /// Exchanges that could break each rule ([`Tally::record_judged`]).
    exercised: BTreeMap<&'static str, u64>,
    /// Whether `exercised` is counted (the judging knew the server).
    counts_exercised: bool,
}

#[derive(Clone, Debug, Default)]
struct Seen {
    count: u64,
    examples: Vec<String>,
    /// Each example's request as a `curl` with placeholders, in order.
    reproductions: Vec<String>,
}

/// One rule's line of a report.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct RuleReport {
    pub id: &'static str,
    pub side: Side,
    pub level: Level,
    pub section: &'static str,
    pub requirement: &'static str,
    pub title: &'static str,
    /// Exchanges that broke it.
    pub violations: u64,
    /// The first few, each the request and what was wrong.
    pub examples: Vec<String>,
    /// Each example's request as a `curl` command, every value that may be
    /// secret a shell variable (`"${CLIENT_SECRET}"`).
    pub reproductions: Vec<String>,
    /// Exchanges that could break it (kept or broken); absent where the
    /// tally does not count them (the mock's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exercised: Option<u64>,
}

/// A report of a stream of exchanges.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Report {
    pub exchanges: u64,
    /// Exchanges with a body (either side) over the proxy's cap: forwarded
    /// unchanged, judged without the rules that read bodies. Absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub bodies_not_judged: u64,
    /// Violations of MUST rules, all rules together.
    pub must_violations: u64,
    pub rules: Vec<RuleReport>,
}

impl Tally {
    /// Counts one exchange and its findings (either side).
    pub fn record(&mut self, req: &Request, answer: Option<&Answer>, findings: &[Finding]) {
        self.exchanges += 1;
        if req.body_cut || answer.is_some_and(|a| a.body_cut) {
            self.bodies_not_judged += 1;
        }
        for f in findings {
            let seen = self.by_rule.entry(f.rule.id).or_default();
            seen.count += 1;
            if seen.examples.len() < EXAMPLES {
                let status = answer.map_or(String::new(), |a| format!(" → HTTP {}", a.status));
                seen.examples
                    .push(format!("{}{status}: {}", req.describe(), f.detail));
                seen.reproductions.push(crate::reproduce::curl(req));
            }
        }
    }

    /// [`Tally::record`], and counts the rules the exchange could break
    /// ([`crate::exercised::exercised`]): a report then tells a rule kept
    /// from one no exchange put to the test.
    pub fn record_judged(
        &mut self,
        req: &Request,
        answer: Option<&Answer>,
        findings: &[Finding],
        knows: &dyn Knows,
    ) {
        self.counts_exercised = true;
        for rule in crate::exercised::exercised(req, answer, findings, knows) {
            *self.exercised.entry(rule.id).or_default() += 1;
        }
        self.record(req, answer, findings);
    }

    /// Adds another tally's counts (a proxy's connections, say).
    pub fn merge(&mut self, other: Tally) {
        self.exchanges += other.exchanges;
        self.bodies_not_judged += other.bodies_not_judged;
        self.counts_exercised |= other.counts_exercised;
        for (id, n) in other.exercised {
            *self.exercised.entry(id).or_default() += n;
        }
        for (id, seen) in other.by_rule {
            let mine = self.by_rule.entry(id).or_default();
            mine.count += seen.count;
            for (e, r) in seen.examples.into_iter().zip(seen.reproductions) {
                if mine.examples.len() < EXAMPLES {
                    mine.examples.push(e);
                    mine.reproductions.push(r);
                }
            }
        }
    }

    pub fn exchanges(&self) -> u64 {
        self.exchanges
    }

    /// Exchanges whose body (either side) was not kept whole.
    pub fn bodies_not_judged(&self) -> u64 {
        self.bodies_not_judged
    }

    /// Violations of `rule` so far.
    pub fn violations(&self, rule: &Rule) -> u64 {
        self.by_rule.get(rule.id).map_or(0, |s| s.count)
    }

    /// Exchanges so far that could break `rule`, where counted
    /// ([`Tally::record_judged`]).
    pub fn exercised(&self, rule: &Rule) -> Option<u64> {
        self.counts_exercised
            .then(|| self.exercised.get(rule.id).copied().unwrap_or(0))
    }

    /// Every rule with its count, in table order; `side` only, where given.
    pub fn report(&self, side: Option<Side>) -> Report {
        let rules: Vec<RuleReport> = RULES
            .iter()
            .filter(|r| side.is_none_or(|s| r.side == s))
            .map(|r| {
                let seen = self.by_rule.get(r.id).cloned().unwrap_or_default();
                RuleReport {
                    id: r.id,
                    side: r.side,
                    level: r.level,
                    section: r.section,
                    requirement: r.quote(),
                    title: r.title,
                    violations: seen.count,
                    examples: seen.examples,
                    reproductions: seen.reproductions,
                    exercised: self.exercised(r),
                }
            })
            .collect();
        Report {
            exchanges: self.exchanges,
            bodies_not_judged: self.bodies_not_judged,
            must_violations: rules
                .iter()
                .filter(|r| r.level == Level::Must)
                .map(|r| r.violations)
                .sum(),
            rules,
        }
    }
}

impl Report {
    /// For people: each broken rule with its section, quote and examples,
    /// then one line of counts.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for r in self.rules.iter().filter(|r| r.violations > 0) {
            out.push_str(&format!(
                "  FAIL  MUST   {}  {} ({} exchange{})\n          Requirement §{} \"{}\"\n",
                r.id,
                r.title,
                r.violations,
                if r.violations == 1 { "" } else { "s" },
                r.section,
                r.requirement
            ));
            for (i, e) in r.examples.iter().enumerate() {
                out.push_str(&format!("          e.g. {e}\n"));
                if let Some(curl) = r.reproductions.get(i) {
                    out.push_str(&format!("               reproduce: {curl}\n"));
                }
            }
        }
        if self.bodies_not_judged > 0 {
            out.push_str(&format!(
                "  NOTE  {} exchange{} with a body over the proxy's cap: forwarded unchanged, not judged by the rules that read bodies\n",
                self.bodies_not_judged,
                if self.bodies_not_judged == 1 { "" } else { "s" },
            ));
        }
        let broken = self.rules.iter().filter(|r| r.violations > 0).count();
        out.push_str(&format!(
            "{} exchange{} judged by {} rules: {} broken, {} MUST violation{}\n",
            self.exchanges,
            if self.exchanges == 1 { "" } else { "s" },
            self.rules.len(),
            broken,
            self.must_violations,
            if self.must_violations == 1 { "" } else { "s" },
        ));
        out
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `s` cut to `n` characters, marked where cut.
pub fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}
