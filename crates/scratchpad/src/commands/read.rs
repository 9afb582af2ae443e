//! `read`: one mode of the engine's reader, rendered for a terminal, as JSON, or raw.

use std::io::Write as _;

use scratchpad_core::{ReadMode, Speak as _};

use crate::Ctx;
use crate::cli::ReadArgs;
use crate::ranges;

pub fn read(ctx: &mut Ctx, args: ReadArgs) -> anyhow::Result<u8> {
    let mode = mode(&args)?;
    if args.raw && ctx.json {
        anyhow::bail!("--raw prints the content alone and --json wraps it in JSON; choose one");
    }
    if args.raw && matches!(mode, ReadMode::Full { .. }) {
        // Streamed as stored, so an export works for any size and any kind, binary included,
        // of the current version or an older one alike.
        let (_, mut content) = match args.version {
            Some(version) => ctx.pad.open_version_content(&args.reference, version)?,
            None => ctx.pad.open_content(&args.reference)?,
        };
        std::io::copy(&mut content, &mut ctx.out)?;
        return Ok(0);
    }
    // Raw output feeds other programs: nothing is cut unless a budget is given.
    let budget = match (args.raw, args.budget) {
        (true, None) => Some(usize::MAX / 8),
        (_, budget) => budget,
    };
    let reply = match args.version {
        Some(version) => ctx
            .pad
            .read_version(&args.reference, version, &mode, budget)?,
        None => ctx.pad.read(&args.reference, &mode, budget)?,
    };
    if ctx.json {
        ctx.print_json(&reply)?;
    } else if args.raw {
        // The content alone: lines without the numbers a model reads them with.
        ctx.out.write_all(reply.text.as_bytes())?;
        if let Some(next) = reply.next_call() {
            // stdout holds only content; the rest is still worth knowing, as the same kind of
            // read: raw, within the same budget.
            let mut next = format!("{} --raw", ctx.shell.call(&next));
            if let Some(budget) = args.budget {
                next.push_str(&format!(" --budget {budget}"));
            }
            let _ = writeln!(
                std::io::stderr(),
                "[cut at the reply budget; continue with: {next}]"
            );
        }
    } else {
        ctx.out.write_all(reply.render(&ctx.shell).as_bytes())?;
    }
    Ok(0)
}

pub fn mode(args: &ReadArgs) -> anyhow::Result<ReadMode> {
    if let Some(n) = args.head {
        return Ok(ReadMode::Head { n });
    }
    if let Some(n) = args.tail {
        return Ok(ReadMode::Tail { n });
    }
    if let Some(text) = &args.range {
        let span = ranges::offsets("--range", "character", text)?;
        return Ok(ReadMode::Range {
            start: span.from,
            end: span.to,
        });
    }
    if let Some(text) = &args.lines {
        let span = ranges::lines(text)?;
        return Ok(ReadMode::Lines {
            from: span.from,
            to: span.to,
        });
    }
    if let Some(pattern) = &args.grep {
        return Ok(ReadMode::Grep {
            pattern: pattern.clone(),
            context: args.context,
            max_matches: args.max,
            ignore_case: args.ignore_case,
            from: args.from_line,
        });
    }
    if let Some(query) = &args.jq {
        return Ok(ReadMode::Json {
            query: query.clone(),
        });
    }
    if let Some(text) = &args.bytes {
        let span = ranges::offsets("--bytes", "byte", text)?;
        return Ok(ReadMode::Bytes {
            offset: span.from,
            length: span.to.map(|to| to - span.from),
        });
    }
    if let Some(from) = args.summary {
        return Ok(ReadMode::Summary { from });
    }
    Ok(ReadMode::Full { force: args.force })
}
