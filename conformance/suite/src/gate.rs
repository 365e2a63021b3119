//! The gate: whether a run passes, decided from its results as the runner
//! judged them and a baseline marked them ([`crate::baseline::apply`]).
//! The exit code of `conformance` is this verdict; every report shows it
//! and none decides it.

use crate::catalogue::Level;
use crate::results::{RunResults, Status};

/// The exit code of a run in which nothing failed but some check could not
/// be judged (the server limited the run past what it waits, or never
/// answered within the time-out): distinct from 1, so a CI job can tell
/// "the server broke a rule" from "the server could not be judged now".
pub const NOT_JUDGED_EXIT: i32 = 3;

impl RunResults {
    /// 0 when nothing gating failed, 1 otherwise; under `--strict` a
    /// skipped MUST check gates too (a run cannot go green by skipping),
    /// and a run in which no MUST check was judged is never green (it
    /// proved nothing a release gate needs). A failure a baseline marked
    /// known does not gate. With nothing failed, a check the server's
    /// limits or slowness kept from being judged (a MUST one; a SHOULD one
    /// under `--strict`) makes it [`NOT_JUDGED_EXIT`]: not green, and not
    /// a failure of any rule either.
    pub fn exit_code(&self) -> i32 {
        let failed = self.results.iter().any(|r| r.status == Status::Failed);
        let gaps = self.strict
            && self
                .results
                .iter()
                .any(|r| r.status == Status::Skipped && r.level == Level::Must);
        let not_judged = self
            .results
            .iter()
            .any(|r| r.status == Status::NotJudged && (self.strict || r.level == Level::Must));
        if failed || gaps || (self.judged_no_must() && !not_judged) {
            1
        } else if not_judged {
            NOT_JUDGED_EXIT
        } else {
            0
        }
    }

    /// No MUST check was judged (all skipped, not applicable, or none
    /// selected): the run cannot be green.
    pub fn judged_no_must(&self) -> bool {
        !self.results.iter().any(|r| {
            r.level == Level::Must
                && matches!(r.status, Status::Passed | Status::Failed | Status::Known)
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::catalogue::{Level, Verdict};
    use crate::checks::catalogue;
    use crate::results::{CheckResult, RunResults, Status};

    fn run(strict: bool, results: Vec<CheckResult>) -> RunResults {
        RunResults {
            strict,
            results,
            ..RunResults::default()
        }
    }

    #[test]
    fn should_failures_gate_only_when_strict() {
        let all = catalogue();
        let should = all
            .iter()
            .find(|c| c.level == Level::Should)
            .expect("a SHOULD check");
        let must = all
            .iter()
            .find(|c| c.level == Level::Must)
            .expect("a MUST check");
        let fail = Verdict::Fail {
            actual: "HTTP 200".into(),
        };
        assert_eq!(
            CheckResult::from_check(should, should.level, &fail, false).status,
            Status::Warned
        );
        assert_eq!(
            CheckResult::from_check(should, should.level, &fail, true).status,
            Status::Failed
        );
        assert_eq!(
            CheckResult::from_check(must, must.level, &fail, false).status,
            Status::Failed
        );
        let pass = CheckResult::from_check(must, must.level, &Verdict::Pass, false);
        for strict in [false, true] {
            let warned = CheckResult::from_check(should, should.level, &fail, strict);
            let r = run(strict, vec![warned, pass.clone()]);
            assert_eq!(r.exit_code(), i32::from(strict), "strict: {strict}");
        }
    }

    /// A skipped MUST check gates under `--strict`; a run that judged no
    /// MUST check is never green; a known failure does not gate.
    #[test]
    fn gaps_and_empty_runs_are_not_green() {
        let all = catalogue();
        let must = all
            .iter()
            .find(|c| c.level == Level::Must)
            .expect("a MUST check");
        let pass = CheckResult::from_check(must, must.level, &Verdict::Pass, false);
        let skip = CheckResult::from_check(
            must,
            must.level,
            &Verdict::Skip {
                reason: "r".into(),
                unmet: None,
            },
            false,
        );
        assert_eq!(run(false, vec![pass.clone(), skip.clone()]).exit_code(), 0);
        assert_eq!(run(true, vec![pass.clone(), skip.clone()]).exit_code(), 1);
        let none = run(false, vec![skip]);
        assert!(none.judged_no_must());
        assert_eq!(none.exit_code(), 1);
        let mut known = CheckResult::from_check(
            must,
            must.level,
            &Verdict::Fail {
                actual: "HTTP 200".into(),
            },
            false,
        );
        assert_eq!(run(false, vec![known.clone()]).exit_code(), 1);
        known.status = Status::Known;
        let known = run(false, vec![known]);
        assert!(!known.judged_no_must());
        assert_eq!(known.exit_code(), 0);
        assert!(run(false, Vec::new()).judged_no_must());
    }

    /// A check not judged, with nothing failed, exits 3; with a failure
    /// beside it, 1; a SHOULD one only under `--strict`.
    #[test]
    fn not_judged_has_its_own_exit_code() {
        let all = catalogue();
        let must = all
            .iter()
            .find(|c| c.level == Level::Must)
            .expect("a MUST check");
        let should = all
            .iter()
            .find(|c| c.level == Level::Should)
            .expect("a SHOULD check");
        let why = Verdict::NotJudged {
            why: "not judged: no answer within 5000 ms after 3 tries".into(),
        };
        let pass = CheckResult::from_check(must, must.level, &Verdict::Pass, false);
        let unjudged = CheckResult::from_check(must, must.level, &why, false);
        assert_eq!(unjudged.status, Status::NotJudged);
        assert_eq!(
            run(false, vec![pass.clone(), unjudged.clone()]).exit_code(),
            super::NOT_JUDGED_EXIT
        );
        assert_eq!(run(false, vec![unjudged.clone()]).exit_code(), 3);
        let failed = CheckResult::from_check(
            must,
            must.level,
            &Verdict::Fail {
                actual: "HTTP 200".into(),
            },
            false,
        );
        assert_eq!(run(false, vec![failed, unjudged]).exit_code(), 1);
        let should_unjudged = CheckResult::from_check(should, should.level, &why, false);
        assert_eq!(
            run(false, vec![pass.clone(), should_unjudged.clone()]).exit_code(),
            0
        );
        assert_eq!(run(true, vec![pass, should_unjudged]).exit_code(), 3);
    }
}
