//! Recorded JSON read within a cap: every string longer than
//! [`STRING_CAP`] bytes (as written, escapes included) is replaced by
//! [`MARK`] as it streams past, so the JSON parser behind never holds more
//! than the cap of any one string. A 40 MiB body in a HAR entry then costs
//! about the cap, not the body (and not the tree a JSON parse of it would
//! build): the entry is judged without it, as the proxy judges a body over
//! its cap.

use std::io::{BufRead, Read};

/// The most of one body judged: the proxy's cap, and `audit`'s.
pub const MAX_BODY: usize = 1024 * 1024;

/// The longest string read as written: a body of [`MAX_BODY`] bytes fits
/// base64-encoded (4/3) or with its quotes escaped.
pub const STRING_CAP: usize = 2 * MAX_BODY;

/// What a string over [`STRING_CAP`] reads as. A NUL cannot begin a
/// method, URL, header or body a recorder wrote.
pub const MARK: &str = "\u{0}over the cap\u{0}";

/// [`MARK`] as a JSON string, quotes included.
const MARK_JSON: &[u8] = b"\"\\u0000over the cap\\u0000\"";

/// Whether a string read through [`Capped`] was over the cap.
pub fn is_cut(s: &str) -> bool {
    s == MARK
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Outside,
    /// Inside a string, its bytes so far in `held` (after `"`).
    Inside {
        escaped: bool,
    },
    /// Inside a string over the cap: skipped to its closing quote.
    Skipping {
        escaped: bool,
    },
}

/// JSON text from `inner` with every string over [`STRING_CAP`] replaced
/// by [`MARK`]; everything else passes unchanged (line breaks too, so a
/// parser's line numbers stay the input's).
pub struct Capped<R> {
    inner: R,
    state: State,
    /// The current string's bytes, up to the cap.
    held: Vec<u8>,
    /// Bytes ready for the reader, from `out_at` on.
    out: Vec<u8>,
    out_at: usize,
    /// A raw line break ends any string (NDJSON: a broken line spoils no
    /// other).
    lines: bool,
    /// A read buffer's worth, copied out of `inner`'s way.
    scratch: Vec<u8>,
}

impl<R: BufRead> Capped<R> {
    /// One JSON document (a HAR file).
    pub fn new(inner: R) -> Self {
        Capped {
            inner,
            state: State::Outside,
            held: Vec::new(),
            out: Vec::new(),
            out_at: 0,
            lines: false,
            scratch: Vec::new(),
        }
    }

    /// One JSON value a line (NDJSON).
    pub fn lines(inner: R) -> Self {
        Capped {
            lines: true,
            ..Capped::new(inner)
        }
    }

    /// Moves the bytes of `chunk` through the state machine into `out`.
    fn pass(&mut self, chunk: &[u8]) {
        let mut i = 0;
        while i < chunk.len() {
            match self.state {
                State::Outside => {
                    let end = chunk[i..]
                        .iter()
                        .position(|&b| b == b'"')
                        .map_or(chunk.len(), |p| i + p);
                    self.out.extend_from_slice(&chunk[i..end]);
                    if end < chunk.len() {
                        self.out.push(b'"');
                        self.held.clear();
                        self.state = State::Inside { escaped: false };
                    }
                    i = end + 1;
                }
                State::Inside { escaped } | State::Skipping { escaped } => {
                    let skipping = matches!(self.state, State::Skipping { .. });
                    // Plain bytes up to the next quote, backslash or (NDJSON)
                    // line break; after a backslash, one byte as it is.
                    let end = if escaped {
                        i
                    } else {
                        chunk[i..]
                            .iter()
                            .position(|&b| b == b'"' || b == b'\\' || (self.lines && b == b'\n'))
                            .map_or(chunk.len(), |p| i + p)
                    };
                    if !skipping {
                        // No more than one byte past the cap is held (the
                        // rest of a long run is skipped with the string),
                        // and a long string gets the cap at once rather
                        // than doubling past it.
                        let take = (end - i).min(STRING_CAP + 1 - self.held.len());
                        let wanted = self.held.len() + take;
                        if wanted > self.held.capacity() && wanted > 64 * 1024 {
                            self.held.reserve_exact(STRING_CAP + 1 - self.held.len());
                        }
                        self.held.extend_from_slice(&chunk[i..i + take]);
                        self.cut_if_over();
                    }
                    i = end;
                    let Some(&b) = chunk.get(i) else {
                        break;
                    };
                    i += 1;
                    let skipping = matches!(self.state, State::Skipping { .. });
                    if b == b'\n' && self.lines {
                        // A raw line break is no string's: the line ends.
                        if !skipping {
                            self.out.append(&mut self.held);
                        }
                        self.out.push(b'\n');
                        self.state = State::Outside;
                    } else if !escaped && b == b'"' {
                        if !skipping {
                            self.held.push(b);
                            self.out.append(&mut self.held);
                        }
                        self.state = State::Outside;
                    } else {
                        let escaped = !escaped && b == b'\\';
                        if skipping {
                            self.state = State::Skipping { escaped };
                        } else {
                            self.held.push(b);
                            self.state = State::Inside { escaped };
                            self.cut_if_over();
                        }
                    }
                }
            }
        }
    }

