//! Claude Code's Bash tool through the scratchpad: the lines the SessionStart hook adds to
//! `$CLAUDE_ENV_FILE`, and `scratchpad hooks capture`, the process those lines send each command's
//! output through.
//!
//! Claude Code pastes the env file into the script of each Bash command, just before the
//! command, and matches its permission rules against the command alone: the command string is never
//! touched, so the user's allow and deny rules keep their meaning. The lines send the shell's stdout
//! and stderr into a capture process and, on exit, pass it the command's exit status in band and
//! wait for it, so nothing is lost when the shell ends.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use scratchpad_core::read::Stop;
use scratchpad_core::{Config, PutOptions, Source, Ttl, hint};
use serde_json::json;

use crate::cli::{GlobalArgs, HooksCaptureArgs};
use crate::format::stored_line;
use crate::speak::{Shell, shell_word};

/// The tool name captured outputs are stored under: names are `bash_N`, and `[tools.bash]
/// threshold_bytes` in the configuration file sets the size above which they are stored.
pub const TOOL: &str = "bash";
/// Where the capture lines begin and end: a session start finds its own lines by these.
const BEGIN: &str = "# >>> scratchpad:";
const END: &str = "# <<< scratchpad";
/// What the shell writes, followed by its nonce, a space, the exit status and a newline, as the
/// last thing it sends: the NUL keeps it from ever being a line of text a command prints.
const MARKER: &[u8] = b"\0scratchpad-exit ";
/// Digits and newline a marker's status may take after the nonce before it is taken for output.
const STATUS_BYTES: usize = 8;
/// The length of the line the capture lines end the output with: the marker, a nonce of 15
/// digits, a space, the exit status in 3 digits, a newline. Fixed, so that when the capture cannot
/// run, `head -c -N` passes on the output without it.
const MARKER_BYTES: usize = MARKER.len() + 15 + 1 + 3 + 1;
/// Bytes read from the shell at a time.
const CHUNK_BYTES: usize = 64 * 1024;
/// Chunks queued between the reading thread and the writer: the shell blocks when they are full,
/// so memory stays bounded whatever the command prints.
const QUEUED_CHUNKS: usize = 16;
/// Output below the threshold is held at most this long before it is passed on as it comes: a
/// fast command's output is judged whole, a slow one (a server in the background) is seen live.
const HOLD_FOR: Duration = Duration::from_millis(1_000);
/// Spooled bytes between two looks at the room left where the spool is.
const SPOOL_CHECK_BYTES: u64 = 64 * 1024 * 1024;
/// Room the spool leaves on its file system: past it, the output is passed on instead of spooled,
/// so a runaway command never fills the disk other programs write to.
const SPOOL_RESERVE_BYTES: u64 = 1024 * 1024 * 1024;
/// After the shell's exit status, how long the capture waits for the end of its input before
/// leaving the rest to a drain process: a background child (`server &`) may hold the pipe for
/// hours, and must not die of a closed pipe when it next writes.
const DRAIN_WAIT: Duration = Duration::from_millis(50);

/// The agents whose shell tool the capture lines can tell apart from every other bash, each by
/// the script it runs the model's command in (as the pinned versions the tests run write it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code pastes the lines (from `$CLAUDE_ENV_FILE`) into the script of each Bash
    /// command, before `eval '<COMMAND>'`: the command is what follows the script's last ` eval '`,
    /// never a match anywhere in the script (these lines, pasted into it, would match).
    ClaudeCode,
    /// Gemini CLI runs `bash -c` on a script that starts with `shopt -u promptvars` and runs the
    /// command in a subshell, on the line after the subshell's `trap … EXIT`; bash reads the
    /// lines from `BASH_ENV`, set in Gemini CLI's `.env` file. The command's own EXIT traps live in
    /// that subshell, so they never replace the capture's.
    Gemini,
    /// Codex runs `bash -lc <COMMAND>`, or once its shell snapshot is made, a wrapper that sources
    /// the snapshot and `exec`s `bash -c <COMMAND>` (the wrapper names `__CODEX_SNAPSHOT_`
    /// variables; it must keep `BASH_ENV` for the shell it execs, and redirect nothing, since its
    /// EXIT trap dies with the exec). Bash reads the lines from `BASH_ENV`, set by Codex's
    /// `[shell_environment_policy]`; the command's shell has `CODEX_THREAD_ID`.
    Codex,
}

