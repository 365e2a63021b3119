//! How a declared check runs: its requests made for the profile's
//! components and sent (concurrently; a sequence one after the other on
//! one connection), or the run's shared probes or generated cases read,
//! and every answer judged as its [`Expect`] says.

use std::sync::Arc;

use super::{Answer, Case, Change, Expect, Found, Label, Requests, Sends, To, flip_case};
use crate::catalogue::{Outcome, Run};
use crate::context::RunContext;
use crate::generate::{Family, Judged};
use conformance_model::choices::Choices;
use conformance_model::profile::Component;
use conformance_wire::phase::Phase;
use conformance_wire::request::{Case as HeaderCase, Op, Probe, Req, Sent};
use conformance_wire::valid::ValidRequests;

impl Case {
    /// The check's run: declared requests are planned (the runner sends
    /// each in its phase, then they are judged); a sequence is a procedure
    /// of the phase its operations make it; the shared probes and
    /// generated cases are judged once the runner has sent them; a run of
    /// its own ([`Sends::Own`]) is the check's as declared, its needs and
    /// choice with it.
    pub fn run(self) -> Run {
        if let Sends::Own { run, .. } = self.sends {
            return run;
        }
        let needs = self.sends.needs();
        let choice = self.expects.choice();
        let reads = match self.sends {
            Sends::Generated(family) => Judged::family(family),
            Sends::ErrorProbes { .. } => Judged::probes(),
            _ => Judged::default(),
        };
        let run = match &self.sends {
            Sends::Requests(r) => {
                let (requests, judged, expects) = (r.clone(), r.clone(), self.expects.clone());
                Run::planned(
                    move |t| plan(t, &requests).into_iter().map(|(p, _)| p).collect(),
                    move |t, sent| judge_planned(t, &judged, &expects, sent),
                )
            }
            Sends::InTurn(steps) => {
                let phase = Phase::of_sequence(steps.iter().map(|s| s.op));
                Run::procedure(phase, move |t| judge(t, self.clone()))
            }
            Sends::ErrorProbes { .. } | Sends::Generated(_) | Sends::Own { .. } => {
                Run::procedure(Phase::Judge, move |t| judge(t, self.clone()))
            }
        };
        let run = run.needs(&needs).reads_generated(reads);
        match choice {
            Some(key) => run.choice(key),
            None => run,
        }
    }
}

/// The snapshot the error probes are stored in, for every check that
/// judges them.
const PROBES_GROUP: &str = "errors/probes";

/// Judges the answers to a planned check's requests (planned again: the
/// plan is a pure function of the profile, so the same).
fn judge_planned(t: &RunContext, r: &Requests, expects: &Expect, sent: Vec<Sent>) -> Outcome {
    let planned = plan(&t.requests, r);
    let about: Vec<_> = planned.into_iter().map(|(_, about)| about).collect();
    let answers = answers(&sent, &about);
    let found = expects.verdict(&t.profile().choices, &answers, by_label(&answers));
    outcome(found, crate::judge::exchanges(&sent))
}

