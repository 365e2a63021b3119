//! Bodies generated from each `valid_body`, property-based: several changes
//! at once (a field set to another value of its type or of another type,
//! left out, its name in another letter case, an unknown field added),
//! drawn by proptest from the run's seed. The property is the invariants;
//! where the component declares its `fields` ([`conformance_model::fields`]) it is also
//! the oracle: a body that breaks a declared setting fails validation (417
//! in the 7.2 shape), one that keeps them all does not (no 417). A body
//! that breaks either is shrunk by proptest to the fewest, simplest changes
//! that still break it.
//!
//! Bodies are written as JSON text, not built as `serde_json::Value`, so
//! that numbers no `Value` holds (`18446744073709551616`, `1e400`) can be
//! sent as they are.

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use serde_json::Value;

use std::borrow::Cow;

use super::Generation;
use super::{Case, Family, Finding, curl, invariants};
use conformance_model::fields::{Field, FieldType, Fields as Declared};
use conformance_model::limits::ENUM_VALUES_SENT;
use conformance_wire::request::{Op, Probe};
use conformance_wire::target::Target;

/// A value as JSON text.
pub type Lit = Cow<'static, str>;

/// Strings: simple first, so shrinking ends on the simplest that fails.
pub const STRINGS: &[&str] = &[
    r#""""#,
    r#""x""#,
    r#""Zoë Łódź""#,
    r#""😀𝄞""#,
    // e and a combining acute accent; a zero-width space inside a word.
    r#""e\u0301""#,
    r#""a\u200bb""#,
    r#""\u0000""#,
    LONG_STRING,
];

const LONG_STRING: &str = concat!(
    "\"",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "\""
);

/// Numbers, as JSON text: the edges of i64 and u64, beyond, and not integers.
pub const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "1e300",
    "-0.0",
    "0.5",
];

pub const BOOLEANS: &[&str] = &["true", "false"];

/// A value of each JSON type.
pub const OTHER_TYPES: &[&str] = &["null", "0", r#""x""#, "true", "[]", "{}"];

/// The field name used for an unknown field.
const UNKNOWN: &str = "conformance_unknown";

/// Other values of the same JSON type as `value`.
pub fn same_type(value: &Value) -> &'static [&'static str] {
    match value {
        Value::String(_) => STRINGS,
        Value::Number(_) => NUMBERS,
        Value::Bool(_) => BOOLEANS,
        _ => &[],
    }
}

/// A body's fields as (name, JSON text), in `valid_body`'s order, then the
/// declared fields it leaves out (absent until a change sets them).
#[derive(Clone, Debug)]
pub struct Fields(Vec<(String, Option<String>)>);

/// One change to a body.
#[derive(Clone, Debug)]
pub enum Change {
    /// The `i`th field set to this JSON text.
    Set(usize, Lit),
    /// The `i`th field left out.
    Drop(usize),
    /// The `i`th field's name in flipped letter case (`email` -> `EMAIL`).
    Rename(usize),
    /// An unknown field added with this value.
    Add(&'static str),
}

impl Fields {
    pub fn of(body: &serde_json::Map<String, Value>) -> Self {
        Fields(
            body.iter()
                .map(|(k, v)| (k.clone(), Some(v.to_string())))
                .collect(),
        )
    }

