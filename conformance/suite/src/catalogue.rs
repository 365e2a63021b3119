//! The checks as data.
//!
//! Every check carries its anchor: a stable hierarchical id
//! (`headers/authorize/x-client-secret/missing`), the section of the
//! interface description it enforces with a short quote of the sentence, its
//! level, what it sends and what must happen. The report groups by section,
//! `--only`/`--skip` select by id prefix or section, and `conformance list`
//! prints this table (the README holds it too; a test keeps them in step).

use crate::context::RunContext;
use conformance_model::choices::ChoiceKey;
use conformance_requirements::Requirement;
use conformance_wire::phase::Phase;
use conformance_wire::request::{Op, Probe, Sent};
use conformance_wire::valid::ValidRequests;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::generate::Judged;
use crate::needs::Need;
use conformance_wire::exchange::Exchange;

pub use conformance_model::level::Level;

pub(crate) type BoxFuture = Pin<Box<dyn Future<Output = Outcome> + Send>>;

/// The requests a planned check sends, made from the target's profile.
pub(crate) type PlanFn = Arc<dyn Fn(&ValidRequests) -> Vec<Probe> + Send + Sync>;
/// A planned check's judgement of its answers (in the order planned).
pub(crate) type JudgeFn = Arc<dyn Fn(&RunContext, Vec<Sent>) -> Outcome + Send + Sync>;
type ProcedureFn = Arc<dyn Fn(Arc<RunContext>) -> BoxFuture + Send + Sync>;
/// A judgement over the whole run: every other check's outcome, every
/// answer, the latency of each operation.
pub(crate) type RunWideFn = Arc<dyn Fn(&RunWide<'_>) -> Outcome + Send + Sync>;

/// What a run-wide check judges, once every other check is judged.
pub struct RunWide<'a> {
    /// The run's checks and their outcomes (run-wide checks' own are
    /// placeholders, and not theirs to judge).
    pub checks: &'a [Check],
    pub outcomes: &'a [Outcome],
    /// Every answer of the run, each request once.
    pub answers: &'a [conformance_wire::outcomes::Answer],
    /// Each operation's latency over the run.
    pub latency: &'a [conformance_wire::latency::OperationLatency],
    pub profile: &'a conformance_model::profile::Profile,
    pub strict: bool,
    /// The limit answers the run was given (a few of each kind), judged by
    /// no other check.
    pub limited: &'a [conformance_wire::exchange::Exchange],
}

impl RunWide<'_> {
    /// The other checks (not run-wide ones) with their outcomes.
    pub fn others(&self) -> impl Iterator<Item = (&Check, &Outcome)> {
        self.checks
            .iter()
            .zip(self.outcomes)
            .filter(|(c, _)| !matches!(c.run.body, Body::RunWide(_)))
    }
}

/// How a check runs.
#[derive(Clone)]
pub(crate) enum Body {
    /// Requests planned from the profile: the runner sends each in its
    /// phase (a read with the reads, a write with the writes), then the
    /// check judges the answers.
    Planned { plan: PlanFn, judge: JudgeFn },
    /// A procedure of its own, run in one phase.
    Procedure { phase: Phase, run: ProcedureFn },
    /// A judgement over the whole run, made last ([`RunWide`]).
    RunWide(RunWideFn),
}

/// What a check does: sends its requests to the target, each in its
/// [`Phase`], and judges the answers.
#[derive(Clone)]
pub struct Run {
    pub(crate) body: Body,
    needs: Vec<Need>,
    choice: Option<ChoiceKey>,
    /// Where the profile declares what the check holds the server to (a
    /// latency budget): then a MUST of the profile.
    declared: Option<fn(&conformance_model::profile::Profile) -> bool>,
    /// The shared cases it reads (a run sends only the cases some
    /// selected check reads).
    judged: Judged,
}

