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
//!
//! The work an overlay asks for is bounded, since a short overlay can ask
//! for a great deal: eight `$.*.*…` actions whose updates add members the
//! next action's wildcards select again grow the tree geometrically, and a
//! union that names one member many times selects it as often. Each cap
//! refuses the overlay with the index of the action that passed it:
//!
//! - [`MAX_SELECTED`] nodes selected by one action, counted at every
//!   segment of its target (what the query holds in memory);
//! - [`MAX_ADDED`] nodes merged into the spec by all the overlays of one
//!   run (each update's size times the nodes it is merged into);
//! - [`MAX_DEPTH`](crate::file::MAX_DEPTH) levels of nesting, as for a
//!   spec read from a file: an update merged at a depth adds its own;
//! - [`MAX_TIME`] for applying every overlay of one run.

use std::path::Path;

use serde_json::Value;

use crate::Diagnostic;

/// The most nodes one action's target selects, at any of its segments:
/// 50,000, far above what real overlays select (every operation of the
/// largest public APIs is a few thousand nodes), and a few megabytes of
/// places.
pub const MAX_SELECTED: usize = 50_000;

/// The most nodes the overlays of one run merge into the spec, counted as
/// each update's nodes times the nodes it is merged into: 2,000,000, about
/// the size of a 50 MiB spec, six times the largest spec read
/// ([`MAX_BYTES`](crate::file::MAX_BYTES)) could hold.
pub const MAX_ADDED: usize = 2_000_000;

/// The longest the overlays of one run are applied for: 10 seconds. Within
/// the caps above this is not reached (a few hundred milliseconds at
/// most); it is the backstop for what they do not foresee.
pub const MAX_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// What is left of the caps while the overlays of one run are applied.
#[derive(Debug)]
pub struct Budget {
    added: usize,
    started: std::time::Instant,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            added: 0,
            started: std::time::Instant::now(),
        }
    }
}

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

    /// Applies every action, in order, to `doc`, within a budget of its
    /// own ([`Overlay::apply_within`] shares one between overlays).
    pub fn apply(&self, doc: &mut Value) -> Result<(), Diagnostic> {
        self.apply_within(doc, &mut Budget::default())
    }

    /// Applies every action, in order, to `doc`, counting its work against
    /// `budget`; an action that passes a cap is refused by its index.
    pub fn apply_within(&self, doc: &mut Value, budget: &mut Budget) -> Result<(), Diagnostic> {
        for action in &self.actions {
            let over = |what: String| {
                Diagnostic {
                file: self.path.clone(),
                line: None,
                pointer: format!("{}/target", action.pointer),
                message: format!(
                    "action {} (`{}`) {what}; nothing was generated",
                    action.index(),
                    action.target_text
                ),
                hint: "select the nodes by name (`$.paths['/pets'].get`) rather than by wildcards, and keep updates small".into(),
            }
            };
            let found = select(doc, &action.target, budget.started).map_err(&over)?;
            if let Some(update) = action.update.as_ref().filter(|_| !action.remove) {
                let (nodes, depth) = size_of(update);
                let added = nodes.saturating_mul(found.len());
                budget.added = budget.added.saturating_add(added);
                if budget.added > MAX_ADDED {
                    return Err(over(format!(
                        "merges {nodes} node{} into {} places, which brings the overlays' additions past {MAX_ADDED} nodes, the most applied",
                        if nodes == 1 { "" } else { "s" },
                        found.len()
                    )));
                }
                let deepest = found.iter().map(Vec::len).max().unwrap_or(0);
                if deepest + depth > crate::file::MAX_DEPTH {
                    return Err(over(format!(
                        "would nest the spec {} levels deep, more than {}, the most read",
                        deepest + depth,
                        crate::file::MAX_DEPTH
                    )));
                }
            }
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
            if budget.started.elapsed() > MAX_TIME {
                return Err(over(format!(
                    "took the overlays past {} s, the longest they are applied for",
                    MAX_TIME.as_secs()
                )));
            }
        }
        Ok(())
    }
}

