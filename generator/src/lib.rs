//! A spec-driven generator: OpenAPI 3.0 in, Rust types and an async client out.
//!
//! Data flows one way:
//!
//! 1. [`load`] reads the file into an `openapiv3::OpenAPI`, keeping the text
//!    so errors can name a line;
//! 2. [`lower`] turns the document into [`model::Api`], resolving every
//!    `$ref` and refusing what cannot be expressed;
//! 3. [`emit`] turns the model into tokens with `quote`, parses them with
//!    `syn` and formats them with `prettyplease`.
//!
//! Nothing about any one API is written here: every name, header, status and
//! field of the output comes from the spec. The code it emits stands on the
//! small `client-runtime` crate (secrets, prepared requests, decoding).

pub mod compat;
pub mod diff;
pub mod emit;
pub mod error;
pub mod file;
pub mod load;
pub mod lower;
pub mod model;
pub mod names;
pub mod normalize;
pub mod overlay;
pub mod recursion;
pub mod resolve;
pub mod swagger2;

use std::path::Path;

use sha2::{Digest, Sha256};

pub use error::Diagnostic;

/// Generated code, and what was made looser than the spec says on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    pub code: String,
    /// Each names the node (file, line, JSON pointer); print them with
    /// [`Diagnostic::as_warning`].
    pub warnings: Vec<Diagnostic>,
    /// What was left out or read more loosely than the spec says, counted
    /// (each also has its warning); printed as one summary line.
    pub degraded: model::Degraded,
}

/// Choices about the output that the spec does not make.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// A cargo feature of the crate the code goes into: everything but the
    /// types (the client, its builders, the response enums) is compiled
    /// only with it, so that a crate can use the types without an HTTP
    /// client. `None`: everything always.
    pub client_feature: Option<String>,
    /// Refuse the document at its first warning (`--strict`): for teams
    /// that want their own spec held to the letter. Default: off, since a
    /// defect confined to one node of a real document (a misspelt
    /// keyword, an undeclared scheme) should not cost the whole client.
    pub strict: bool,
    /// The folder no file a `$ref` names may be outside of (`--root`):
    /// for a specification laid out over a tree whose references climb
    /// above the entry file's folder. `None`: the entry file's folder.
    pub root: Option<std::path::PathBuf>,
    /// OpenAPI Overlay documents applied to the spec, in order, before it
    /// is read (`--overlay`; see [`overlay`]): a server's choices laid
    /// over the spec. Default: none.
    pub overlays: Vec<std::path::PathBuf>,
    /// The most bytes read (`--max-input-mib`), of one file and of all the
    /// files of a split document together. `None`: [`file::MAX_BYTES`],
    /// 64 MiB, above the largest public API descriptions (Microsoft
    /// Graph's is 19.4 MiB); what a run holds in memory is a multiple of
    /// what it reads (see the README), so the limit bounds it too.
    pub max_input_bytes: Option<u64>,
    /// Compile each tag's operations only with a cargo feature of their
    /// own (`--tag-features`): `tag-<first tag>` (or `untagged`), and each
    /// type with the features of the operations that use it; the header
    /// comment lists the `[features]` the crate declares. For a large API
    /// of which a crate calls a few operations: it compiles those. Default:
    /// off, everything compiled (one feature to declare is none).
    pub tag_features: bool,
    /// Write the server module for axum instead of the client (`--server`;
    /// see [`emit::emit_server`]). Default: the client.
    pub server: bool,
}

/// Generates the bindings for the spec at `path`.
pub fn generate(path: &Path) -> Result<String, Diagnostic> {
    generate_with_warnings(path).map(|generated| generated.code)
}

/// Generates the bindings for the spec at `path`, with the warnings.
pub fn generate_with_warnings(path: &Path) -> Result<Generated, Diagnostic> {
    generate_with_options(path, &Options::default())
}

