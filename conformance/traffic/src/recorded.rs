//! A recording read as it arrives, in either shape a recorder or a log
//! pipeline writes: a HAR 1.2 file (one JSON object whose first key is
//! `log`, [`crate::har`]), or NDJSON, one exchange a line, each line a HAR
//! entry (`{"request": {...}, "response": {...}}`, the same fields).
//! Each exchange is handed on as soon as it is read, then dropped, every
//! entry within the caps ([`crate::capped`]): memory stays flat however
//! long the stream. In NDJSON a line that is no exchange is handed on as
//! [`Item::Unreadable`] with its number, and the lines after it are read.

use std::io::{BufRead, Read};

use crate::capped::{Capped, MAX_BODY};
use crate::har::{Entry, HarError, Recorded, convert, read_entries};
use crate::observed::{Answer, Request};

/// The longest NDJSON line read (its strings each within the cap
/// already); a longer one is not judged.
pub const LINE_CAP: usize = 8 * MAX_BODY;

/// The shape of a recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Har,
    Ndjson,
}

/// One item of a recording, in order.
#[derive(Debug)]
pub enum Item {
    /// A request and its answer (`None`: the request was aborted).
    Exchange(Request, Option<Answer>),
    /// An entry over the caps, not judged; its line where NDJSON.
    OverCap { line: Option<u64> },
    /// An NDJSON line that is no exchange, and why.
    Unreadable { line: u64, why: String },
}

/// Reads the recording in `reader` as it arrives, handing each item to
/// `each`; says which shape it was. Empty input is NDJSON of no line. A
/// HAR that is not one, or input that begins with neither, is an error
/// (the items before it were handed on).
pub fn read(reader: impl Read, mut each: impl FnMut(Item)) -> Result<Format, HarError> {
    let mut reader = std::io::BufReader::new(reader);
    let (format, seen) = sniff(&mut reader).map_err(|e| HarError(format!("cannot read: {e}")))?;
    let replay = std::io::Cursor::new(seen).chain(reader);
    match format {
        Some(Format::Har) => {
            read_entries(replay, |e| {
                each(match e {
                    Recorded::Exchange(r, a) => Item::Exchange(r, a),
                    Recorded::OverCap => Item::OverCap { line: None },
                });
            })?;
            Ok(Format::Har)
        }
        Some(Format::Ndjson) => {
            read_lines(replay, each)?;
            Ok(Format::Ndjson)
        }
        None => Err(HarError(
            "neither a HAR file nor NDJSON exchanges: it does not begin with `{`".to_owned(),
        )),
    }
}

/// One HAR entry a line; blank lines skipped.
fn read_lines(reader: impl BufRead, mut each: impl FnMut(Item)) -> Result<(), HarError> {
    let mut lines = std::io::BufReader::with_capacity(64 * 1024, Capped::lines(reader));
    let mut buf = Vec::new();
    let mut number = 0u64;
    loop {
        // A line past the cap is not kept whole: its buffer is not kept
        // either.
        if buf.capacity() > 2 * MAX_BODY {
            buf = Vec::new();
        }
        buf.clear();
        let got = (&mut lines)
            .take(LINE_CAP as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| HarError(format!("cannot read line {}: {e}", number + 1)))?;
        if got == 0 {
            return Ok(());
        }
        number += 1;
        if buf.last() != Some(&b'\n') && buf.len() > LINE_CAP {
            lines
                .skip_until(b'\n')
                .map_err(|e| HarError(format!("cannot read line {number}: {e}")))?;
            each(Item::OverCap { line: Some(number) });
            continue;
        }
        let text = buf.trim_ascii();
        if text.is_empty() {
            continue;
        }
        each(match serde_json::from_slice::<Entry>(text) {
            Ok(entry) => match convert(entry) {
                Recorded::Exchange(r, a) => Item::Exchange(r, a),
                Recorded::OverCap => Item::OverCap { line: Some(number) },
            },
            Err(e) => Item::Unreadable {
                line: number,
                why: why(&e),
            },
        });
    }
}

/// serde's message, its position given as the column alone (the line is
/// the stream's, said apart).
fn why(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let message = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(m, _)| m);
    format!(
        "not an exchange (one HAR entry, {{\"request\": ..., \"response\": ...}}): {message} at column {}",
        e.column()
    )
}

