//! A normalised record of one request and its answer.
//!
//! An [`Exchange`] is what a snapshot stores and what a failure shows as
//! "Actual". It is normalised so that two runs against an unchanged server
//! give the same record: secrets are `[redacted]`, per-request values
//! (request ids, issued tokens, dates) are replaced by placeholders, header
//! maps are sorted, and transport details that vary (`date`,
//! `content-length`) are left out.

use std::borrow::Cow;
use std::collections::BTreeMap;

use component_auth_bindings::RawResponse;
use serde::Serialize;
use serde_json::Value;

mod canonical;
pub mod digest;

pub use digest::Digest;

/// What a header value or a string shows in place of a secret.
pub const REDACTED: &str = "[redacted]";

/// Request headers whose values are secrets, whatever their letter case.
const SECRET_HEADERS: &[&str] = &["x-client-secret", "x-auth-token", "authorization", "cookie"];

/// Response headers the interface gives meaning to, and so records: the
/// two every error carries (§7), and where a redirect points (judged, never
/// followed). Others (`ETag`, `X-Request-Id`, `Server`, `Date`) are the
/// framework's, vary by deployment or by request, and stay out unless the
/// profile lists them (`snapshot_headers`).
const INTERFACE_HEADERS: &[&str] = &["content-type", "x-project-uuid", "location"];

/// What an answer's record keeps beyond what the interface defines.
#[derive(Clone, Copy, Debug, Default)]
pub struct Recording<'a> {
    /// More response headers to record (lower case), from the profile.
    pub headers: &'a [String],
    /// Body paths whose values changed between two identical requests
    /// ([`crate::volatile`]).
    pub volatile: &'a [String],
}

/// Body keys whose values differ on every request (any depth).
const PER_REQUEST_KEYS: &[(&str, &str)] = &[
    ("request_id", "[request_id]"),
    ("requestId", "[request_id]"),
    ("token", "[token]"),
    ("timestamp", "[date]"),
    ("date", "[date]"),
    ("time", "[date]"),
    ("created_at", "[date]"),
    ("expires_at", "[date]"),
];

/// Longest body text kept in a record; the rest is cut with a marker.
const MAX_TEXT: usize = 2048;

