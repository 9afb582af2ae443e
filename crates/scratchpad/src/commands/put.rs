//! `put`: store stdin or a file.

use std::fs::File;

use anyhow::Context as _;
use scratchpad_core::read::Stop;
use scratchpad_core::{PutOptions, Source, WriteCondition};

use super::{entry_json, parse_ttl_flag, print_reference};
use crate::Ctx;
use crate::cli::PutArgs;
use crate::progress::Progress;

pub fn put(ctx: &mut Ctx, args: PutArgs) -> anyhow::Result<u8> {
    let meta = match &args.meta {
        None => serde_json::Value::Null,
        Some(text) => parse_meta(text)?,
    };
    let ttl = parse_ttl_flag(args.keep.ttl.as_deref())?;
    let mut file = match &args.file {
        Some(path) => {
            if path.is_dir() {
                anyhow::bail!("{} is a directory; pass a file to --file", path.display());
            }
            Some(File::open(path).with_context(|| format!("cannot read {}", path.display()))?)
        }
        None => None,
    };
    let total = file
        .as_ref()
        .and_then(|file| file.metadata().ok())
        .map(|m| m.len());
    let mut progress = Progress::new(ctx.json, total);
    let mut on_progress = |bytes: u64| progress.update(bytes);
    let options = PutOptions {
        name: args.name,
        source: Source {
            tool: args.tool,
            ..Source::default()
        },
        meta,
        turn: args.turn,
        ttl,
        pinned: args.keep.pin,
        condition: args.if_version.map(WriteCondition::IfVersion),
        keep_history: args.keep_history,
        progress: Some(&mut on_progress),
        // Ctrl-C ends the process; a put that dies leaves nothing behind.
        stop: Stop::default(),
    };
    let pad = ctx.pad.with_lease(args.lease);
    let info = match &mut file {
        Some(file) => pad.put_file(file, options)?,
        None => pad.put(&mut std::io::stdin().lock(), options)?,
    };
    progress.finish();
    if ctx.json {
        let value = entry_json(ctx, &info);
        ctx.print_json(&value)?;
    } else {
        print_reference(ctx, &info)?;
    }
    Ok(0)
}

fn parse_meta(text: &str) -> anyhow::Result<serde_json::Value> {
    let value: serde_json::Value = serde_json::from_str(text).with_context(|| {
        format!("invalid --meta `{text}`: give a JSON object, e.g. '{{\"path\": \"src/main.rs\"}}'")
    })?;
    if !value.is_object() {
        anyhow::bail!(
            "invalid --meta `{text}`: give a JSON object, e.g. '{{\"path\": \"src/main.rs\"}}'"
        );
    }
    Ok(value)
}
