//! A second look before anything is recorded as the truth.
//!
//! A snapshot is what the server answers in a known state. Written once
//! from one look, it records whatever that look met: an instance whose
//! claims another lacks, a worker's stale cache, an answer that depends on
//! what ran before. So a run that will write snapshots (`--accept`, or the
//! first run of a profile outside CI) looks twice: the whole schedule again,
//! from a state settled again. A group of exchanges that differs between
//! the two looks, in a part not already normalised (per-request values,
//! dates, the volatile values learnt from known state), is refused with
//! the part named, and not written.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::snapshot::Group;

/// The groups whose exchanges differ between the two looks, each with why
/// (the first differing part: its place and both values).
pub fn unstable(first: &[Group], second: &[Group]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for a in first.iter().filter(|g| !g.check_failed && !g.unanswered) {
        let Some(b) = second.iter().find(|g| g.name == a.name) else {
            continue;
        };
        if b.unanswered {
            continue;
        }
        if b.check_failed {
            out.insert(
                a.name.clone(),
                "not recorded: the check passed on the first look at the settled state and failed on the second; the server answers one state in two ways (state held per instance or per worker?)".to_owned(),
            );
            continue;
        }
        let (Ok(va), Ok(vb)) = (
            serde_json::to_value(&a.exchanges),
            serde_json::to_value(&b.exchanges),
        ) else {
            continue;
        };
        if let Some(d) = first_difference(&va, &vb, &mut String::new()) {
            out.insert(a.name.clone(), d.words(&a.exchanges));
        }
    }
    out
}

/// Where two looks differ first.
struct Difference {
    /// A JSON pointer into the group's exchanges (`/2/response/body/model`).
    at: String,
    first: String,
    second: String,
}

impl Difference {
    fn words(&self, exchanges: &[conformance_wire::exchange::Exchange]) -> String {
        let label = self
            .at
            .trim_start_matches('/')
            .split('/')
            .next()
            .and_then(|i| i.parse::<usize>().ok())
            .and_then(|i| exchanges.get(i))
            .map(|ex| format!(" (`{}`)", ex.label))
            .unwrap_or_default();
        format!(
            "not recorded: two looks at the same settled state answered differently at `{}`{label}: {} the first time, {} the second; a part that differs between reads of one state and was not learnt volatile from known state is no truth to record (state held per instance or per worker? an answer that depends on what ran before?)",
            self.at,
            cut(&self.first),
            cut(&self.second)
        )
    }
}

/// A value as a failure shows it: JSON, at most 200 characters.
fn cut(s: &str) -> String {
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

fn first_difference(a: &Value, b: &Value, path: &mut String) -> Option<Difference> {
    let differ = |path: &str, a: Option<&Value>, b: Option<&Value>| {
        let show = |v: Option<&Value>| v.map_or("absent".to_owned(), |v| v.to_string());
        Some(Difference {
            at: if path.is_empty() {
                "/".to_owned()
            } else {
                path.to_owned()
            },
            first: show(a),
            second: show(b),
        })
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                let len = path.len();
                path.push('/');
                path.push_str(&key.replace('~', "~0").replace('/', "~1"));
                let found = match (x.get(key), y.get(key)) {
                    (Some(va), Some(vb)) => first_difference(va, vb, path),
                    (va, vb) => differ(path, va, vb),
                };
                path.truncate(len);
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                let found = match (x.get(i), y.get(i)) {
                    (Some(va), Some(vb)) => first_difference(va, vb, path),
                    (va, vb) => differ(path, va, vb),
                };
                path.truncate(len);
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        _ if a != b => differ(path, Some(a), Some(b)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Level;
    use serde_json::json;

    fn group(name: &str, body: Value, failed: bool) -> Group {
        let ex: conformance_wire::exchange::Exchange = conformance_wire::exchange::Exchange {
            label: "Auth Claims Users".into(),
            request: conformance_wire::exchange::RequestRecord {
                method: "GET".into(),
                path: "/v2/api/component/Users/auth".into(),
                headers: Default::default(),
                body: None,
            },
            response: Some(conformance_wire::exchange::ResponseRecord {
                status: 200,
                is_json: true,
                headers: Default::default(),
                body: Some(body),
                body_digest: None,
                shape: Vec::new(),
            }),
            error: None,
            retried: None,
            limited: None,
            unanswered: None,
            latency: Default::default(),
            curl: None,
        };
        Group {
            name: name.into(),
            exchanges: vec![ex],
            check_failed: failed,
            unanswered: false,
            level: Level::Must,
        }
    }

    #[test]
    fn a_claim_one_look_saw_and_the_other_did_not_is_named() {
        let first = [group(
            "refs/by-name",
            json!({"model": {"uuid": "m-1"}}),
            false,
        )];
        let second = [group("refs/by-name", json!({"model": null}), false)];
        let why = unstable(&first, &second);
        let text = why.get("refs/by-name").expect("refused");
        assert!(
            text.contains("`/0/response/body/model`") && text.contains("`Auth Claims Users`"),
            "{text}"
        );
        assert!(
            text.contains(r#"{"uuid":"m-1"}"#) && text.contains("null"),
            "{text}"
        );
    }

    #[test]
    fn equal_looks_and_groups_whose_check_failed_are_left_alone() {
        let same = [
            group("a", json!({"x": 1}), false),
            group("b", json!({"y": 1}), true),
        ];
        let other = [
            group("a", json!({"x": 1}), false),
            group("b", json!({"y": 2}), true),
        ];
        assert!(unstable(&same, &other).is_empty());
        let flipped = [group("a", json!({"x": 1}), true)];
        assert!(unstable(&same[..1], &flipped)["a"].contains("failed on the second"));
    }
}