/// One request and what came back.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Exchange {
    /// What this request is for, e.g. "X-Client-Secret missing".
    pub label: String,
    pub request: RequestRecord,
    /// The answer, when one came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<ResponseRecord>,
    /// Why no answer came (time-out, reset, garbage, body too large, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When the request was re-sent after a 429/503 with Retry-After: how
    /// often and why (the answer above is the last one). Shown with the
    /// answer in a failure, never snapshotted: a server's load is not its
    /// behaviour.
    #[serde(skip)]
    pub retried: Option<String>,
    /// When the answer above is a limit answer the runner gave up on
    /// (still limited after its re-sends, or told to wait longer than it
    /// does): why. The check that sent it is then not judged on it: a
    /// server's limit is not its answer to a rule.
    #[serde(skip)]
    pub limited: Option<String>,
    /// When no answer came within the time-out after every try: why (the
    /// tries and the time-out). The check that sent it is then not judged
    /// on it: a late answer is not the server's answer to a rule.
    #[serde(skip)]
    pub unanswered: Option<String>,
    /// How long the answer took; never serialized, so never in a snapshot.
    #[serde(skip)]
    pub latency: Took,
    /// The request as a `curl` command to paste, secrets as the profile's
    /// variables; for a failure's reproduction, never snapshotted.
    #[serde(skip)]
    pub curl: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RequestRecord {
    pub method: String,
    /// Path and query as sent, e.g. `/v2/api/component/Users/auth`.
    pub path: String,
    pub headers: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResponseRecord {
    pub status: u16,
    /// Whether the body parsed as JSON (an empty body does not).
    #[serde(skip)]
    pub is_json: bool,
    pub headers: BTreeMap<String, String>,
    /// JSON when the body is JSON, else its text (cut at 2 KiB); absent when
    /// empty. A JSON body over [`digest::LARGE_BODY`] bytes is its outline
    /// (its first levels, items and characters, each cut marked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
    /// A JSON body over [`digest::LARGE_BODY`] bytes: the length and
    /// SHA-256 of its normalised text, so that a change past its outline
    /// is still a change (a whole tree of it would cost many times its
    /// size, for the whole run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_digest: Option<Digest>,
    /// What keeps a 400 or 417 answer from the §7 shape, read from the body
    /// as it came, before any value was normalised (a `code` that varies
    /// from request to request is a placeholder in the record, and an
    /// integer all the same). Empty for other statuses.
    #[serde(skip)]
    pub shape: Vec<String>,
}

/// Removes secrets from text and JSON; built from the profile's secrets and
/// secret body field names.
///
/// A secret is removed in every spelling a reader would still recognise:
/// the text is read through `canonical::Canonical` (percent escapes, JSON
/// and C escapes undone, letter case folded) and every match there is
/// redacted in the original, whatever mixture of spellings it used. The
/// near misses the checks send (one character short, one added, letter case
/// flipped) hold the secret, or all of it but its last character, and are
/// removed too.
#[derive(Clone, Debug, Default)]
pub struct Scrubber {
    /// The canonical view of every secret and of its near miss one
    /// character short; longest first.
    needles: Vec<String>,
    /// All the needles at once: a run's scrubber holds every token the
    /// server issued (hundreds), and each text is read once, not once a
    /// needle. `None` when there are no needles.
    finder: Option<aho_corasick::AhoCorasick>,
    /// The same needles matched in ASCII text in any letter case: the
    /// canonical view of ASCII text with no escape and no `+` is the text
    /// folded byte for byte, so such text (nearly every string of an
    /// answer) is searched as it is, with nothing built.
    finder_ascii: Option<aho_corasick::AhoCorasick>,
    /// Body field names (lower case) whose values are redacted by key.
    fields: Vec<String>,
}

/// Shorter values are too common to scrub as text (`dev`, `42`): they are
/// still redacted where their header or field name says so.
const MIN_SCRUBBED_LEN: usize = 3;

impl Scrubber {
    pub fn new(secrets: Vec<String>, fields: Vec<String>) -> Self {
        let mut needles = Vec::new();
        for secret in secrets {
            let view = canonical::Canonical::of(&secret).text;
            let mut short = view.clone();
            short.pop();
            needles.push(view);
            if short.chars().count() > MIN_SCRUBBED_LEN {
                needles.push(short);
            }
        }
        needles.retain(|f| f.chars().count() >= MIN_SCRUBBED_LEN);
        // Longest first, so a secret containing another is replaced whole.
        needles.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        needles.dedup();
        // Overlapping matches (the standard kind), so that every span of
        // every needle is found; they are merged below.
        let finder = (!needles.is_empty())
            .then(|| aho_corasick::AhoCorasick::new(&needles).ok())
            .flatten();
        let finder_ascii = (!needles.is_empty())
            .then(|| {
                aho_corasick::AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .build(&needles)
                    .ok()
            })
            .flatten();
        let mut fields: Vec<String> = fields.iter().map(|f| f.to_ascii_lowercase()).collect();
        fields.sort();
        fields.dedup();
        Self {
            needles,
            finder,
            finder_ascii,
            fields,
        }
    }

    /// `s` with every span that spells a secret replaced by [`REDACTED`].
    pub fn text(&self, s: &str) -> String {
        self.text_cow(s).into_owned()
    }

    /// [`Scrubber::text`], borrowing `s` when it holds no secret (the
    /// common case, for every string of every answer).
    pub fn text_cow<'s>(&self, s: &'s str) -> Cow<'s, str> {
        if self.needles.is_empty() || s.len() < MIN_SCRUBBED_LEN {
            return Cow::Borrowed(s);
        }
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        if let Some(finder) = &self.finder_ascii
            && s.is_ascii()
            && !s.bytes().any(|b| matches!(b, b'%' | b'\\' | b'+'))
        {
            for found in finder.find_overlapping_iter(s) {
                ranges.push((found.start(), found.end()));
            }
            return Self::redact_ranges(s, ranges);
        }
        let view = canonical::Canonical::of(s);
        match &self.finder {
            Some(finder) => {
                for found in finder.find_overlapping_iter(view.text.as_str()) {
                    ranges.push(view.original_range(found.start(), found.end()));
                }
            }
            // Only if the automaton could not be built (never for real
            // secrets): each needle on its own.
            None => {
                for needle in &self.needles {
                    for (at, found) in view.text.match_indices(needle.as_str()) {
                        ranges.push(view.original_range(at, at + found.len()));
                    }
                }
            }
        }
        Self::redact_ranges(s, ranges)
    }

    /// `s` with the byte `ranges` (of whole characters or not, overlapping
    /// or not) replaced by [`REDACTED`].
    fn redact_ranges(s: &str, mut ranges: Vec<(usize, usize)>) -> Cow<'_, str> {
        if ranges.is_empty() {
            return Cow::Borrowed(s);
        }
        ranges.sort();
        let mut out = String::with_capacity(s.len());
        let mut done = 0;
        for (start, end) in ranges {
            // Whole characters of the original, always.
            let start = (0..=start)
                .rev()
                .find(|&i| s.is_char_boundary(i))
                .unwrap_or(0);
            let end = (end..=s.len())
                .find(|&i| s.is_char_boundary(i))
                .unwrap_or(s.len());
            if end <= done {
                continue;
            }
            if start >= done {
                out.push_str(&s[done..start]);
                out.push_str(REDACTED);
            }
            // Overlapping a redaction already made: it grows to cover this.
            done = end;
        }
        out.push_str(&s[done..]);
        Cow::Owned(out)
    }

    /// A body field whose value is a secret by its name (`password`, `pin`, ...).
    pub fn is_secret_field(&self, name: &str) -> bool {
        self.fields.iter().any(|f| name.eq_ignore_ascii_case(f))
    }

    /// Every text of a record scrubbed again: with secrets learnt after it
    /// was made (a token the server issued, then echoed elsewhere).
    pub fn exchange(&self, ex: &mut Exchange) {
        ex.label = self.text(&ex.label);
        ex.request.path = self.text(&ex.request.path);
        for v in ex.request.headers.values_mut() {
            *v = self.text(v);
        }
        if let Some(body) = &mut ex.request.body {
            self.json(body);
        }
        if let Some(r) = &mut ex.response {
            for v in r.headers.values_mut() {
                *v = self.text(v);
            }
            if let Some(body) = &mut r.body {
                self.json(body);
            }
        }
        if let Some(e) = &mut ex.error {
            *e = self.text(e);
        }
    }

    /// Every string of `value`, object keys too, scrubbed.
    fn json(&self, value: &mut Value) {
        match value {
            Value::String(s) => *s = self.text(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.json(v)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (key, mut v) in entries {
                    self.json(&mut v);
                    map.insert(self.text(&key), v);
                }
            }
            _ => {}
        }
    }
}

