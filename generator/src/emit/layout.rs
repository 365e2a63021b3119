//! Tokens → formatted text, item by item and in parallel.
//!
//! Formatting is most of the generator's time: every item is printed by
//! `quote`, read back by `syn` and laid out by `prettyplease`. Items do not
//! depend on each other once the model is built, so each is emitted, parsed
//! and printed on its own, on as many threads as the machine has, and the
//! texts are joined in the order the model gives: the output is the same
//! bytes whatever the thread count.
//!
//! `proc_macro2` tokens cannot cross threads, so an item travels as the
//! closure that emits it, and only its text comes back.

use std::sync::atomic::{AtomicUsize, Ordering};

use proc_macro2::TokenStream;
use quote::quote;

/// Emits the tokens of one or more items.
pub(crate) type Emit<'a> = Box<dyn Fn() -> TokenStream + Send + Sync + 'a>;

/// One piece of the file.
pub(crate) enum Part<'a> {
    /// Items at the top level of the file (or its inner attributes).
    Items(Emit<'a>),
    /// A module: `head` emits it empty (`/// doc` `pub mod name {}`), and
    /// each of `items` emits what goes inside, in order.
    Module {
        head: Emit<'a>,
        items: Vec<Emit<'a>>,
    },
}

/// Wraps an emitter, so that parts read as a list.
pub(crate) fn emit<'a>(f: impl Fn() -> TokenStream + Send + Sync + 'a) -> Emit<'a> {
    Box::new(f)
}

/// The stack each formatting thread gets: items nest as deep as the spec's
/// schemas (bounded by [`crate::file::MAX_DEPTH`]), and `syn` and
/// `prettyplease` recurse once per level of a type.
const STACK_BYTES: usize = 64 * 1024 * 1024;

/// At most this many threads: past it, joining the texts costs more than
/// another thread saves.
const MAX_THREADS: usize = 8;

/// One unit of work: an emitter, and whether its items sit in a module
/// (they are then formatted inside a module, so that they get its indent and
/// its line width).
struct Job<'a, 'p> {
    emit: &'p Emit<'a>,
    nested: bool,
}

/// Formats `parts` into the file's text (before [`super::space_items`]).
pub(crate) fn format(parts: &[Part<'_>]) -> Result<String, syn::Error> {
    let mut jobs = Vec::new();
    for part in parts {
        match part {
            Part::Items(emit) => jobs.push(Job {
                emit,
                nested: false,
            }),
            Part::Module { head, items } => {
                jobs.push(Job {
                    emit: head,
                    nested: false,
                });
                jobs.extend(items.iter().map(|emit| Job { emit, nested: true }));
            }
        }
    }
    let texts = run(&jobs)?;
    let mut texts = texts.into_iter();
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Items(_) => out.push_str(&texts.next().expect("one text per job")),
            Part::Module { items, .. } => {
                let head = texts.next().expect("one text per job");
                if items.is_empty() {
                    out.push_str(&head);
                    continue;
                }
                // `pub mod name {}` (or with its `use` lines) opens, the
                // items follow, and it closes.
                match head.strip_suffix("{}\n") {
                    Some(open) => {
                        out.push_str(open);
                        out.push_str("{\n");
                    }
                    None => out.push_str(
                        head.strip_suffix("}\n")
                            .expect("a module prints ending in `}`"),
                    ),
                }
                for _ in items {
                    out.push_str(&texts.next().expect("one text per job"));
                }
                out.push_str("}\n");
            }
        }
    }
    Ok(out)
}

/// Formats every job, on up to [`MAX_THREADS`] threads; the texts come back
/// in the order of the jobs.
fn run(jobs: &[Job<'_, '_>]) -> Result<Vec<String>, syn::Error> {
    // `GENERATOR_THREADS` sets the count (a test varies it: the bytes must
    // not); default: every core.
    let threads = std::env::var("GENERATOR_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .clamp(1, MAX_THREADS)
        .min(jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = jobs.get(index) else {
                return Ok(done);
            };
            done.push((index, format_job(job).map_err(|e| e.to_string())?));
        }
    };
    let outcomes: Vec<Result<Vec<(usize, String)>, String>> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .map(|i| {
                std::thread::Builder::new()
                    .name(format!("format-{i}"))
                    .stack_size(STACK_BYTES)
                    .spawn_scoped(scope, work)
            })
            .collect();
        let mut outcomes = vec![work()];
        for helper in helpers {
            outcomes.push(match helper {
                // A thread that could not start did no work; the others did it.
                Err(_) => Ok(Vec::new()),
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            });
        }
        outcomes
    });
    // The caller's thread runs until no job is left, so without an error
    // every job has its text.
    let mut texts = vec![String::new(); jobs.len()];
    for outcome in outcomes {
        let done = outcome.map_err(|e| syn::Error::new(proc_macro2::Span::call_site(), e))?;
        for (index, text) in done {
            texts[index] = text;
        }
    }
    Ok(texts)
}

/// Emits, parses and prints one job.
fn format_job(job: &Job<'_, '_>) -> Result<String, syn::Error> {
    let tokens = (job.emit)();
    if !job.nested {
        return Ok(prettyplease::unparse(&syn::parse2(tokens)?));
    }
    let text = prettyplease::unparse(&syn::parse2(quote!(mod m { #tokens }))?);
    // `mod m {` … `}`: keep what is between, indented as in the module.
    let inner = text
        .strip_prefix("mod m {\n")
        .and_then(|rest| rest.strip_suffix("}\n"))
        .expect("a module prints as `mod m {` … `}`");
    Ok(inner.to_owned())
}
