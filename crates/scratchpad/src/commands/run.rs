//! `run`: run a command, store its output (stdout and stderr merged line by line), say what came on
//! stderr, and pass its exit code on.

use std::collections::VecDeque;
use std::io::{PipeReader, Read, Write};
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::sync::mpsc::{self, Receiver, SyncSender};

use anyhow::Context as _;
use scratchpad_core::figures::counted;
use scratchpad_core::read::Stop;
use scratchpad_core::{EntryInfo, PutOptions, Source, Ttl, hint};
use serde_json::json;

use super::{entry_json, parse_ttl_flag};
use crate::Ctx;
use crate::cli::RunArgs;
use crate::format::stored_line;
use crate::interrupt::{Interruptible, Storing};
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

    // Both streams are read as they come and their lines queued in one order, so the entry reads as
    // a terminal would have shown it; what came on stderr is counted on the way.
    let (stdout, stdout_end) = std::io::pipe().context("cannot create a pipe for stdout")?;
    let (stderr, stderr_end) = std::io::pipe().context("cannot create a pipe for stderr")?;
    let spawned = Command::new(program)
        .args(program_args)
        .stdout(stdout_end)
        .stderr(stderr_end)
        .spawn();
    // The `Command` and its copies of the write ends are gone here, so each pipe ends with the child.
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

    let storing = Storing::start();
    let (queue, queued) = mpsc::sync_channel(QUEUED_PIECES);
    let (stored, stderr_seen) = std::thread::scope(|scope| {
        let to_out = queue.clone();
        scope.spawn(move || forward(stdout, Stream::Out, &to_out));
        scope.spawn(move || forward(stderr, Stream::Err, &queue));
        let mut output = Interleaved::new(queued);
        let stored = store_output(ctx, &mut output, &args, tool, &cwd, ttl);
        // A failed store stops reading; dropping the queue ends the forwarders, and closing their
        // pipes lets the command end (SIGPIPE) instead of blocking.
        (stored, output.stderr)
    });
    let status = child.wait().context("cannot wait for the command")?;
    drop(storing);
    let stored = stored?;
    let code = exit_code(status);
    // The exit code is known only now: it joins the command and its stderr in the entry's metadata,
    // in the version just stored (a fresh entry is at version 1, not at a "metadata replaced" 2).
    let meta = json!({
        "command": args.command,
        "cwd": cwd,
        "exit_code": code,
        "stderr": stderr_seen.meta(),
    });
    let info = ctx.pad.complete_meta(&stored.name, meta, stored.version)?;

    let inline = !ctx.pad.is_large(info.source.tool.as_deref(), info.bytes);
    if ctx.json {
        let mut value = entry_json(ctx, &info);
        if let Some(object) = value.as_object_mut() {
            object.insert("exit_code".into(), json!(code));
            object.insert("stderr".into(), stderr_seen.json());
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
        writeln!(ctx.out, "{}", stored_line("stored", &info))?;
        let preview = info.preview.trim_end_matches('\n');
        if !preview.is_empty() {
            writeln!(ctx.out, "{preview}")?;
        }
        if stderr_seen.lines == 0 {
            writeln!(ctx.out, "[exit code {code}, nothing on stderr]")?;
        } else {
            let shown = info.profile.as_ref();
            stderr_seen.print(&mut ctx.out, |number| {
                shown.is_some_and(|profile| profile.shows_line(number))
            })?;
            writeln!(ctx.out, "[exit code {code}]")?;
        }
        writeln!(ctx.out, "{}", hint(&info).render(&ctx.shell))?;
    }
    ctx.out.flush()?;
    if inline && !ctx.json {
        // Inline, the output is all the reader sees: where it was stored goes to stderr, so stdout
        // stays the command's own, and an empty output does not leave an entry nobody knows of.
        let mut said = Vec::new();
        if info.bytes == 0 {
            said.push("no output".to_owned());
        }
        if code != 0 {
            said.push(format!("exit code {code}"));
        }
        said.push(format!("stored as `{}`", info.name));
        let _ = writeln!(std::io::stderr(), "[{}]", said.join(", "));
    } else if code != 0 && ctx.json {
        let _ = writeln!(std::io::stderr(), "[exit code {code}]");
    }
    Ok(code)
}

