//! Documents split over several files, bundled into one before anything
//! else reads them.
//!
//! A `$ref` to another file (`./schemas/Pet.yaml`, `common.json#/Error`) is
//! resolved from the folder of the file that writes it; its target is copied
//! into the root document under `components/<section>/<name>` (the section
//! of the place that refers to it) and the `$ref` rewritten to point there,
//! so that the rest of the generator sees one document, as if it had been
//! written whole. A path item given as a `$ref` (to another file or inside
//! one) is copied into its place under `paths`. A local `$ref` into the
//! inside of a schema (`#/components/schemas/Pet/allOf/0`, a nested
//! `definitions` member) is copied the same way, since lowering only names
//! schemas at the top of a component.
//!
//! Every copy is recorded as an [`Origin`], so a message about any node of
//! the bundle names the file, line and pointer where that node is written.
//!
//! Refused, with the pointer of the `$ref`: URLs (no network access, ever),
//! files outside the root spec's folder tree, targets that do not exist, and
//! chains of path-item references that lead back to themselves. A schema
//! cycle across files (`A.yaml` → `B.yaml` → `A.yaml`) is a recursive type
//! when a type is on its way, and is refused by lowering when none is.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::{Diagnostic, Pointer};

/// Every file a document is read from, together, hold at most
/// [`crate::file::max_bytes`] (64 MiB unless `--max-input-mib` says).
pub fn max_total_bytes() -> u64 {
    crate::file::max_bytes()
}

/// One file of a (possibly split) document.
#[derive(Debug, Clone)]
pub struct File {
    /// As messages name it: the root's path, joined with each relative
    /// reference on the way.
    pub path: PathBuf,
    pub text: String,
}

/// A node of the bundle copied from elsewhere: `at` in the bundle is `from`
/// in `files[file]`.
#[derive(Debug, Clone)]
pub struct Origin {
    pub at: Pointer,
    pub file: usize,
    pub from: Pointer,
}

/// Where the nodes of a bundle were written.
#[derive(Debug, Clone, Default)]
pub struct Origins {
    /// `files[0]` is the root document.
    pub files: Vec<File>,
    pub copies: Vec<Origin>,
    /// A document converted before bundling (Swagger 2.0): (pointer in the
    /// converted root, pointer in the root file as written), read by
    /// [`crate::normalize::moved`].
    pub converted: Vec<(Pointer, Pointer)>,
}

impl Origins {
    /// The file and the pointer in it of the bundle's node `at`: the copy
    /// with the longest prefix of `at`, or the root file.
    pub fn place(&self, at: &Pointer) -> (usize, Pointer) {
        let segments = at.segments();
        let (file, from) = self
            .copies
            .iter()
            .filter(|copy| segments.starts_with(copy.at.segments()))
            .max_by_key(|copy| copy.at.segments().len())
            .map_or_else(
                || (0, at.clone()),
                |copy| {
                    let mut from = copy.from.clone();
                    for segment in &segments[copy.at.segments().len()..] {
                        from = from.join(segment);
                    }
                    (copy.file, from)
                },
            );
        if file == 0 {
            (0, crate::normalize::moved(&self.converted, &from))
        } else {
            (file, from)
        }
    }
}

/// What a `$ref` stands for where it is written, and so which section of
/// `components` its target is copied to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Schema,
    Parameter,
    Header,
    Response,
    Body,
}

impl Kind {
    fn section(self) -> &'static str {
        match self {
            Kind::Schema => "schemas",
            Kind::Parameter => "parameters",
            Kind::Header => "headers",
            Kind::Response => "responses",
            Kind::Body => "requestBodies",
        }
    }
}

const SECTIONS: &[Kind] = &[
    Kind::Schema,
    Kind::Parameter,
    Kind::Header,
    Kind::Response,
    Kind::Body,
];

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Keywords whose values are data, never schemas or references.
const DATA_KEYWORDS: &[&str] = &["example", "examples", "default", "enum", "const"];

/// Keywords whose values map names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

type Result<T> = std::result::Result<T, Diagnostic>;

/// A copy waiting to be walked, then put into the bundle.
struct Import {
    kind: Kind,
    name: String,
    value: Value,
    file: usize,
    from: Pointer,
}

struct Loaded {
    value: Value,
}

