//! Values that change from one request to the next, found by asking twice.
//!
//! A snapshot must drift only when behaviour drifts. Known per-request
//! keys (`request_id`, `token`, dates) are normalised by name in
//! [`crate::exchange`]; a server may use others (`trace`, `data.jti`,
//! `nonce`). Before the checks run, the runner sends the same requests
//! twice; every JSON leaf whose value differs between the two answers is
//! volatile, and its path is normalised in every record of the run. Strings
//! that read as a date or time are volatile by nature (two requests in the
//! same second would not show it) and are normalised wherever they appear.

use serde_json::Value;

/// What a volatile value shows in a record.
pub const VOLATILE: &str = "[volatile]";

/// What a date or time shows in a record.
pub const DATE: &str = "[date]";

/// The paths (`/data/token`, `/errors/*/trace`; array items as `*`) of the
/// leaves that hold different values in `a` and `b`.
pub fn differing_paths(a: &Value, b: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(a, b, &mut String::new(), &mut out);
    out.sort();
    out.dedup();
    out
}

fn walk(a: &Value, b: &Value, path: &mut String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, va) in x {
                if let Some(vb) = y.get(key) {
                    let len = path.len();
                    path.push('/');
                    path.push_str(&escape(key));
                    walk(va, vb, path, out);
                    path.truncate(len);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            let len = path.len();
            path.push_str("/*");
            for (va, vb) in x.iter().zip(y) {
                walk(va, vb, path, out);
            }
            path.truncate(len);
        }
        _ if a != b => out.push(if path.is_empty() {
            "/".to_owned()
        } else {
            path.clone()
        }),
        _ => {}
    }
}

/// A JSON pointer token: `~` and `/` escaped (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Replaces the values at `paths` with [`VOLATILE`], and every string that
/// reads as a date or time with [`DATE`].
pub fn normalise(value: &mut Value, paths: &[String]) {
    normalise_at(value, paths, &mut String::new());
}

fn normalise_at(value: &mut Value, paths: &[String], path: &mut String) {
    if !path.is_empty() && paths.iter().any(|p| p == path) && !value.is_null() {
        *value = Value::String(VOLATILE.to_owned());
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                let len = path.len();
                path.push('/');
                path.push_str(&escape(key));
                normalise_at(v, paths, path);
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            let len = path.len();
            path.push_str("/*");
            for v in items {
                normalise_at(v, paths, path);
            }
            path.truncate(len);
        }
        Value::String(s) if looks_like_a_date(s) => *s = DATE.to_owned(),
        _ => {}
    }
}

/// An RFC 3339 date-time (`2026-11-23T19:16:13Z`, with fractions or an
/// offset) or an HTTP date (`Mon, 23 Nov 2026 19:16:13 GMT`).
pub fn looks_like_a_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| r.clone().all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    let rfc3339 = b.len() >= 19
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && matches!(b[10], b'T' | b't' | b' ')
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16);
    let http = s.len() == 29 && s.ends_with(" GMT") && s.as_bytes().get(3) == Some(&b',');
    rfc3339 || http
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_the_leaves_that_differ() {
        let a = json!({"status": true, "data": {"jti": "a1", "model": {"uuid": "m"}}, "errors": [{"trace": 1}, {"trace": 2}]});
        let b = json!({"status": true, "data": {"jti": "b2", "model": {"uuid": "m"}}, "errors": [{"trace": 3}, {"trace": 2}]});
        assert_eq!(differing_paths(&a, &b), ["/data/jti", "/errors/*/trace"]);
        assert!(differing_paths(&a, &a).is_empty());
    }

    #[test]
    fn normalises_paths_and_dates() {
        let mut v = json!({"data": {"jti": "b2", "when": "2026-11-23T19:16:13.5Z", "name": "2026 plans"}, "at": "Mon, 23 Nov 2026 19:16:13 GMT"});
        normalise(&mut v, &["/data/jti".to_owned()]);
        assert_eq!(
            v,
            json!({"data": {"jti": VOLATILE, "when": DATE, "name": "2026 plans"}, "at": DATE})
        );
    }
}
