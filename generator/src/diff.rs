//! A short unified diff for `--check` and the freshness tests.

use similar::TextDiff;

/// The unified diff of `old` → `new`, cut after `max_lines` lines.
pub fn short(old: &str, new: &str, max_lines: usize) -> String {
    let diff = TextDiff::from_lines(old, new);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header("checked-in", "generated")
        .to_string();
    let mut lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    lines.truncate(max_lines);
    let mut out = lines.join("\n");
    out.push('\n');
    if total > max_lines {
        out.push_str(&format!("... {} more lines of diff\n", total - max_lines));
    }
    out
}
