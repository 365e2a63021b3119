//! Bodies generated from each `valid_body`, property-based: several changes
//! at once ([`super::changes`]: a field set to another value of its type or
//! of another type ([`super::literals`]), left out, its name in another
//! letter case, an unknown field added), drawn by proptest from the run's
//! seed. The property is the invariants; where the component declares its
//! `fields` ([`conformance_model::fields`]) it is also the oracle: a body
//! that breaks a declared setting fails validation (417 in the 7.2 shape),
//! one that keeps them all does not (no 417). A body that breaks either is
//! shrunk by proptest to the fewest, simplest changes that still break it.

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

use std::borrow::Cow;

use conformance_model::fields::Fields as Declared;
use conformance_wire::request::{Op, Probe};
use conformance_wire::target::Target;

use super::Generation;
use super::changes::{Change, Fields};
use super::literals::{Lit, all_literals, declared_literals};
use super::{Case, Family, Finding, curl, invariants};

/// What a finding breaks when its answer could not be judged: no
/// invariant's id, so no check fails on it; the invariants' checks are not
/// judged instead.
pub(crate) const NOT_JUDGED: &str = "not-judged";

/// Why an answer cannot be judged: the server limited it past what the run
/// waits, or it never came within the time-out after every try.
pub(crate) fn not_judged(sent: &conformance_wire::request::Sent) -> Option<String> {
    let ex = &sent.exchange;
    ex.limited
        .as_ref()
        .map(|why| format!("the server limited `{}` ({why})", ex.label))
        .or_else(|| {
            ex.unanswered
                .as_ref()
                .map(|why| format!("`{}` got {why}", ex.label))
        })
}

/// The values a change may set field `i` to: every literal where nothing
/// is declared; where the field is declared, the values its settings make
/// interesting (at and beyond each bound, in and out of `enum` and
/// `pattern`, the edges of its type) and a value of every other type.
fn field_literals(fields: &Fields, declared: Option<&Declared>) -> Vec<Vec<Lit>> {
    (0..fields.len())
        .map(|i| {
            let field = declared.and_then(|d| fields.name(i).and_then(|n| d.get(n)));
            match field {
                Some(f) => declared_literals(f),
                None => all_literals().into_iter().map(Cow::Borrowed).collect(),
            }
        })
        .collect()
}

fn change_strategy(lits: Vec<Vec<Lit>>) -> BoxedStrategy<Change> {
    let n_fields = lits.len();
    let generic = all_literals();
    if n_fields == 0 {
        return proptest::sample::select(generic)
            .prop_map(Change::Add)
            .boxed();
    }
    let set = (0..n_fields).prop_flat_map(move |i| {
        proptest::sample::select(lits[i].clone()).prop_map(move |lit| Change::Set(i, lit))
    });
    prop_oneof![
        4 => set,
        1 => (0..n_fields).prop_map(Change::Drop),
        1 => (0..n_fields).prop_map(Change::Rename),
        1 => proptest::sample::select(generic).prop_map(Change::Add),
    ]
    .boxed()
}

/// Runs the property for every component that has a `valid_body`, on
/// `op`; a failure for each that fails.
pub async fn run(t: &Arc<Target>, generation: Generation, op: Op) -> Vec<Finding> {
    let handle = tokio::runtime::Handle::current();
    let mut tasks = Vec::new();
    {
        for (i, c) in t.profile().components.iter().enumerate() {
            if c.authorize.is_none()
                || (op == Op::Authorize && t.requests.components(op).is_empty())
            {
                continue;
            }
            let (t, handle) = (t.clone(), handle.clone());
            tasks.push(tokio::task::spawn_blocking(move || {
                property(&t, &handle, op, i, generation)
            }));
        }
    }
    let mut findings = Vec::new();
    for task in tasks {
        if let Ok(Some(f)) = task.await {
            findings.push(f);
        }
    }
    findings
}

/// The seed of one property: the run's seed, the operation, the component.
fn rng(seed: u64, op: Op, component: usize) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8] = op as u8;
    bytes[9..17].copy_from_slice(&(component as u64).to_le_bytes());
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

