//! Integration tests of the engine through its public API.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers should stop loudly at the first surprise"
)]

#[macro_use]
mod common;
mod suite;
