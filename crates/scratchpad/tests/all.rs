//! The one integration-test binary: the tests drive the built `scratchpad` binary, and the
//! client-configuration edits of its library.

#![expect(
    clippy::unwrap_used,
    reason = "a test should stop loudly at the first surprise"
)]

mod common;
mod suite;
