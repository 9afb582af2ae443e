//! Looking around: `show`, `ls`, `search`, `stats`, `gc`.

use std::io::Write as _;

use scratchpad_core::preview::thousands;
use scratchpad_core::{Call, Kind, ListFilter, Speak as _};
use serde_json::json;

use super::{entry_json, print_preview_and_hint};
use crate::Ctx;
use crate::cli::{LsArgs, SearchArgs, ShowArgs};
use crate::speak::shell_word;

use crate::format::{expires, human_bytes, relative, table};
use scratchpad_core::figures::{counted, utc_time};
use scratchpad_core::model::now_ms;

pub fn show(ctx: &mut Ctx, args: &ShowArgs) -> anyhow::Result<u8> {
    let info = ctx.pad.get(&args.reference)?;
    if ctx.json {
        let value = entry_json(ctx, &info);
        ctx.print_json(&value)?;
        return Ok(0);
    }
    let now = now_ms();
    let mut fields: Vec<(&str, String)> = vec![
        ("name", info.name.clone()),
        ("id", info.id.clone()),
        ("session", info.session.clone()),
        ("kind", info.kind.to_string()),
        (
            "size",
            format!(
                "{} bytes, {} characters, {} (~{} tokens)",
                thousands(info.bytes),
                thousands(info.chars),
                counted(info.lines, "line", "lines"),
                thousands(info.tokens_est())
            ),
        ),
        ("created", relative(info.created_at, now)),
        ("updated", relative(info.updated_at, now)),
        ("read", relative(info.accessed_at, now)),
        (
            "expires",
            if info.pinned {
                "never (pinned)".to_owned()
            } else {
                expires(info.expires_at, now)
            },
        ),
        ("pinned", if info.pinned { "yes" } else { "no" }.to_owned()),
        ("version", info.version.to_string()),
    ];
    if let Some(turn) = &info.turn {
        fields.push(("turn", turn.clone()));
    }
    let source = [
        info.source.tool.as_ref().map(|t| format!("tool {t}")),
        info.source.server.as_ref().map(|s| format!("server {s}")),
        info.source
            .args_digest
            .as_ref()
            .map(|d| format!("args {d}")),
    ];
    let source: Vec<String> = source.into_iter().flatten().collect();
    if !source.is_empty() {
        fields.push(("source", source.join(", ")));
    }
    if !info.meta.is_null() {
        fields.push(("meta", serde_json::to_string(&info.meta)?));
    }
    fields.push(("hash", format!("blake3:{}", info.hash)));
    for (label, value) in &fields {
        writeln!(ctx.out, "{:<8} {value}", format!("{label}:"))?;
    }
    writeln!(ctx.out)?;
    print_preview_and_hint(ctx, &info)?;
    Ok(0)
}

pub fn ls(ctx: &mut Ctx, args: LsArgs) -> anyhow::Result<u8> {
    if args.removed {
        return ls_removed(ctx, &args);
    }
    let filter = ListFilter {
        kind: args.kind.as_deref().map(Kind::parse).transpose()?,
        prefix: args.prefix.clone(),
        tool: args.tool.clone(),
        pinned: args.pinned.then_some(true),
        turn: args.turn.clone(),
        author: args.author.clone(),
    };
    let page = ctx.pad.list(&filter, args.cursor.as_deref(), args.limit)?;
    if ctx.json {
        ctx.print_json(&page)?;
        return Ok(0);
    }
    if page.entries.is_empty() {
        let what = if filter == ListFilter::default() {
            "no entries"
        } else {
            "no matching entries"
        };
        writeln!(ctx.out, "{what} in session `{}`", ctx.pad.session())?;
        return Ok(0);
    }
    let now = now_ms();
    let rows: Vec<Vec<String>> = page
        .entries
        .iter()
        .map(|e| {
            let mut row = vec![
                e.name.clone(),
                e.kind.to_string(),
                human_bytes(e.bytes),
                thousands(e.lines),
                if args.long {
                    utc_time(e.updated_at).trim_end_matches(" UTC").to_owned()
                } else {
                    relative(e.updated_at, now)
                },
                if e.pinned {
                    "never (pinned)".to_owned()
                } else {
                    expires(e.expires_at, now)
                },
                if e.pinned { "yes" } else { "-" }.to_owned(),
                e.version.to_string(),
            ];
            if args.long {
                row.push(crate::format::shown_name(e.author.as_deref()));
            }
            row
        })
        .collect();
    let mut header = vec![
        "NAME", "KIND", "SIZE", "LINES", "UPDATED", "EXPIRES", "PIN", "VER",
    ];
    let mut right = vec![false, false, true, true, false, false, false, true];
    if args.long {
        header[4] = "UPDATED (UTC)";
        header.push("AUTHOR");
        right.push(false);
    }
    ctx.out
        .write_all(table(&header, &rows, &right).as_bytes())?;
    if let Some(cursor) = &page.next_cursor {
        let next = next_page_command(ctx.shell.command(), &args, cursor);
        writeln!(ctx.out, "more: {next}")?;
    }
    Ok(0)
}

