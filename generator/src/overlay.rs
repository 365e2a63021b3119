//! OpenAPI Overlay 1.0: a document of actions, each a JSONPath `target`
//! with an `update` merged into every node it selects or `remove: true`,
//! applied in order to the spec's tree before anything reads it
//! (`--overlay FILE`, repeatable, in the order given).
//!
//! This is how a client team gets bindings for a server that chose
//! otherwise where the description is silent (`conformance choices
//! --overlay` writes one): the spec stays as it is, the server's choices
//! are laid over it.
//!
//! Targets are RFC 9535 JSONPath queries of the kind overlays use: the
//! root `$`, member names (`.name`, `['name']`, `["na\"me"]`), indices
//! (`[0]`, `[-1]`), wildcards (`.*`, `[*]`) and unions of those
//! (`['get','post']`). Descendants (`..`) and filters (`[?…]`), which can
//! select nodes nobody meant, are refused with a message, as is a target
//! that selects nothing (a stale overlay).
//!
//! An update is merged as the specification says: an object's members are
//! merged into the target's recursively, an array's items appended to the
//! target array, any other value replaces the target.

use std::path::Path;

use serde_json::Value;

use crate::Diagnostic;

/// One overlay document, read and checked.
#[derive(Debug, Clone)]
pub struct Overlay {
    path: std::path::PathBuf,
    actions: Vec<Action>,
}

#[derive(Debug, Clone)]
struct Action {
    /// Where it is written (`/actions/2`), for messages.
    pointer: String,
    target: Vec<Segment>,
    target_text: String,
    update: Option<Value>,
    remove: bool,
}

/// One step of a JSONPath query: the selectors of one segment.
#[derive(Debug, Clone, PartialEq)]
enum Segment {
    /// `.*` or `[*]`.
    Wildcard,
    /// Names and indices, as listed.
    Union(Vec<Selector>),
}

#[derive(Debug, Clone, PartialEq)]
enum Selector {
    Name(String),
    Index(i64),
}

/// A node's place: member names and array positions from the root.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Name(String),
    Index(usize),
}

impl Overlay {
    /// Reads the overlay at `path` (YAML or JSON).
    pub fn read(path: &Path) -> Result<Self, Diagnostic> {
        let text = crate::file::read_text(path)?;
        let tree = crate::file::parse_tree(path, &text)?;
        Self::from_tree(path, &tree)
    }

    fn from_tree(path: &Path, tree: &Value) -> Result<Self, Diagnostic> {
        let fail = |pointer: &str, message: String, hint: &str| Diagnostic {
            file: path.to_owned(),
            line: None,
            pointer: pointer.to_owned(),
            message,
            hint: hint.to_owned(),
        };
        let version = tree.get("overlay").and_then(Value::as_str);
        if !version.is_some_and(|v| v.starts_with("1.")) {
            return Err(fail(
                "/overlay",
                match version {
                    Some(v) => format!("overlay version `{v}` is not supported"),
                    None => "not an OpenAPI Overlay: no `overlay` version".to_owned(),
                },
                "an Overlay 1.x document starts with `overlay: 1.0.0`",
            ));
        }
        let Some(list) = tree.get("actions").and_then(Value::as_array) else {
            return Err(fail(
                "/actions",
                "an overlay needs a list of `actions`".to_owned(),
                "each action is `{target: JSONPath, update: value}` or `{target, remove: true}`",
            ));
        };
        let mut actions = Vec::new();
        for (i, action) in list.iter().enumerate() {
            let pointer = format!("/actions/{i}");
            let Some(target_text) = action.get("target").and_then(Value::as_str) else {
                return Err(fail(
                    &format!("{pointer}/target"),
                    "an action needs a `target`, a JSONPath query".to_owned(),
                    "for example `target: $.components.schemas.Pet`",
                ));
            };
            let target = parse_query(target_text).map_err(|why| {
                fail(
                    &format!("{pointer}/target"),
                    format!(
                        "`{target_text}` is not a JSONPath query this generator applies: {why}"
                    ),
                    "use names, indices, unions and wildcards (`$.paths['/pets'].get`)",
                )
            })?;
            let remove = match action.get("remove") {
                None => false,
                Some(Value::Bool(remove)) => *remove,
                Some(_) => {
                    return Err(fail(
                        &format!("{pointer}/remove"),
                        "`remove` is true or false".to_owned(),
                        "write `remove: true`",
                    ));
                }
            };
            let update = action.get("update").cloned();
            if update.is_none() && !remove {
                return Err(fail(
                    &pointer,
                    "an action needs an `update` or `remove: true`".to_owned(),
                    "say what to merge into the target, or remove it",
                ));
            }
            actions.push(Action {
                pointer,
                target,
                target_text: target_text.to_owned(),
                update,
                remove,
            });
        }
        Ok(Self {
            path: path.to_owned(),
            actions,
        })
    }

