//! `run`: run a command, store its merged output, and pass its exit code on.

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::{Command, ExitStatus};

use anyhow::Context as _;
use scratchpad_core::{PutOptions, Source};
use serde_json::json;

use super::{entry_json, parse_ttl_flag, print_reference};
use crate::Ctx;
use crate::cli::RunArgs;
use crate::progress::Progress;

/// The shell's code for "command not found".
const CANNOT_START: u8 = 127;

pub fn run(ctx: &mut Ctx, args: RunArgs) -> anyhow::Result<u8> {
    let ttl = parse_ttl_flag(args.keep.ttl.as_deref())?;
    let Some((program, program_args)) = args.command.split_first() else {
        anyhow::bail!("no command given; use `scratchpad run -- CMD ARGS…`");
    };
    let tool = Path::new(program)
        .file_name()
        .map_or_else(|| program.clone(), |n| n.to_string_lossy().into_owned());
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_default();

    // One pipe for both streams keeps stdout and stderr lines in the order the command wrote them.
    let (mut reader, writer) =
        std::io::pipe().context("cannot create a pipe for the command's output")?;
    let spawned = {
        let mut command = Command::new(program);
        command
            .args(program_args)
            .stdout(
                writer
                    .try_clone()
                    .context("cannot create a pipe for the command's output")?,
            )
            .stderr(writer);
        // `command` holds the parent's copies of the write end: it must be dropped before reading,
        // or the pipe never reports its end.
        command.spawn()
    };
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => {
            let _ = writeln!(
                std::io::stderr(),
                "error: cannot run `{program}`: {}",
                io_reason(&err)
            );
            return Ok(CANNOT_START);
        }
    };

    let mut progress = Progress::new(ctx.json, None);
    let mut on_progress = |bytes: u64| progress.update(bytes);
    let stored = ctx.pad.put(
        &mut reader,
        PutOptions {
            name: args.name,
            source: Source {
                tool: Some(tool),
                ..Source::default()
            },
            meta: json!({ "command": args.command, "cwd": cwd }),
            turn: args.turn,
            ttl,
            pinned: args.keep.pin,
            condition: None,
            progress: Some(&mut on_progress),
        },
    );
    progress.finish();
    // A failed store stops reading; closing our end lets the command end (SIGPIPE) instead of blocking.
    drop(reader);
    let status = child.wait().context("cannot wait for the command")?;
    let info = stored?;
    let code = exit_code(status);

    let inline = !ctx.pad.is_large(info.source.tool.as_deref(), info.bytes);
    if ctx.json {
        let mut value = entry_json(ctx, &info);
        if let Some(object) = value.as_object_mut() {
            object.insert("exit_code".into(), json!(code));
            if inline {
                let mut output = Vec::new();
                ctx.pad
                    .open_content(&info.name)?
                    .1
                    .read_to_end(&mut output)?;
                object.insert("output".into(), json!(String::from_utf8_lossy(&output)));
            }
        }
        ctx.print_json(&value)?;
    } else if inline {
        let (_, mut content) = ctx.pad.open_content(&info.name)?;
        std::io::copy(&mut content, &mut ctx.out)?;
    } else {
        print_reference(ctx, &info)?;
    }
    ctx.out.flush()?;
    if code != 0 {
        let _ = writeln!(std::io::stderr(), "[exit code {code}]");
    }
    Ok(code)
}

/// The command's code, or 128 + the signal that ended it (as shells report it).
fn exit_code(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code & 0xff).unwrap_or(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(255),
        (None, None) => 1,
    }
}

/// "No such file or directory" without the "(os error 2)" suffix.
fn io_reason(err: &std::io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}
