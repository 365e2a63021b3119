use super::*;
use crate::catalogue::{Level, Verdict};
use crate::changes::Changes;
use crate::checks::catalogue;
use crate::snapshot::{SnapshotOutcome, SnapshotResult};
use conformance_model::choices::ChoiceKey;

fn failed(id: &str, actual: &str) -> CheckResult {
    let all = catalogue();
    let c = all
        .iter()
        .find(|c| c.id == id)
        .expect("a check of the catalogue");
    let level = if c.run.chosen_by().is_some() {
        Level::Must
    } else {
        c.level
    };
    CheckResult::from_check(
        c,
        level,
        &Verdict::Fail {
            actual: actual.into(),
        },
        false,
    )
}

fn changed(group: &str, changes: &[(&str, &str, &str)]) -> CheckResult {
    let list = changes
        .iter()
        .map(|(at, was, now)| Change {
            method: "POST".into(),
            at: (*at).into(),
            was: Some((*was).into()),
            now: Some((*now).into()),
        })
        .collect();
    CheckResult::from_snapshot(
        &SnapshotResult {
            group: group.into(),
            level: Level::Must,
            file: format!("snapshots/{group}.snap").into(),
            outcome: SnapshotOutcome::Differs {
                why: "the exchanges differ from the stored snapshot (run with --accept to record them):\n-a\n+b".into(),
                changes: Changes {
                    list,
                    complete: true,
                },
            },
        },
        None,
        false,
    )
}

fn missing(group: &str) -> CheckResult {
    CheckResult::from_snapshot(
        &SnapshotResult {
            group: group.into(),
            level: Level::Must,
            file: format!("snapshots/{group}.snap").into(),
            outcome: SnapshotOutcome::Failed(format!(
                "no stored snapshot snapshots/{group}.snap; run with --accept to record it"
            )),
        },
        None,
        false,
    )
}

/// One broken rule: the checks whose answers show it, whichever section
/// they stand in, and the snapshots whose answers now carry it, are one
/// cause, led by the check of the rule itself.
#[test]
fn one_broken_rule_is_one_cause() {
    let status = "HTTP 400, body {\"status\":true} (`status` is true, not false)";
    let results = vec![
        failed("headers/auth-claims/x-client-id/missing", status),
        failed(
            "errors/400/status",
            "GET without X-Client-Id: `status` is true, not false",
        ),
        failed("answers/errors-are-envelopes", status),
        changed("refs/unknown", &[("response.body.status", "false", "true")]),
        changed(
            "near-miss/ref",
            &[("response.body.status", "false", "true")],
        ),
        changed(
            "choices/unknown-ref",
            &[("response.body.message", "\"a\"", "\"b\"")],
        ),
        missing("prefix/v2-api"),
        missing("refs/letter-case"),
    ];
    let causes = Causes::find(&results, &[]);
    let keys: Vec<&str> = causes.list.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "7.1/status",
            "snapshots:snapshots/choices/unknown-ref",
            "snapshots:missing"
        ]
    );
    let rule = &causes.list[0];
    assert_eq!(rule.first, "errors/400/status");
    assert_eq!(
        rule.says,
        "§7.1 \"status | boolean | `false` on an error.\": `status` is true, not false"
    );
    assert_eq!(
        rule.checks,
        [
            "headers/auth-claims/x-client-id/missing",
            "answers/errors-are-envelopes"
        ]
    );
    assert_eq!(
        rule.snapshots,
        ["snapshots/refs/unknown", "snapshots/near-miss/ref"]
    );
    assert!(rule.gating);
    assert!(
        causes.list[1]
            .says
            .contains("`response.body.message` \"a\" → \"b\"")
    );
    assert_eq!(causes.list[2].snapshots, ["snapshots/refs/letter-case"]);
    assert_eq!(causes.of(3).map(|(n, _)| n), Some(1));
    assert_eq!(causes.of(5).map(|(n, _)| n), Some(2));
}

/// One choice made otherwise: its check, a check that failed only on the
/// changed status, and the snapshots whose only change is that status are
/// one cause, said once.
#[test]
fn one_changed_choice_is_said_once() {
    let results = vec![
        failed(
            "choices/success-shape",
            "POST Users: HTTP 201, body {}\nPOST Catalog: HTTP 201, body {}",
        ),
        failed(
            "choices/authorize-success",
            "Users: valid: HTTP 201 where the profile's `choices.authorize_success` is 200",
        ),
        changed(
            "responses/json",
            &[
                ("response.status", "200", "201"),
                ("response.body.code", "200", "201"),
            ],
        ),
        changed("state/read-back", &[("response.status", "200", "201")]),
        changed("prefix/v2-api", &[("response.status", "200", "202")]),
    ];
    let choice = ChangedChoice {
        key: "authorize_success".parse::<ChoiceKey>().expect("a key"),
        check: "choices/authorize-success".into(),
        recorded: "200".into(),
        declared: true,
        seen: "201".into(),
    };
    let causes = Causes::find(&results, &[choice]);
    assert_eq!(causes.list.len(), 2, "{causes:#?}");
    let c = &causes.list[0];
    assert_eq!(c.key, "choices.authorize_success");
    assert_eq!(
        c.says,
        "the server now answers 201 where the profile records 200: update `choices.authorize_success`"
    );
    assert_eq!(c.first, "choices/authorize-success");
    assert_eq!(c.checks, ["choices/success-shape"]);
    assert_eq!(
        c.snapshots,
        ["snapshots/responses/json", "snapshots/state/read-back"]
    );
    assert_eq!(
        c.remedy.as_deref(),
        Some(
            "with `choices.authorize_success: 201` in the profile, `--accept` records the 2 snapshots it changed"
        )
    );
    assert_eq!(causes.list[1].first, "snapshots/prefix/v2-api");
}

/// Checks of one sentence that name no problem of an error answer share
/// the sentence's cause; a passing or skipped result has none.
#[test]
fn failures_of_one_sentence_share_it() {
    let mut results = vec![
        failed(
            "headers/auth-claims/x-client-id/missing",
            "without X-Client-Id: HTTP 200",
        ),
        failed(
            "headers/auth-claims/x-client-id/empty",
            "empty X-Client-Id: HTTP 200",
        ),
        failed(
            "headers/auth-claims/x-client-secret/missing",
            "without X-Client-Secret: HTTP 200",
        ),
    ];
    results[2].status = Status::Passed;
    let causes = Causes::find(&results, &[]);
    assert_eq!(causes.list.len(), 1);
    assert_eq!(causes.list[0].key, "5/x-client-id");
    assert!(
        causes.list[0]
            .says
            .ends_with(": without X-Client-Id: HTTP 200")
    );
    assert_eq!(causes.of(2), None);
}