impl Run {
    /// A procedure run in `phase`: its requests all belong there (see
    /// [`Phase`]); in [`Phase::Judge`] it sends nothing.
    pub fn procedure<F, Fut>(phase: Phase, run: F) -> Self
    where
        F: Fn(Arc<RunContext>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Outcome> + Send + 'static,
    {
        Self::with_body(Body::Procedure {
            phase,
            run: Arc::new(move |t| Box::pin(run(t))),
        })
    }

    /// Requests made by `plan`, sent by the runner each in its phase, and
    /// judged together by `judge`.
    pub fn planned(
        plan: impl Fn(&ValidRequests) -> Vec<Probe> + Send + Sync + 'static,
        judge: impl Fn(&RunContext, Vec<Sent>) -> Outcome + Send + Sync + 'static,
    ) -> Self {
        Self::with_body(Body::Planned {
            plan: Arc::new(plan),
            judge: Arc::new(judge),
        })
    }

    /// A judgement over the whole run, made once every other check is
    /// judged ([`RunWide`]); it sends nothing.
    pub fn run_wide(judge: impl Fn(&RunWide<'_>) -> Outcome + Send + Sync + 'static) -> Self {
        Self::with_body(Body::RunWide(Arc::new(judge)))
    }

    /// The check holds the server to what the profile declares where
    /// `declared` says it declares it: a MUST of the profile there.
    pub fn must_where(
        mut self,
        declared: fn(&conformance_model::profile::Profile) -> bool,
    ) -> Self {
        self.declared = Some(declared);
        self
    }

    fn with_body(body: Body) -> Self {
        Run {
            body,
            needs: Vec::new(),
            choice: None,
            declared: None,
            judged: Judged::default(),
        }
    }

    /// The check reads these shared cases from the run's context.
    pub fn reads_generated(mut self, judged: Judged) -> Self {
        self.judged = judged;
        self
    }

    /// The shared cases the check reads, where it will run against
    /// `profile` (a check skipped for an unmet need reads none).
    pub fn generated_read(&self, profile: &conformance_model::profile::Profile) -> Judged {
        match crate::needs::unmet(&self.needs, profile) {
            Some(_) => Judged::default(),
            None => self.judged.clone(),
        }
    }

    /// The check judges a choice the server's profile may declare (a key
    /// of `choices:`): declared, the check is a MUST of the profile;
    /// left out, a SHOULD against ours.
    pub fn choice(mut self, key: ChoiceKey) -> Self {
        self.choice = Some(key);
        self
    }

    pub fn chosen_by(&self) -> Option<ChoiceKey> {
        self.choice
    }

    /// What the check needs from the profile; unmet, the check is skipped
    /// with the need's reason and nothing is sent.
    pub fn needs(mut self, needs: &[Need]) -> Self {
        self.needs.extend_from_slice(needs);
        self.needs.sort();
        self.needs.dedup();
        self
    }

    pub fn needed(&self) -> &[Need] {
        &self.needs
    }

    /// Whether the profile can declare what the check holds the server to
    /// (a latency budget: [`Run::must_where`]).
    pub fn declared_by_profile(&self) -> bool {
        self.declared.is_some()
    }

    /// The phases the check sends in (none: it only judges).
    pub fn phases(&self, requests: &ValidRequests) -> Vec<Phase> {
        let mut phases = match &self.body {
            Body::Procedure { phase, .. } => vec![*phase],
            Body::Planned { plan, .. } => plan(requests).iter().map(Probe::phase).collect(),
            Body::RunWide(_) => Vec::new(),
        };
        phases.sort();
        phases.dedup();
        phases.retain(|p| *p != Phase::Judge);
        phases
    }
}

/// One check of the catalogue, rendered from its declaration: a
/// [`CaseCheck`](crate::case::CaseCheck) in the file of `checks/` its id's
/// first segment names, the one way a check is declared. A check that needs
/// a run of its own declares it there too, its texts beside its run:
///
/// ```ignore
/// CaseCheck {
///     id: "choices/issued-token",
///     level: Level::Should,
///     section: "5",
///     cites: Cites::Norm("spec choice 5: tokens are issued by Authorize"),
///     title: "a token issued by Authorize claims its model in Auth Claims".into(),
///     sends: Sends::Own {
///         text: "a valid Authorize request, then Auth Claims with the token it issued".into(),
///         run: Run::procedure(Phase::Verify, issued_token).needs(&[Need::Authorize]),
///     },
///     expects: Expect::Own("...".into()),
///     subject: Subject::NONE,
/// }
/// ```
#[derive(Clone)]
pub struct Check {
    /// Stable, hierarchical, selectable by prefix; a literal where the
    /// check is declared, so that a report's id greps to its source (a test
    /// holds every id to it).
    pub id: &'static str,
    pub title: String,
    /// Section of the interface description the check is shown under,
    /// e.g. `7.1`.
    pub section: &'static str,
    /// The requirement enforced (or, for SHOULD checks, the norm or the
    /// spec's choice).
    pub cites: Cites,
    pub level: Level,
    /// What the check sends.
    pub sends: String,
    /// What must happen.
    pub expects: String,
    pub run: Run,
    /// What the check judges, typed (coverage reads it, never the id).
    pub subject: Subject,
}

/// What a check enforces: a requirement of the description, by its key in
/// the one table of them (`conformance-requirements`), or, for a SHOULD
/// check, a norm of HTTP, one of our spec's choices (spec/README.md) or what
/// the profile declares: texts that are not the description's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cites {
    /// A sentence of the description (every MUST check cites one).
    Requirement(&'static Requirement),
    /// A norm, one of our spec's choices or the profile's declaration, in
    /// words: not the description's (a test holds it to that).
    Norm(&'static str),
}

impl Cites {
    /// The text a report quotes: the requirement's sentence, or the norm.
    pub fn quote(self) -> &'static str {
        match self {
            Cites::Requirement(r) => r.quote,
            Cites::Norm(text) => text,
        }
    }

    /// The requirement cited, where it is the description's.
    pub fn requirement(self) -> Option<&'static Requirement> {
        match self {
            Cites::Requirement(r) => Some(r),
            Cites::Norm(_) => None,
        }
    }
}

/// What a check judges, beside its quote: the one operation it is about,
/// if one, and the items of the description's tables it holds (a header,
/// a field), whose rows it enforces where its sections show them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Subject {
    pub op: Option<Op>,
    pub items: &'static [&'static str],
}

