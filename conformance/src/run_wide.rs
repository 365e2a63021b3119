//! The judgements over the whole run, made once every check is judged:
//! which documented outcomes of each operation the run triggered
//! (`crate::outcomes`; under `--strict` a required one never seen fails),
//! and the profile's latency budgets (judged at the 95th percentile,
//! nearest rank, of every request the run sent to the operation, each
//! counted once: one slow outlier does not fail a run, a slow server does).
//! Each adds results of its own to the report (`outcomes/...`,
//! `budgets/<operation>`).

use std::time::Duration;

use crate::catalogue::Level;
use crate::choices::Choices;
use crate::outcomes::{Answer, coverage};
use crate::profile::Budgets;
use crate::report::{CheckResult, Report, Status};

/// Puts the outcome coverage in `report`; under `--strict`, a required
/// outcome never seen becomes a failed result.
pub fn outcomes(report: &mut Report, answers: &[Answer], choices: &Choices) {
    report.outcomes = coverage(answers, choices);
    if !report.strict {
        return;
    }
    let unseen: Vec<CheckResult> = report
        .outcomes
        .iter()
        .filter(|o| o.required && o.seen == 0)
        .map(|o| CheckResult {
            id: format!("outcomes/{}/{}", o.operation, o.id),
            title: format!("`{}` gave {} at least once", o.operation, o.outcome),
            section: "outcomes".to_owned(),
            section_title: "Documented outcomes seen (--strict)".to_owned(),
            level: Level::Must,
            requirement: format!(
                "{} (--strict: every outcome the description documents is triggered at least once)",
                o.documented_by
            ),
            sends: format!("every request of the run to `{}`", o.operation),
            expects: format!("at least one answer: {}", o.outcome),
            expected: Some(format!("at least one answer: {}", o.outcome)),
            status: Status::Failed,
            actual: Some("never seen in this run".to_owned()),
            note: None,
            latency: None,
        })
        .collect();
    if !unseen.is_empty() {
        report.results.extend(unseen);
        report.recount();
    }
}

/// `200 ms`, `1500 ms`, `0.5 ms`.
fn millis(d: Duration) -> String {
    let ms = (d.as_secs_f64() * 10_000.0).round() / 10.0;
    format!("{ms} ms")
}

