//! Helpers shared by the integration tests (each test crate that needs
//! them says `mod common;`; not every crate uses every helper).
#![allow(dead_code)]

pub mod snapshot;