fn store_output(
    ctx: &Ctx,
    output: &mut Interleaved,
    args: &RunArgs,
    tool: String,
    cwd: &str,
    ttl: Ttl,
) -> scratchpad_core::Result<EntryInfo> {
    let mut progress = Progress::new(ctx.json, None);
    let mut on_progress = |bytes: u64| progress.update(bytes);
    let stored = ctx.pad.put(
        &mut Interruptible(output),
        PutOptions {
            name: args.name.clone(),
            source: Source {
                tool: Some(tool),
                ..Source::default()
            },
            meta: json!({ "command": args.command, "cwd": cwd }),
            turn: args.turn.clone(),
            ttl,
            pinned: args.keep.pin,
            condition: None,
            keep_history: false,
            progress: Some(&mut on_progress),
            // Ctrl-C ends the process; a put that dies leaves nothing behind.
            stop: Stop::default(),
        },
    );
    progress.finish();
    stored
}

/// Which of the command's streams a piece of output came on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Out,
    Err,
}

/// Bytes a stream may hold back waiting for the end of its line; a longer line is passed on in
/// pieces, so memory stays bounded whatever the command writes.
const LINE_WAIT: usize = 64 * 1024;
/// Pieces (each at most about 2 × [`LINE_WAIT`]) queued between the streams and the store: enough
/// that neither stream waits on the other while the store catches up, so lines keep the order in
/// which the command wrote them.
const QUEUED_PIECES: usize = 64;

/// Reads `stream` and queues it a whole line at a time (or [`LINE_WAIT`] bytes of a longer line).
/// Returns when the stream ends or the queue's reader has gone.
fn forward(mut stream: PipeReader, which: Stream, queue: &SyncSender<(Stream, Vec<u8>)>) {
    let mut pending = Vec::with_capacity(2 * LINE_WAIT);
    let mut chunk = vec![0; LINE_WAIT];
    loop {
        let read = match stream.read(&mut chunk) {
            Ok(read) => read,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => 0,
        };
        pending.extend_from_slice(&chunk[..read]);
        let ready = match memchr::memrchr(b'\n', &pending) {
            _ if read == 0 => pending.len(),
            Some(last) => last + 1,
            None if pending.len() >= LINE_WAIT => pending.len(),
            None => continue,
        };
        if ready > 0 {
            let rest = pending.split_off(ready);
            if queue
                .send((which, std::mem::replace(&mut pending, rest)))
                .is_err()
            {
                return;
            }
        }
        if read == 0 {
            return;
        }
    }
}

/// The command's output as one stream, in the order its pieces were queued, noting on the way which
/// lines came on stderr.
#[derive(Debug)]
struct Interleaved {
    queued: Receiver<(Stream, Vec<u8>)>,
    piece: Vec<u8>,
    at: usize,
    /// Newlines passed on so far: the next line is line `lines + 1` of the entry.
    lines: u64,
    stderr: StderrSeen,
}

impl Interleaved {
    fn new(queued: Receiver<(Stream, Vec<u8>)>) -> Self {
        Self {
            queued,
            piece: Vec::new(),
            at: 0,
            lines: 0,
            stderr: StderrSeen::default(),
        }
    }
}

