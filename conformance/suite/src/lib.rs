//! # conformance-suite: the checks, and the run that judges them
//!
//! The third stage of the conformance runner (profile → checks →
//! exchanges → report): [`catalogue`] (what a check is: id, section,
//! quote, level, what is sent, what must happen), [`case`] (a check
//! declared by what it sends and what it expects, and the interpreter that
//! runs it), [`checks`] (the checks, one file per id prefix,
//! named by it), [`judge`] (what "accepted", "refused", "a 417" mean),
//! [`needs`] (what a check needs from the profile), [`probes`] (the shared
//! error probes), [`generate`] (edge cases, property-based bodies, the
//! invariants), [`context`] (one run's shared probes and generated cases),
//! [`runner`] (selects, runs concurrently, judges every check, the
//! run-wide ones last), [`snapshot`] (insta assertions on the exchanges),
//! [`observe`] (the server's choices, asked for), [`coverage`] (the
//! description's statements and the checks that enforce them, beside the
//! catalogue), [`traffic`] (the checks observed traffic judges too, by
//! the proxy's rules), [`results`] (what a run produced, as data, each result
//! with its check's anchor), [`baseline`] (the known failures a team lists,
//! read, applied to the results and written) and [`gate`] (whether the run
//! passes: the exit code). It makes every verdict and shows none (the
//! baseline it writes is the gate's own input, not a report): the report
//! is the next crate's, and this one cannot import it.

pub mod baseline;
pub mod case;
pub mod catalogue;
pub mod cause;
pub mod changes;
pub mod checks;
pub mod context;
pub mod coverage;
pub mod gate;
pub mod generate;
pub mod judge;
pub mod needs;
pub mod observe;
pub mod overlay;
pub mod probes;
pub mod progress;
pub mod results;
pub mod runner;
pub mod snapshot;
pub mod stability;
pub mod traffic;