/// [`generate_with_warnings`] with [`Options`].
pub fn generate_with_options(path: &Path, options: &Options) -> Result<Generated, Diagnostic> {
    if let Some(root) = &options.root
        && !root.is_dir()
    {
        return Err(Diagnostic {
            file: root.clone(),
            line: None,
            pointer: String::new(),
            message: "the folder given with `--root` is not a folder that can be read".into(),
            hint: "name the folder that holds every file of the spec".into(),
        });
    }
    let limit = options.max_input_bytes.unwrap_or(file::MAX_BYTES);
    guarded(path, || {
        file::with_max_bytes(limit, || {
            let source = match options.overlays.is_empty() {
                true => load::Source::read_under(path, options.root.as_deref())?,
                false => overlaid(path, &options.overlays, options.root.as_deref())?,
            };
            generate_source_with_options(&source, options)
        })
    })
}

/// The spec at `path` with `overlays` applied, read as the JSON document
/// that results, named `<stem>.overlaid.json` beside the spec (so that
/// relative `$ref`s resolve as from the spec, and messages say they are
/// about the overlaid document: its lines are those of that JSON).
fn overlaid(
    path: &Path,
    overlays: &[std::path::PathBuf],
    root: Option<&Path>,
) -> Result<load::Source, Diagnostic> {
    let text = file::read_text(path)?;
    let mut tree = file::parse_tree(path, &text)?;
    // One budget for every overlay of the run (the caps: `overlay`).
    let mut budget = overlay::Budget::default();
    for overlay in overlays {
        overlay::Overlay::read(overlay)?.apply_within(&mut tree, &mut budget)?;
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let merged = serde_json::to_string_pretty(&tree).map_err(|e| Diagnostic {
        file: path.to_owned(),
        line: None,
        pointer: String::new(),
        message: format!("{INTERNAL_ERROR}: the overlaid document cannot be written ({e})"),
        hint: "please report it with the spec and the overlays".into(),
    })?;
    load::Source::parse_under(
        &path.with_file_name(format!("{stem}.overlaid.json")),
        merged,
        root,
    )
}

/// Generates the bindings for spec text already read (named `path` in
/// messages).
pub fn generate_text(path: &Path, text: String) -> Result<String, Diagnostic> {
    guarded(path, || {
        let source = load::Source::parse(path, text)?;
        generate_source_with_warnings(&source)
    })
    .map(|generated| generated.code)
}

/// [`generate_text`] with the warnings.
pub fn generate_text_with_warnings(path: &Path, text: String) -> Result<Generated, Diagnostic> {
    guarded(path, || {
        let source = load::Source::parse(path, text)?;
        generate_source_with_warnings(&source)
    })
}

/// The stack the generator runs on: parsing and lowering recurse once per
/// level of the document, which is at most [`file::MAX_DEPTH`] deep; an
/// unoptimised build needs about 4 MiB for that, more than a test thread's
/// 2 MiB, so every run gets its own thread with room to spare.
const STACK_BYTES: usize = 64 * 1024 * 1024;

/// Runs `work` on a thread with [`STACK_BYTES`] of stack; a panic (a bug in
/// the generator) becomes a [`Diagnostic`] that says so, never exit 101.
fn guarded<T: Send>(
    path: &Path,
    work: impl FnOnce() -> Result<T, Diagnostic> + Send,
) -> Result<T, Diagnostic> {
    let outcome = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("generator".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, work)
            .map(|handle| handle.join())
    });
    let internal = |what: String| Diagnostic {
        file: path.to_owned(),
        line: None,
        pointer: String::new(),
        message: format!("{INTERNAL_ERROR}: {what}"),
        hint: "please report it with the spec that caused it".into(),
    };
    match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(panic)) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Err(internal(what))
        }
        Err(e) => Err(internal(format!("cannot start a thread: {e}"))),
    }
}

/// How a message caused by a bug in the generator, not by the input, starts.
pub const INTERNAL_ERROR: &str = "internal error in the generator";

