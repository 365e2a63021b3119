//! placeholder
pub fn render(_: &crate::report::Report) -> String {
    String::new()
}
