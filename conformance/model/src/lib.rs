//! # conformance-model: what a run is told, before it sends anything
//!
//! The first stage of the conformance runner (profile → checks → exchanges
//! → report): the target [`profile`] (its `${VAR}`s expanded by
//! [`expand`], every error at its file, line and key, files read through
//! [`input`]), the server's [`choices`] where the description is silent,
//! a component's declared auth [`fields`] and the oracle they give, the
//! [`limits`] on what a profile may declare,
//! requirement [`level`]s, and the other [`spelling`]s of a name. It
//! depends on no later stage: the compiler refuses a backward import.

pub mod choices;
pub mod expand;
pub mod fields;
pub mod input;
pub mod level;
pub mod limits;
pub mod profile;
pub mod spelling;
