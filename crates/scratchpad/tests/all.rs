//! The one integration-test binary: every test drives the built `scratchpad` binary.

#![expect(
    clippy::unwrap_used,
    reason = "a test should stop loudly at the first surprise"
)]

mod common;
mod suite;
