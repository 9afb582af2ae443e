//! Notes and entry management: `write`, `append`, `edit`, `mv`, `rm`, `pin`, `ttl`, `expire-turn`, `resolve`.

use std::io::{Read as _, Write as _};

use anyhow::Context as _;
use scratchpad_core::figures::counted;
use scratchpad_core::preview::thousands;
use scratchpad_core::{EntryInfo, WriteOptions};
use serde_json::json;

use super::{entry_json, parse_ttl_flag};
use crate::Ctx;
use crate::cli::{
    AppendArgs, EditArgs, ExpireTurnArgs, MvArgs, PinArgs, ResolveArgs, RmArgs, TtlArgs, WriteArgs,
};
use crate::format::expires;
use scratchpad_core::model::now_ms;

/// TEXT when given, else all of stdin (which must be text: notes are text).
fn text_or_stdin(text: Option<String>, command: &str) -> anyhow::Result<String> {
    if let Some(text) = text {
        return Ok(text);
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .context("cannot read stdin")?;
    String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!("stdin is not UTF-8 text and `{command}` keeps text notes; use `scratchpad put NAME` to store binary data")
    })
}

fn report(ctx: &mut Ctx, info: &EntryInfo, line: String) -> anyhow::Result<u8> {
    if ctx.json {
        let value = entry_json(ctx, info);
        ctx.print_json(&value)?;
    } else {
        writeln!(ctx.out, "{line}")?;
    }
    Ok(0)
}

pub fn write(ctx: &mut Ctx, args: WriteArgs) -> anyhow::Result<u8> {
    let ttl = parse_ttl_flag(args.keep.ttl.as_deref())?;
    let text = text_or_stdin(args.text, "write")?;
    let info = ctx.pad.with_lease(args.lease).write(
        &args.name,
        &text,
        WriteOptions {
            if_version: args.if_version,
            ttl,
            pinned: args.keep.pin.then_some(true),
            ..WriteOptions::default()
        },
    )?;
    let line = format!(
        "wrote `{}` (version {}, {} bytes)",
        info.name,
        info.version,
        thousands(info.bytes)
    );
    report(ctx, &info, line)
}

pub fn append(ctx: &mut Ctx, args: AppendArgs) -> anyhow::Result<u8> {
    let text = text_or_stdin(args.text, "append")?;
    let info = ctx.pad.with_lease(args.lease).append(
        &args.name,
        &text,
        WriteOptions {
            if_version: args.if_version,
            ..WriteOptions::default()
        },
    )?;
    let line = format!(
        "appended {} bytes to `{}` (version {}, {} bytes)",
        thousands(text.len() as u64),
        info.name,
        info.version,
        thousands(info.bytes)
    );
    report(ctx, &info, line)
}

pub fn edit(ctx: &mut Ctx, args: &EditArgs) -> anyhow::Result<u8> {
    let pad = ctx.pad.with_lease(args.lease);
    let old = match (&args.old, args.after_line) {
        (Some(old), None) => old,
        (_, Some(after_line)) => {
            let info = pad.insert(&args.name, after_line, &args.new, args.if_version)?;
            let line = format!(
                "inserted {} after line {after_line} of `{}` (version {}, {})",
                counted(args.new.lines().count().max(1) as u64, "line", "lines"),
                info.name,
                info.version,
                counted(info.lines, "line", "lines")
            );
            return report(ctx, &info, line);
        }
        (None, None) => anyhow::bail!("give --old TEXT to replace, or --after-line N to insert"),
    };
    let outcome = pad.edit(
        &args.name,
        old,
        &args.new,
        args.replace_all,
        args.if_version,
    )?;
    if ctx.json {
        ctx.print_json(&outcome)?;
        return Ok(0);
    }
    let n = outcome.replacements;
    writeln!(
        ctx.out,
        "edited `{}`: {n} {} (version {}, {} bytes)",
        outcome.entry.name,
        if n == 1 {
            "replacement"
        } else {
            "replacements"
        },
        outcome.entry.version,
        thousands(outcome.entry.bytes)
    )?;
    Ok(0)
}

