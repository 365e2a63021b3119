//! §4.1, §4.2 and §5: `X-Project-Env`, optional, `dev` or `live`.
//! Absent, `dev` and `live` are served; any other value is refused.

use crate::case::{CaseCheck, Change, Expect, Sends};
use crate::catalogue::{Check, Cites, Level, Subject};
use conformance_requirements as requirement;
use conformance_wire::request::Op;

const QUOTE: Cites = Cites::Requirement(&requirement::PROJECT_ENV_VALUES);

/// A value that is neither `dev` nor `live`.
const OTHER: &str = "staging";

pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for (op, [absent, dev, live, other]) in [
        (
            Op::AuthClaims,
            [
                "project-env/auth-claims/absent",
                "project-env/auth-claims/dev",
                "project-env/auth-claims/live",
                "project-env/auth-claims/other",
            ],
        ),
        (
            Op::Authorize,
            [
                "project-env/authorize/absent",
                "project-env/authorize/dev",
                "project-env/authorize/live",
                "project-env/authorize/other",
            ],
        ),
    ] {
        let title = |what: &str| format!("{}: {what}", op.title());
        for (id, change, expects, title) in [
            (
                absent,
                Change::DropHeader("X-Project-Env"),
                Expect::Accepted,
                title("X-Project-Env may be left out"),
            ),
            (
                dev,
                Change::Header("X-Project-Env", "dev"),
                Expect::Accepted,
                title("X-Project-Env `dev` is accepted"),
            ),
            (
                live,
                Change::Header("X-Project-Env", "live"),
                Expect::Accepted,
                title("X-Project-Env `live` is accepted"),
            ),
            (
                other,
                Change::Header("X-Project-Env", OTHER),
                Expect::Refused,
                title("an X-Project-Env other than dev or live is refused"),
            ),
        ] {
            out.push(
                CaseCheck {
                    id,
                    level: Level::Must,
                    section: op.section(),
                    cites: QUOTE,
                    title,
                    sends: Sends::primary(op, change),
                    expects,
                    subject: Subject::op_items(op, &["X-Project-Env"]),
                }
                .into(),
            );
        }
    }
    out
}
