//! §4.1, §4.2 and §5: `X-Project-Env`, optional, `dev` or `live`.
//! Absent, `dev` and `live` are served; any other value is refused.

use crate::case::{CaseCheck, Change, Expect, Sends};
use crate::catalogue::{Check, Level};
use crate::target::Op;

const QUOTE: &str = "X-Project-Env | string | no | Allowed values: `dev`, `live`.";

/// A value that is neither `dev` nor `live`.
const OTHER: &str = "staging";

pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for op in Op::BOTH {
        for (id, change, expects) in [
            (
                "absent",
                Change::DropHeader("X-Project-Env"),
                Expect::Accepted,
            ),
            (
                "dev",
                Change::Header("X-Project-Env", "dev"),
                Expect::Accepted,
            ),
            (
                "live",
                Change::Header("X-Project-Env", "live"),
                Expect::Accepted,
            ),
            (
                "other",
                Change::Header("X-Project-Env", OTHER),
                Expect::Refused,
            ),
        ] {
            let title = match id {
                "other" => format!(
                    "{}: an X-Project-Env other than dev or live is refused",
                    op.title()
                ),
                "absent" => format!("{}: X-Project-Env may be left out", op.title()),
                v => format!("{}: X-Project-Env `{v}` is accepted", op.title()),
            };
            out.push(
                CaseCheck {
                    id: format!("project-env/{}/{id}", op.id()),
                    level: Level::Must,
                    section: op.section(),
                    quote: QUOTE,
                    title,
                    sends: Sends::primary(op, change),
                    expects,
                }
                .into(),
            );
        }
    }
    out
}
