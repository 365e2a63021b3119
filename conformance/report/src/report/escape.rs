//! Text from outside (a server's answer, a report or profile given to the
//! runner) made safe for the place it is written to. One function per
//! place; every output calls the one for its place.
//!
//! What is never written as it came, anywhere: C0 controls but the line
//! feed and the tab (ESC starts terminal sequences; a carriage return
//! overwrites a line), DEL, C1 controls (U+009B is a one-byte CSI on many
//! terminals, U+009D an OSC), bidirectional controls (U+202E makes text
//! read in another order than it is), other invisible format characters,
//! line and paragraph separators, and noncharacters (U+FFFE and U+FFFF are
//! not allowed in XML: a JUnit file holding one is not well-formed). Each
//! is written `\u{…}` instead, so a reader still sees it was there.

/// Whether `c` is written `\u{…}`; `keep_newline` keeps the line feed.
fn hidden(c: char, keep_newline: bool) -> bool {
    match c {
        '\n' => !keep_newline,
        '\t' => false,
        c if c.is_control() => true, // C0, DEL, C1
        '\u{ad}'
        | '\u{61c}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}'
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}' => true,
        // Noncharacters: U+FDD0..U+FDEF and the last two of every plane.
        '\u{fdd0}'..='\u{fdef}' => true,
        c => (c as u32) & 0xfffe == 0xfffe,
    }
}

fn escaped(text: &str, keep_newline: bool) -> String {
    if !text.chars().any(|c| hidden(c, keep_newline)) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c, keep_newline) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// For a terminal or a log: lines kept, everything `hidden` escaped.
pub fn terminal(text: &str) -> String {
    escaped(text, true)
}

/// For one line of a terminal: a line feed escaped too.
pub fn terminal_line(text: &str) -> String {
    escaped(text, false)
}

/// For XML text or an attribute (JUnit), before the XML writer escapes
/// `&`, `<`, `>` and quotes: only characters XML 1.0 allows, and none a
/// reader cannot see.
pub fn xml(text: &str) -> String {
    escaped(text, true)
}

/// For HTML content or an attribute value: [`terminal`], then `&`, `<`,
/// `>` and both quotes as references.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in terminal(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Outside text as one Markdown code span, fit for a table cell: nothing
/// in it is Markdown or HTML (no link, no `<script>`, no emphasis). One
/// line; a pipe escaped (GitHub splits cells before it reads spans);
/// delimited by one backtick more than the longest run inside, padded with
/// a space where it starts or ends with one. Empty text is an empty string.
pub fn markdown_code(text: &str) -> String {
    let line = terminal_line(text).replace('|', "\\|");
    if line.is_empty() {
        return String::new();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in line.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if line.starts_with('`') || line.ends_with('`') || line.trim().is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{line}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_hidden_character_is_escaped() {
        let nasty = "a\u{1b}[31mb\u{9b}31m\u{9d}0;x\u{7}\u{7f}\r\u{202e}cba\u{fffe}\u{ffff}\u{1fffe}\u{fdd0}\u{2028}\u{0}z";
        assert_eq!(
            terminal(nasty),
            "a\\u{1b}[31mb\\u{9b}31m\\u{9d}0;x\\u{7}\\u{7f}\\u{d}\\u{202e}cba\\u{fffe}\\u{ffff}\\u{1fffe}\\u{fdd0}\\u{2028}\\u{0}z"
        );
        assert_eq!(terminal("two\nlines\tand a tab"), "two\nlines\tand a tab");
        assert_eq!(terminal_line("two\nlines"), "two\\u{a}lines");
        assert_eq!(terminal("café 名前 😀"), "café 名前 😀");
    }

    #[test]
    fn html_escapes_markup_and_hidden_characters() {
        assert_eq!(
            html("<script>alert('x')</script>&\"\u{202e}"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;\\u{202e}"
        );
    }

    #[test]
    fn markdown_keeps_outside_text_in_one_code_span() {
        assert_eq!(markdown_code("<script>x</script>"), "`<script>x</script>`");
        assert_eq!(
            markdown_code("[a](javascript:alert(1))"),
            "`[a](javascript:alert(1))`"
        );
        assert_eq!(markdown_code("a ` b `` c"), "```a ` b `` c```");
        assert_eq!(markdown_code("`x`"), "`` `x` ``");
        assert_eq!(markdown_code("a|b\nc"), "`a\\|b\\u{a}c`");
        assert_eq!(markdown_code(""), "");
    }
}

/// Every output of a run, given a check whose answer holds every character
/// that must not pass as it is: none of them reaches the terminal report,
/// the JUnit file (which stays well-formed XML 1.0) or the HTML page.
#[cfg(test)]
mod outputs {
    use crate::report::{CheckResult, Report};
    use conformance_suite::catalogue::{Level, Verdict};
    use conformance_suite::checks::catalogue;
    use conformance_suite::results::RunResults;

    const NASTY: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{9d}0;x\u{9c}\u{202e}cba\u{7f}\u{0}\u{fffe}\u{ffff}\u{1}<script>";

    fn report() -> Report {
        let all = catalogue();
        let c = all
            .iter()
            .find(|c| c.level == Level::Must)
            .expect("a check");
        let mut r = CheckResult::from_check(
            c,
            c.level,
            &Verdict::Fail {
                actual: format!("HTTP 200 {NASTY}"),
            },
            false,
        );
        r.note = Some(NASTY.to_owned());
        Report::of(RunResults {
            target: format!("http://127.0.0.1/{NASTY}"),
            results: vec![r],
            ..RunResults::default()
        })
    }

    fn holds_none(place: &str, text: &str) {
        for c in text.chars() {
            let bad = (c.is_control() && c != '\n' && c != '\t')
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || c == '\u{fffe}'
                || c == '\u{ffff}';
            assert!(!bad, "{place} holds {c:?}:\n{text}");
        }
    }

    #[test]
    fn no_output_passes_a_hidden_character() {
        let report = report();
        let human =
            crate::report::human::render(&report, crate::report::human::Style { color: false });
        holds_none("the terminal report", &human);
        assert!(human.contains("\\u{9b}31m"), "{human}");
        let junit = crate::report::junit::render(&report).expect("junit");
        holds_none("the JUnit file", &junit);
        assert!(junit.contains("\\u{ffff}"), "{junit}");
        let sarif = crate::report::sarif::render(&report);
        let message: serde_json::Value = serde_json::from_str(&sarif).expect("JSON");
        holds_none(
            "the SARIF report",
            &message["runs"][0]["results"].to_string(),
        );
        holds_none(
            "the SARIF message",
            message["runs"][0]["results"][0]["message"]["text"]
                .as_str()
                .unwrap_or_default(),
        );
        let html = crate::report::html::render(&report);
        holds_none("the HTML page", &html);
        assert!(!html.contains("<script>"), "raw script in the page");
    }
}