/// The shape, from the first key: `{"log"` is HAR, any other object
/// NDJSON; and the bytes read to tell, to be read again. `None`: not JSON
/// text that begins with an object.
fn sniff(r: &mut impl BufRead) -> std::io::Result<(Option<Format>, Vec<u8>)> {
    let mut seen = Vec::new();
    let mut next = |seen: &mut Vec<u8>| -> std::io::Result<Option<u8>> {
        let mut b = [0u8];
        loop {
            match r.read(&mut b) {
                Ok(0) => return Ok(None),
                Ok(_) => {
                    seen.push(b[0]);
                    return Ok(Some(b[0]));
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    };
    let mut first = true;
    loop {
        let b = next(&mut seen)?;
        // A byte order mark, as some editors write: not read again.
        if first && b == Some(0xEF) {
            let (b1, b2) = (next(&mut seen)?, next(&mut seen)?);
            if (b1, b2) == (Some(0xBB), Some(0xBF)) {
                seen.clear();
                first = false;
                continue;
            }
            return Ok((None, seen));
        }
        first = false;
        match b {
            None => return Ok((Some(Format::Ndjson), seen)),
            Some(b) if b.is_ascii_whitespace() => {}
            Some(b'{') => break,
            Some(_) => return Ok((None, seen)),
        }
    }
    loop {
        match next(&mut seen)? {
            Some(b) if b.is_ascii_whitespace() => {}
            Some(b'"') => break,
            _ => return Ok((Some(Format::Ndjson), seen)),
        }
    }
    let mut key = Vec::new();
    while key.len() <= 8 {
        match next(&mut seen)? {
            Some(b'"') => {
                let format = if key == b"log" {
                    Format::Har
                } else {
                    Format::Ndjson
                };
                return Ok((Some(format), seen));
            }
            Some(b) => key.push(b),
            None => break,
        }
    }
    Ok((Some(Format::Ndjson), seen))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRY: &str = r#"{"request": {"method": "GET", "url": "http://h/v2/api/component/a/auth", "headers": [{"name": "X-Client-Id", "value": "c"}]}, "response": {"status": 200, "headers": [], "content": {"text": "{}"}}}"#;

    fn items(text: &str) -> (Result<Format, HarError>, Vec<Item>) {
        let mut seen = Vec::new();
        let format = read(text.as_bytes(), |i| seen.push(i));
        (format, seen)
    }

    #[test]
    fn har_and_ndjson_are_told_apart_and_read_alike() {
        let har = format!("\u{feff} {{\"log\": {{\"entries\": [{ENTRY}, {ENTRY}]}}}}");
        let (format, from_har) = items(&har);
        assert_eq!(format.ok(), Some(Format::Har));
        let ndjson = format!("{ENTRY}\n\n{ENTRY}");
        let (format, from_lines) = items(&ndjson);
        assert_eq!(format.ok(), Some(Format::Ndjson));
        assert_eq!(from_har.len(), 2);
        assert_eq!(format!("{from_har:?}"), format!("{from_lines:?}"));
        let (format, none) = items("  \n");
        assert_eq!((format.ok(), none.len()), (Some(Format::Ndjson), 0));
        assert!(items("GET / HTTP/1.1").0.is_err());
    }

    #[test]
    fn a_bad_line_is_named_and_the_rest_read() {
        let ndjson = format!("{ENTRY}\n{{\"request\": 7}}\nnot json\n{ENTRY}\n");
        let (format, seen) = items(&ndjson);
        assert_eq!(format.ok(), Some(Format::Ndjson));
        let lines: Vec<String> = seen
            .iter()
            .map(|i| match i {
                Item::Exchange(r, _) => format!("exchange {}", r.method),
                Item::OverCap { line } => format!("over {line:?}"),
                Item::Unreadable { line, why } => format!("line {line}: {why}"),
            })
            .collect();
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert_eq!(lines[0], "exchange GET");
        assert!(lines[1].starts_with("line 2: not an exchange"), "{lines:?}");
        assert!(lines[2].starts_with("line 3: not an exchange"), "{lines:?}");
        assert_eq!(lines[3], "exchange GET");
    }

    #[test]
    fn a_body_over_the_cap_is_not_kept() {
        let big = "x".repeat(crate::capped::STRING_CAP + 10);
        let line = format!(
            r#"{{"request": {{"method": "POST", "url": "http://h/v2/api/component/a/auth", "postData": {{"mimeType": "application/json", "text": "{big}"}}}}, "response": {{"status": 200, "content": {{"text": "{big}"}}}}}}"#
        );
        for text in [
            line.clone(),
            format!("{{\"log\": {{\"entries\": [{line}]}}}}"),
        ] {
            let (format, seen) = items(&text);
            assert!(format.is_ok());
            match &seen[..] {
                [Item::Exchange(r, Some(a))] => {
                    assert!(r.body_cut && r.body.is_empty());
                    assert!(a.body_cut && a.body.is_empty());
                }
                other => panic!("{other:?}"),
            }
        }
        let headers: Vec<String> = (0..crate::har::HEADERS_MAX + 1)
            .map(|i| format!(r#"{{"name": "X-{i}", "value": "v"}}"#))
            .collect();
        let line = format!(
            r#"{{"request": {{"method": "GET", "url": "http://h/v2/api/component/a/auth", "headers": [{}]}}}}"#,
            headers.join(",")
        );
        let (_, seen) = items(&line);
        assert!(
            matches!(seen[..], [Item::OverCap { line: Some(1) }]),
            "{seen:?}"
        );
    }
}