pub fn mv(ctx: &mut Ctx, args: &MvArgs) -> anyhow::Result<u8> {
    let info =
        ctx.pad
            .with_lease(args.lease)
            .rename(&args.name, &args.new_name, args.if_version)?;
    let line = format!(
        "renamed `{}` to `{}` (version {})",
        args.name, info.name, info.version
    );
    report(ctx, &info, line)
}

pub fn rm(ctx: &mut Ctx, args: &RmArgs) -> anyhow::Result<u8> {
    let mut removed = Vec::new();
    let mut failed = Vec::new();
    let pad = ctx.pad.with_lease(args.lease);
    for name in &args.names {
        let done = if args.purge {
            pad.purge(name, args.if_version)
                .map(|purged| (purged.advice(), json!(purged)))
        } else {
            pad.delete(name, args.if_version)
                .map(|removal| (removal.advice(), json!(removal)))
        };
        match done {
            Ok((advice, value)) => {
                if !ctx.json {
                    writeln!(ctx.out, "{}", advice.render(&ctx.shell))?;
                }
                removed.push(json!({ "reply": advice.render(&ctx.shell), "removal": value }));
            }
            Err(err) => {
                // One bad name should not keep the others.
                let message = err.render(&ctx.shell);
                let _ = writeln!(std::io::stderr(), "error: {message}");
                failed.push(json!({ "name": name, "error": message }));
            }
        }
    }
    if ctx.json {
        ctx.print_json(&json!({ "removed": removed, "failed": failed }))?;
    }
    Ok(u8::from(!failed.is_empty()))
}

pub fn pin(ctx: &mut Ctx, args: &PinArgs, pinned: bool) -> anyhow::Result<u8> {
    let info = ctx
        .pad
        .with_lease(args.lease)
        .pin(&args.name, pinned, args.if_version)?;
    let line = if pinned {
        format!(
            "pinned `{}` (version {}): it never expires",
            info.name, info.version
        )
    } else {
        format!(
            "unpinned `{}` (version {}); expires: {}",
            info.name,
            info.version,
            expires(info.expires_at, now_ms())
        )
    };
    report(ctx, &info, line)
}

pub fn ttl(ctx: &mut Ctx, args: &TtlArgs) -> anyhow::Result<u8> {
    let ttl = args.duration.parse()?;
    let info = ctx
        .pad
        .with_lease(args.lease)
        .set_ttl(&args.name, ttl, args.if_version)?;
    let when = match info.expires_at {
        Some(at) => format!("expires {}", expires(Some(at), now_ms())),
        None => "never expires".to_owned(),
    };
    let pinned = if info.pinned {
        " (pinned: it is kept until unpinned)"
    } else {
        ""
    };
    let line = format!("`{}` {when}{pinned} (version {})", info.name, info.version);
    report(ctx, &info, line)
}

pub fn expire_turn(ctx: &mut Ctx, args: &ExpireTurnArgs) -> anyhow::Result<u8> {
    let removed = ctx.pad.expire_turn(&args.tag)?;
    if ctx.json {
        ctx.print_json(&json!({ "turn": args.tag, "removed": removed }))?;
    } else {
        writeln!(
            ctx.out,
            "removed {} {} tagged `{}`",
            thousands(removed),
            if removed == 1 { "entry" } else { "entries" },
            args.tag
        )?;
    }
    Ok(0)
}

pub fn resolve(ctx: &mut Ctx, args: ResolveArgs) -> anyhow::Result<u8> {
    let from_argument = args.text.is_some();
    let text = text_or_stdin(args.text, "resolve")?;
    let resolved = ctx.pad.resolve(&text)?;
    if ctx.json {
        ctx.print_json(&json!({ "text": resolved }))?;
    } else {
        ctx.out.write_all(resolved.as_bytes())?;
        // Like echo for an argument; stdin comes back byte for byte.
        if from_argument && !resolved.ends_with('\n') {
            writeln!(ctx.out)?;
        }
    }
    Ok(0)
}
