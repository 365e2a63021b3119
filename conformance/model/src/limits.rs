//! The caps on what a profile may declare: every value whose size
//! multiplies a run's work or memory has one, checked while the profile is
//! read (by `check-profile`, `choices`, `init` and every run alike), so a
//! 5 KB profile cannot make a run take gigabytes.
//!
//! What multiplies, measured before the caps (the runner's debug build
//! against the reference server): each declared field, and each key of a
//! `valid_body` without declared fields, is sent in some 25 to 60 single
//! changes per operation, each change a whole body; 300 declared fields
//! took 2.1 GiB, an `enum` of 1,000 values 500 MiB (each value was sent,
//! and in another letter case), and a `pattern` is compiled once per
//! profile and run against every generated string. Each cap is far above
//! what an auth section declares (a handful of fields), and the README
//! (`conformance/README.md`, "Caps") lists them with the memory a run at
//! all of them takes, which `tests/integration/caps.rs` holds.
//!
//! A profile over a cap is refused with one message at its line and key
//! naming the cap and the size ([`over`]).

/// Components in a profile: every check runs against each.
pub const COMPONENTS: usize = 16;

/// Fields a component declares under `fields:`, and keys of one body
/// (`valid_body`, `invalid_body`).
pub const FIELDS_PER_COMPONENT: usize = 32;

/// Fields across the profile that get generated changes: each component's
/// declared fields, or where it declares none, its `valid_body`'s keys.
pub const FIELDS_PER_PROFILE: usize = 64;

/// Values of one `enum`.
pub const ENUM_VALUES: usize = 256;

/// Of an `enum`'s values, how many a run sends (the first, the last and
/// others evenly spaced between them, each also in another letter case).
pub const ENUM_VALUES_SENT: usize = 8;

/// Bytes of one `pattern` as written.
pub const PATTERN_BYTES: usize = 1024;

/// `pattern`s across the profile.
pub const PATTERNS: usize = 32;

/// Bytes one `pattern` may take compiled (the regex engine's size limit
/// on its automaton): a short pattern with a counted repetition of a
/// Unicode class compiles to megabytes (`^[\w .'-]{1,64}$`: about 4 MiB).
pub const PATTERN_COMPILED_BYTES: usize = 8 << 20;

/// Bytes all of a profile's `pattern`s may take compiled, together.
pub const PATTERNS_COMPILED_BYTES: usize = 32 << 20;

/// Bytes of the cache a compiled pattern keeps for each thread matching
/// with it at once (its lazy DFA; the regex crate's default is 2 MiB).
pub const PATTERN_CACHE_BYTES: usize = 256 << 10;

/// Bytes of one body (`valid_body`, `invalid_body`) as JSON text: every
/// generated change of it sends the whole body.
pub const BODY_BYTES: usize = 4 * 1024;

/// Names in one `secret_fields` list.
pub const SECRET_FIELDS: usize = 64;

/// Names in `snapshot_headers`.
pub const SNAPSHOT_HEADERS: usize = 32;

/// The message of a value over its cap: what it is, its size, the cap.
pub fn over(what: &str, size: usize, cap: usize) -> String {
    format!(
        "{what} is {size}, over the cap of {cap} (see \"Caps\" in conformance/README.md: a profile's sizes are capped so that a run's memory is bounded)"
    )
}

/// Every cap, as the README's table lists it: (what, cap).
pub const ALL: &[(&str, usize)] = &[
    ("components", COMPONENTS),
    (
        "fields of one component (`fields:`), keys of one body",
        FIELDS_PER_COMPONENT,
    ),
    ("fields across the profile", FIELDS_PER_PROFILE),
    ("values of one `enum`", ENUM_VALUES),
    ("bytes of one `pattern`", PATTERN_BYTES),
    ("bytes of one compiled `pattern`", PATTERN_COMPILED_BYTES),
    ("bytes of every `pattern` compiled", PATTERNS_COMPILED_BYTES),
    ("`pattern`s across the profile", PATTERNS),
    ("bytes of one body as JSON", BODY_BYTES),
    ("names in `secret_fields`", SECRET_FIELDS),
    ("names in `snapshot_headers`", SNAPSHOT_HEADERS),
];

thread_local! {
    /// The `pattern`s of the profile being read: how many, and the bytes
    /// they take compiled; `None` outside a profile's read.
    static PATTERNS_READ: std::cell::Cell<Option<(usize, usize)>> =
        const { std::cell::Cell::new(None) };
}

/// Runs `f` (the read of one profile) counting the `pattern`s it compiles
/// ([`count_pattern`]).
pub fn counting_patterns<T>(f: impl FnOnce() -> T) -> T {
    PATTERNS_READ.with(|c| c.set(Some((0, 0))));
    let out = f();
    PATTERNS_READ.with(|c| c.set(None));
    out
}

/// Counts a `pattern` just compiled (taking `bytes`) into the profile
/// being read: an error as soon as the profile's patterns go over
/// [`PATTERNS`] or [`PATTERNS_COMPILED_BYTES`], so that no more are
/// compiled (1,000 patterns of 8 MiB each would take 8 GiB first).
pub fn count_pattern(bytes: usize) -> Result<(), String> {
    PATTERNS_READ.with(|c| {
        let Some((count, total)) = c.get() else {
            return Ok(());
        };
        let (count, total) = (count + 1, total + bytes);
        c.set(Some((count, total)));
        if count > PATTERNS {
            Err(over(
                "the number of `pattern`s across the profile",
                count,
                PATTERNS,
            ))
        } else if total > PATTERNS_COMPILED_BYTES {
            Err(over(
                "the bytes taken compiled by the profile's `pattern`s up to this one",
                total,
                PATTERNS_COMPILED_BYTES,
            ))
        } else {
            Ok(())
        }
    })
}
