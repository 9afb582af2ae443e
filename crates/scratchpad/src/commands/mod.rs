//! One module per group of commands; each command is a thin call into the engine plus its output.

pub mod capture;
pub mod clients;
pub mod history;
pub mod hooks;
pub mod inspect;
pub mod lease;
pub mod mcp;
pub mod notes;
pub mod put;
pub mod read;
pub mod run;
pub mod ui;

use std::io::Write as _;

use scratchpad_core::{Config, DEFAULT_SESSION, EntryInfo, Scratchpad, Ttl, hint};
use serde_json::json;

use crate::Ctx;
use crate::cli::GlobalArgs;
use crate::format::stored_line;

/// `--ttl DURATION|never` → the engine's lifetime; absent keeps the engine's default.
pub fn parse_ttl_flag(ttl: Option<&str>) -> anyhow::Result<Ttl> {
    Ok(ttl.map(str::parse).transpose()?.unwrap_or_default())
}

/// An entry as JSON, with the estimated tokens and the read hint a script would want.
pub fn entry_json(ctx: &Ctx, info: &EntryInfo) -> serde_json::Value {
    let mut value = serde_json::to_value(info).unwrap_or_else(|_| json!({}));
    if let Some(object) = value.as_object_mut() {
        object.insert("tokens_est".into(), json!(info.tokens_est()));
        object.insert("hint".into(), json!(hint(info).render(&ctx.shell)));
    }
    value
}

/// The stored line, then the preview and hint when the entry is too large to have been shown whole.
pub fn print_reference(ctx: &mut Ctx, info: &EntryInfo) -> anyhow::Result<()> {
    writeln!(ctx.out, "{}", stored_line("stored", info))?;
    if ctx.pad.is_large(info.source.tool.as_deref(), info.bytes) {
        print_preview_and_hint(ctx, info)?;
    }
    Ok(())
}

pub fn print_preview_and_hint(ctx: &mut Ctx, info: &EntryInfo) -> anyhow::Result<()> {
    let preview = info.preview.trim_end_matches('\n');
    if !preview.is_empty() {
        writeln!(ctx.out, "{preview}")?;
    }
    writeln!(ctx.out, "{}", hint(info).render(&ctx.shell))?;
    Ok(())
}

/// The store and session the scratchpad command itself would use with these flags, for what a
/// client's hook runs (the session start, the Bash capture) outside the usual command context.
pub fn open_for_hook(global: &GlobalArgs) -> anyhow::Result<Scratchpad> {
    let config = Config::load(global.config.as_deref())?;
    let session = global
        .session
        .clone()
        .or_else(|| config.session.clone())
        .unwrap_or_else(|| DEFAULT_SESSION.to_owned());
    Ok(Scratchpad::open_with(global.store(), config)?.with_session(&session)?)
}