impl Action {
    /// Its index in the overlay's `actions`, from its pointer.
    fn index(&self) -> &str {
        self.pointer.rsplit('/').next().unwrap_or_default()
    }
}

/// The nodes of `value` and its depth (a scalar: 1 node, depth 0), without
/// recursion.
fn size_of(value: &Value) -> (usize, usize) {
    let mut nodes = 0;
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        nodes += 1;
        match node {
            Value::Object(map) => {
                deepest = deepest.max(depth + 1);
                stack.extend(map.values().map(|v| (v, depth + 1)));
            }
            Value::Array(items) => {
                deepest = deepest.max(depth + 1);
                stack.extend(items.iter().map(|v| (v, depth + 1)));
            }
            _ => {}
        }
    }
    (nodes, deepest)
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

/// The places of the nodes `query` selects, in document order; refused
/// (saying why) past [`MAX_SELECTED`] nodes at any segment, or past
/// [`MAX_TIME`] since `started`.
fn select(
    doc: &Value,
    query: &[Segment],
    started: std::time::Instant,
) -> Result<Vec<Vec<Step>>, String> {
    let mut places: Vec<(Vec<Step>, &Value)> = vec![(Vec::new(), doc)];
    for (depth, segment) in query.iter().enumerate() {
        let mut next = Vec::new();
        let mut over = false;
        for (place, node) in places {
            if over {
                break;
            }
            let mut child = |step: Step, value| {
                if next.len() >= MAX_SELECTED {
                    over = true;
                    return;
                }
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
        if over {
            return Err(format!(
                "selects more than {MAX_SELECTED} nodes at its segment {}, the most one action selects",
                depth + 1
            ));
        }
        if started.elapsed() > MAX_TIME {
            return Err(format!(
                "took the overlays past {} s, the longest they are applied for",
                MAX_TIME.as_secs()
            ));
        }
        places = next;
    }
    Ok(places.into_iter().map(|(place, _)| place).collect())
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

    /// Eight wildcard actions whose updates the next action selects again,
    /// and a union naming one member 31 times at each of five segments:
    /// each refused by the index of the action that passed a cap, before
    /// the tree grows past it.
    #[test]
    fn work_past_a_cap_is_refused_naming_the_action() {
        let members: serde_json::Map<String, Value> = (0..6)
            .map(|i| (format!("k{i}"), json!({"a": [1, 2, 3], "b": {"c": 1}})))
            .collect();
        let actions: Vec<Value> = (1..=8)
            .map(|n| json!({"target": format!("${}", ".*".repeat(n)), "update": members}))
            .collect();
        let mut doc = json!({"paths": {"/a": {"get": {}}}, "info": {"title": "t"}});
        let e = overlay(Value::Array(actions)).apply(&mut doc).unwrap_err();
        assert!(
            e.message.contains("nodes, the most applied"),
            "{}",
            e.message
        );
        assert!(e.message.starts_with("action "), "{}", e.message);
        assert!(e.pointer.starts_with("/actions/"), "{}", e.pointer);

        let union = format!("['p'{}]", ",'p'".repeat(30));
        let target = format!("${}", union.repeat(5));
        let mut doc = json!({"p": {"p": {"p": {"p": {"p": 1}}}}});
        let e = overlay(json!([{"target": target, "update": 2}]))
            .apply(&mut doc)
            .unwrap_err();
        assert!(
            e.message
                .contains(&format!("more than {MAX_SELECTED} nodes at its segment 4")),
            "{}",
            e.message
        );
        assert_eq!(e.pointer, "/actions/0/target");

        // An update that would nest the spec past the depth read.
        let mut deep = json!(1);
        for _ in 0..125 {
            deep = json!({ "d": deep });
        }
        let mut doc = json!({"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}});
        let e = overlay(json!([{"target": "$.a.b.c.d.e.f.g.h", "update": deep}]))
            .apply(&mut doc)
            .unwrap_err();
        assert!(e.message.contains("levels deep"), "{}", e.message);
    }
}