    /// `body`'s fields, then the declared ones it leaves out.
    pub fn with_declared(body: &serde_json::Map<String, Value>, declared: &Declared) -> Self {
        let mut fields = Self::of(body);
        for f in declared.0.iter() {
            if !body.contains_key(&f.name) {
                fields.0.push((f.name.clone(), None));
            }
        }
        fields
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn name(&self, i: usize) -> Option<&str> {
        self.0.get(i).map(|f| f.0.as_str())
    }

    /// The body as JSON text, with `changes` applied in order. Each added
    /// field has a key of its own (`conformance_unknown`, then `_2`, ...):
    /// the body stays a JSON object with distinct keys.
    pub fn with(&self, changes: &[Change]) -> String {
        let mut fields: Vec<Option<(String, String)>> = self
            .0
            .iter()
            .map(|(k, v)| v.clone().map(|v| (k.clone(), v)))
            .collect();
        let mut added = 0;
        for change in changes {
            match change {
                Change::Set(i, lit) => {
                    if let (Some(slot), Some((name, _))) = (fields.get_mut(*i), self.0.get(*i)) {
                        *slot = Some((name.clone(), lit.to_string()));
                    }
                }
                Change::Drop(i) => {
                    if let Some(f) = fields.get_mut(*i) {
                        *f = None;
                    }
                }
                Change::Rename(i) => {
                    let taken: Vec<String> = (fields.iter().enumerate())
                        .filter(|(j, _)| j != i)
                        .filter_map(|(_, f)| f.as_ref().map(|f| f.0.clone()))
                        .collect();
                    if let (Some(Some(f)), Some(other)) = (fields.get(*i), self.renamed(*i, &taken))
                    {
                        let value = f.1.clone();
                        fields[*i] = Some((other, value));
                    }
                }
                &Change::Add(lit) => {
                    // A key of its own, also where a field is named so.
                    let key = loop {
                        added += 1;
                        let key = if added == 1 {
                            UNKNOWN.to_owned()
                        } else {
                            format!("{UNKNOWN}_{added}")
                        };
                        if !self.0.iter().any(|(k, _)| *k == key) {
                            break key;
                        }
                    };
                    fields.push(Some((key, lit.to_owned())));
                }
            }
        }
        let parts: Vec<String> = fields
            .into_iter()
            .flatten()
            .map(|(k, v)| format!("{}:{v}", Value::String(k)))
            .collect();
        format!("{{{}}}", parts.join(","))
    }

    /// The `i`th field's name in another letter case that names no other
    /// field, of the body or declared, nor any of `taken` (the names the
    /// body holds besides): its letter case flipped (`email` → `EMAIL`),
    /// else one letter's flipped in turn (`pin` and `PIN` both declared:
    /// `Pin`). A body never holds a name twice (RFC 8259 leaves repeated
    /// names to the parser, and the README says none is sent). `None`
    /// where every such spelling is taken.
    fn renamed(&self, i: usize, taken: &[String]) -> Option<String> {
        let name = self.name(i)?;
        let chars: Vec<char> = name.chars().collect();
        let one_flipped = (0..chars.len()).map(|k| {
            let mut c = chars.clone();
            c[k..=k].iter_mut().for_each(|ch| {
                *ch = conformance_model::spelling::flip_case(&ch.to_string())
                    .chars()
                    .next()
                    .unwrap_or(*ch)
            });
            c.into_iter().collect::<String>()
        });
        std::iter::once(conformance_model::spelling::flip_case(name))
            .chain(one_flipped)
            .find(|other| {
                other != name
                    && !self.0.iter().any(|(k, _)| k == other)
                    && !taken.iter().any(|k| k == other)
            })
    }

    /// A change in words.
    pub fn describe(&self, change: &Change) -> String {
        let name = |i: usize| self.name(i).unwrap_or("?");
        let short = |lit: &str| {
            if lit.len() > 24 {
                format!("{}… ({} bytes)", &lit[..12], lit.len())
            } else {
                lit.to_owned()
            }
        };
        match change {
            Change::Set(i, lit) => format!("`{}` set to {}", name(*i), short(lit)),
            Change::Drop(i) => format!("`{}` left out", name(*i)),
            Change::Rename(i) => match self.renamed(*i, &[]) {
                Some(other) => format!("`{}` sent as `{other}`", name(*i)),
                None => format!(
                    "`{}` as it is (every other letter case is another field's name)",
                    name(*i)
                ),
            },
            Change::Add(lit) => format!("an unknown field: {}", short(lit)),
        }
    }
}

/// Every value a generated change may set, simplest first.
fn all_literals() -> Vec<&'static str> {
    OTHER_TYPES
        .iter()
        .chain(BOOLEANS)
        .chain(NUMBERS)
        .chain(STRINGS)
        .copied()
        .collect()
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

/// The values worth sending for a declared field, simplest first.
pub(crate) fn declared_literals(f: &Field) -> Vec<Lit> {
    let mut out: Vec<String> = Vec::new();
    let text = |s: &str| Value::String(s.to_owned()).to_string();
    match f.kind {
        FieldType::String => {
            let min = f.min_length.unwrap_or(0);
            let max = f.max_length.unwrap_or(min.max(8));
            for n in [min, min.saturating_sub(1), max, max + 1] {
                let n = usize::try_from(n).unwrap_or(0).min(4096);
                out.push(text(&"a".repeat(n)));
            }
            for candidate in ["", "a", "Z", "0", "-", "a b", "é", "aaaaaaaa"] {
                out.push(text(candidate));
            }
            for v in sent_enum_values(f) {
                out.push(v.to_string());
                if let Some(s) = v.as_str() {
                    out.extend(normalised_near_misses(s).iter().map(|n| text(n)));
                }
            }
            out.push(text("conformance-not-listed"));
            out.extend(STRINGS.iter().map(|s| (*s).to_owned()));
        }
        FieldType::Integer | FieldType::Number => {
            let mut edges = Vec::new();
            for bound in [f.minimum, f.maximum].into_iter().flatten() {
                edges.extend([bound, bound - 1.0, bound + 1.0]);
            }
            if let (Some(a), Some(b)) = (f.minimum, f.maximum) {
                edges.push(((a + b) / 2.0).floor());
            }
            for e in edges {
                if e.fract() == 0.0 && e.abs() < 9.0e15 {
                    out.push(format!("{}", e as i64));
                } else {
                    out.push(format!("{e}"));
                }
            }
            if let Some(m) = f.minimum.or(f.maximum) {
                out.push(format!("{}", m + 0.5));
                if m.fract() == 0.0 && m.abs() < 9.0e15 {
                    out.push(format!("{}.0", m as i64));
                }
            }
            for v in sent_enum_values(f) {
                out.push(v.to_string());
            }
            out.extend(NUMBERS.iter().map(|s| (*s).to_owned()));
        }
        FieldType::Boolean => {
            out.extend(["true", "false", "0", "1", r#""true""#].map(str::to_owned));
        }
    }
    out.extend(OTHER_TYPES.iter().map(|s| (*s).to_owned()));
    let mut seen = std::collections::HashSet::new();
    out.into_iter()
        .filter(|l| seen.insert(l.clone()))
        .map(Cow::Owned)
        .collect()
}

/// A valid string as a framework may take it after normalising it, where
/// the declared settings (an `enum`, a `pattern`) make it invalid as sent:
/// white space around it (trimmed), its letter case flipped (folded), its
/// accented letters decomposed (Unicode normalisation). A server that
/// accepts one has validated something other than what it was sent.
pub(crate) fn normalised_near_misses(valid: &str) -> Vec<String> {
    let mut out = vec![
        format!(" {valid}"),
        format!("{valid} "),
        conformance_model::spelling::flip_case(valid),
    ];
    let decomposed = decompose(valid);
    if decomposed != valid {
        out.push(decomposed);
    }
    out.retain(|n| n != valid);
    out
}

/// `s` with the common precomposed Latin letters written as a base letter
/// and a combining mark (NFD for them; other characters as they are).
fn decompose(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for ch in s.chars() {
        let (base, mark) = match ch {
            'à' => ('a', '\u{300}'),
            'á' => ('a', '\u{301}'),
            'â' => ('a', '\u{302}'),
            'ä' => ('a', '\u{308}'),
            'ç' => ('c', '\u{327}'),
            'è' => ('e', '\u{300}'),
            'é' => ('e', '\u{301}'),
            'ê' => ('e', '\u{302}'),
            'ë' => ('e', '\u{308}'),
            'í' => ('i', '\u{301}'),
            'ñ' => ('n', '\u{303}'),
            'ó' => ('o', '\u{301}'),
            'ö' => ('o', '\u{308}'),
            'ú' => ('u', '\u{301}'),
            'ü' => ('u', '\u{308}'),
            'É' => ('E', '\u{301}'),
            'Ä' => ('A', '\u{308}'),
            'Ö' => ('O', '\u{308}'),
            'Ü' => ('U', '\u{308}'),
            other => {
                out.push(other);
                continue;
            }
        };
        out.push(base);
        out.push(mark);
    }
    out
}

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

/// The `enum` values a run sends: all of a short list; of a long one
/// ([`ENUM_VALUES_SENT`] or more), the first, the last and others evenly
/// spaced, so that an `enum` of 256 values costs 16 requests, not 256.
fn sent_enum_values(f: &Field) -> impl Iterator<Item = &Value> {
    let all = f.allowed.as_deref().unwrap_or_default();
    let n = all.len();
    let sent = n.min(ENUM_VALUES_SENT);
    (0..sent).filter_map(move |k| match sent {
        1 => all.first(),
        _ => all.get(k * (n - 1) / (sent - 1)),
    })
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
    fn a_valid_value_is_sent_as_a_framework_would_normalise_it() {
        assert_eq!(
            normalised_near_misses("de-CH"),
            [" de-CH", "de-CH ", "DE-ch"]
        );
        let cafe = normalised_near_misses("Café");
        assert!(cafe.contains(&"Cafe\u{301}".to_owned()), "{cafe:?}");
        assert!(!normalised_near_misses("7").contains(&"7".to_owned()));
    }

    #[test]
    fn changes_are_applied_in_order_and_written_as_json() {
        let body = serde_json::json!({"a": "x", "b": 1});
        let f = Fields::of(body.as_object().unwrap());
        assert_eq!(f.with(&[]), r#"{"a":"x","b":1}"#);
        assert_eq!(
            f.with(&[
                Change::Set(1, "18446744073709551616".into()),
                Change::Drop(0)
            ]),
            r#"{"b":18446744073709551616}"#
        );
        assert_eq!(
            f.with(&[Change::Add("null")]),
            r#"{"a":"x","b":1,"conformance_unknown":null}"#
        );
        for lit in all_literals() {
            assert!(
                lit.starts_with(['"', '[', '{'])
                    || lit.parse::<f64>().is_ok()
                    || ["null", "true", "false"].contains(&lit),
                "{lit}"
            );
        }
    }

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

    /// The keys of a JSON object as written, repeated ones included.
    struct Keys(Vec<String>);

    impl<'de> serde::Deserialize<'de> for Keys {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut m: A,
                ) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some((k, _)) = m.next_entry::<String, serde::de::IgnoredAny>()? {
                        keys.push(k);
                    }
                    Ok(Keys(keys))
                }
            }
            d.deserialize_map(V)
        }
    }