async fn judge(t: Arc<RunContext>, case: Case) -> Outcome {
    let choices = &t.profile().choices;
    match &case.sends {
        Sends::Requests(_) => Outcome::fail(
            "a planned check was run as a procedure (a bug of the runner)",
            Vec::new(),
        ),
        Sends::Own { .. } => Outcome::fail(
            "a check with a run of its own was run as a declared one (a bug of the runner)",
            Vec::new(),
        ),
        Sends::InTurn(steps) => {
            let session = match t.keep_alive_session() {
                Ok(session) => session,
                Err(e) => {
                    return Outcome::fail(
                        format!("cannot build a kept-alive client: {e}"),
                        Vec::new(),
                    );
                }
            };
            // The components the steps reach, held alone (in profile order,
            // so two sequences never wait on each other): a read here sees
            // the settled claim, not the one another sequence claims for a
            // moment (`state/environments`).
            let mut reached: Vec<usize> = steps
                .iter()
                .filter_map(|s| t.requests.primary(s.op))
                .filter_map(|c| {
                    t.profile()
                        .components
                        .iter()
                        .position(|p| std::ptr::eq(p, c))
                })
                .collect();
            reached.sort_unstable();
            reached.dedup();
            let mut held = Vec::new();
            for i in reached {
                held.push(t.alone(&t.profile().components[i].name).await);
            }
            let mut sent = Vec::new();
            let mut about = Vec::new();
            for step in steps {
                let Some(c) = t.requests.primary(step.op) else {
                    continue;
                };
                let Some(made) = step.change.apply(&t.requests, step.op, c) else {
                    continue;
                };
                let probe = Probe::new(step.label, made.request).case(made.case);
                sent.push(session.send(probe).await);
                about.push((c, step.change));
            }
            let answers = answers(&sent, &about);
            let found = case.expects.verdict(choices, &answers, by_label(&answers));
            outcome(found, crate::judge::exchanges(&sent))
        }
        Sends::ErrorProbes { .. } => {
            let all = t.probes();
            let answers: Vec<Answer<'_>> = all
                .iter()
                .map(|(probe, s)| Answer {
                    probe: Some(*probe),
                    ..answer(s, None, None)
                })
                .collect();
            let found = case.expects.verdict(choices, &answers, by_label(&answers));
            let exchanges = all.iter().map(|(_, s)| s.exchange.clone()).collect();
            outcome(found, exchanges).in_group(PROBES_GROUP)
        }
        Sends::Generated(family) => {
            let family = *family;
            let generated = t.generated();
            // A target that does not answer a valid request fails: a skip
            // here would let a run go green on a server too slow to judge.
            if let Some(outcome) = Outcome::when_not_generated(generated) {
                return outcome;
            }
            let cases: Vec<&crate::generate::Case> = generated.family(family).collect();
            if cases.is_empty() {
                return Outcome::skip(family.none_reason());
            }
            let answers: Vec<Answer<'_>> = cases
                .iter()
                .map(|k| Answer {
                    label: &k.label,
                    reference: k.reference.as_ref(),
                    ..answer(&k.sent, None, None)
                })
                .collect();
            // A failure names the generated request as a command to paste.
            let say = |i: usize, why: &str| crate::generate::describe(cases[i], why);
            let found = case.expects.verdict(choices, &answers, say);
            let exchanges = cases.iter().map(|k| k.sent.exchange.clone()).collect();
            let outcome = match found {
                Found::Failures(f) => Outcome::from_failures(crate::generate::listed(f), exchanges),
                Found::NotApplicable(why) => Outcome::not_applicable(why, exchanges),
            };
            outcome.noted(not_made(&t, family, &cases))
        }
    }
}