impl Agent {
    fn title(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code's Bash",
            Agent::Gemini => "Gemini CLI's run_shell_command",
            Agent::Codex => "Codex's exec_command",
        }
    }

    fn flag(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Gemini => "gemini",
            Agent::Codex => "codex",
        }
    }

    /// The test that this bash runs the model's command for this agent.
    fn guard(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "-z ${__scratchpad_capture-}",
            Agent::Gemini => {
                r#"-z ${__scratchpad_capture-} && ${GEMINI_CLI-} == 1 && ${BASH_EXECUTION_STRING-} == "shopt -u promptvars"*"#
            }
            Agent::Codex => {
                "-z ${__scratchpad_capture-} && -n ${CODEX_THREAD_ID-} && -n ${BASH_EXECUTION_STRING-} \
      && ${BASH_EXECUTION_STRING} != *__CODEX_SNAPSHOT_*"
            }
        }
    }

    /// The shell lines that set `__scratchpad_command` to the model's command (and what follows it).
    fn command(self) -> &'static str {
        match self {
            Agent::ClaudeCode => {
                r#"__scratchpad_command=${BASH_EXECUTION_STRING-}
    __scratchpad_command=${__scratchpad_command##*" eval '"}"#
            }
            Agent::Gemini => r"__scratchpad_command=${BASH_EXECUTION_STRING#*$'EXIT\n'}",
            Agent::Codex => "__scratchpad_command=$BASH_EXECUTION_STRING",
        }
    }

    /// Whether the model's command runs in the shell that reads the lines, rather than in a
    /// subshell of it (Gemini CLI's), where its own EXIT traps cannot touch the capture's.
    fn runs_command_in_own_shell(self) -> bool {
        match self {
            Agent::ClaudeCode | Agent::Codex => true,
            Agent::Gemini => false,
        }
    }

    /// Whether bash reads the lines from `BASH_ENV`: then every bash the command starts would read
    /// them again, so the shell that captures takes `BASH_ENV` out of its children's environment.
    fn through_bash_env(self) -> bool {
        match self {
            Agent::ClaudeCode => false,
            Agent::Gemini | Agent::Codex => true,
        }
    }
}

