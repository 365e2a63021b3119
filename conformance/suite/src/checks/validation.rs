//! §7.2 rule 1 and §4.2: a request that fails validation (a body that
//! breaks the component's auth settings, Authorize without `modelUuid`) is
//! answered 417 in the 7.2 shape.

use crate::case::{CaseCheck, Change, Expect, Sends, To};
use crate::catalogue::{Check, Cites, Level, Subject};
use conformance_requirements as requirement;
use conformance_wire::request::Op;

const RULE_417: Cites = Cites::Requirement(&requirement::VALIDATION_IS_417);
const MODEL_UUID: Cites = Cites::Requirement(&requirement::MODEL_UUID);

pub fn checks() -> Vec<Check> {
    [
        CaseCheck {
            id: "validation/authorize/invalid-body",
            subject: Subject::op(Op::Authorize),
            level: Level::Must,
            section: "7.2",
            cites: RULE_417,
            title: "Authorize: a body that fails validation is answered 417 in the 7.2 shape"
                .into(),
            sends: Sends::each(Op::Authorize, To::EachWithInvalidBody, Change::InvalidBody),
            expects: Expect::ValidationFailed,
        },
        CaseCheck {
            id: "validation/authorize/missing-model-uuid",
            subject: Subject::op(Op::Authorize),
            level: Level::Must,
            section: "4.2",
            cites: MODEL_UUID,
            title: "Authorize without modelUuid fails validation (417)".into(),
            sends: Sends::primary(Op::Authorize, Change::NoModelUuid),
            expects: Expect::ValidationFailed,
        },
    ]
    .into_iter()
    .map(Check::from)
    .collect()
}