/// The exact `ls` that shows the next page, filters included.
fn next_page_command(command: &str, args: &LsArgs, cursor: &str) -> String {
    let mut cmd = format!("{command} ls");
    let mut flag = |name: &str, value: Option<&str>| {
        if let Some(value) = value {
            cmd.push_str(&format!(" --{name} {}", shell_word(value)));
        }
    };
    flag("kind", args.kind.as_deref());
    flag("prefix", args.prefix.as_deref());
    flag("tool", args.tool.as_deref());
    flag("turn", args.turn.as_deref());
    flag("author", args.author.as_deref());
    if args.long {
        cmd.push_str(" --long");
    }
    if args.pinned {
        cmd.push_str(" --pinned");
    }
    if args.limit != 50 {
        cmd.push_str(&format!(" --limit {}", args.limit));
    }
    cmd.push_str(&format!(" --cursor {}", shell_word(cursor)));
    cmd
}

pub fn search(ctx: &mut Ctx, args: &SearchArgs) -> anyhow::Result<u8> {
    let hits = ctx.pad.search(&args.query, args.limit)?;
    if ctx.json {
        ctx.print_json(&hits)?;
        return Ok(0);
    }
    if hits.is_empty() {
        writeln!(
            ctx.out,
            "no entries in session `{}` match `{}`",
            ctx.pad.session(),
            args.query
        )?;
        return Ok(0);
    }
    for hit in &hits {
        writeln!(ctx.out, "{} ({})", hit.entry.name, hit.entry.kind)?;
        for line in hit.snippet.lines() {
            writeln!(ctx.out, "    {line}")?;
        }
    }
    Ok(0)
}

pub fn stats(ctx: &mut Ctx) -> anyhow::Result<u8> {
    let stats = ctx.pad.stats()?;
    if ctx.json {
        ctx.print_json(&stats)?;
        return Ok(0);
    }
    let f = &stats.figures;
    let quota = match stats.quota_bytes {
        Some(q) => format!("{} ({} bytes)", human_bytes(q), thousands(q)),
        None => "none".to_owned(),
    };
    let rows = [
        ("session", stats.session.clone()),
        (
            "entries",
            format!("{} ({} pinned)", thousands(f.entries), thousands(f.pinned)),
        ),
        (
            "bytes",
            format!("{} ({} bytes)", human_bytes(f.bytes), thousands(f.bytes)),
        ),
        (
            "tokens",
            format!(
                "~{} stored, ~{} kept out of context",
                thousands(f.tokens_est),
                thousands(f.tokens_kept_out)
            ),
        ),
        (
            "store",
            format!(
                "{} of unique content, all sessions",
                human_bytes(stats.store_bytes)
            ),
        ),
        ("quota", quota),
    ];
    for (label, value) in rows {
        writeln!(ctx.out, "{:<9} {value}", format!("{label}:"))?;
    }
    Ok(0)
}