/// Generates the bindings for a spec already read (on the caller's stack;
/// see [`generate_text`] for a guarded run).
pub fn generate_source(source: &load::Source) -> Result<String, Diagnostic> {
    generate_source_with_warnings(source).map(|generated| generated.code)
}

/// [`generate_source`] with the warnings.
pub fn generate_source_with_warnings(source: &load::Source) -> Result<Generated, Diagnostic> {
    generate_source_with_options(source, &Options::default())
}

/// [`generate_source_with_warnings`] with [`Options`].
pub fn generate_source_with_options(
    source: &load::Source,
    options: &Options,
) -> Result<Generated, Diagnostic> {
    let (api, lowered) = lower::lower_with_options(&source.document, options.strict)
        .map_err(|e| source.diagnose(e))?;
    let mut warnings = source.warnings.clone();
    warnings.extend(lowered);
    let mut header = header(&source.path, &source.origins, &api);
    if options.tag_features {
        header.push_str(
            "// Compiled by tag (--tag-features): the crate declares these features, and turns on those it uses.\n// [features]\n",
        );
        for feature in emit::features(&api) {
            header.push_str(&format!("// {feature} = []\n"));
        }
    }
    // Placing warnings reads the whole text once more; it needs nothing
    // from the code, so it runs beside emitting, not after it.
    let spare = warnings.clone();
    let (warnings, code) = std::thread::scope(|scope| {
        let placed = std::thread::Builder::new()
            .name("warnings".into())
            .spawn_scoped(scope, || source.diagnose_all(warnings));
        let code = match options.server {
            true => emit::emit_server(&api, &header),
            false => emit::emit_with(
                &api,
                &header,
                options.client_feature.as_deref(),
                options.tag_features,
            ),
        };
        let warnings = match placed {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to spare: place them here.
            Err(_) => source.diagnose_all(spare),
        };
        (warnings, code)
    });
    // A Swagger 2.0 document's own warnings first; the first of them, that
    // it was converted, is no defect of the document, and --strict lets it
    // pass.
    let warnings: Vec<Diagnostic> = source.converted.iter().cloned().chain(warnings).collect();
    if options.strict
        && let Some(first) = warnings.get(source.converted.len().min(1)).cloned()
    {
        return Err(Diagnostic {
            hint: format!("{} (refused because of --strict)", first.hint),
            ..first
        });
    }
    let code = code.map_err(|e| Diagnostic {
        file: source.path.clone(),
        line: None,
        pointer: String::new(),
        message: format!("{INTERNAL_ERROR}: the generated code does not parse as Rust ({e})"),
        hint: "please report it with the spec that caused it".into(),
    })?;
    Ok(Generated {
        code,
        warnings,
        degraded: api.degraded.clone(),
    })
}

/// The comment on top of the output: what it was made from, and the spec's
/// hash (of every file it was read from, in the order read).
fn header(path: &Path, origins: &resolve::Origins, api: &model::Api) -> String {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let folder = resolve::normal(path.parent().unwrap_or(Path::new("")));
    let mut hasher = Sha256::new();
    for (i, read) in origins.files.iter().enumerate() {
        if i > 0 {
            // Another file: its path from the spec's folder (the same
            // however the spec was named) and its text.
            let relative = read.path.strip_prefix(&folder).unwrap_or(&read.path);
            hasher.update(b"\0");
            hasher.update(relative.to_string_lossy().as_bytes());
            hasher.update(b"\0");
        }
        hasher.update(read.text.as_bytes());
    }
    let hash = hasher.finalize();
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    // Spec text in a `//` comment: one line, nothing that could end it.
    let described = emit::one_line(&format!("{file} (\"{}\" {})", api.title, api.version));
    format!(
        "// @generated by `generator` from {described}.\n// sha256 of the spec: {hex}\n// Do not edit: change the spec and regenerate.\n"
    )
}