impl RequestRecord {
    /// Records `request` as it will be sent; `title_case` says header names
    /// go on the wire in Title-Case rather than lower case.
    pub fn from_request(request: &reqwest::Request, title_case: bool, scrub: &Scrubber) -> Self {
        let url = request.url();
        let mut path = url.path().to_owned();
        if let Some(q) = url.query() {
            path.push('?');
            path.push_str(q);
        }
        let path = scrub.text(&path);
        let mut headers = BTreeMap::new();
        for (name, value) in request.headers() {
            let shown_name = if title_case {
                title_case_name(name.as_str())
            } else {
                name.as_str().to_owned()
            };
            let raw = String::from_utf8_lossy(value.as_bytes());
            let shown = if SECRET_HEADERS.contains(&name.as_str()) && !raw.is_empty() {
                REDACTED.to_owned()
            } else {
                scrub.text(&raw)
            };
            headers.insert(shown_name, shown);
        }
        let body = request
            .body()
            .and_then(|b| b.as_bytes())
            .map(|bytes| body_value(bytes, scrub).0);
        Self {
            method: request.method().as_str().to_owned(),
            path,
            headers,
            body,
        }
    }
}

impl ResponseRecord {
    pub fn from_raw(raw: &RawResponse, scrub: &Scrubber, recording: Recording<'_>) -> Self {
        Self::read(raw, scrub, recording).0
    }

