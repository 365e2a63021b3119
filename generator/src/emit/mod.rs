//! [`model::Api`](crate::model::Api) → formatted Rust source.
//!
//! Each concept emits its own items (`types`, `client`, `responses`);
//! `layout` formats them with `prettyplease`, item by item and in
//! parallel; this module joins them into one file and puts the header
//! comment on top.

mod client;
mod features;
mod layout;
mod markdown;
mod responses;
mod server;
mod types;

pub use server::emit as emit_server;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::model::{Api, TypeRef};

pub use features::{UNTAGGED, feature_of, features};

/// Emits the whole file. `header` is the comment placed above the code;
/// with `client_feature`, all but the types is compiled only with that
/// cargo feature.
pub fn emit(api: &Api, header: &str, client_feature: Option<&str>) -> Result<String, syn::Error> {
    emit_with(api, header, client_feature, false)
}

/// [`emit`]; with `tag_features`, each tag's operations (and the types
/// only they reach) compiled only with the cargo feature of the tag
/// (`--tag-features`, see [`features`]).
pub fn emit_with(
    api: &Api,
    header: &str,
    client_feature: Option<&str>,
    tag_features: bool,
) -> Result<String, syn::Error> {
    let tags = tag_features.then(|| features::TagFeatures::of(api));
    let tags = tags.as_ref();
    // One line: a title's line breaks, once spaces, must not indent it.
    let title = comment_text(&format!(" {} (version {}).", api.title, api.version));
    let description = module_doc_lines(api.description.as_deref());
    let mut parts = vec![layout::Part::Items(layout::emit(move || {
        let code = quote! {
            #![doc = #title]
            #![doc = ""]
            #(#![doc = #description])*
            // An answer's variants hold its decoded body inline.
            #![allow(clippy::large_enum_variant)]

            use ::client_runtime as rt;
        };
        gated(code, client_feature)
    }))];
    parts.extend(types::parts(api, tags));
    parts.extend(client::parts(api, client_feature, tags));
    parts.extend(responses::parts(api, client_feature, tags));
    Ok(format!(
        "{header}\n{}",
        space_items(&layout::format(&parts)?)
    ))
}

/// Puts a blank line between consecutive items, which `prettyplease` does not:
/// after a closing `}` or a `;` when the next line, at the same indent, starts
/// an item, its attributes or its doc comment; and after the module's doc.
fn space_items(code: &str) -> String {
    let starts_item = |line: &str| {
        [
            "#[", "///", "pub ", "impl", "fn ", "mod ", "const ", "type ", "struct ", "enum ",
        ]
        .iter()
        .any(|p| line.starts_with(p))
    };
    let indent = |line: &str| line.len() - line.trim_start().len();
    let lines: Vec<&str> = code.lines().collect();
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        out.push('\n');
        let Some(next) = lines.get(i + 1) else {
            continue;
        };
        let is_comment = line.trim_start().starts_with("//");
        let ends_item = !is_comment && (line.trim() == "}" || line.trim_end().ends_with(';'));
        let ends_module_doc = line.starts_with("//!") && !next.starts_with("//!");
        if ends_module_doc {
            out.push('\n');
            continue;
        }
        if ends_item && indent(line) == indent(next) && starts_item(next.trim_start()) {
            out.push('\n');
        }
    }
    out
}

