//! §4.1, §4.2 and §5: `X-Project-Env`, optional, `dev` or `live`.
//! Absent, `dev` and `live` are served; any other value is refused.

use std::sync::Arc;

use crate::catalogue::{Check, Level, Outcome, Run};
use crate::checks::{ACCEPTED, REFUSED, accepted, refused, send_and_judge};
use crate::needs::Need;
use crate::target::{Op, Probe, Target};

const QUOTE: &str = "X-Project-Env | string | no | Allowed values: `dev`, `live`.";

/// A value that is neither `dev` nor `live`.
const OTHER: &str = "staging";

pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for op in Op::BOTH {
        for (id, value, expects) in [
            ("absent", None, ACCEPTED),
            ("dev", Some("dev"), ACCEPTED),
            ("live", Some("live"), ACCEPTED),
            ("other", Some(OTHER), REFUSED),
        ] {
            let sends = match value {
                None => format!("a valid {} request without X-Project-Env", op.title()),
                Some(v) => format!("a valid {} request with X-Project-Env: {v}", op.title()),
            };
            let title = match (id, value) {
                ("other", _) => format!(
                    "{}: an X-Project-Env other than dev or live is refused",
                    op.title()
                ),
                (_, None) => format!("{}: X-Project-Env may be left out", op.title()),
                (_, Some(v)) => format!("{}: X-Project-Env `{v}` is accepted", op.title()),
            };
            out.push(Check {
                id: format!("project-env/{}/{id}", op.id()),
                level: Level::Must,
                section: op.section(),
                quote: QUOTE,
                title,
                sends,
                expects: expects.into(),
                run: Run::new(move |t| run(t, op, value)).needs(Need::of(op)),
            });
        }
    }
    out
}

async fn run(t: Arc<Target>, op: Op, value: Option<&'static str>) -> Outcome {
    let Some(c) = t.primary(op) else {
        return Outcome::skip("no component in the profile has an `authorize` section");
    };
    let req = t.valid(op, c).and_then(|r| match value {
        None => Ok(r.remove_header("X-Project-Env")),
        Some(v) => r.set_header("X-Project-Env", v),
    });
    let judge = if value == Some(OTHER) {
        refused
    } else {
        accepted
    };
    send_and_judge(&t, vec![Probe::new(c.name.clone(), req)], judge).await
}
