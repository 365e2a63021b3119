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
    /// Exchanges outside the interface's paths, not judged
    /// ([`Tally::record_outside`]).
    outside: u64,
    /// Recorded entries over the caps, not judged ([`Tally::record_over_cap`]).
    over_cap: u64,
    /// Lines of a recording that were no exchange, and the first few, each
    /// with its number and why ([`Tally::record_unreadable`]).
    unreadable: u64,
    unreadable_first: Vec<String>,
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
    /// Exchanges outside the interface's paths (a page, its assets), seen
    /// and not judged. Absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub outside_interface: u64,
    /// Recorded entries over the caps (a URL, method or headers past them):
    /// not judged. Absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub entries_over_cap: u64,
    /// Lines of a recording that were no exchange. Absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub unreadable_lines: u64,
    /// The first few, each `line N: why`. Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<String>,
    /// Violations of MUST rules, all rules together.
    pub must_violations: u64,
    pub rules: Vec<RuleReport>,
}

impl Tally {
    /// Counts one exchange and its findings (either side). Its examples
    /// show none of the secrets the request carries
    /// ([`crate::redact::secrets_of`]).
    pub fn record(&mut self, req: &Request, answer: Option<&Answer>, findings: &[Finding]) {
        self.record_with(req, answer, findings, &[], &[]);
    }

    fn record_with(
        &mut self,
        req: &Request,
        answer: Option<&Answer>,
        findings: &[Finding],
        fields: &[String],
        known: &[String],
    ) {
        self.exchanges += 1;
        if req.body_cut || answer.is_some_and(|a| a.body_cut) {
            self.bodies_not_judged += 1;
        }
        // Worked out only where an example is kept.
        let mut secrets: Option<Vec<String>> = None;
        for f in findings {
            let seen = self.by_rule.entry(f.rule.id).or_default();
            seen.count += 1;
            if seen.examples.len() < EXAMPLES {
                let secrets =
                    secrets.get_or_insert_with(|| crate::redact::secrets_of(req, fields, known));
                let status = answer.map_or(String::new(), |a| format!(" → HTTP {}", a.status));
                seen.examples.push(crate::redact::shown(
                    &format!("{}{status}: {}", req.describe(), f.detail),
                    secrets,
                ));
                seen.reproductions
                    .push(crate::redact::shown(&crate::reproduce::curl(req), secrets));
            }
        }
    }