    /// The record of `raw`, and what the judgements read of its body
    /// ([`crate::envelope::BodyRead`]), from the passes the record makes
    /// anyway: whether the body is JSON comes from its digest or its parse,
    /// never from a pass of its own.
    pub fn read(
        raw: &RawResponse,
        scrub: &Scrubber,
        recording: Recording<'_>,
    ) -> (Self, crate::envelope::BodyRead) {
        let mut headers = BTreeMap::new();
        for (name, value) in &raw.headers {
            let name_str = name.as_str();
            if !INTERFACE_HEADERS.contains(&name_str)
                && !recording
                    .headers
                    .iter()
                    .any(|h| h.eq_ignore_ascii_case(name_str))
            {
                continue;
            }
            let mut text = scrub.text(&String::from_utf8_lossy(value.as_bytes()));
            // Its presence and form are the interface's; its value is the
            // deployment's (a test server may make one at each start).
            // `errors/project-uuid-*` judge that it is a uuid and stable.
            if name_str == "x-project-uuid" && conformance_model::profile::is_uuid(&text) {
                text = "[uuid]".to_owned();
            }
            headers
                .entry(scrub.text(name.as_str()))
                .and_modify(|v: &mut String| {
                    v.push_str(", ");
                    v.push_str(&text)
                })
                .or_insert(text);
        }
        // The envelope's members where a shape is judged (a 400 or 417).
        let members = matches!(raw.status, 400 | 417)
            .then(|| crate::envelope::members(raw))
            .flatten();
        let shape = match raw.status {
            400 => crate::envelope::shape_400(members.as_ref()),
            417 => crate::envelope::shape_417(members.as_ref()),
            _ => Vec::new(),
        };
        let read = |is_json| crate::envelope::BodyRead { is_json, members };
        // Large JSON is read once, as a stream, into its digest; never a tree.
        let large = (raw.body.len() > digest::LARGE_BODY)
            .then(|| digest::of_json(&raw.body, scrub, recording.volatile))
            .flatten();
        if let Some((digest, outline)) = large {
            let record = Self {
                status: raw.status,
                is_json: true,
                headers,
                body: Some(outline),
                body_digest: Some(digest),
                shape,
            };
            return (record, read(true));
        }
        let mut is_json = false;
        let body = (!raw.body.is_empty()).then(|| {
            let (mut v, json) = body_value(&raw.body, scrub);
            is_json = json;
            crate::volatile::normalise(&mut v, recording.volatile);
            v
        });
        let record = Self {
            status: raw.status,
            is_json,
            headers,
            body,
            body_digest: None,
            shape,
        };
        (record, read(is_json))
    }
}

/// The body's record, and whether it is JSON.
fn body_value(bytes: &[u8], scrub: &Scrubber) -> (Value, bool) {
    match component_auth_bindings::json::parse(bytes) {
        Some(mut v) => {
            redact_per_request(&mut v, scrub);
            scrub.json(&mut v);
            (v, true)
        }
        None => {
            let text = String::from_utf8_lossy(bytes);
            let mut cut: String = text.chars().take(MAX_TEXT).collect();
            if cut.len() < text.len() {
                cut.push_str(&format!("… [{} bytes in all]", bytes.len()));
            }
            (Value::String(scrub.text(&cut)), false)
        }
    }
}