/// The lines that send the output of `agent`'s shell tool through `program hooks capture`, when
/// `program` can be run and the shell is a bash that can wait for a process substitution (5.1 and
/// later), unless the command runs a scratchpad command, first or after `;`, `&&`, `|`, `(` or a
/// newline (`cd x && scratchpad read …`): a read's output reaches the model as it is, never stored
/// again. `global` are the flags written before `hooks capture` (`--session NAME`). Where
/// `scratchpad` is not on the shell's `PATH`, it is made a function running `program`, so that the
/// `scratchpad read …` the reference suggests works.
///
/// The capture ignores the signals that stop the command (the agent's timeout, the user's
/// interrupt): it ends when its input does, and stores what came. Should it fail to start (the
/// binary removed between the check and its start) or stop early, `head` passes the rest on less
/// the exit-status line (`cat` where `head` cannot count from the end), so a command never writes
/// into a closed pipe.
pub fn env_lines(agent: Agent, program: &str, global: &str) -> String {
    let word = shell_word(program);
    let (present, function) = if program.contains('/') {
        (
            format!("[[ -x {word} ]]"),
            format!("\n    command -v scratchpad >/dev/null || scratchpad() {{ {word} \"$@\"; }}"),
        )
    } else {
        (format!("command -v {word} >/dev/null"), String::new())
    };
    let unset = if agent.through_bash_env() {
        "\n  unset BASH_ENV"
    } else {
        ""
    };
    format!(
        r#"{BEGIN} {title} output through `scratchpad hooks capture` (`scratchpad hooks uninstall --client {flag}` turns it off for new sessions)
if [[ {guard} ]]; then{unset}
  if {present} && (( BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 501 )); then{function}
    {command}
    case $__scratchpad_command in
      scratchpad[[:space:]]* | scratchpad\'* | {word}[[:space:]]* | {word}\'* | \
        *[\;\&\|\($'\n']scratchpad[[:space:]]* | *[\;\&\|\($'\n'][[:space:]]scratchpad[[:space:]]*) ;;
      *)
        printf -v __scratchpad_capture '%05d%05d%05d' "$RANDOM" "$RANDOM" "$RANDOM"
        exec > >(trap '' INT TERM HUP; {word}{global} hooks capture --marker "$__scratchpad_capture" 2>/dev/null || {{ head -c -{MARKER_BYTES} 2>/dev/null || cat; }}) 2>&1
        __scratchpad_capture_pid=$!
        exec {{__scratchpad_capture_fd}}>&1
        __scratchpad_exit='printf "\0scratchpad-exit %s %03d\n" "$__scratchpad_capture" "$__scratchpad_status" >&"$__scratchpad_capture_fd"; exec >&- 2>&- {{__scratchpad_capture_fd}}>&-; wait "$__scratchpad_capture_pid"'
        trap "__scratchpad_status=\$?; $__scratchpad_exit" EXIT{keep_exit}
        ;;
    esac
  fi
fi
{END}
"#,
        title = agent.title(),
        flag = agent.flag(),
        guard = agent.guard(),
        command = agent.command(),
        keep_exit = if agent.runs_command_in_own_shell() {
            KEEP_EXIT
        } else {
            ""
        },
    )
}

/// A `trap` function for a shell whose command runs in it: a command that sets its own EXIT trap
/// (`tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT`) would replace the capture's, and the shell would
/// end without passing the exit status or waiting for the capture. Set in this shell (never in a
/// subshell, whose exit is not the command's), the command's handler runs first, with `$?` as it
/// was, then the capture's; `trap - EXIT` and `trap '' EXIT` leave the capture's alone. Every other
/// use goes to the builtin.
const KEEP_EXIT: &str = r#"
        __scratchpad_shell=$BASHPID
        __scratchpad_return() { return "$1"; }
        trap() {
          local __scratchpad_args=("$@") __scratchpad_signal __scratchpad_handler
          [[ ${__scratchpad_args[0]-} == -- ]] && __scratchpad_args=("${__scratchpad_args[@]:1}")
          if [[ $BASHPID != "$__scratchpad_shell" || ${#__scratchpad_args[@]} -lt 2 || ${__scratchpad_args[0]} == -[lp] ]]; then
            builtin trap "$@"
            return
          fi
          __scratchpad_handler=${__scratchpad_args[0]}
          [[ $__scratchpad_handler == - ]] && __scratchpad_handler=
          for __scratchpad_signal in "${__scratchpad_args[@]:1}"; do
            case ${__scratchpad_signal^^} in
              EXIT | 0 | SIGEXIT)
                builtin trap -- "__scratchpad_status=\$?; __scratchpad_return \"\$__scratchpad_status\"; $__scratchpad_handler"$'\n'"$__scratchpad_exit" EXIT ;;
              *) builtin trap -- "${__scratchpad_args[0]}" "$__scratchpad_signal" ;;
            esac
          done
        }"#;

/// Adds [`env_lines`] to the env file at `path`, once: a session start (startup, resume, clear,
/// compaction) that finds them there already changes nothing, and lines of another scratchpad
/// (another path or session) are replaced.
pub fn add_env_lines(path: &Path, lines: &str) -> anyhow::Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    };
    if text.contains(lines) {
        return Ok(());
    }
    let old = text.find(BEGIN).and_then(|start| {
        let end = text[start..].find(&format!("\n{END}\n"))? + start + END.len() + 2;
        Some(start..end)
    });
    match old {
        Some(range) => {
            let mut new = text.clone();
            new.replace_range(range, "");
            new.push_str(lines);
            std::fs::write(path, new).with_context(|| format!("cannot write {}", path.display()))
        }
        None => {
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            // Lines another hook left without a final newline stay whole.
            let lead = if text.is_empty() || text.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            file.write_all(format!("{lead}{lines}").as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))
        }
    }
}