/// Words a failure as `label: why`.
/// A failed answer's line: its label, why, and the command that sends its
/// request again (secrets as the profile's variables).
fn by_label<'a>(answers: &'a [Answer<'_>]) -> impl Fn(usize, &str) -> String + 'a {
    move |i, why| {
        let a = &answers[i];
        let again = crate::judge::reproduce(&a.sent.exchange);
        format!("{}: {why}{again}", a.label)
    }
}

/// Every request of `r`, in order: per operation, per component, per change.
fn plan<'t>(t: &'t ValidRequests, r: &Requests) -> Vec<(Probe, (&'t Component, Change))> {
    let mut out = Vec::new();
    for &op in &r.ops {
        let comps: Vec<&Component> = match r.to {
            To::Primary => t.primary(op).into_iter().collect(),
            to => t
                .components(op)
                .into_iter()
                .filter(|c| to.takes(c))
                .collect(),
        };
        for c in comps {
            for (i, &change) in r.changes.iter().enumerate() {
                let Some(made) = change.apply(t, op, c) else {
                    continue;
                };
                let label = label(r, i, op, c, change, &made.reference);
                out.push((Probe::new(label, made.request).case(made.case), (c, change)));
            }
        }
    }
    out
}

/// The label of one request (see [`Label`]).
pub(super) fn label(
    r: &Requests,
    i: usize,
    op: Op,
    c: &Component,
    change: Change,
    reference: &str,
) -> String {
    let template = match r.label {
        Label::Template(t) => t,
        Label::PerChange(ts) => ts.get(i).copied().unwrap_or("{component}: {change}"),
        Label::Change => match (r.ops.len(), r.to) {
            (1, To::Primary) => return change.label(),
            (1, _) => return format!("{}: {}", c.name, change.label()),
            _ => return format!("{} {}: {}", op.method(), c.name, change.label()),
        },
    };
    let by = match change {
        Change::RefBy(by) | Change::FlippedRef(by) => by.id(),
        _ => "",
    };
    template
        .replace("{component}", &c.name)
        .replace("{method}", op.method())
        .replace("{op}", op.title())
        .replace("{by}", by)
        .replace("{change}", &change.label())
        .replace("{ref}", reference)
}

fn answer<'a>(sent: &'a Sent, c: Option<&'a Component>, change: Option<Change>) -> Answer<'a> {
    Answer {
        label: &sent.exchange.label,
        sent,
        component: c,
        change,
        reference: None,
        probe: None,
    }
}

fn answers<'a>(sent: &'a [Sent], about: &[(&'a Component, Change)]) -> Vec<Answer<'a>> {
    sent.iter()
        .zip(about)
        .map(|(s, (c, change))| answer(s, Some(c), Some(*change)))
        .collect()
}

fn outcome(found: Found, exchanges: Vec<conformance_wire::exchange::Exchange>) -> Outcome {
    match found {
        Found::Failures(failures) => Outcome::from_failures(failures, exchanges),
        Found::NotApplicable(why) => Outcome::not_applicable(why, exchanges),
    }
}

/// Which cases of `family` could not be made, and why: a token of another
/// component is no case where the profile gives every other component the
/// same token (the description's single `<AUTH_TOKEN>` allows it) and
/// Authorize issued none different.
fn not_made(t: &RunContext, family: Family, cases: &[&crate::generate::Case]) -> Option<String> {
    if family != Family::Token {
        return None;
    }
    let without: Vec<&str> = t
        .profile()
        .components
        .iter()
        .enumerate()
        .filter(|(_, c)| c.requires_auth)
        .filter(|(i, _)| !cases.iter().any(|k| k.foreign_token_to == Some(*i)))
        .map(|(_, c)| c.name.as_str())
        .collect();
    (!without.is_empty()).then(|| {
        format!(
            "no token of another component was sent to {}: every other token the profile gives is the same as its own, and Authorize issued none other",
            without.join(", ")
        )
    })
}

impl Change {
    /// The request, the ref it names, and the letter case of its header
    /// names; `None` where the change cannot be made for `c`.
    fn apply(self, t: &ValidRequests, op: Op, c: &Component) -> Option<Made> {
        let valid = || t.valid(op, c);
        let mut reference = c.name.clone();
        let mut case = HeaderCase::Lower;
        let request = match self {
            Change::Nothing => valid(),
            Change::DropHeader(h) => valid().map(|r| r.remove_header(h)),
            Change::Header(h, v) => valid().and_then(|r| r.set_header(h, v)),
            Change::Ref(r) => {
                reference = r.to_owned();
                t.valid_with_ref(op, c, r)
            }
            Change::RefBy(by) => {
                reference = by.of(c).to_owned();
                t.valid_with_ref(op, c, &reference)
            }
            Change::FlippedRef(by) => {
                reference = flip_case(by.of(c));
                if reference == by.of(c) {
                    return None;
                }
                t.valid_with_ref(op, c, &reference)
            }
            Change::PercentEncodedName => {
                reference = conformance_model::spelling::percent_encoded(&c.name);
                valid().map(|r| r.with_encoded_ref(&reference))
            }
            Change::Body(b) => valid().map(|r| r.raw_body(b.as_bytes().to_vec())),
            Change::AroundValidBody(before, after) => {
                let body = serde_json::to_string(&c.authorize.as_ref()?.valid_body).ok()?;
                let after = after.replace("{valid}", &body);
                valid().map(|r| r.raw_body(format!("{before}{body}{after}").into_bytes()))
            }
            Change::InvalidBody => t.with_invalid_body(op, c)?,
            Change::NoModelUuid => {
                let at = t.model_uuid_at();
                valid().map(|r| r.without_model_uuid(&at))
            }
            Change::ModelUuid(m) => {
                let at = t.model_uuid_at();
                valid().and_then(|r| r.with_model_uuid(&at, m))
            }
            // No limit declared: nothing is over it.
            Change::BodyOverLimit
                if t.profile.choices.body_limit().value
                    == conformance_model::choices::NO_BODY_LIMIT =>
            {
                return None;
            }
            Change::BodyOverLimit => {
                let limit =
                    usize::try_from(t.profile.choices.body_limit().value).unwrap_or(usize::MAX / 2);
                let pad = "x".repeat(limit.saturating_add(6 * 1024).min(16 << 20));
                valid().map(|r| r.raw_body(format!("{{\"pad\":\"{pad}\"}}").into_bytes()))
            }
            Change::HeaderNames(names) => {
                case = names;
                valid()
            }
            Change::Method(m) => valid().map(|r| r.method(m.clone())),
            Change::PathWithout(p) => valid().map(|r| r.without_path_prefix(p)),
        };
        Some(Made {
            request,
            reference,
            case,
        })
    }
}

/// One request made for a component.
struct Made {
    request: Result<Req, component_auth_bindings::Error>,
    reference: String,
    case: HeaderCase,
}

impl Expect {
    /// Judges one answer; `None` for a judgement of all answers together.
    fn judge(&self, choices: &Choices, a: &Answer<'_>) -> Option<Result<(), String>> {
        let sent = a.sent;
        Some(match self {
            Expect::Accepted => crate::judge::accepted(sent),
            Expect::Refused => crate::judge::refused(sent),
            Expect::ValidationFailed => crate::judge::is_417(sent),
            Expect::AcceptedUnlessChanged => match a.change {
                Some(Change::Nothing) => crate::judge::accepted(sent),
                _ => crate::judge::refused(sent),
            },
            Expect::Chosen {
                key,
                status,
                fails_validation,
                ..
            } => {
                let want = status(choices);
                match (sent.status(), want.declared, fails_validation) {
                    // Undeclared, the text's own answer passes beside ours.
                    (Some(417), false, true) => Ok(()),
                    _ => crate::judge::status_is(sent, &want, *key),
                }
            }
            Expect::Depends { judge, .. } => judge(choices)(sent),
            Expect::Custom { judge, .. } | Expect::When { judge, .. } => judge(a),
            Expect::Together { .. } => return None,
            Expect::Own(_) => Err(
                "judged by a run of its own, which this check does not have (a bug of its declaration)"
                    .to_owned(),
            ),
        })
    }

    /// Judges every answer; `say` words the failure of the answer at an
    /// index.
    fn verdict(
        &self,
        choices: &Choices,
        answers: &[Answer<'_>],
        say: impl Fn(usize, &str) -> String,
    ) -> Found {
        let picked = |i: &usize| match self {
            Expect::When { when, .. } => when(answers[*i].sent),
            _ => true,
        };
        let judged: Vec<usize> = (0..answers.len()).filter(picked).collect();
        match self {
            Expect::Chosen { unless, .. } if unless(choices).is_some() => {
                Found::NotApplicable(unless(choices).unwrap_or_default().to_owned())
            }
            Expect::Together { judge, .. } => judge(answers, choices),
            Expect::When { none, .. } if judged.is_empty() => {
                Found::NotApplicable((*none).to_owned())
            }
            _ => Found::Failures(
                judged
                    .into_iter()
                    .filter_map(|i| match self.judge(choices, &answers[i]) {
                        Some(Err(why)) => Some(say(i, &why)),
                        _ => None,
                    })
                    .collect(),
            ),
        }
    }
}
