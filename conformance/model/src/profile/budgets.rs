//! Latency budgets: a profile may say how fast each operation must answer
//! (`budgets: {auth_claims: 200ms, authorize: 500ms}`). The description
//! sets no speed, so a budget is a MUST of the profile, like a declared
//! choice: the team that wrote it holds its server to it.
//!
//! How a budget is judged: the conformance crate's `checks/budgets.rs`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

/// The operations a budget may name.
pub const OPERATIONS: &[&str] = &["auth_claims", "authorize"];

/// The budget of each operation that has one (`auth_claims`, `authorize`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Budgets(pub BTreeMap<String, Duration>);

impl<'de> Deserialize<'de> for Budgets {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = BTreeMap::<Operation, Limit>::deserialize(d)?;
        Ok(Budgets(raw.into_iter().map(|(k, v)| (k.0, v.0)).collect()))
    }
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Operation(String);

impl<'de> Deserialize<'de> for Operation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let key = String::deserialize(d)?;
        if OPERATIONS.contains(&key.as_str()) {
            Ok(Operation(key))
        } else {
            Err(serde::de::Error::custom(format!(
                "`{key}` is not an operation (budgets are for {})",
                OPERATIONS.join(", ")
            )))
        }
    }
}

struct Limit(Duration);

impl<'de> Deserialize<'de> for Limit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // `${VAR}` expanded, as in every value of a profile.
        let (raw, text) = crate::expand::plain(|| crate::expand::read_text(d))?;
        parse_limit(&text).map(Limit).map_err(|why| {
            serde::de::Error::custom(format!("{} {why}", crate::expand::shown(&raw, &text)))
        })
    }
}

/// `200ms`, `1.5s`: a positive duration with its unit (a bare number could
/// be either).
pub fn parse_limit(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else {
        // The value is named by the caller, which knows where it came from.
        return Err(
            "is not a budget: give a duration with its unit, e.g. 200ms or 1.5s".to_owned(),
        );
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() && v * scale <= 3600.0 => {
            Ok(Duration::from_secs_f64(v * scale))
        }
        _ => Err(
            "is not a budget: give a positive duration up to an hour, e.g. 200ms or 1.5s"
                .to_owned(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_need_a_unit() {
        assert_eq!(parse_limit("200ms"), Ok(Duration::from_millis(200)));
        assert_eq!(parse_limit("1.5s"), Ok(Duration::from_millis(1500)));
        assert!(parse_limit("200").is_err_and(|e| e.contains("with its unit")));
        assert!(parse_limit("-1s").is_err());
        assert!(parse_limit("2h").is_err());
    }

    #[test]
    fn a_bad_budget_names_its_key_and_line() {
        let text = "base_url: http://127.0.0.1:1\nclient_id: x\nclient_secret: y\ncomponents:\n  - {name: a, tag: a, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11}\nbudgets:\n  auth_claims: 200\n";
        let e = crate::profile::Profile::from_yaml_str(text, "p.yaml", &|_| None)
            .expect_err("no unit")
            .to_string();
        assert!(
            e.starts_with("p.yaml:7: key `budgets.auth_claims`") && e.contains("with its unit"),
            "{e}"
        );
        let e = crate::profile::Profile::from_yaml_str(
            &text.replace("auth_claims: 200", "authorise: 200ms"),
            "p.yaml",
            &|_| None,
        )
        .expect_err("unknown operation")
        .to_string();
        assert!(e.contains("`authorise` is not an operation"), "{e}");
        let ok = crate::profile::Profile::from_yaml_str(
            &text.replace("auth_claims: 200", "auth_claims: 200ms"),
            "p.yaml",
            &|_| None,
        )
        .expect("valid");
        assert_eq!(ok.budgets.0["auth_claims"], Duration::from_millis(200));
        // A value from the environment is never shown, even when refused.
        let env = |name: &str| (name == "SLOW").then(|| "20O-secretish".to_owned());
        let e = crate::profile::Profile::from_yaml_str(
            &text.replace("auth_claims: 200", "auth_claims: ${SLOW}"),
            "p.yaml",
            &env,
        )
        .expect_err("not a duration")
        .to_string();
        assert!(
            e.contains("the value of `${SLOW}` is not a budget") && !e.contains("20O"),
            "{e}"
        );
    }
}