fn redact_per_request(value: &mut Value, scrub: &Scrubber) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if let Some((_, placeholder)) = PER_REQUEST_KEYS.iter().find(|(k, _)| k == key) {
                    if !v.is_null() {
                        *v = Value::String((*placeholder).to_owned());
                    }
                } else if scrub.is_secret_field(key) && !v.is_null() {
                    *v = Value::String(REDACTED.to_owned());
                } else {
                    redact_per_request(v, scrub);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact_per_request(v, scrub)),
        _ => {}
    }
}

fn title_case_name(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

impl Exchange {
    /// When the answer is a redirect: what it said, for a failure. The
    /// interface answers directly, and the runner never follows one.
    pub fn redirect(&self) -> Option<String> {
        let r = self.response.as_ref()?;
        if !(300..400).contains(&r.status) {
            return None;
        }
        let to = r
            .headers
            .get("location")
            .map_or("no Location".to_owned(), |l| format!("Location {l}"));
        Some(format!(
            "`{}` was answered HTTP {} ({to}): a redirect, not an answer; the runner does not follow redirects",
            self.label, r.status
        ))
    }

    /// The answer in a line or two, for a failure's "Actual".
    pub fn summary(&self) -> String {
        match (&self.response, &self.error) {
            (Some(r), _) => {
                let body = match (&r.body, &r.body_digest) {
                    (Some(v), Some(d)) => format!(
                        "a JSON body of {} bytes normalised (sha256 {}), outline {}",
                        d.length,
                        cut(&d.sha256, 12),
                        cut(&v.to_string(), 240)
                    ),
                    (None, _) => "an empty body".to_owned(),
                    (Some(Value::String(s)), _) => {
                        format!("the non-JSON body {:?}", cut(s, 160))
                    }
                    (Some(v), _) => format!("body {}", cut(&v.to_string(), 240)),
                };
                let ct = r
                    .headers
                    .get("content-type")
                    .map_or("no Content-Type".to_owned(), |c| {
                        format!("Content-Type {c}")
                    });
                let retried = self
                    .retried
                    .as_ref()
                    .map_or(String::new(), |r| format!(" ({r})"));
                format!("HTTP {}, {ct}, {body}{retried}", r.status)
            }
            (None, Some(e)) => format!("no answer: {e}"),
            (None, None) => "no answer".to_owned(),
        }
    }
}

fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut out: String = s.chars().take(n).collect();
        out.push('…');
        out
    }
}

/// How long one answer took (from the request's first byte sent to the
/// answer's last byte read; the last attempt when a 429/503 was retried).
/// `None` when nothing was sent (the request could not be built).
///
/// Two exchanges are the same whatever they took: equality ignores it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Took(pub Option<std::time::Duration>);

impl PartialEq for Took {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_record_reads_the_body_as_a_pass_of_its_own_would() {
        let scrub = Scrubber::new(vec!["hunter2".into()], Vec::new());
        let large = format!(
            r#"{{"code":400,"status":false,"pad":[{}0]}}"#,
            "1,".repeat(digest::LARGE_BODY)
        );
        let large_text = "x".repeat(digest::LARGE_BODY * 2);
        for status in [200, 400, 401, 417] {
            for body in [
                "",
                "{}",
                r#"{"code":417,"errors":[],"status":false}"#,
                r#"{"a":1"#,
                "not json",
                "[1,2]",
                large.as_str(),
                large_text.as_str(),
            ] {
                let raw = RawResponse {
                    status,
                    headers: Default::default(),
                    body: body.as_bytes().to_vec().into(),
                };
                let (record, read) = ResponseRecord::read(&raw, &scrub, Recording::default());
                assert_eq!(
                    read,
                    crate::envelope::BodyRead::of(&raw),
                    "{status} {body:.40}"
                );
                assert_eq!(record.is_json, read.is_json, "{status} {body:.40}");
            }
        }
    }