    /// [`Tally::record`], and counts the rules the exchange could break
    /// ([`crate::exercised::exercised`]): a report then tells a rule kept
    /// from one no exchange put to the test. The examples show none of the
    /// secrets `knows` holds either.
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
        self.record_with(
            req,
            answer,
            findings,
            &knows.secret_fields(),
            &knows.secrets(),
        );
    }

    /// Counts an exchange outside the interface's paths
    /// ([`Request::on_interface`]), judged by no rule.
    pub fn record_outside(&mut self) {
        self.outside += 1;
    }

    /// Counts a recorded entry over the caps, judged by no rule.
    pub fn record_over_cap(&mut self) {
        self.over_cap += 1;
    }

    /// Counts a line of a recording that was no exchange; the first few
    /// are kept with `why` (which holds no value of the line).
    pub fn record_unreadable(&mut self, line: u64, why: &str) {
        self.unreadable += 1;
        if self.unreadable_first.len() < EXAMPLES {
            self.unreadable_first.push(format!("line {line}: {why}"));
        }
    }

    /// Recorded entries over the caps so far.
    pub fn over_cap(&self) -> u64 {
        self.over_cap
    }

    /// Lines of a recording that were no exchange, so far.
    pub fn unreadable(&self) -> u64 {
        self.unreadable
    }

    /// Exchanges outside the interface's paths so far.
    pub fn outside(&self) -> u64 {
        self.outside
    }

    /// Adds another tally's counts (a proxy's connections, say).
    pub fn merge(&mut self, other: Tally) {
        self.exchanges += other.exchanges;
        self.outside += other.outside;
        self.over_cap += other.over_cap;
        self.unreadable += other.unreadable;
        for line in other.unreadable_first {
            if self.unreadable_first.len() < EXAMPLES {
                self.unreadable_first.push(line);
            }
        }
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
            outside_interface: self.outside,
            entries_over_cap: self.over_cap,
            unreadable_lines: self.unreadable,
            unreadable: self.unreadable_first.clone(),
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
                "  NOTE  {} exchange{} with a body not kept whole (over the 1 MiB cap: the proxy forwards it unchanged, audit reads past it; or left out of a recording): not judged by the rules that read bodies\n",
                self.bodies_not_judged,
                if self.bodies_not_judged == 1 { "" } else { "s" },
            ));
        }
        if self.outside_interface > 0 {
            out.push_str(&format!(
                "  NOTE  {} exchange{} outside the interface's paths (a page, its assets): not judged (--judge-other-paths judges them)\n",
                self.outside_interface,
                if self.outside_interface == 1 { "" } else { "s" },
            ));
        }
        if self.entries_over_cap > 0 {
            out.push_str(&format!(
                "  NOTE  {} recorded entr{} over the caps (a URL or method over 2 MiB, headers over 1 MiB or 1000 lines): not judged\n",
                self.entries_over_cap,
                if self.entries_over_cap == 1 { "y" } else { "ies" },
            ));
        }
        if self.unreadable_lines > 0 {
            out.push_str(&format!(
                "  NOTE  {} line{} of the recording not read as an exchange:\n",
                self.unreadable_lines,
                if self.unreadable_lines == 1 { "" } else { "s" },
            ));
            for line in &self.unreadable {
                out.push_str(&format!("          {line}\n"));
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::{Component, Place};
    use std::borrow::Cow;

    struct Profile;

    impl Knows for Profile {
        fn component(&self, _: &str) -> Option<Cow<'_, Component>> {
            None
        }
        fn model_uuid_at(&self) -> Cow<'_, Place> {
            Cow::Owned(Place::default())
        }
        fn secrets(&self) -> Cow<'_, [String]> {
            Cow::Owned(vec!["profile-token-0001".into()])
        }
    }

    /// A server that echoes the client's secret (in any spelling) where a
    /// rule shows a value: no example and no reproduction holds it.
    #[test]
    fn an_echoed_secret_is_never_shown() {
        let req = Request {
            method: "GET".into(),
            target: "/v2/api/component/x/auth?token=query-secret-9".into(),
            headers: vec![
                ("X-Client-Id".into(), b"c".to_vec()),
                ("X-Client-Secret".into(), b"s3cret-value".to_vec()),
            ],
            ..Request::default()
        };
        let mut tally = Tally::default();
        for echoed in [
            "s3cret-value",
            "S3CRET%2Dvalue",
            "query-secret-9",
            "profile-token-0001",
        ] {
            let answer = Answer {
                status: 401,
                headers: vec![
                    ("X-Project-Uuid".into(), echoed.as_bytes().to_vec()),
                    ("Content-Type".into(), format!("text/{echoed}").into_bytes()),
                ],
                body: Vec::new(),
                body_cut: false,
            };
            let mut findings = crate::client::judge_request(&req, &Profile);
            findings.extend(crate::server::judge_answer(&req, &answer, &findings));
            let mut one = Tally::default();
            one.record_judged(&req, Some(&answer), &findings, &Profile);
            let text = one.report(None).text();
            let json = serde_json::to_string(&one.report(None)).expect("json");
            assert!(text.contains("[redacted]"), "{text}");
            for secret in ["s3cret", "S3CRET", "query-secret", "profile-token"] {
                assert!(
                    !text.contains(secret) && !json.contains(secret),
                    "{secret}: {text}"
                );
            }
            tally.merge(one);
        }
        assert_eq!(tally.exchanges(), 4);
    }
}
