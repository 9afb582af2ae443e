//! What a note was and how it changed: `history`, `restore`, `diff`.

use std::io::Write as _;

use scratchpad_core::figures::{counted, thousands, utc_time};
use scratchpad_core::{Call, DiffOptions, Error, Speak as _, Target, VersionInfo};
use serde_json::json;

use super::entry_json;
use crate::Ctx;
use crate::cli::{DiffArgs, HistoryArgs, RestoreArgs};
use crate::format::{human_bytes, table};

pub fn history(ctx: &mut Ctx, args: &HistoryArgs) -> anyhow::Result<u8> {
    if args.removed {
        return removed_history(ctx, args);
    }
    let history = match ctx.pad.history(&args.reference) {
        Ok(history) => history,
        // A removed note's history is what someone asking for `history plan` after `rm plan` wants.
        Err(err @ Error::NotFound { .. }) => match ctx.pad.removed_history(&args.reference) {
            Ok(_) => return removed_history(ctx, args),
            Err(_) => return Err(err.into()),
        },
        Err(err) => return Err(err.into()),
    };
    if ctx.json {
        ctx.print_json(&history)?;
        return Ok(0);
    }
    let entry = &history.entry;
    let kept = history.versions.len() - 1;
    let policy = ctx.pad.config();
    let keeping = if history.keeps_history {
        format!(
            "changes keep the last {} for {}",
            counted(u64::from(policy.history_versions), "version", "versions"),
            policy.history_max_age
        )
    } else {
        "changes keep no older versions (it is the output of a tool; store it with put \
         --keep-history to keep them)"
            .to_owned()
    };
    writeln!(
        ctx.out,
        "`{}`: version {}, {} kept; {keeping}",
        entry.name,
        entry.version,
        counted(kept as u64, "older version", "older versions"),
    )?;
    version_table(ctx, &history.versions, entry.version, args.limit)?;
    Ok(0)
}

/// The versions of a removed note, with who removed it, when, and until when they are kept.
fn removed_history(ctx: &mut Ctx, args: &HistoryArgs) -> anyhow::Result<u8> {
    let history = ctx.pad.removed_history(&args.reference)?;
    if ctx.json {
        ctx.print_json(&history)?;
        return Ok(0);
    }
    let removed = &history.removed;
    writeln!(
        ctx.out,
        "`{}` (id {}): removed{} at {}; {} kept {}",
        removed.name,
        removed.id,
        removed
            .removed_by
            .as_deref()
            .map_or_else(String::new, |who| format!(" by {who}")),
        utc_time(removed.removed_at),
        counted(removed.versions, "version", "versions"),
        kept_until(removed.keep_until),
    )?;
    version_table(ctx, &history.versions, removed.version, args.limit)?;
    let restore = ctx.shell.call(&Call::RestoreRemoved {
        name: removed.name.clone(),
        as_name: None,
    });
    writeln!(
        ctx.out,
        "restore with `{restore}` (--version N for another)"
    )?;
    Ok(0)
}

/// Versions newest first, the current one starred, at most `limit` of them.
fn version_table(
    ctx: &mut Ctx,
    versions: &[VersionInfo],
    current: u64,
    limit: usize,
) -> anyhow::Result<()> {
    let rows: Vec<Vec<String>> = versions
        .iter()
        .take(limit.max(1))
        .map(|v| {
            vec![
                if v.version == current {
                    format!("{}*", v.version)
                } else {
                    v.version.to_string()
                },
                utc_time(v.written_at).trim_end_matches(" UTC").to_owned(),
                crate::format::shown_name(v.author.as_deref()),
                human_bytes(v.bytes),
                thousands(v.lines),
                v.change
                    .as_ref()
                    .map_or_else(|| "-".to_owned(), ToString::to_string),
            ]
        })
        .collect();
    let header = ["VER", "WRITTEN (UTC)", "AUTHOR", "SIZE", "LINES", "CHANGE"];
    let right = [true, false, false, true, true, false];
    ctx.out
        .write_all(table(&header, &rows, &right).as_bytes())?;
    if versions.len() > limit.max(1) {
        writeln!(
            ctx.out,
            "({} older not shown; --limit {} shows them)",
            versions.len() - limit.max(1),
            versions.len()
        )?;
    }
    Ok(())
}

fn kept_until(at: Option<i64>) -> String {
    match at {
        Some(at) => format!("until {}", utc_time(at)),
        None => "until purged".to_owned(),
    }
}

pub fn restore(ctx: &mut Ctx, args: &RestoreArgs) -> anyhow::Result<u8> {
    if args.removed {
        return restore_removed(ctx, args);
    }
    let Some(version) = args.version else {
        anyhow::bail!(
            "give the version to bring back with --version N (`history {}` lists them), or \
             --removed to bring back a removed note",
            args.reference
        );
    };
    let info = ctx
        .pad
        .with_lease(args.lease)
        .restore(&args.reference, version, args.if_version)?;
    if ctx.json {
        let value = entry_json(ctx, &info);
        ctx.print_json(&value)?;
        return Ok(0);
    }
    writeln!(
        ctx.out,
        "restored `{}` to the content of version {}: now version {} ({} bytes)",
        info.name,
        version,
        info.version,
        thousands(info.bytes)
    )?;
    Ok(0)
}

fn restore_removed(ctx: &mut Ctx, args: &RestoreArgs) -> anyhow::Result<u8> {
    let info = ctx.pad.with_lease(args.lease).restore_removed(
        &args.reference,
        args.version,
        args.as_name.as_deref(),
    )?;
    if ctx.json {
        let value = entry_json(ctx, &info);
        ctx.print_json(&value)?;
        return Ok(0);
    }
    let history = ctx.pad.history(&info.name)?;
    writeln!(
        ctx.out,
        "restored `{}` with {}: now version {} ({} bytes)",
        info.name,
        counted(
            history.versions.len().saturating_sub(1) as u64,
            "earlier version",
            "earlier versions"
        ),
        info.version,
        thousands(info.bytes)
    )?;
    Ok(0)
}

pub fn diff(ctx: &mut Ctx, args: &DiffArgs) -> anyhow::Result<u8> {
    let a = Target {
        name: args.a.clone(),
        version: args.from,
    };
    let b = Target {
        name: args.b.clone().unwrap_or_else(|| args.a.clone()),
        version: args.to,
    };
    if args.b.is_none() && args.from.is_none() && args.to.is_none() {
        anyhow::bail!(
            "give a second entry (`diff {a} OTHER`) or versions of `{a}` to compare (`diff {a} --from N`; \
             `history {a}` lists them)",
            a = args.a
        );
    }
    let opts = DiffOptions {
        cursor: args.cursor.as_deref().map(str::parse).transpose()?,
        context: Some(args.context),
        budget_chars: args.budget,
        plain: args.text,
    };
    let reply = ctx.pad.diff(&a, &b, &opts)?;
    if ctx.json {
        let next = reply
            .next_call()
            .map(|call| scratchpad_core::Speak::call(&ctx.shell, &call));
        let mut value = serde_json::to_value(&reply)?;
        if let Some(object) = value.as_object_mut() {
            object.insert("next".into(), json!(next));
        }
        ctx.print_json(&value)?;
        return Ok(0);
    }
    ctx.out.write_all(reply.render(&ctx.shell).as_bytes())?;
    // Differences are the answer, not a failure: agents read a non-zero exit as an error.
    Ok(0)
}