pub fn capture(global: &GlobalArgs, args: &HooksCaptureArgs) -> anyhow::Result<u8> {
    if args.drain {
        drain();
        return Ok(0);
    }
    // A configuration file that cannot be read leaves the defaults; the store then says what is
    // wrong when it is opened, and the output is passed on whole.
    let config = Config::load(global.config.as_deref()).unwrap_or_default();
    let threshold = config.threshold_for(Some(TOOL));
    let (queue, chunks) = mpsc::sync_channel(QUEUED_CHUNKS);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        loop {
            let mut chunk = vec![0; CHUNK_BYTES];
            match stdin.read(&mut chunk) {
                Ok(0) => return,
                Ok(read) => {
                    chunk.truncate(read);
                    if queue.send(chunk).is_err() {
                        return;
                    }
                }
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return,
            }
        }
    });
    let mut end = Ending::new(args.marker.as_deref());
    let mut sink = Sink::new(threshold as u64, config.quota_bytes);
    let mut ended = None;
    while ended.is_none() {
        let next = match sink.held_since {
            Some(since) => chunks.recv_timeout(HOLD_FOR.saturating_sub(since.elapsed())),
            None => chunks.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match next {
            Ok(chunk) => {
                let (output, status) = end.feed(&chunk);
                sink.add(&output);
                ended = status;
                if sink
                    .held_since
                    .is_some_and(|since| since.elapsed() >= HOLD_FOR)
                {
                    sink.show_held();
                }
            }
            Err(RecvTimeoutError::Timeout) => sink.show_held(),
            Err(RecvTimeoutError::Disconnected) => {
                let rest = std::mem::take(&mut end.carry);
                sink.add(&rest);
                break;
            }
        }
    }
    let (code, after) = match ended {
        Some(Ended { code, after }) => (code, Some(after)),
        None => (None, None),
    };
    sink.finish(global, code);
    if let Some(after) = after {
        sink.out.write(&after);
        wait_or_drain(&chunks, &mut sink.out);
    }
    Ok(0)
}

/// After the shell's exit status: what background children still write is passed on, by this
/// process until its input ends, or by a drain process left behind if it does not end soon.
fn wait_or_drain(chunks: &Receiver<Vec<u8>>, out: &mut Out) {
    let deadline = Instant::now() + DRAIN_WAIT;
    loop {
        match chunks.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(chunk) => out.write(&chunk),
            Err(RecvTimeoutError::Disconnected) => return,
            Err(RecvTimeoutError::Timeout) => break,
        }
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let _ = Command::new(exe)
        .args(["hooks", "capture", "--drain"])
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::null())
        .spawn();
}