/// Judges every budget of `budgets` against the run's latency per
/// operation ([`Report::latency`]) and adds one result each.
pub fn budgets(report: &mut Report, budgets: &Budgets) {
    if budgets.0.is_empty() {
        return;
    }
    for (operation, limit) in &budgets.0 {
        let seen = report.latency.iter().find(|l| &l.operation == operation);
        let (status, actual, note) = match seen {
            None => (
                Status::Skipped,
                None,
                Some(format!(
                    "no `{operation}` request was sent: nothing to judge the budget by"
                )),
            ),
            Some(l) if l.stats.p95_ms > limit.as_secs_f64() * 1000.0 => (
                Status::Failed,
                Some(format!("p95 {} ms: {}", l.stats.p95_ms, l.stats.line())),
                None,
            ),
            Some(l) => (Status::Passed, None, Some(l.stats.line())),
        };
        let expects = format!(
            "p95 of the `{operation}` answers at most {}",
            millis(*limit)
        );
        report.results.push(CheckResult {
            id: format!("budgets/{operation}"),
            title: format!("`{operation}` answers within {} at p95", millis(*limit)),
            section: "budgets".to_owned(),
            section_title: "Latency budgets of the profile".to_owned(),
            level: Level::Must,
            requirement: format!(
                "the profile's budget `budgets.{operation}: {}`, judged at p95 over the run's requests",
                millis(*limit)
            ),
            sends: format!("every request of the run to `{operation}`"),
            expected: actual.as_ref().map(|_| expects.clone()),
            expects,
            status,
            actual,
            note,
            latency: seen.map(|l| l.stats),
        });
    }
    report.recount();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Generation;
    use crate::latency::{OperationLatency, Stats};
    use crate::outcomes::{Answer, unseen_lines};
    use crate::request::Op;

    fn answer(op: Op, status: u16) -> Answer {
        Answer {
            op,
            status,
            json: true,
            shape_400: status == 400,
            shape_417: status == 417,
            content_type_json: true,
            project_uuid: status >= 400,
        }
    }

    #[test]
    fn what_was_seen_and_what_never_was() {
        let answers = [
            answer(Op::AuthClaims, 200),
            answer(Op::AuthClaims, 401),
            answer(Op::AuthClaims, 401),
        ];
        let all = coverage(&answers, &Choices::default());
        assert!(
            all.iter().all(|o| o.operation == "auth_claims"),
            "no Authorize sent"
        );
        let seen = |id: &str| all.iter().find(|o| o.id == id).map(|o| o.seen);
        assert_eq!(seen("2xx-json"), Some(1));
        assert_eq!(seen("401"), Some(2));
        assert_eq!(seen("417-7.2"), Some(0));
        assert_eq!(seen("404"), Some(0));
        assert_eq!(seen("error-x-project-uuid"), Some(2));

        let mut report = Report::new(
            "t".into(),
            true,
            Generation::default(),
            Vec::new(),
            std::time::Duration::ZERO,
        );
        outcomes(&mut report, &answers, &Choices::default());
        let failed: Vec<&str> = report.failed().map(|r| r.id.as_str()).collect();
        // The 400 is not required; our choices (404, 413) are not either.
        assert_eq!(failed, ["outcomes/auth_claims/417-7.2"]);
        let mut lenient = Report::new(
            "t".into(),
            false,
            Generation::default(),
            Vec::new(),
            std::time::Duration::ZERO,
        );
        outcomes(&mut lenient, &answers, &Choices::default());
        assert_eq!(
            lenient.failed().count(),
            0,
            "not --strict: listed, not failed"
        );
        assert!(unseen_lines(&lenient.outcomes).contains(
            &"auth_claims: 400 in the 7.1 shape (§7 rule 2 (when a 400 is given: not shown); not required)".to_owned()
        ));
    }

    /// A declared choice replaces ours in what the run expects: a server
    /// that chose 201 is not told it never gave our 200, and an Auth Claims
    /// whose body is not validated is not required to give a 417.
    #[test]
    fn declared_choices_replace_ours() {
        let choices: Choices =
            serde_yaml::from_str("authorize_success: 201\nget_body_validated: false")
                .expect("choices");
        let answers = [answer(Op::AuthClaims, 200), answer(Op::Authorize, 201)];
        let all = coverage(&answers, &choices);
        let find = |op: &str, id: &str| all.iter().find(|o| o.operation == op && o.id == id);
        let created = find("authorize", "201").expect("201 listed");
        assert_eq!(created.seen, 1);
        assert!(created.documented_by.contains("choices.authorize_success"));
        assert!(find("authorize", "200").is_none(), "our 200 still listed");
        assert!(!find("auth_claims", "417-7.2").expect("listed").required);
        assert!(find("authorize", "417-7.2").expect("listed").required);
        let mut report = Report::new(
            "t".into(),
            true,
            Generation::default(),
            Vec::new(),
            std::time::Duration::ZERO,
        );
        outcomes(&mut report, &answers, &choices);
        let failed: Vec<&str> = report.failed().map(|r| r.id.as_str()).collect();
        assert!(failed.contains(&"outcomes/authorize/417-7.2"), "{failed:?}");
        assert!(
            !failed.contains(&"outcomes/auth_claims/417-7.2"),
            "{failed:?}"
        );
    }

    #[test]
    fn a_budget_fails_on_p95_not_on_one_outlier() {
        let mut samples: Vec<Duration> = (0..99).map(|_| Duration::from_millis(10)).collect();
        samples.push(Duration::from_secs(3));
        let stats = Stats::of(&samples).expect("stats");
        let mut report = Report::new(
            "t".into(),
            false,
            Generation::default(),
            Vec::new(),
            Duration::ZERO,
        );
        report.latency = vec![OperationLatency {
            operation: "auth_claims".into(),
            stats,
        }];
        let declared = Budgets(
            [
                ("auth_claims".to_owned(), Duration::from_millis(200)),
                ("authorize".to_owned(), Duration::from_millis(500)),
            ]
            .into(),
        );
        budgets(&mut report, &declared);
        assert_eq!(report.results[0].status, Status::Passed);
        assert_eq!(report.results[1].status, Status::Skipped);
        assert_eq!(report.exit_code(), 0);

        let tight = Budgets([("auth_claims".to_owned(), Duration::from_millis(5))].into());
        let mut report = Report::new(
            "t".into(),
            false,
            Generation::default(),
            Vec::new(),
            Duration::ZERO,
        );
        report.latency = vec![OperationLatency {
            operation: "auth_claims".into(),
            stats,
        }];
        budgets(&mut report, &tight);
        let r = &report.results[0];
        assert_eq!((r.status, r.level), (Status::Failed, Level::Must));
        assert!(
            r.actual
                .as_deref()
                .is_some_and(|a| a.starts_with("p95 10 ms"))
        );
        assert_eq!(report.exit_code(), 1);
    }
}
