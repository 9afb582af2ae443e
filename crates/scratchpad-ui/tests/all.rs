//! Integration tests of the web view over real HTTP: the gate, every page, the API, live updates,
//! and the same on PostgreSQL. The browser's side (scripts, hostile content staying inert) is tested
//! with Chromium in crates/scratchpad/tests/suite/ui_browser.rs.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers should stop loudly at the first surprise"
)]

mod common;
mod suite;