pub fn check(ctx: &mut Ctx) -> anyhow::Result<u8> {
    let report = ctx.pad.check(&mut |_| {})?;
    let code = u8::from(!report.problems.is_empty() || !report.unexpected.is_empty());
    if ctx.json {
        ctx.print_json(&report)?;
        return Ok(code);
    }
    writeln!(
        ctx.out,
        "checked {} contents: {} chunks, {} bytes{}",
        thousands(report.blobs + report.problems.len() as u64),
        thousands(report.chunks),
        thousands(report.bytes),
        if report.chunks_without_checksum > 0 {
            format!(
                " ({} chunks written before checksums were kept, checked by their content's hash)",
                thousands(report.chunks_without_checksum)
            )
        } else {
            String::new()
        }
    )?;
    for problem in &report.problems {
        let hit: Vec<String> = problem
            .entries
            .iter()
            .map(|(session, name)| format!("`{name}` (session {session})"))
            .collect();
        writeln!(
            ctx.out,
            "DAMAGED: {}; entries with this content: {}",
            problem.what,
            if hit.is_empty() {
                "none".to_owned()
            } else {
                hit.join(", ")
            }
        )?;
    }
    if report.unreferenced_files > 0 {
        writeln!(
            ctx.out,
            "{} side files ({} bytes) belong to no entry; `gc` removes them",
            thousands(report.unreferenced_files),
            thousands(report.unreferenced_bytes)
        )?;
    }
    for unexpected in &report.unexpected {
        writeln!(ctx.out, "NOT MADE BY THE STORE: {unexpected}")?;
    }
    if report.problems.is_empty() && report.unexpected.is_empty() {
        writeln!(ctx.out, "no damage found")?;
    } else if report.problems.is_empty() {
        writeln!(
            ctx.out,
            "no damage found; the store did not make {} in its folders (above): move {} out",
            counted(report.unexpected.len() as u64, "thing", "things"),
            if report.unexpected.len() == 1 {
                "it"
            } else {
                "them"
            }
        )?;
    } else {
        writeln!(
            ctx.out,
            "{} damaged: remove the entries hit (`rm`) and store their content again",
            thousands(report.problems.len() as u64)
        )?;
    }
    Ok(code)
}

pub fn gc(ctx: &mut Ctx) -> anyhow::Result<u8> {
    let report = ctx.pad.gc()?;
    if ctx.json {
        ctx.print_json(&report)?;
        return Ok(0);
    }
    writeln!(
        ctx.out,
        "removed {} expired and {} evicted entries, {} unused contents and {} abandoned writes ({} bytes freed)",
        thousands(report.expired),
        thousands(report.evicted),
        thousands(report.blobs_removed),
        thousands(report.stale_writes_removed),
        thousands(report.bytes_freed)
    )?;
    writeln!(
        ctx.out,
        "store on disk: {} → {}",
        human_bytes(report.disk_bytes_before),
        human_bytes(report.disk_bytes_after)
    )?;
    for unexpected in &report.unexpected {
        writeln!(ctx.out, "NOT MADE BY THE STORE: {unexpected}")?;
    }
    Ok(0)
}

/// Removed notes whose versions are kept, most recently removed first.
fn ls_removed(ctx: &mut Ctx, args: &LsArgs) -> anyhow::Result<u8> {
    let removed = ctx.pad.removed(args.limit)?;
    if ctx.json {
        ctx.print_json(&json!({ "removed": removed }))?;
        return Ok(0);
    }
    if removed.is_empty() {
        writeln!(
            ctx.out,
            "no removed entries kept in session `{}`",
            ctx.pad.session()
        )?;
        return Ok(0);
    }
    let rows: Vec<Vec<String>> = removed
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                r.id.clone(),
                thousands(r.versions),
                human_bytes(r.bytes),
                utc_time(r.removed_at).trim_end_matches(" UTC").to_owned(),
                crate::format::shown_name(r.removed_by.as_deref()),
                r.keep_until.map_or_else(
                    || "purged by hand".to_owned(),
                    |at| utc_time(at).trim_end_matches(" UTC").to_owned(),
                ),
            ]
        })
        .collect();
    let header = [
        "NAME",
        "ID",
        "VERSIONS",
        "SIZE",
        "REMOVED (UTC)",
        "BY",
        "KEPT UNTIL",
    ];
    let right = [false, false, true, true, false, false, false];
    ctx.out
        .write_all(table(&header, &rows, &right).as_bytes())?;
    let restore = ctx.shell.call(&Call::RestoreRemoved {
        name: "NAME".to_owned(),
        as_name: None,
    });
    writeln!(
        ctx.out,
        "restore with `{restore}` (or the ID, where a name was removed twice)"
    )?;
    Ok(0)
}