impl Read for Interleaved {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.piece.len() {
            // Both forwarders gone: the command's output has ended.
            let Ok((stream, piece)) = self.queued.recv() else {
                return Ok(0);
            };
            if stream == Stream::Err {
                for (i, line) in piece.split_inclusive(|&b| b == b'\n').enumerate() {
                    self.stderr.add(self.lines + 1 + i as u64, line);
                }
            }
            self.lines += memchr::memchr_iter(b'\n', &piece).count() as u64;
            self.piece = piece;
            self.at = 0;
        }
        let n = buf.len().min(self.piece.len() - self.at);
        buf[..n].copy_from_slice(&self.piece[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Lines of stderr shown under the preview.
const STDERR_TAIL: usize = 5;
/// Characters of each such line shown.
const STDERR_LINE_CHARS: usize = 300;

/// What came on stderr: how much, and its last lines with their numbers in the entry.
#[derive(Debug, Default)]
struct StderrSeen {
    lines: u64,
    bytes: u64,
    tail: VecDeque<(u64, String)>,
}

impl StderrSeen {
    fn add(&mut self, number: u64, line: &[u8]) {
        self.lines += 1;
        self.bytes += line.len() as u64;
        if self.tail.len() == STDERR_TAIL {
            self.tail.pop_front();
        }
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end_matches(['\n', '\r']);
        let shown: String = text.chars().take(STDERR_LINE_CHARS).collect();
        let cut = if shown.len() < text.len() {
            " […]"
        } else {
            ""
        };
        self.tail.push_back((number, format!("{shown}{cut}")));
    }

    /// For the entry's metadata: the counts and where its last lines are.
    fn meta(&self) -> serde_json::Value {
        json!({
            "lines": self.lines,
            "bytes": self.bytes,
            "last_lines": self.tail.iter().map(|(number, _)| number).collect::<Vec<_>>(),
        })
    }

    /// For `--json`: the counts and the last lines themselves.
    fn json(&self) -> serde_json::Value {
        json!({
            "lines": self.lines,
            "bytes": self.bytes,
            "tail": self.tail.iter().map(|(line, text)| json!({"line": line, "text": text})).collect::<Vec<_>>(),
        })
    }

    /// "[stderr: 1,204 lines; the last 5:]" and those lines, numbered as in the entry; those the
    /// preview above already shows (`shown`, usually its last lines) are counted, not repeated.
    fn print(&self, out: &mut impl Write, shown: impl Fn(u64) -> bool) -> std::io::Result<()> {
        let count = self.tail.len() as u64;
        let which = if count == self.lines {
            String::new()
        } else {
            format!("; the last {count}")
        };
        let unseen: Vec<&(u64, String)> = self
            .tail
            .iter()
            .filter(|(number, _)| !shown(*number))
            .collect();
        let seen = count - unseen.len() as u64;
        let lines = counted(self.lines, "line", "lines");
        if seen == 0 {
            writeln!(out, "[stderr: {lines}{which}:]")?;
        } else if unseen.is_empty() {
            let are = if count == 1 { "is" } else { "are" };
            writeln!(out, "[stderr: {lines}{which} {are} shown above]")?;
        } else {
            writeln!(
                out,
                "[stderr: {lines}{which}, {seen} of them shown above; the others:]"
            )?;
        }
        for (number, text) in unseen {
            writeln!(out, "{number:>9}: {text}")?;
        }
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(numbers: &[u64]) -> StderrSeen {
        let mut seen = StderrSeen::default();
        for &number in numbers {
            seen.add(number, format!("stderr line at {number}\n").as_bytes());
        }
        seen
    }

    fn printed(seen: &StderrSeen, tail_from: u64) -> String {
        let mut out = Vec::new();
        seen.print(&mut out, |number| number >= tail_from)
            .unwrap_or_default();
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Regression: the stderr block under a preview repeated the lines its tail had just shown
    /// (a failing build's last lines are on stderr and end the output).
    #[test]
    fn stderr_lines_the_preview_ends_with_are_not_repeated() {
        let seen = seen(&[10, 500, 998, 999, 1_000, 1_001]);
        assert_eq!(
            printed(&seen, 998),
            "[stderr: 6 lines; the last 5, 4 of them shown above; the others:]\n      500: \
             stderr line at 500\n"
        );
        assert_eq!(
            printed(&seen, 400),
            "[stderr: 6 lines; the last 5 are shown above]\n"
        );
        assert_eq!(
            printed(&seen, 2_000),
            "[stderr: 6 lines; the last 5:]\n      500: stderr line at 500\n      998: stderr \
             line at 998\n      999: stderr line at 999\n     1000: stderr line at 1000\n     \
             1001: stderr line at 1001\n"
        );
    }
}