fn property(
    t: &Arc<Target>,
    handle: &tokio::runtime::Handle,
    op: Op,
    component: usize,
    generation: Generation,
) -> Option<Finding> {
    let c = &t.profile().components[component];
    let valid = &c.authorize.as_ref()?.valid_body;
    let declared = c.fields.as_ref();
    let fields = match declared {
        Some(d) => Fields::with_declared(valid, d),
        None => Fields::of(valid),
    };
    // Every answer judged by the invariants, and by the oracle where the
    // component declares its fields.
    let judge = |body: &str, sent: &conformance_wire::request::Sent| {
        let mut broken = invariants::broken(Family::Fields, sent);
        if let Some(d) = declared {
            broken.extend(super::oracle::judge(
                d,
                op,
                body,
                sent,
                &t.profile().choices,
            ));
        }
        broken
    };
    let config = Config {
        cases: generation.cases,
        failure_persistence: None,
        max_shrink_iters: 256,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(config, rng(generation.seed, op, component));
    let strategy =
        proptest::collection::vec(change_strategy(field_literals(&fields, declared)), 1..=3);
    let secrets = t.reproductions.curl_secrets();
    let ran = Mutex::new((0u32, None::<u32>));
    // A case the target did not answer at all (time-out, reset) ends the
    // property: shrinking it would wait for a time-out per step.
    let unanswered: Mutex<Option<Case>> = Mutex::new(None);
    let send = |changes: &[Change]| {
        let words: Vec<String> = changes.iter().map(|ch| fields.describe(ch)).collect();
        let label = format!("{} {}: {}", op.method(), c.name, words.join(", "));
        let req = t
            .requests
            .valid(op, c)
            .map(|r| r.raw_body(fields.with(changes)));
        let curl = match &req {
            Ok(r) => curl::render(r, secrets, &[]) + t.reproductions.curl_headers(),
            Err(e) => format!("(the request could not be built: {e})"),
        };
        let sent = handle.block_on(t.send(Probe::new(label.clone(), req)));
        Case {
            family: Family::Fields,
            label,
            curl,
            sent,
            reference: None,
            position: 0,
            oracle: Vec::new(),
            foreign_token_to: None,
        }
    };
    let result = runner.run(&strategy, |changes| {
        if let Some(case) = unanswered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            return Err(TestCaseError::fail(case.sent.summary()));
        }
        let case = send(&changes);
        // Limited past what the run waits, or no answer within the
        // time-out after every try: nothing to judge, and no finding; the
        // property ends here, not judged.
        if let Some(why) = not_judged(&case.sent) {
            *unanswered.lock().unwrap_or_else(|e| e.into_inner()) = Some(case);
            return Err(TestCaseError::fail(why));
        }
        if case.sent.typed.is_none() {
            let why = case.sent.summary();
            *unanswered.lock().unwrap_or_else(|e| e.into_inner()) = Some(case);
            return Err(TestCaseError::fail(why));
        }
        let broken = judge(&fields.with(&changes), &case.sent);
        let mut ran = ran.lock().unwrap_or_else(|e| e.into_inner());
        ran.0 += 1;
        if broken.is_empty() {
            return Ok(());
        }
        let first = ran.0;
        ran.1.get_or_insert(first);
        Err(TestCaseError::fail(broken[0].1.clone()))
    });
    let after_cases = ran.lock().map(|r| r.1.unwrap_or(r.0)).unwrap_or_default();
    match result {
        Err(TestError::Fail(_, minimal)) => {
            // Sent once more so the finding shows the minimal request's
            // own answer (unless the target stopped answering).
            let stuck = unanswered.into_inner().unwrap_or_else(|e| e.into_inner());
            let case = stuck.unwrap_or_else(|| send(&minimal));
            let broken = match not_judged(&case.sent) {
                Some(why) => vec![(NOT_JUDGED, why)],
                None => judge(&fields.with(&minimal), &case.sent),
            };
            Some(Finding {
                case,
                broken,
                after_cases,
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;

    #[test]
    fn the_same_seed_draws_the_same_changes() {
        let draw = |seed| {
            let mut runner =
                TestRunner::new_with_rng(Config::default(), rng(seed, Op::Authorize, 1));
            let body = serde_json::json!({"a": "x", "b": 1});
            let f = Fields::of(body.as_object().expect("object"));
            let s = proptest::collection::vec(change_strategy(field_literals(&f, None)), 1..=3);
            (0..20)
                .map(|_| format!("{:?}", s.new_tree(&mut runner).map(|t| t.current()).ok()))
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
    }

    /// A declared field's values reach every bound, from both sides, and
    /// a field the valid body leaves out can be set.
    #[test]
    fn declared_fields_give_their_edges() {
        let declared: Declared = serde_yaml::from_str(
            "pin: {type: integer, minimum: 1000, maximum: 9999}\nname: {type: string, min_length: 3, max_length: 5}\ncurrency: {type: string, enum: [EUR]}",
        )
        .expect("fields");
        let body = serde_json::json!({"pin": 1234, "name": "abc"});
        let f = Fields::with_declared(body.as_object().expect("object"), &declared);
        assert_eq!(f.len(), 3, "currency is declared, not in the body");
        let lits = field_literals(&f, Some(&declared));
        for want in ["999", "1000", "9999", "10000", "1000.5", "1000.0"] {
            assert!(
                lits[0].iter().any(|l| l == want),
                "pin: {want} in {:?}",
                lits[0]
            );
        }
        for want in [r#""aa""#, r#""aaa""#, r#""aaaaa""#, r#""aaaaaa""#] {
            assert!(lits[1].iter().any(|l| l == want), "name: {want}");
        }
        assert!(lits[2].iter().any(|l| l == r#""EUR""#) && lits[2].iter().any(|l| l == r#""eur""#));
        assert_eq!(
            f.with(&[Change::Set(2, r#""EUR""#.into()), Change::Rename(0)]),
            r#"{"PIN":1234,"name":"abc","currency":"EUR"}"#
        );
    }
}
