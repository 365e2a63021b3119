//! What changed between a stored snapshot and this run's exchanges, as
//! data: each value that differs, where it stands in an exchange
//! (`response.status`, `response.body.status`), what it was and what it is
//! now. A diff is for reading; these are for telling which cause a changed
//! snapshot comes from ([`crate::cause`]): the same change in twenty
//! snapshots is one change of the server.

use serde_json::Value;

/// One value that differs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Change {
    /// The method of the exchange's request (`GET`, `POST`), empty where
    /// the change is not inside one exchange.
    pub method: String,
    /// Where in the exchange, array positions left out:
    /// `response.body.status`, `response.headers.x-project-uuid`.
    pub at: String,
    /// The stored value, as compact JSON; `None`: it was not there.
    pub was: Option<String>,
    /// This run's value, as compact JSON; `None`: it is gone.
    pub now: Option<String>,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = |v: &Option<String>| v.clone().unwrap_or_else(|| "absent".to_owned());
        write!(
            f,
            "`{}` {} → {}",
            self.at,
            shown(&self.was),
            shown(&self.now)
        )
    }
}

/// The changes of one snapshot, at most [`MAX_CHANGES`] of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub list: Vec<Change>,
    /// Every change is listed (none was left out past the bound).
    pub complete: bool,
}

impl Changes {
    /// The distinct changes, method left out: what one cause of many
    /// snapshots has in common.
    pub fn distinct(&self) -> Vec<Change> {
        let mut out: Vec<Change> = self
            .list
            .iter()
            .map(|c| Change {
                method: String::new(),
                ..c.clone()
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// Changes listed at most per snapshot: a snapshot that changed all
/// through is not one cause's change anyway.
pub const MAX_CHANGES: usize = 200;

/// The changes from `old` to `new`, two stored snapshots' JSON
/// (`{check, exchanges: [{label, request, response}]}`), exchange by
/// exchange.
pub fn between(old: &Value, new: &Value) -> Changes {
    let mut out = Walk {
        list: Vec::new(),
        complete: true,
    };
    let exchanges = |v: &Value| v.get("exchanges").and_then(Value::as_array).cloned();
    match (exchanges(old), exchanges(new)) {
        (Some(a), Some(b)) if a.len() == b.len() => {
            for (x, y) in a.iter().zip(&b) {
                let method = y
                    .pointer("/request/method")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                out.walk(method, &mut Vec::new(), Some(x), Some(y));
            }
        }
        _ => out.walk("", &mut Vec::new(), Some(old), Some(new)),
    }
    Changes {
        list: out.list,
        complete: out.complete,
    }
}

struct Walk {
    list: Vec<Change>,
    complete: bool,
}

impl Walk {
    fn walk(&mut self, method: &str, path: &mut Vec<String>, a: Option<&Value>, b: Option<&Value>) {
        match (a, b) {
            (Some(Value::Object(x)), Some(Value::Object(y))) => {
                let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    path.push(k.clone());
                    self.walk(method, path, x.get(k), y.get(k));
                    path.pop();
                }
            }
            (Some(Value::Array(x)), Some(Value::Array(y))) => {
                for i in 0..x.len().max(y.len()) {
                    self.walk(method, path, x.get(i), y.get(i));
                }
            }
            (x, y) if x == y => {}
            (x, y) => {
                if self.list.len() == MAX_CHANGES {
                    self.complete = false;
                    return;
                }
                self.list.push(Change {
                    method: method.to_owned(),
                    at: path.join("."),
                    was: x.map(Value::to_string),
                    now: y.map(Value::to_string),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn exchange(status: u16, body: Value) -> Value {
        json!({"label": "l", "request": {"method": "POST", "path": "/p"},
               "response": {"status": status, "headers": {"x-project-uuid": "[uuid]"}, "body": body}})
    }

    #[test]
    fn each_value_that_differs_with_where_it_stands() {
        let old = json!({"check": "c", "exchanges": [
            exchange(200, json!({"code": 200, "status": true})),
            exchange(400, json!({"code": 400, "status": false, "items": [1, 2]})),
        ]});
        let new = json!({"check": "c", "exchanges": [
            exchange(201, json!({"code": 201, "status": true})),
            exchange(400, json!({"code": 400, "status": true, "items": [1]})),
        ]});
        let changes = between(&old, &new);
        assert!(changes.complete);
        let shown: Vec<String> = changes.list.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "`response.body.code` 200 → 201",
                "`response.status` 200 → 201",
                "`response.body.items` 2 → absent",
                "`response.body.status` false → true",
            ]
        );
        assert!(changes.list.iter().all(|c| c.method == "POST"));
        assert_eq!(changes.distinct().len(), 4);
    }

    #[test]
    fn bounded() {
        let old = json!({"exchanges": [{"a": (0..500).collect::<Vec<_>>()}]});
        let new = json!({"exchanges": [{"a": (1..501).collect::<Vec<_>>()}]});
        let changes = between(&old, &new);
        assert_eq!(changes.list.len(), MAX_CHANGES);
        assert!(!changes.complete);
    }
}