    /// The current string over the cap: [`MARK`] in its place (its
    /// opening quote is out already), the rest skipped.
    fn cut_if_over(&mut self) {
        if let State::Inside { escaped } = self.state {
            if self.held.len() > STRING_CAP {
                self.out.extend_from_slice(&MARK_JSON[1..]);
                self.held = Vec::new();
                self.state = State::Skipping { escaped };
            }
        }
    }
}

impl<R: BufRead> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.out_at == self.out.len() {
            self.out.clear();
            self.out_at = 0;
            let chunk = self.inner.fill_buf()?;
            if chunk.is_empty() {
                // The end inside a string: what was held, unclosed, for
                // the parser to name.
                if matches!(self.state, State::Inside { .. }) {
                    self.out.append(&mut self.held);
                    self.state = State::Outside;
                    continue;
                }
                return Ok(0);
            }
            let n = chunk.len();
            // The chunk is borrowed from `inner`: copied out of the way of
            // `pass`'s `&mut self`.
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            scratch.extend_from_slice(chunk);
            self.inner.consume(n);
            self.pass(&scratch);
            self.scratch = scratch;
        }
        let n = buf.len().min(self.out.len() - self.out_at);
        buf[..n].copy_from_slice(&self.out[self.out_at..self.out_at + n]);
        self.out_at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(text: &[u8], lines: bool) -> String {
        let mut out = String::new();
        let inner = std::io::BufReader::with_capacity(7, text);
        let mut capped = if lines {
            Capped::lines(inner)
        } else {
            Capped::new(inner)
        };
        capped.read_to_string(&mut out).expect("read");
        out
    }

    #[test]
    fn strings_over_the_cap_read_as_the_mark() {
        let long = "x".repeat(STRING_CAP + 1);
        let fits = "y".repeat(STRING_CAP);
        let text = format!(
            "{{\"a\": \"{long}\", \"b\": \"{fits}\", \"c\": \"q\\\"{long}\\\\\", \"d\": [1, \"\\\"\"]}}"
        );
        let value: serde_json::Value =
            serde_json::from_str(&through(text.as_bytes(), false)).expect("JSON");
        assert_eq!(value["a"], MARK);
        assert!(is_cut(value["a"].as_str().unwrap_or_default()));
        assert_eq!(value["b"].as_str().map(str::len), Some(STRING_CAP));
        assert_eq!(value["c"], MARK, "escapes inside a long string");
        assert_eq!(value["d"], serde_json::json!([1, "\""]));
    }

    #[test]
    fn a_broken_line_spoils_no_other() {
        let text = b"{\"a\": \"open\n{\"b\": \"x\"}\n";
        let out = through(text, true);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(serde_json::from_str::<serde_json::Value>(lines[0]).is_err());
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(lines[1]).expect("JSON")["b"],
            "x"
        );
    }
}