/// Copies stdin to stdout until stdin ends; once stdout is gone, reads on so that the writers
/// never die of a closed pipe.
fn drain() {
    let mut stdin = std::io::stdin().lock();
    let mut out = Out::default();
    let mut chunk = vec![0; CHUNK_BYTES];
    loop {
        match stdin.read(&mut chunk) {
            Ok(0) => return,
            Ok(read) => out.write(&chunk[..read]),
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// The shell's exit status (`None` if unreadable) and what came after it: output of background
/// children still writing.
#[derive(Debug, PartialEq, Eq)]
struct Ended {
    code: Option<u8>,
    after: Vec<u8>,
}

/// Finds the shell's exit status at the end of its output: the marker, the nonce, the status.
#[derive(Debug)]
struct Ending {
    /// `MARKER` + nonce + space; `None` without `--marker`: the input is all output.
    marker: Option<Vec<u8>>,
    /// The end of the input seen so far that may be the start of the marker.
    carry: Vec<u8>,
}

impl Ending {
    fn new(nonce: Option<&str>) -> Self {
        let marker = nonce.map(|nonce| [MARKER, nonce.as_bytes(), b" "].concat());
        Self {
            marker,
            carry: Vec::new(),
        }
    }

    /// The output in `chunk` that is surely output, and once the marker has come, the exit status
    /// (`None` if unreadable) and what followed it.
    fn feed(&mut self, chunk: &[u8]) -> (Vec<u8>, Option<Ended>) {
        let Some(marker) = &self.marker else {
            return (chunk.to_vec(), None);
        };
        let mut data = std::mem::take(&mut self.carry);
        data.extend_from_slice(chunk);
        if let Some(at) = memchr::memmem::find(&data, marker) {
            let status_at = at + marker.len();
            if let Some(newline) = memchr::memchr(b'\n', &data[status_at..]) {
                let code = std::str::from_utf8(&data[status_at..status_at + newline])
                    .ok()
                    .and_then(|digits| digits.parse::<u8>().ok());
                let after = data[status_at + newline + 1..].to_vec();
                data.truncate(at);
                return (data, Some(Ended { code, after }));
            }
            if data.len() - status_at <= STATUS_BYTES {
                self.carry = data.split_off(at);
            }
            return (data, None);
        }
        // A marker may have begun in the last bytes.
        let from = data.len().saturating_sub(marker.len() - 1);
        if let Some(nul) = memchr::memchr_iter(0, &data[from..])
            .map(|i| from + i)
            .find(|&nul| marker.starts_with(&data[nul..]))
        {
            self.carry = data.split_off(nul);
        }
        (data, None)
    }
}

/// Stdout, written as the output comes; once it is gone (the agent stopped reading), writes are
/// dropped so that the command never dies of a closed pipe.
#[derive(Debug, Default)]
struct Out {
    gone: bool,
}

impl Out {
    fn write(&mut self, bytes: &[u8]) {
        if self.gone || bytes.is_empty() {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        if stdout
            .write_all(bytes)
            .and_then(|()| stdout.flush())
            .is_err()
        {
            self.gone = true;
        }
    }
}

/// Where the output goes: held in memory while it may still be small, shown as it comes once held
/// for [`HOLD_FOR`], spooled to a file from the moment it passes the threshold.
#[derive(Debug)]
struct Sink {
    threshold: u64,
    /// The output up to the threshold.
    held: Vec<u8>,
    /// Bytes of `held` passed on already.
    shown: usize,
    /// Since when output is held that is not shown; `None` when nothing is held or all is shown.
    held_since: Option<Instant>,
    /// Once shown, output goes on being shown as it comes (until it passes the threshold).
    streaming: bool,
    /// The whole output, once past the threshold; `None` before, or after the spool failed.
    spool: Option<Spool>,
    /// The most the spool holds: the store's quota, which a larger output would break anyway.
    spool_max: Option<u64>,
    /// No spool could be made: the output is passed on as it comes, whatever its size.
    through: bool,
    out: Out,
}

#[derive(Debug)]
struct Spool {
    file: File,
    /// Bytes written to it.
    len: u64,
    /// When to look at the room left next.
    next_check: u64,
}

impl Spool {
    fn new(file: File) -> Self {
        Self {
            file,
            len: 0,
            next_check: SPOOL_CHECK_BYTES,
        }
    }

    /// Writes `bytes` unless they would take the spool past `max`, or the room left where it is
    /// below [`SPOOL_RESERVE_BYTES`].
    fn write(&mut self, bytes: &[u8], max: Option<u64>) -> std::io::Result<()> {
        let len = self.len + bytes.len() as u64;
        if max.is_some_and(|max| len > max) {
            return Err(std::io::Error::other(
                "the output is larger than the store's quota",
            ));
        }
        if len >= self.next_check {
            self.next_check = len + SPOOL_CHECK_BYTES;
            if room(&self.file).is_some_and(|room| room < SPOOL_RESERVE_BYTES) {
                return Err(std::io::Error::other(
                    "the temporary directory is nearly full",
                ));
            }
        }
        self.file.write_all(bytes)?;
        self.len = len;
        Ok(())
    }
}

/// Bytes an unprivileged writer may still write on `file`'s file system.
fn room(file: &File) -> Option<u64> {
    let stat = rustix::fs::fstatvfs(file).ok()?;
    Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

impl Sink {
    fn new(threshold: u64, spool_max: Option<u64>) -> Self {
        Self {
            threshold,
            held: Vec::new(),
            shown: 0,
            held_since: None,
            streaming: false,
            spool: None,
            spool_max,
            through: false,
            out: Out::default(),
        }
    }

    fn add(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if self.through {
            self.out.write(bytes);
            return;
        }
        if let Some(spool) = &mut self.spool {
            if spool.write(bytes, self.spool_max).is_ok() {
                return;
            }
            // No room to spool, or more than the store would take: what is spooled and the rest
            // are passed on whole.
            self.give_up_spool();
            self.out.write(bytes);
            return;
        }
        if (self.held.len() + bytes.len()) as u64 <= self.threshold {
            self.held.extend_from_slice(bytes);
            if self.streaming {
                self.show_held();
            } else if self.held_since.is_none() {
                self.held_since = Some(Instant::now());
            }
            return;
        }
        self.held_since = None;
        let spooled = open_spool().and_then(|file| {
            let mut spool = Spool::new(file);
            spool.write(&self.held, self.spool_max)?;
            spool.write(bytes, self.spool_max)?;
            Ok(spool)
        });
        match spooled {
            Ok(spool) => self.spool = Some(spool),
            Err(_) => {
                self.show_held();
                self.out.write(bytes);
                self.through = true;
            }
        }
    }

    /// Passes on what is held and not shown yet.
    fn show_held(&mut self) {
        let shown = self.shown.min(self.held.len());
        self.out.write(&self.held[shown..]);
        self.shown = self.held.len();
        self.held_since = None;
        self.streaming = true;
    }

    /// The spool failed part way: its bytes (less what was shown) go out, and all that follows.
    fn give_up_spool(&mut self) {
        if let Some(mut spool) = self.spool.take() {
            let _ = copy_out(&mut spool.file, self.shown as u64, &mut self.out);
        }
        self.through = true;
    }

    /// At the end of the output: what is held goes out, or the spooled output is stored and its
    /// reference goes out instead; a store that fails passes the spooled output on whole.
    fn finish(&mut self, global: &GlobalArgs, code: Option<u8>) {
        let Some(mut spool) = self.spool.take() else {
            if !self.through {
                self.show_held();
            }
            return;
        };
        // The reference starts on a line of its own after output shown already.
        let fresh_line = self.shown == 0 || self.held.get(self.shown - 1) == Some(&b'\n');
        match store(global, &mut spool, code, fresh_line) {
            Ok(reference) => self.out.write(reference.as_bytes()),
            Err(err) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "scratchpad hooks capture: {err:#}; the output is passed on whole"
                );
                let _ = copy_out(&mut spool.file, self.shown as u64, &mut self.out);
            }
        }
    }
}

/// A file no other process can open: removed as soon as it is made, it goes with the process.
fn open_spool() -> std::io::Result<File> {
    let dir = std::env::temp_dir();
    let mut attempt = 0u32;
    loop {
        let path: PathBuf = dir.join(format!(
            "scratchpad-capture-{}-{}-{attempt}",
            std::process::id(),
            scratchpad_core::now_ms()
        ));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => {
                let _ = std::fs::remove_file(&path);
                return Ok(file);
            }
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1;
            }
            Err(err) => return Err(err),
        }
    }
}

/// Copies `file` from byte `from` to its end onto `out`.
fn copy_out(file: &mut File, from: u64, out: &mut Out) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(from))?;
    let mut chunk = vec![0; CHUNK_BYTES];
    loop {
        let read = file.read(&mut chunk)?;
        if read == 0 {
            return Ok(());
        }
        out.write(&chunk[..read]);
    }
}

