//! `conformance audit`: a recording judged as it is read, from a file or
//! from standard input as it arrives (`tail -F log | conformance audit -`):
//! a HAR file, or NDJSON, one HAR entry a line (`traffic_rules::recorded`).
//! Each exchange is judged into a shared [`Tally`] and dropped, so the
//! command can write reports while the stream runs and memory stays flat.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use conformance_model::profile::Profile;
use traffic_rules::Tally;
use traffic_rules::recorded::{Format, Item};

use super::{Known, decoded, judge, lock};

/// Lines not read as an exchange that are named on standard error as they
/// come; the rest are counted (and the first few in the report).
const SAID: u64 = 10;

/// Where a recording is read from.
#[derive(Clone, Debug)]
pub enum Input {
    /// `-`: standard input, as it arrives.
    Stdin,
    File(PathBuf),
}

impl Input {
    /// `-` is standard input; anything else a file.
    pub fn from_arg(path: &Path) -> Input {
        if path.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File(path.to_owned())
        }
    }

    /// How messages name it.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "standard input".to_owned(),
            Input::File(path) => path.display().to_string(),
        }
    }

    fn open(&self) -> Result<Box<dyn std::io::Read + Send>, String> {
        match self {
            Input::Stdin => Ok(Box::new(std::io::stdin())),
            // A regular file only: a FIFO with no writer would wait
            // forever (`-` reads a pipe).
            Input::File(path) => yaml_location::input::open_regular(path)
                .map(|f| Box::new(f) as Box<dyn std::io::Read + Send>)
                .map_err(|e| format!("{}: cannot read the recording: {e}", path.display())),
        }
    }
}

/// Reads `input` to its end, judging each exchange into `tally` as it is
/// read (those outside the interface's paths too where `other_paths`);
/// says which shape it was. Lines that are no exchange are counted, and
/// the first `SAID` named on standard error.
pub fn judge_stream(
    input: &Input,
    knows: &Known,
    other_paths: bool,
    tally: &Mutex<Tally>,
) -> Result<Format, String> {
    let reader = input.open()?;
    let name = input.name();
    traffic_rules::recorded::read(reader, |item| {
        let mut tally = lock(tally);
        match item {
            Item::Exchange(req, answer) => {
                let answer = answer.map(decoded);
                judge(&mut tally, knows, &req, answer.as_ref(), other_paths);
            }
            Item::OverCap { .. } => tally.record_over_cap(),
            Item::Unreadable { line, why } => {
                tally.record_unreadable(line, &why);
                if tally.unreadable() <= SAID {
                    eprintln!(
                        "{}",
                        conformance_report::report::escape::terminal(&format!(
                            "{name}: line {line}: {why}"
                        ))
                    );
                }
            }
        }
    })
    .map_err(|e| format!("{name}: {e}"))
}

/// Every exchange of the recording at `path` (`-`: standard input),
/// judged (those outside the interface's paths too where `other_paths`).
pub fn audit(path: &Path, profile: &Profile, other_paths: bool) -> Result<Tally, String> {
    let tally = Mutex::new(Tally::default());
    judge_stream(
        &Input::from_arg(path),
        &Known::new(profile),
        other_paths,
        &tally,
    )?;
    Ok(tally.into_inner().unwrap_or_else(|p| p.into_inner()))
}
