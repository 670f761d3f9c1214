//! Command-line stage: the `polyfold` binary's exit codes, flags and
//! conventions, `polyfold bench` (corpus regression table, `--scale`,
//! `--speed`), `polyfold plot`, `polyfold equiv` and the user
//! documentation (`docs.rs`).
//!
//! One test binary per stage (see `tests/README.md`); each former test
//! crate is a module here.

#[path = "../common/mod.rs"]
mod common;

mod bench_corpus;
mod bench_json;
mod bench_scale;
mod bench_speed;
mod bytes;
mod cli;
mod cli_conventions;
mod corpus_review;
mod corpus_sizes;
mod docs;
mod equiv;
mod exit_codes;
mod large_inputs;
mod plot;
mod quiet;
mod sarif;
