//! See the crate doc of `main.rs`.