/// Stores the spooled output in the store and session the `scratchpad` command in the same shell
/// uses, and says what the model sees instead: where it is, its preview, the exit status and how
/// to read on.
fn store(
    global: &GlobalArgs,
    spool: &mut Spool,
    code: Option<u8>,
    fresh_line: bool,
) -> anyhow::Result<String> {
    let pad = super::open_for_hook(global)?;
    spool.file.seek(SeekFrom::Start(0))?;
    let info = pad.put_file(
        &mut spool.file,
        PutOptions {
            name: None,
            source: Source {
                tool: Some(TOOL.to_owned()),
                ..Source::default()
            },
            meta: json!({ "exit_code": code }),
            turn: None,
            ttl: Ttl::Default,
            pinned: false,
            condition: None,
            keep_history: false,
            progress: None,
            stop: Stop::default(),
        },
    )?;
    let shell = Shell::new(global.store(), global.session.as_deref());
    let mut text = format!(
        "{}[the output was long: the scratchpad {}]\n",
        if fresh_line { "" } else { "\n" },
        stored_line("stored it whole as", &info)
    );
    let preview = info.preview.trim_end_matches('\n');
    if !preview.is_empty() {
        text.push_str(preview);
        text.push('\n');
    }
    if let Some(code) = code {
        text.push_str(&format!("[exit code {code}]\n"));
    }
    text.push_str(&hint(&info).render(&shell));
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(nonce: &str, pieces: &[&[u8]]) -> (Vec<u8>, Option<Ended>) {
        let mut end = Ending::new(Some(nonce));
        let mut output = Vec::new();
        for (i, piece) in pieces.iter().enumerate() {
            let (out, status) = end.feed(piece);
            output.extend(out);
            if let Some(mut ended) = status {
                // What follows is read after the end, as background children's output.
                ended.after.extend(pieces[i + 1..].concat());
                return (output, Some(ended));
            }
        }
        output.extend(std::mem::take(&mut end.carry));
        (output, None)
    }

    #[test]
    fn the_exit_status_is_found_however_the_reads_cut_it() {
        let whole = b"hi\nno newline\0scratchpad-exit 42 3\nlate\n";
        for cut in 0..whole.len() {
            let (output, status) = fed("42", &[&whole[..cut], &whole[cut..]]);
            assert_eq!(output, b"hi\nno newline", "cut at {cut}");
            assert_eq!(
                status,
                Some(Ended {
                    code: Some(3),
                    after: b"late\n".to_vec()
                }),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_nul_or_another_nonce_is_output() {
        let text = b"a\0b\0scratchpad-exit 7 1\nc\0";
        let (output, status) = fed("42", &[text]);
        assert_eq!(output, text);
        assert_eq!(status, None);
    }

    #[test]
    fn the_env_lines_are_added_once_and_replace_another_scratchpads() {
        let dir = std::env::temp_dir().join(format!("scratchpad-env-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("env");
        std::fs::write(&path, "export A=1").unwrap();
        let lines = env_lines(Agent::ClaudeCode, "/opt/bin/scratchpad", "");
        add_env_lines(&path, &lines).unwrap();
        add_env_lines(&path, &lines).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("export A=1\n{lines}")
        );
        let other = env_lines(Agent::ClaudeCode, "/usr/bin/scratchpad", " --session x");
        add_env_lines(&path, &other).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("export A=1\n{other}")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