/// `tokens`' items, each compiled only with the cargo feature `feature`
/// (after its doc comment), when there is one; inner attributes are left
/// as they are.
pub(crate) fn gated(tokens: TokenStream, feature: Option<&str>) -> TokenStream {
    gated_cfg(tokens, feature.map(|feature| quote!(feature = #feature)))
}

/// `tokens`' items, each compiled only where the `cfg` predicate `cfg`
/// holds (after its doc comment), when there is one.
pub(crate) fn gated_cfg(tokens: TokenStream, cfg: Option<TokenStream>) -> TokenStream {
    use syn::parse::Parser;
    let Some(predicate) = cfg else {
        return tokens;
    };
    let Ok(mut file) = syn::parse2::<syn::File>(tokens.clone()) else {
        // Not items: left for the formatter to report.
        return tokens;
    };
    let cfg = || syn::Attribute::parse_outer.parse2(quote!(#[cfg(#predicate)]));
    for item in &mut file.items {
        let attrs = match item {
            syn::Item::Const(i) => &mut i.attrs,
            syn::Item::Enum(i) => &mut i.attrs,
            syn::Item::Fn(i) => &mut i.attrs,
            syn::Item::Impl(i) => &mut i.attrs,
            syn::Item::Macro(i) => &mut i.attrs,
            syn::Item::Mod(i) => &mut i.attrs,
            syn::Item::Struct(i) => &mut i.attrs,
            syn::Item::Type(i) => &mut i.attrs,
            syn::Item::Use(i) => &mut i.attrs,
            _ => continue,
        };
        let after_docs = attrs
            .iter()
            .position(|a| !a.path().is_ident("doc"))
            .unwrap_or(attrs.len());
        let Ok(cfg) = cfg() else {
            return tokens;
        };
        for (offset, attr) in cfg.into_iter().enumerate() {
            attrs.insert(after_docs + offset, attr);
        }
    }
    quote!(#file)
}

pub(crate) fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// The lines of a description, each with the leading space `///` would have,
/// each made safe for a comment by [`comment_text`]. Any line break ends a
/// line: `\n`, `\r\n`, a lone `\r`, U+0085, U+2028, U+2029.
/// Code blocks in it are made inert ([`markdown`]): spec text never
/// becomes a doctest. An item's doc comment is all ours, so rustdoc removes
/// the one space every line starts with; see [`module_doc_lines`] for the
/// module's own.
pub(crate) fn doc_lines(text: Option<&str>) -> Vec<String> {
    split_lines(text)
        .map(|l| format!(" {}", comment_text(l)))
        .collect()
}

/// [`doc_lines`] for the module's inner doc comment, which rustdoc joins to
/// the doc comment of the `mod` item that holds the generated file in a
/// user's crate: a user's `///Docs` without a space makes the common
/// indentation zero, so here the leading space counts towards the three
/// spaces a line may start with.
pub(crate) fn module_doc_lines(text: Option<&str>) -> Vec<String> {
    split_lines(text)
        .map(|l| comment_text(&format!(" {l}")))
        .collect()
}

fn split_lines(text: Option<&str>) -> impl Iterator<Item = &str> {
    text.map(str::trim_end)
        .into_iter()
        .flat_map(|t| t.split("\r\n"))
        .flat_map(|t| t.split(['\n', '\r', '\u{2028}', '\u{2029}', '\u{85}']))
        .map(str::trim_end)
}

/// Text made safe for one line of a doc comment, the one door every line
/// of spec text goes through: a line break becomes a space *first*, then
/// the line is made inert ([`markdown::inert_line`]: no indentation that
/// could open an indented code block, no fence), so that a title such as
/// `"\n    code()"` cannot reach a doc comment as six spaces of indentation;
/// then control characters (a lone carriage return ends a doc comment
/// badly), bidirectional overrides (rustc refuses them: they can make code
/// read differently from how it compiles) and other invisible format
/// characters are written as `\u{…}` instead.
pub(crate) fn comment_text(text: &str) -> String {
    visible(&markdown::inert_line(&flatten(text)))
}

/// Every line break a space.
fn flatten(text: &str) -> String {
    text.chars()
        .map(|c| if is_line_break(c) { ' ' } else { c })
        .collect()
}

/// Controls and invisible format characters written as `\u{…}`.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\t' {
            out.push(c);
        } else if c.is_control() || is_invisible_format(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// A line break: what ends a line for Markdown, and what a reader or an
/// editor would take for one.
fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}' | '\u{85}')
}

/// Text for the header comment (a plain `//` comment, never Markdown): all
/// on one line, controls and invisible characters written as `\u{…}`.
pub fn one_line(text: &str) -> String {
    visible(&flatten(text))
}

/// Bidirectional controls and the other zero-width format characters.
fn is_invisible_format(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{61c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

/// `#[doc]` attributes for a description (nothing when there is none).
pub(crate) fn doc(text: Option<&str>) -> TokenStream {
    let lines = doc_lines(text);
    quote! { #(#[doc = #lines])* }
}

/// The Rust type for a use of a type; `types` is the path to the types module
/// from where the type is written (empty inside it).
pub(crate) fn rust_type(ty: &TypeRef, types: &TokenStream) -> TokenStream {
    match ty {
        TypeRef::String => quote!(::std::string::String),
        TypeRef::Secret => quote!(::client_runtime::Secret),
        TypeRef::Integer { bits: 32 } => quote!(i32),
        TypeRef::Integer { .. } => quote!(i64),
        TypeRef::Number => quote!(f64),
        TypeRef::Boolean => quote!(bool),
        TypeRef::Map => {
            quote!(::client_runtime::serde_json::Map<::std::string::String, ::client_runtime::serde_json::Value>)
        }
        TypeRef::Value => quote!(::client_runtime::serde_json::Value),
        TypeRef::MapOf(value) => {
            let value = rust_type(value, types);
            quote!(::std::collections::BTreeMap<::std::string::String, #value>)
        }
        TypeRef::Array(item) => {
            let item = rust_type(item, types);
            quote!(::std::vec::Vec<#item>)
        }
        TypeRef::Optional(inner) => {
            let inner = rust_type(inner, types);
            quote!(::std::option::Option<#inner>)
        }
        TypeRef::Boxed(inner) => {
            let inner = rust_type(inner, types);
            quote!(::std::boxed::Box<#inner>)
        }
        TypeRef::Named(name) => {
            let name = ident(name);
            quote!(#types #name)
        }
        TypeRef::File => quote!(::client_runtime::FilePart),
    }
}

#[cfg(test)]
mod tests {
    use super::{comment_text, doc_lines, module_doc_lines, space_items};

    #[test]
    fn comments_cannot_be_broken_out_of() {
        assert_eq!(comment_text("a\rb"), "a b");
        assert_eq!(comment_text("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(comment_text("bell\u{7}"), "bell\\u{7}");
        // A line break becomes a space before indentation is capped: a
        // title of "\n    code()" is not six spaces of indentation.
        assert_eq!(comment_text(" \n    code()"), "   code()");
        assert_eq!(comment_text(" \u{2028}```rust"), "  \\`\\`\\`rust");
        // An item's lines: three spaces after the one rustdoc removes; the
        // module's: never more than three, that space included.
        assert_eq!(doc_lines(Some("     code()")), ["    code()"]);
        assert_eq!(module_doc_lines(Some("   code()")), ["   code()"]);
        assert_eq!(
            doc_lines(Some("one\r\ntwo\rthree\n\nfour")),
            [" one", " two", " three", " ", " four"]
        );
    }

    #[test]
    fn separates_items_but_not_statements_or_comments() {
        let code = "//! Doc.\nmod a {\n    pub struct A;\n    /// Ends with a semicolon;\n    pub struct B {\n        x: u8,\n    }\n    impl B {\n        fn f() {\n            let x = 1;\n            let y = x;\n        }\n    }\n}\n";
        let spaced = space_items(code);
        assert_eq!(
            spaced,
            "//! Doc.\n\nmod a {\n    pub struct A;\n\n    /// Ends with a semicolon;\n    pub struct B {\n        x: u8,\n    }\n\n    impl B {\n        fn f() {\n            let x = 1;\n            let y = x;\n        }\n    }\n}\n"
        );
    }
}