struct Bundler {
    /// The canonical folder of the root file: no file outside it is read.
    root_dir: Option<PathBuf>,
    origins: Origins,
    loaded: Vec<Loaded>,
    by_path: HashMap<PathBuf, usize>,
    bytes: u64,
    /// (file, target pointer, kind) → the local `$ref` that now names it.
    imported: BTreeMap<(usize, String, Kind), String>,
    /// Names of each section, taken by the root or by a copy.
    taken: BTreeMap<&'static str, BTreeSet<String>>,
    queue: VecDeque<Import>,
    done: Vec<Import>,
}

/// Bundles the document `value` (read from `path` as `text`) with every
/// file it refers to; gives the bundle and where its nodes were written.
/// `converted` maps the nodes of a root document converted from another
/// version back to where they are written (see [`Origins::converted`]).
/// `root`: the folder no file outside of is read (`--root`); by default
/// the root file's own folder.
pub fn bundle(
    path: &Path,
    text: String,
    value: Value,
    converted: Vec<(Pointer, Pointer)>,
    root: Option<&Path>,
) -> Result<(Value, Origins)> {
    // The folder, not the file: text given with a name (the fuzz test's)
    // need not be a file on disk.
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let root_dir = root.unwrap_or(folder).canonicalize().ok();
    let mut bundler = Bundler {
        root_dir,
        origins: Origins {
            files: vec![File {
                path: path.to_owned(),
                text,
            }],
            copies: Vec::new(),
            converted,
        },
        loaded: vec![Loaded {
            value: value.clone(),
        }],
        by_path: HashMap::new(),
        bytes: 0,
        imported: BTreeMap::new(),
        taken: BTreeMap::new(),
        queue: VecDeque::new(),
        done: Vec::new(),
    };
    if let Ok(canonical) = path.canonicalize() {
        bundler.by_path.insert(canonical, 0);
    }
    if !mentions_a_reference(&value) {
        return Ok((value, bundler.origins));
    }
    let mut doc = value;
    bundler.security_schemes(&mut doc)?;
    bundler.walk_root(&mut doc)?;
    while let Some(mut import) = bundler.queue.pop_front() {
        bundler.node(import.kind, &mut import.value, import.file, &import.from)?;
        bundler.done.push(import);
    }
    if !bundler.done.is_empty() {
        let Some(map) = doc.as_object_mut() else {
            return Ok((doc, bundler.origins));
        };
        let components = map
            .entry("components")
            .or_insert_with(|| Value::Object(Map::new()));
        if !components.is_object() {
            *components = Value::Object(Map::new());
        }
        let components = components.as_object_mut().expect("made an object");
        for import in bundler.done {
            let section = components
                .entry(import.kind.section())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(section) = section.as_object_mut() {
                bundler.origins.copies.push(Origin {
                    at: Pointer::root()
                        .join("components")
                        .join(import.kind.section())
                        .join(&import.name),
                    file: import.file,
                    from: import.from,
                });
                section.insert(import.name, import.value);
            }
        }
    }
    Ok((doc, bundler.origins))
}

/// Whether any `$ref` is written at all (most documents: no copy to make).
fn mentions_a_reference(value: &Value) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(key, value)| key == "$ref" || key == "mapping" || mentions_a_reference(value)),
        Value::Array(items) => items.iter().any(mentions_a_reference),
        _ => false,
    }
}

impl Bundler {
    /// A security scheme given by `$ref` (to another of this document's
    /// schemes, or to another file) is copied in its place: lowering
    /// applies it like one written inline.
    fn security_schemes(&mut self, doc: &mut Value) -> Result<()> {
        let at = Pointer::root().join("components").join("securitySchemes");
        let Some(schemes) = doc
            .get_mut("components")
            .and_then(|c| c.get_mut("securitySchemes"))
            .and_then(Value::as_object_mut)
        else {
            return Ok(());
        };
        for (name, scheme) in schemes.iter_mut() {
            if scheme.get("$ref").is_some_and(Value::is_string) {
                let at = at.join(name);
                self.inline(scheme, 0, &at, &at, "security scheme")?;
            }
        }
        Ok(())
    }