    proptest! {
        /// Plain ASCII text is searched as it is, in any letter case: it
        /// must redact exactly what the canonical view does.
        #[test]
        fn plain_ascii_is_scrubbed_as_its_canonical_view_is(
            text in "[a-zA-Z0-9 !#$&'()*,./:;<=>?@_{}|~-]{0,40}",
            secret in "[a-zA-Z0-9_.-]{3,12}",
            at in 0usize..40,
            upper in any::<bool>(),
        ) {
            let fast = Scrubber::new(vec![secret.clone(), "Hunter2".into()], Vec::new());
            let slow = Scrubber { finder_ascii: None, ..fast.clone() };
            let spelt = if upper { secret.to_ascii_uppercase() } else { secret.clone() };
            let mut with = text.clone();
            let at = (0..=at.min(with.len())).rev().find(|&i| with.is_char_boundary(i)).unwrap_or(0);
            with.insert_str(at, &spelt);
            for s in [&text, &with, &format!("{with}+%41\\u0042")] {
                prop_assert_eq!(fast.text(s), slow.text(s), "{}", s);
            }
            prop_assert!(!fast.text(&with).to_ascii_lowercase().contains(&secret.to_ascii_lowercase()));
        }
    }

    #[test]
    fn redacts_per_request_values_and_secrets() {
        let scrub = Scrubber::new(vec!["hunter2".into()], vec!["pin".into()]);
        let mut raw = RawResponse {
            status: 400,
            headers: Default::default(),
            body:
                br#"{"code":400,"request_id":"abc","message":"bad hunter2","nested":{"token":"t"}}"#
                    .to_vec()
                    .into(),
        };
        raw.headers.insert("date", "Mon".parse().expect("header"));
        raw.headers
            .insert("x-project-uuid", "u".parse().expect("header"));
        raw.headers
            .insert("etag", "\"v1\"".parse().expect("header"));
        let r = ResponseRecord::from_raw(&raw, &scrub, Recording::default());
        assert!(!r.headers.contains_key("date"));
        assert!(!r.headers.contains_key("etag"));
        let kept = ["etag".to_owned()];
        let recording = Recording {
            headers: &kept,
            volatile: &[],
        };
        assert!(
            ResponseRecord::from_raw(&raw, &scrub, recording)
                .headers
                .contains_key("etag")
        );
        let body = r.body.expect("body");
        assert_eq!(body["request_id"], "[request_id]");
        assert_eq!(body["nested"]["token"], "[token]");
        assert_eq!(body["message"], "bad [redacted]");
    }

    #[test]
    fn a_secret_in_any_spelling_is_redacted_and_the_rest_kept() {
        let scrub = Scrubber::new(vec!["Adv-S3cret".into()], Vec::new());
        for spelling in [
            "Adv-S3cret",
            "%41%64%76%2d%53%33%63%72%65%74",
            "%41%64%76%2D%53%33%63%72%65%74",
            "ADV-S3CRET",
            "adv-s3cret",
            "aDV-s3CRET",
            "\\u0041\\u0064\\u0076\\u002d\\u0053\\u0033\\u0063\\u0072\\u0065\\u0074",
            "\\u0041\\u0064\\u0076\\u002D\\u0053\\u0033\\u0063\\u0072\\u0065\\u0074",
            "%41\\u0064V-s%33CR\\u0045t",
            "Adv-S3cre",
            "Adv-S3cretx",
        ] {
            let shown = scrub.text(&format!("before {spelling} after"));
            assert!(
                shown.starts_with("before [redacted]") && shown.ends_with(" after"),
                "{spelling}: {shown}"
            );
        }
        assert_eq!(scrub.text("Adv-S3 and %zz"), "Adv-S3 and %zz");
        let mut value = serde_json::json!({"ADV-S3CRET": ["x adv-s3cret"]});
        scrub.json(&mut value);
        assert_eq!(value, serde_json::json!({"[redacted]": ["x [redacted]"]}));
    }

    #[test]
    fn title_case() {
        assert_eq!(title_case_name("x-client-id"), "X-Client-Id");
    }
}