    /// Applies every action, in order, to `doc`.
    pub fn apply(&self, doc: &mut Value) -> Result<(), Diagnostic> {
        for action in &self.actions {
            let found = select(doc, &action.target);
            if found.is_empty() {
                return Err(Diagnostic {
                    file: self.path.clone(),
                    line: None,
                    pointer: format!("{}/target", action.pointer),
                    message: format!("`{}` selects nothing in the spec", action.target_text),
                    hint: "the overlay was written for another version of the spec: regenerate it, or fix the target".into(),
                });
            }
            if action.remove {
                // Last first: removing an item does not move those before it.
                for place in found.iter().rev() {
                    remove(doc, place);
                }
            } else if let Some(update) = &action.update {
                for place in &found {
                    if let Some(node) = node_mut(doc, place) {
                        merge(node, update);
                    }
                }
            }
        }
        Ok(())
    }
}

/// `update` merged into `target`.
fn merge(target: &mut Value, update: &Value) {
    match (target, update) {
        (Value::Object(target), Value::Object(update)) => {
            for (key, value) in update {
                match target.get_mut(key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        target.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (Value::Array(target), Value::Array(update)) => target.extend(update.iter().cloned()),
        (target, update) => *target = update.clone(),
    }
}

/// The places of the nodes `query` selects, in document order.
fn select(doc: &Value, query: &[Segment]) -> Vec<Vec<Step>> {
    let mut places: Vec<(Vec<Step>, &Value)> = vec![(Vec::new(), doc)];
    for segment in query {
        let mut next = Vec::new();
        for (place, node) in places {
            let mut child = |step: Step, value| {
                let mut place = place.clone();
                place.push(step);
                next.push((place, value));
            };
            match (segment, node) {
                (Segment::Wildcard, Value::Object(map)) => {
                    for (key, value) in map {
                        child(Step::Name(key.clone()), value);
                    }
                }
                (Segment::Wildcard, Value::Array(items)) => {
                    for (i, value) in items.iter().enumerate() {
                        child(Step::Index(i), value);
                    }
                }
                (Segment::Union(selectors), _) => {
                    for selector in selectors {
                        match (selector, node) {
                            (Selector::Name(name), Value::Object(map)) => {
                                if let Some(value) = map.get(name) {
                                    child(Step::Name(name.clone()), value);
                                }
                            }
                            (Selector::Index(index), Value::Array(items)) => {
                                let len = items.len() as i64;
                                let at = if *index < 0 { len + index } else { *index };
                                if (0..len).contains(&at) {
                                    child(Step::Index(at as usize), &items[at as usize]);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        places = next;
    }
    places.into_iter().map(|(place, _)| place).collect()
}

fn node_mut<'a>(doc: &'a mut Value, place: &[Step]) -> Option<&'a mut Value> {
    place.iter().try_fold(doc, |node, step| match step {
        Step::Name(name) => node.get_mut(name.as_str()),
        Step::Index(i) => node.get_mut(*i),
    })
}

fn remove(doc: &mut Value, place: &[Step]) {
    let Some((last, parent)) = place.split_last() else {
        // `$` itself: an empty document.
        *doc = Value::Null;
        return;
    };
    match (node_mut(doc, parent), last) {
        (Some(Value::Object(map)), Step::Name(name)) => {
            map.shift_remove(name);
        }
        (Some(Value::Array(items)), Step::Index(i)) if *i < items.len() => {
            items.remove(*i);
        }
        _ => {}
    }
}

/// Parses a query of the subset this module applies.
fn parse_query(text: &str) -> Result<Vec<Segment>, String> {
    let mut chars = text.trim().chars().peekable();
    if chars.next() != Some('$') {
        return Err("a query starts with `$`".into());
    }
    let mut segments = Vec::new();
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                if chars.peek() == Some(&'.') {
                    return Err("descendant segments (`..`) are not supported".into());
                }
                if chars.peek() == Some(&'*') {
                    chars.next();
                    segments.push(Segment::Wildcard);
                    continue;
                }
                let mut name = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_alphanumeric() || c == '_' || !c.is_ascii() {
                        name.push(c);
                        chars.next();
                    } else {
                        break;
                    }
                }
                if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
                    return Err(
                        "a name after `.` is letters, digits and `_`; quote others as `['…']`"
                            .into(),
                    );
                }
                segments.push(Segment::Union(vec![Selector::Name(name)]));
            }
            '[' => segments.push(bracketed(&mut chars)?),
            c if c.is_whitespace() => {}
            other => return Err(format!("unexpected `{other}`")),
        }
    }
    Ok(segments)
}

/// The selectors between `[` (already read) and `]`.
fn bracketed(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<Segment, String> {
    let mut selectors = Vec::new();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.next() {
            Some('*') => {
                skip_spaces(chars);
                if chars.next() != Some(']') || !selectors.is_empty() {
                    return Err("`*` stands alone in its brackets".into());
                }
                return Ok(Segment::Wildcard);
            }
            Some('?') => return Err("filter selectors (`[?…]`) are not supported".into()),
            Some(quote @ ('\'' | '"')) => selectors.push(Selector::Name(quoted(chars, quote)?)),
            Some(c) if c == '-' || c.is_ascii_digit() => {
                let mut number = c.to_string();
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    number.extend(chars.next());
                }
                if chars.peek() == Some(&':') {
                    return Err("slices (`[a:b]`) are not supported".into());
                }
                let index = number
                    .parse::<i64>()
                    .map_err(|_| format!("`{number}` is not an index"))?;
                selectors.push(Selector::Index(index));
            }
            Some(other) => return Err(format!("unexpected `{other}` in brackets")),
            None => return Err("a `[` is not closed".into()),
        }
        skip_spaces(chars);
        match chars.next() {
            Some(',') => continue,
            Some(']') => return Ok(Segment::Union(selectors)),
            _ => return Err("selectors in brackets are separated by `,` and closed by `]`".into()),
        }
    }
}

fn skip_spaces(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while chars.peek().is_some_and(|c| c.is_whitespace()) {
        chars.next();
    }
}

/// A string literal's text after its opening `quote`, escapes read as
/// RFC 9535 says (`\'`, `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
/// `\uXXXX`).
fn quoted(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    quote: char,
) -> Result<String, String> {
    let mut out = String::new();
    loop {
        match chars.next() {
            None => return Err("a quoted name is not closed".into()),
            Some(c) if c == quote => return Ok(out),
            Some('\\') => match chars.next() {
                Some(c @ ('\'' | '"' | '\\' | '/')) => out.push(c),
                Some('b') => out.push('\u{8}'),
                Some('f') => out.push('\u{c}'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('t') => out.push('\t'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    let code = u32::from_str_radix(&hex, 16)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| format!("`\\u{hex}` is not a character"))?;
                    out.push(code);
                }
                _ => return Err("an unknown escape in a quoted name".into()),
            },
            Some(c) => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn overlay(actions: Value) -> Overlay {
        Overlay::from_tree(
            Path::new("o.yaml"),
            &json!({"overlay": "1.0.0", "info": {"title": "t", "version": "1"}, "actions": actions}),
        )
        .unwrap()
    }

    #[test]
    fn updates_merge_and_removals_remove() {
        let mut doc = json!({
            "paths": {"/a/{b}": {"get": {"tags": ["x"], "summary": "old"}, "post": {"tags": []}}},
            "components": {"schemas": {"Pet": {"properties": {"id": {}}}, "Gone": {}}}
        });
        overlay(json!([
            {"target": "$.paths['/a/{b}'][*]", "update": {"tags": ["y"]}},
            {"target": "$.paths[\"/a/{b}\"].get", "update": {"summary": "new"}},
            {"target": "$.components.schemas.Pet.properties", "update": {"name": {"type": "string"}}},
            {"target": "$.components.schemas['Gone', 'Nope']", "remove": true},
            {"target": "$.paths.*.post.tags[-1]", "remove": true},
        ]))
        .apply(&mut doc)
        .unwrap();
        assert_eq!(
            doc,
            json!({
                "paths": {"/a/{b}": {"get": {"tags": ["x", "y"], "summary": "new"}, "post": {"tags": []}}},
                "components": {"schemas": {"Pet": {"properties": {"id": {}, "name": {"type": "string"}}}}}
            })
        );
    }

    #[test]
    fn what_it_cannot_apply_is_refused_with_a_reason() {
        for (target, says) in [
            ("$..paths", "descendant"),
            ("$.paths[?@.get]", "filter"),
            ("paths", "starts with `$`"),
            ("$.paths['/a", "not closed"),
            ("$.items[1:2]", "slices"),
        ] {
            let error = Overlay::from_tree(
                Path::new("o.yaml"),
                &json!({"overlay": "1.0.0", "actions": [{"target": target, "remove": true}]}),
            )
            .unwrap_err();
            assert!(error.message.contains(says), "{target}: {}", error.message);
            assert_eq!(error.pointer, "/actions/0/target");
        }
        let stale = overlay(json!([{"target": "$.paths['/gone']", "update": {}}]))
            .apply(&mut json!({"paths": {}}))
            .unwrap_err();
        assert!(
            stale.message.contains("selects nothing"),
            "{}",
            stale.message
        );
        let not_overlay =
            Overlay::from_tree(Path::new("o.yaml"), &json!({"openapi": "3.0.3"})).unwrap_err();
        assert!(not_overlay.message.contains("not an OpenAPI Overlay"));
    }
}