impl Subject {
    /// Neither one operation nor an item of a table.
    pub const NONE: Subject = Subject {
        op: None,
        items: &[],
    };

    /// About `op` alone.
    pub const fn op(op: Op) -> Self {
        Subject {
            op: Some(op),
            items: &[],
        }
    }

    /// Holding `items`, the first cells of the table rows they name.
    pub const fn items(items: &'static [&'static str]) -> Self {
        Subject { op: None, items }
    }

    /// About `op` alone, holding `items`.
    pub const fn op_items(op: Op, items: &'static [&'static str]) -> Self {
        Subject {
            op: Some(op),
            items,
        }
    }
}

impl Check {
    /// The sentence (or norm) the check enforces, quoted.
    pub fn quote(&self) -> &'static str {
        self.cites.quote()
    }

    /// The check's level for `profile`: MUST where it judges a choice the
    /// profile declares, else its own.
    pub fn level_for(&self, profile: &conformance_model::profile::Profile) -> Level {
        if self
            .run
            .needs
            .iter()
            .any(|n| n.is_addition() && !n.met_by(profile))
        {
            // Declaring the fields (or a second model) adds these checks;
            // leaving them out is no gap in what a MUST run proves.
            return Level::Should;
        }
        if self.run.declared.is_some_and(|declared| declared(profile)) {
            return Level::Must;
        }
        match self.run.choice {
            Some(key) if profile.choices.declares(key) => Level::Must,
            _ => self.level,
        }
    }

    /// The requirement a result cites at `level`: the profile's choice when
    /// a declared choice made the check a MUST, else the quote.
    pub fn requirement_for(&self, level: Level) -> String {
        match self.run.choice {
            Some(key) if level == Level::Must && self.level == Level::Should => format!(
                "the profile's choice `choices.{key}` (the description is silent; the profile declares what the server does)"
            ),
            _ => self.quote().to_owned(),
        }
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("needs", &self.needs)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Check")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// What running a check produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub verdict: Verdict,
    /// Every exchange, in a fixed order, for the snapshot.
    pub exchanges: Vec<Exchange>,
    /// The snapshot these exchanges belong to when several checks judge the
    /// same exchanges (stored once); `None`: the check's own id.
    pub group: Option<&'static str>,
    /// What a reader should know of a pass (a case not made, and why).
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Pass,
    /// What came, against the check's own `expects`.
    Fail {
        actual: String,
    },
    Skip {
        reason: String,
        /// What the profile lacks, where that is why (the report says
        /// what to add from this, not from the reason's words).
        unmet: Option<Need>,
    },
    /// The rule holds "when" something happens ("When the response is 400,
    /// it has the 7.1 shape") and this target never made it happen: nothing
    /// to judge, and no gap in what the run proves (`--strict` passes it).
    NotApplicable {
        reason: String,
    },
    /// The server's answer to the rule never came: its limits held the
    /// request past what the run waits, or no answer came within the
    /// time-out after every try. Neither a pass nor a failure of the rule
    /// (a server's load is not its answer): counted apart, and a run with
    /// such checks and no failure exits with its own code.
    NotJudged {
        why: String,
    },
}

impl Outcome {
    pub fn pass(exchanges: Vec<Exchange>) -> Self {
        Self {
            verdict: Verdict::Pass,
            exchanges,
            group: None,
            note: None,
        }
    }

    pub fn fail(actual: impl Into<String>, exchanges: Vec<Exchange>) -> Self {
        Self {
            verdict: Verdict::Fail {
                actual: actual.into(),
            },
            exchanges,
            group: None,
            note: None,
        }
    }

    pub fn skip(reason: impl Into<String>) -> Self {
        Self {
            verdict: Verdict::Skip {
                reason: reason.into(),
                unmet: None,
            },
            exchanges: Vec::new(),
            group: None,
            note: None,
        }
    }

    /// Skipped: the profile does not hold what the check needs.
    pub fn unmet(need: Need) -> Self {
        Self {
            verdict: Verdict::Skip {
                reason: need.reason().to_owned(),
                unmet: Some(need),
            },
            ..Self::skip("")
        }
    }