    fn walk_root(&mut self, doc: &mut Value) -> Result<()> {
        let root = Pointer::root();
        // The names each section holds already: copies take others.
        for kind in SECTIONS {
            let names = doc
                .get("components")
                .and_then(|c| c.get(kind.section()))
                .and_then(Value::as_object)
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            self.taken.insert(kind.section(), names);
        }
        // A component that is only a `$ref` to another file is that file's
        // node, under the component's name (`Pet: {$ref: Pet.yaml}`): it is
        // copied in its place, and every other `$ref` to the same node
        // points there.
        let mut claimed: BTreeMap<(Kind, String), (usize, Pointer)> = BTreeMap::new();
        for kind in SECTIONS {
            let at = root.join("components").join(kind.section());
            let Some(items) = doc
                .get_mut("components")
                .and_then(|c| c.get_mut(kind.section()))
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            for (name, item) in items.iter_mut() {
                let Some(reference) = item.get("$ref").and_then(Value::as_str) else {
                    continue;
                };
                if reference.starts_with('#') {
                    continue;
                }
                let ref_at = at.join(name).join("$ref");
                let (file, target) = self.target(reference, 0, &ref_at)?;
                let key = (file, target.to_string(), *kind);
                if file == 0 || self.imported.contains_key(&key) {
                    continue;
                }
                let node = self.node_at(file, &target, reference, 0, &ref_at)?;
                self.imported.insert(key, local_ref(kind.section(), name));
                *item = node;
                self.origins.copies.push(Origin {
                    at: at.join(name),
                    file,
                    from: target.clone(),
                });
                claimed.insert((*kind, name.clone()), (file, target));
            }
        }
        if let Some(components) = doc.get_mut("components").and_then(Value::as_object_mut) {
            let at = root.join("components");
            for kind in SECTIONS {
                let Some(items) = components
                    .get_mut(kind.section())
                    .and_then(Value::as_object_mut)
                else {
                    continue;
                };
                for (name, item) in items.iter_mut() {
                    let (file, from) = claimed
                        .get(&(*kind, name.clone()))
                        .cloned()
                        .unwrap_or_else(|| (0, at.join(kind.section()).join(name)));
                    self.node(*kind, item, file, &from)?;
                }
            }
        }
        if let Some(info) = doc.get_mut("info").and_then(Value::as_object_mut) {
            self.texts(info, 0, &root.join("info"))?;
        }
        if let Some(Value::Array(tags)) = doc.get_mut("tags") {
            for (i, tag) in tags.iter_mut().enumerate() {
                if let Some(tag) = tag.as_object_mut() {
                    self.texts(tag, 0, &root.join("tags").join(i))?;
                }
            }
        }
        if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
            for (path, item) in paths.iter_mut() {
                let at = root.join("paths").join(path);
                self.path_item(item, 0, &at, &at)?;
            }
        }
        Ok(())
    }

    /// A path item at `bundle_at` in the bundle, written at `at` in `file`;
    /// a `$ref` (and a chain of them) is replaced by a copy of its target,
    /// and so is an operation given as a `$ref` (not in the specification,
    /// but how some split documents keep one operation a file).
    fn path_item(
        &mut self,
        item: &mut Value,
        file: usize,
        at: &Pointer,
        bundle_at: &Pointer,
    ) -> Result<()> {
        let (file, at) = self.inline(item, file, at, bundle_at, "path item")?;
        let Some(map) = item.as_object_mut() else {
            return Ok(());
        };
        self.texts(map, file, &at)?;
        if let Some(Value::Array(params)) = map.get_mut("parameters") {
            for (i, param) in params.iter_mut().enumerate() {
                self.node(Kind::Parameter, param, file, &at.join("parameters").join(i))?;
            }
        }
        for method in METHODS {
            let Some(operation) = map.get_mut(*method) else {
                continue;
            };
            let (file, at) = self.inline(
                operation,
                file,
                &at.join(method),
                &bundle_at.join(method),
                "operation",
            )?;
            let Some(operation) = operation.as_object_mut() else {
                continue;
            };
            self.texts(operation, file, &at)?;
            if let Some(Value::Array(params)) = operation.get_mut("parameters") {
                for (i, param) in params.iter_mut().enumerate() {
                    self.node(Kind::Parameter, param, file, &at.join("parameters").join(i))?;
                }
            }
            if let Some(body) = operation.get_mut("requestBody") {
                self.node(Kind::Body, body, file, &at.join("requestBody"))?;
            }
            if let Some(Value::Object(responses)) = operation.get_mut("responses") {
                for (status, response) in responses.iter_mut() {
                    self.node(
                        Kind::Response,
                        response,
                        file,
                        &at.join("responses").join(status),
                    )?;
                }
            }
        }
        Ok(())
    }

    /// A `description` or `summary` given as a `$ref` to text elsewhere
    /// (a convention of documentation tools): the text put in its place.
    fn texts(&mut self, map: &mut Map<String, Value>, file: usize, at: &Pointer) -> Result<()> {
        for key in ["description", "summary"] {
            let Some(reference) = map
                .get(key)
                .and_then(|text| text.get("$ref"))
                .and_then(Value::as_str)
                .map(str::to_owned)
            else {
                continue;
            };
            let ref_at = at.join(key).join("$ref");
            if let Some(text) = self.plain_text(&reference, file, &ref_at)? {
                map.insert(key.into(), Value::String(text));
                continue;
            }
            let (target_file, target) = self.target(&reference, file, &ref_at)?;
            let text = self.node_at(target_file, &target, &reference, file, &ref_at)?;
            if !text.is_string() {
                return Err(self.diagnostic(
                    file,
                    &ref_at,
                    format!("the `{key}` reference `{reference}` does not point to text"),
                    format!("point the `$ref` at a string, or write the {key} out"),
                ));
            }
            map.insert(key.into(), text);
        }
        Ok(())
    }

    /// A node of `kind` written at `at` in `file`: its `$ref` (if it is
    /// one) rewritten, and every `$ref` below it.
    fn node(&mut self, kind: Kind, value: &mut Value, file: usize, at: &Pointer) -> Result<()> {
        if kind == Kind::Schema {
            return self.schema(value, file, at);
        }
        let Some(map) = value.as_object_mut() else {
            return Ok(());
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned) {
            let local = self.reference(kind, &reference, file, &at.join("$ref"))?;
            map.insert("$ref".into(), Value::String(local));
            return Ok(());
        }
        self.texts(map, file, at)?;
        if matches!(kind, Kind::Parameter | Kind::Header)
            && let Some(schema) = map.get_mut("schema")
        {
            self.schema(schema, file, &at.join("schema"))?;
        }
        if kind == Kind::Response
            && let Some(Value::Object(headers)) = map.get_mut("headers")
        {
            for (name, header) in headers.iter_mut() {
                self.node(Kind::Header, header, file, &at.join("headers").join(name))?;
            }
        }
        if let Some(Value::Object(content)) = map.get_mut("content") {
            for (media, media_type) in content.iter_mut() {
                if let Some(schema) = media_type.get_mut("schema") {
                    self.schema(schema, file, &at.join("content").join(media).join("schema"))?;
                }
            }
        }
        Ok(())
    }

    fn schema(&mut self, value: &mut Value, file: usize, at: &Pointer) -> Result<()> {
        match value {
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned)
                {
                    let local = self.reference(Kind::Schema, &reference, file, &at.join("$ref"))?;
                    map.insert("$ref".into(), Value::String(local));
                }
                self.texts(map, file, at)?;
                for (key, child) in map.iter_mut() {
                    let key = key.as_str();
                    if key == "$ref" || DATA_KEYWORDS.contains(&key) || key.starts_with("x-") {
                        continue;
                    }
                    let at = at.join(key);
                    match (key, child) {
                        (k, Value::Object(members)) if SCHEMA_MAPS.contains(&k) => {
                            for (name, member) in members.iter_mut() {
                                self.schema(member, file, &at.join(name))?;
                            }
                        }
                        ("discriminator", discriminator) => {
                            self.mapping(discriminator, file, &at)?;
                        }
                        (_, child) => self.schema(child, file, &at)?,
                    }
                }
                Ok(())
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    self.schema(item, file, &at.join(i))?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `item` (at `bundle_at` in the bundle, written at `at` in `file`)
    /// replaced by a copy of what its `$ref` points to, through any chain;
    /// gives where the copy is written.
    fn inline(
        &mut self,
        item: &mut Value,
        mut file: usize,
        at: &Pointer,
        bundle_at: &Pointer,
        what: &str,
    ) -> Result<(usize, Pointer)> {
        let mut at = at.clone();
        let mut seen = BTreeSet::new();
        while let Some(reference) = item.get("$ref").and_then(Value::as_str).map(str::to_owned) {
            let ref_at = at.join("$ref");
            let (target_file, target) = self.target(&reference, file, &ref_at)?;
            if !seen.insert((target_file, target.to_string())) {
                return Err(self.diagnostic(
                    file,
                    &ref_at,
                    format!("the {what} reference `{reference}` is part of a cycle of references"),
                    format!("point the `$ref` at a {what} written out"),
                ));
            }
            let node = self.node_at(target_file, &target, &reference, file, &ref_at)?;
            let Value::Object(mut node) = node else {
                return Err(self.diagnostic(
                    file,
                    &ref_at,
                    format!("the reference `{reference}` does not point to a {what}"),
                    format!("point the `$ref` at a {what}, a mapping"),
                ));
            };
            // `summary` and `description` beside the `$ref` win over the target's.
            if let Value::Object(beside) = std::mem::take(item) {
                for (key, value) in beside {
                    if key != "$ref" {
                        node.insert(key, value);
                    }
                }
            }
            *item = Value::Object(node);
            self.origins.copies.push(Origin {
                at: bundle_at.clone(),
                file: target_file,
                from: target.clone(),
            });
            file = target_file;
            at = target;
        }
        Ok((file, at))
    }

    /// A discriminator's `mapping` values that are references (not bare
    /// schema names) are rewritten like `$ref`s.
    fn mapping(&mut self, discriminator: &mut Value, file: usize, at: &Pointer) -> Result<()> {
        let Some(Value::Object(mapping)) = discriminator.get_mut("mapping") else {
            return Ok(());
        };
        for (name, target) in mapping.iter_mut() {
            let Some(reference) = target.as_str() else {
                continue;
            };
            if !reference.contains(['#', '/', '.']) {
                continue;
            }
            let at = at.join("mapping").join(name);
            let local = self.reference(Kind::Schema, reference, file, &at)?;
            *target = Value::String(local);
        }
        Ok(())
    }

    /// The local reference that stands for `reference` (written at `at`, a
    /// `$ref`, in `file`) once its target is in the bundle.
    fn reference(
        &mut self,
        kind: Kind,
        reference: &str,
        file: usize,
        at: &Pointer,
    ) -> Result<String> {
        if file == 0 && reference.starts_with('#') {
            // The root document's own references stay as they are where
            // lowering reads them (and names a dangling one itself).
            let Some(target) = fragment(&reference[1..]) else {
                return Ok(reference.to_owned());
            };
            let through = self.through(0, target.clone(), 0)?;
            if is_direct(kind, &through) {
                return Ok(if through == target {
                    reference.to_owned()
                } else {
                    local_pointer(&through)
                });
            }
        }
        let (target_file, target) = self.target(reference, file, at)?;
        if target_file == 0 && is_direct(kind, &target) {
            return Ok(format!("#{}", target));
        }
        let key = (target_file, target.to_string(), kind);
        if let Some(local) = self.imported.get(&key) {
            return Ok(local.clone());
        }
        let node = self.node_at(target_file, &target, reference, file, at)?;
        let name = self.unique_name(kind, target_file, &target);
        let local = local_ref(kind.section(), &name);
        self.imported.insert(key, local.clone());
        self.queue.push_back(Import {
            kind,
            name,
            value: node,
            file: target_file,
            from: target,
        });
        Ok(local)
    }

    /// The file and pointer `reference` (written at `at` in `file`) names;
    /// the file is read if it was not yet.
    fn target(&mut self, reference: &str, file: usize, at: &Pointer) -> Result<(usize, Pointer)> {
        let (location, fragment_text) = match reference.split_once('#') {
            Some((location, fragment)) => (location, Some(fragment)),
            None => (reference, None),
        };
        let target = match fragment_text {
            None | Some("") => Pointer::root(),
            Some(text) => fragment(text).ok_or_else(|| {
                self.diagnostic(
                    file,
                    at,
                    format!("the fragment of the reference `{reference}` is not a JSON pointer"),
                    "write the fragment as a JSON pointer, e.g. `#/components/schemas/Pet`",
                )
            })?,
        };
        if location.is_empty() {
            let target = self.through(file, target, 0)?;
            return Ok((file, target));
        }
        if is_url(location) {
            return Err(self.diagnostic(
                file,
                at,
                format!(
                    "the reference `{reference}` is a URL, and this generator reads no network"
                ),
                "download the document next to the spec and refer to it by a relative path",
            ));
        }
        let relative = percent_decode(location);
        let referring = &self.origins.files[file].path;
        let shown = normal(&referring.parent().unwrap_or(Path::new("")).join(&relative));
        let canonical = shown.canonicalize().map_err(|e| {
            self.diagnostic(
                file,
                at,
                format!(
                    "the reference `{reference}` names the file {}, which cannot be read: {e}",
                    shown.display()
                ),
                "check the path: it is relative to the folder of the file that writes the `$ref`",
            )
        })?;
        let inside = self
            .root_dir
            .as_ref()
            .is_some_and(|dir| canonical.starts_with(dir));
        if !inside {
            return Err(self.outside(reference, &shown, file, at));
        }
        if let Some(&index) = self.by_path.get(&canonical) {
            let target = self.through(index, target, 0)?;
            return Ok((index, target));
        }
        let index = self.load(reference, &shown, &canonical, file, at)?;
        let target = self.through(index, target, 0)?;
        Ok((index, target))
    }

    /// The message for a reference that leads outside the root folder.
    fn outside(&self, reference: &str, shown: &Path, file: usize, at: &Pointer) -> Diagnostic {
        self.diagnostic(
            file,
            at,
            format!(
                "the reference `{reference}` leads to {}, outside the folder of the spec",
                shown.display()
            ),
            "keep every file of the spec in the spec's folder or below it, or name a folder above them all with `--root DIR`",
        )
    }

    /// The text of the file `reference` names (written at `at` in `file`),
    /// opened once and checked to be under the root folder as opened.
    fn read_beneath(
        &mut self,
        reference: &str,
        shown: &Path,
        file: usize,
        at: &Pointer,
    ) -> Result<String> {
        let Some(root) = self.root_dir.clone() else {
            return Err(self.outside(reference, shown, file, at));
        };
        let text = crate::file::read_text_beneath(shown, &root).map_err(|e| match e {
            crate::file::BeneathError::Outside(_) => self.outside(reference, shown, file, at),
            crate::file::BeneathError::Read(diagnostic) => diagnostic,
        })?;
        self.bytes += text.len() as u64;
        if self.bytes > max_total_bytes() {
            return Err(self.diagnostic(
                file,
                at,
                format!(
                    "the files of the document hold more than {} MiB together, the most this generator reads",
                    max_total_bytes() / (1024 * 1024)
                ),
                "check that the references name the spec's own files, or raise the limit with `--max-input-mib N`",
            ));
        }
        Ok(text)
    }

    /// A `description` or `summary` `$ref` to a whole file that is not
    /// YAML or JSON (Markdown, plain text): its text, read as written.
    fn plain_text(&mut self, reference: &str, file: usize, at: &Pointer) -> Result<Option<String>> {
        if reference.contains('#') || reference.is_empty() || is_url(reference) {
            return Ok(None);
        }
        let relative = percent_decode(reference);
        let data = Path::new(&relative)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json"));
        if data {
            return Ok(None);
        }
        let referring = &self.origins.files[file].path;
        let shown = normal(&referring.parent().unwrap_or(Path::new("")).join(&relative));
        let text = self.read_beneath(reference, &shown, file, at)?;
        self.origins.files.push(File {
            path: shown,
            text: text.clone(),
        });
        self.loaded.push(Loaded { value: Value::Null });
        Ok(Some(text))
    }

    /// `target` in `file` with every `$ref` met on the way followed: a
    /// pointer that runs through a reference (`.../schema/allOf/0` where
    /// `schema` is a `$ref`, as bundlers write them) names the node the
    /// reference leads to. A pointer that leads to nothing is kept as
    /// written, for the caller to name.
    fn through(&mut self, file: usize, target: Pointer, hops: usize) -> Result<Pointer> {
        // Bounded: a chain of references through references ends.
        if hops > 32 {
            return Ok(target);
        }
        let segments = target.segments().to_vec();
        let mut node = &self.loaded[file].value;
        for (i, segment) in segments.iter().enumerate() {
            let next = match node {
                Value::Object(map) => map.get(segment),
                Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            match next {
                Some(next) => node = next,
                None => {
                    let Some(reference) = node.get("$ref").and_then(Value::as_str) else {
                        return Ok(target);
                    };
                    // Only a reference within the same file is followed
                    // here (one to another file is a copy of its own).
                    let Some(local) = reference.strip_prefix('#').and_then(fragment) else {
                        return Ok(target);
                    };
                    let mut rest = local;
                    for segment in &segments[i..] {
                        rest = rest.join(segment);
                    }
                    return self.through(file, rest, hops + 1);
                }
            }
        }
        // A node that is only a reference within this file stands for its
        // target, once a pointer has run through another on its way.
        if hops > 0
            && let Value::Object(map) = node
            && map.len() == 1
            && let Some(local) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
                .and_then(fragment)
        {
            return self.through(file, local, hops + 1);
        }
        Ok(target)
    }

    /// Reads and parses another file of the document.
    fn load(
        &mut self,
        reference: &str,
        shown: &Path,
        canonical: &Path,
        file: usize,
        at: &Pointer,
    ) -> Result<usize> {
        let text = self.read_beneath(reference, shown, file, at)?;
        let value = crate::file::parse_tree(shown, &text)?;
        let index = self.origins.files.len();
        self.origins.files.push(File {
            path: shown.to_owned(),
            text,
        });
        self.loaded.push(Loaded { value });
        self.by_path.insert(canonical.to_owned(), index);
        Ok(index)
    }

    /// A copy of the node at `target` in `target_file`, or a message at the
    /// `$ref` (written at `at` in `file`) that it points to nothing.
    fn node_at(
        &self,
        target_file: usize,
        target: &Pointer,
        reference: &str,
        file: usize,
        at: &Pointer,
    ) -> Result<Value> {
        let mut node = &self.loaded[target_file].value;
        for segment in target.segments() {
            let next = match node {
                Value::Object(map) => map.get(segment),
                Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            let Some(next) = next else {
                return Err(self.diagnostic(
                    file,
                    at,
                    format!(
                        "the reference `{reference}` points to nothing in {}",
                        self.origins.files[target_file].path.display()
                    ),
                    "fix the `$ref`: its fragment must name a node of that file",
                ));
            };
            node = next;
        }
        Ok(node.clone())
    }

    /// A name for a copy in `kind`'s section: the key it is written under
    /// (or its file's name), made unique in the section.
    fn unique_name(&mut self, kind: Kind, file: usize, target: &Pointer) -> String {
        let segments = target.segments();
        // The last segment that is a name, with the keywords after it:
        // `Pet/allOf/0` → `Pet allOf 0`.
        let named = segments
            .iter()
            .rposition(|s| !is_keyword(s) && s.parse::<usize>().is_err());
        let stem = self.origins.files[file]
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = stem
            .strip_suffix(".schema")
            .map(str::to_owned)
            .unwrap_or(stem);
        let base = match named {
            Some(i) => segments[i..].join(" "),
            None if segments.is_empty() => stem,
            None => format!("{stem} {}", segments.join(" ")),
        };
        let base: String = base
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' ') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let base = if base.trim().is_empty() {
            "Imported".to_owned()
        } else {
            base
        };
        let taken = self.taken.entry(kind.section()).or_default();
        let mut name = base.clone();
        let mut n = 2;
        while taken.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        taken.insert(name.clone());
        name
    }

    fn diagnostic(
        &self,
        file: usize,
        at: &Pointer,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Diagnostic {
        let File { path, text } = &self.origins.files[file];
        let at = &if file == 0 {
            crate::normalize::moved(&self.origins.converted, at)
        } else {
            at.clone()
        };
        Diagnostic {
            file: path.clone(),
            line: crate::file::locate(text, at),
            pointer: at.to_string(),
            message: message.into(),
            hint: hint.into(),
        }
    }
}

/// Whether lowering reads a `$ref` to `target` in the root document as it
/// is: a component of `kind`'s own section, or for a schema, a schema
/// under `components` reached through `content`, `schema`, `properties`
/// and `items` only. Anything else (`allOf/0`, `definitions/X`, a node
/// under `paths`) is copied under `components`.
fn is_direct(kind: Kind, target: &Pointer) -> bool {
    let segments = target.segments();
    let [c, section, _name, rest @ ..] = segments else {
        return false;
    };
    if c != "components" {
        return false;
    }
    if kind != Kind::Schema {
        return section == kind.section() && rest.is_empty();
    }
    if !matches!(
        section.as_str(),
        "schemas" | "responses" | "requestBodies" | "parameters" | "headers"
    ) {
        return false;
    }
    let mut rest = rest;
    while let Some(first) = rest.first() {
        rest = match (first.as_str(), rest) {
            ("content" | "properties", [_, _, tail @ ..]) => tail,
            ("schema" | "items", [_, tail @ ..]) => tail,
            _ => return false,
        };
    }
    true
}

/// Schema keywords that hold schemas: not names of types.
fn is_keyword(segment: &str) -> bool {
    matches!(
        segment,
        "allOf"
            | "anyOf"
            | "oneOf"
            | "not"
            | "items"
            | "prefixItems"
            | "additionalProperties"
            | "properties"
            | "definitions"
            | "$defs"
            | "schema"
            | "schemas"
            | "content"
            | "components"
    )
}

/// `#` and the pointer, each segment escaped.
fn local_pointer(target: &Pointer) -> String {
    format!("#{target}")
}

/// `#/components/schemas/<name>`, with the name escaped for a pointer.
fn local_ref(section: &str, name: &str) -> String {
    format!(
        "#/components/{section}/{}",
        name.replace('~', "~0").replace('/', "~1")
    )
}

/// A URI fragment read as a JSON pointer (`""` is the whole document).
fn fragment(text: &str) -> Option<Pointer> {
    if text.is_empty() {
        return Some(Pointer::root());
    }
    let text = percent_decode(text);
    let rest = text.strip_prefix('/')?;
    let mut pointer = Pointer::root();
    for segment in rest.split('/') {
        pointer = pointer.join(segment.replace("~1", "/").replace("~0", "~"));
    }
    Some(pointer)
}

/// `http://…`, `https://…`, `//host/…`, or any other scheme (`urn:`); a
/// Windows drive letter is not a scheme.
fn is_url(location: &str) -> bool {
    if location.starts_with("//") {
        return true;
    }
    match location.split_once(':') {
        Some((scheme, _)) => {
            scheme.len() > 1
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

/// `%20` and the like decoded; anything that is not a valid escape kept.
fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = bytes
                .get(i + 1..i + 3)
                .and_then(|hex| std::str::from_utf8(hex).ok())
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// `a/./b/../c` → `a/c`, without asking the file system (messages name
/// the path as the references spell it).
pub(crate) fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_are_json_pointers() {
        assert_eq!(fragment(""), Some(Pointer::root()));
        assert_eq!(
            fragment("/paths/~1users~1%7Bid%7D").unwrap().segments(),
            ["paths", "/users/{id}"]
        );
        assert_eq!(fragment("Pet"), None);
    }

    #[test]
    fn urls_are_told_from_paths() {
        for url in ["https://x/y.yaml", "http://x", "//host/a.yaml", "urn:x:y"] {
            assert!(is_url(url), "{url}");
        }
        for path in ["a.yaml", "./a/b.json", "../c.yaml", "C:/x.yaml"] {
            assert!(!is_url(path), "{path}");
        }
    }

    #[test]
    fn direct_targets() {
        let p = |s: &str| fragment(s).unwrap();
        assert!(is_direct(Kind::Schema, &p("/components/schemas/Pet")));
        assert!(is_direct(
            Kind::Schema,
            &p("/components/schemas/Pet/properties/a/items")
        ));
        assert!(!is_direct(
            Kind::Schema,
            &p("/components/schemas/Pet/allOf/0")
        ));
        assert!(!is_direct(
            Kind::Schema,
            &p("/components/schemas/Pet/definitions/Tag")
        ));
        assert!(is_direct(Kind::Parameter, &p("/components/parameters/Id")));
        assert!(!is_direct(
            Kind::Parameter,
            &p("/paths/~1a/get/parameters/0")
        ));
    }

    #[test]
    fn places_copies_by_their_longest_prefix() {
        let p = |s: &str| fragment(s).unwrap();
        let origins = Origins {
            converted: Vec::new(),
            files: Vec::new(),
            copies: vec![
                Origin {
                    at: p("/paths/~1a"),
                    file: 1,
                    from: Pointer::root(),
                },
                Origin {
                    at: p("/paths/~1a/get"),
                    file: 2,
                    from: p("/x"),
                },
            ],
        };
        assert_eq!(origins.place(&p("/paths/~1a/get/responses")).0, 2);
        assert_eq!(
            origins.place(&p("/paths/~1a/get/responses")).1.to_string(),
            "/x/responses"
        );
        assert_eq!(origins.place(&p("/paths/~1a/post")).0, 1);
        assert_eq!(origins.place(&p("/info")).0, 0);
    }
}