    /// Fields whose names differ only in letter case (`pin`, `PIN`, `Pin`)
    /// stay apart: no change, nor any pair of changes, sends a body with a
    /// name twice (the README: repeated names are never sent).
    #[test]
    fn no_body_holds_a_name_twice() {
        let declared: Declared = serde_yaml::from_str(
            "pin: {type: integer}\nPIN: {type: integer}\nPin: {type: integer}\nconformance_unknown: {type: integer}",
        )
        .expect("fields");
        let body = serde_json::json!({"pin": 1, "PIN": 2});
        let f = Fields::with_declared(body.as_object().expect("object"), &declared);
        let mut changes = vec![Change::Add("0")];
        for i in 0..f.len() {
            changes.extend([
                Change::Rename(i),
                Change::Set(i, "3".into()),
                Change::Drop(i),
            ]);
        }
        for a in &changes {
            for b in &changes {
                for c in &changes {
                    let text = f.with(&[a.clone(), b.clone(), c.clone()]);
                    let Keys(keys) = serde_json::from_str(&text).expect("an object");
                    let mut distinct = keys.clone();
                    distinct.sort();
                    distinct.dedup();
                    assert_eq!(distinct.len(), keys.len(), "{a:?} {b:?} {c:?}: {text}");
                }
            }
        }
        assert_eq!(f.with(&[Change::Rename(0)]), r#"{"pIn":1,"PIN":2}"#);
        assert_eq!(f.describe(&Change::Rename(0)), "`pin` sent as `pIn`");
    }

    /// Of a long `enum`, the first, the last and others evenly spaced are
    /// sent, at most `ENUM_VALUES_SENT`.
    #[test]
    fn a_long_enum_sends_a_spread_of_its_values() {
        let values: Vec<String> = (0..200).map(|i| format!("v{i}")).collect();
        let declared: Declared = serde_yaml::from_str(&format!(
            "e: {{type: string, enum: [{}]}}",
            values.join(", ")
        ))
        .expect("fields");
        let sent: Vec<&Value> = sent_enum_values(&declared.0[0]).collect();
        assert_eq!(sent.len(), ENUM_VALUES_SENT);
        assert_eq!(sent.first().and_then(|v| v.as_str()), Some("v0"));
        assert_eq!(sent.last().and_then(|v| v.as_str()), Some("v199"));
        let short: Declared =
            serde_yaml::from_str("e: {type: string, enum: [a, b]}").expect("fields");
        assert_eq!(sent_enum_values(&short.0[0]).count(), 2);
    }
}