    pub fn not_applicable(reason: impl Into<String>, exchanges: Vec<Exchange>) -> Self {
        Self {
            verdict: Verdict::NotApplicable {
                reason: reason.into(),
            },
            exchanges,
            group: None,
            note: None,
        }
    }

    /// Not judged: `why` says what kept the answer away.
    pub fn not_judged(why: impl Into<String>, exchanges: Vec<Exchange>) -> Self {
        Self {
            verdict: Verdict::NotJudged { why: why.into() },
            exchanges,
            group: None,
            note: None,
        }
    }

    /// What a check that reads the generated cases is when none was sent:
    /// failed (the target did not answer a valid request), or not judged
    /// (its answer never came within what the run waits); `None` when they
    /// were sent.
    pub fn when_not_generated(generated: &crate::generate::Generated) -> Option<Self> {
        let why = generated.not_run.as_ref()?;
        Some(match generated.not_run_unanswered {
            true => Self::not_judged(format!("not judged: {why}"), Vec::new()),
            false => Self::fail(why.clone(), Vec::new()),
        })
    }

    /// Pass when `failures` is empty, else fail listing them.
    pub fn from_failures(failures: Vec<String>, exchanges: Vec<Exchange>) -> Self {
        if failures.is_empty() {
            Self::pass(exchanges)
        } else {
            Self::fail(failures.join("\n"), exchanges)
        }
    }

    /// A note the report shows with the verdict.
    pub fn noted(mut self, note: Option<String>) -> Self {
        self.note = note;
        self
    }

    pub fn in_group(mut self, group: &'static str) -> Self {
        self.group = Some(group);
        self
    }
}

/// The sections of the interface description, in document order, with
/// their titles; the report groups checks under them.
pub const SECTIONS: &[(&str, &str)] = &[
    ("1", "What the service does"),
    ("2", "Resources and their fields"),
    ("3", "States and transitions"),
    ("4", "Endpoints"),
    ("4.1", "Auth Claims"),
    ("4.2", "Authorize"),
    ("5", "Authentication"),
    ("7", "Errors"),
    ("7.1", "400 Bad Request"),
    ("7.2", "417 validation failed"),
    ("8", "Limits"),
    ("9", "Versioning"),
    (SNAPSHOTS_SECTION, "Snapshots of every exchange"),
];

/// The section every snapshot result is shown under (its JSON names it).
pub const SNAPSHOTS_SECTION: &str = "snapshots";

/// The title of section `s`.
pub fn section_title(s: &str) -> &'static str {
    SECTIONS
        .iter()
        .find(|(n, _)| *n == s)
        .map_or("", |(_, t)| *t)
}

/// Does `selector` pick `check`? A selector is an id, an id prefix ending at
/// a `/` boundary, or a section (`7.1` or `§7.1`; `7` also picks `7.1`).
pub fn selects(selector: &str, check: &Check) -> bool {
    let sel = selector.trim().trim_end_matches('/');
    if sel.is_empty() {
        return false;
    }
    if check.id == sel || check.id.starts_with(&format!("{sel}/")) {
        return true;
    }
    let section = sel.trim_start_matches('§');
    check.section == section || check.section.starts_with(&format!("{section}."))
}

/// The catalogue as a Markdown table (the README holds this). `Traffic`
/// names the proxy's rules that judge the same on observed exchanges.
pub fn markdown_table(checks: &[Check]) -> String {
    let mut out = String::from(
        "| Id | Level | § | Requirement | Sends | Expects | Traffic |\n|---|---|---|---|---|---|---|\n",
    );
    for c in checks {
        let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
        let traffic: Vec<String> = crate::traffic::rules_of(c.id)
            .iter()
            .map(|r| format!("`{}`", r.id))
            .collect();
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} |\n",
            c.id,
            c.level.as_str(),
            c.section,
            cell(c.quote()),
            cell(&c.sends),
            cell(&c.expects),
            traffic.join(", ")
        ));
    }
    out
}

/// The catalogue as plain text, one check a line; `[traffic: RULE]` marks
/// a check observed traffic judges too.
pub fn plain_list(checks: &[Check]) -> String {
    let width = checks.iter().map(|c| c.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for c in checks {
        out.push_str(&format!(
            "{:<width$}  {:<6}  §{:<4}  {}",
            c.id,
            c.level.as_str(),
            c.section,
            c.title
        ));
        // Observed traffic judges it too (`proxy`, `audit`).
        let traffic: Vec<&str> = crate::traffic::rules_of(c.id)
            .iter()
            .map(|r| r.id)
            .collect();
        if !traffic.is_empty() {
            out.push_str(&format!("  [traffic: {}]", traffic.join(", ")));
        }
        out.push('\n');
    }
    out
}
