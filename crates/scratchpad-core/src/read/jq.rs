//! jq queries over stored JSON documents, run by jaq.
//!
//! A query is written by a model, so nothing it asks for may take the process down or hold a core
//! or the memory for long. Limits:
//! * the program: at most [`MAX_PROGRAM_BYTES`] bytes and [`MAX_NESTING`] levels of brackets, and no
//!   recursive definitions (`def f: 1 + f; f` would recurse until the stack overflows; jq's own
//!   `recurse`, `walk`, `paths` and `reduce` cover what recursion is used for);
//! * evaluation: at most [`JqLimits::timeout`] of wall clock and [`JqLimits::memory_bytes`] of memory,
//!   which by default is sized to the document ([`memory_for_document`]): a runaway query over a
//!   small document ends long before it holds gigabytes.
//!   Hard limits need a process: a face that calls [`isolate_in`] at startup (the `scratchpad` binary
//!   does) runs each query in a child process of its own executable ([`worker_main`]) with those
//!   limits set by the kernel, so a runaway query ends its worker, never the server. Without it (a
//!   library embedding), the query runs on a thread with a large stack and the caller gets an error
//!   at the deadline; the abandoned thread then runs on until its query ends;
//! * at most [`MAX_RUNNING`] queries run at once in a process (a server answers many clients); one
//!   that finds them all busy waits up to [`JqLimits::queue_wait`], then is refused;
//! * documents nested more than [`MAX_DOCUMENT_NESTING`] levels deep are refused by name;
//! * at most [`MAX_OUTPUTS`] values are returned; evaluation stops there without an error, so `.[]`
//!   over a huge array still answers;
//! * `env` and `$ENV` are not available (the process environment may hold secrets), nor are
//!   `input`/`inputs` (there is exactly one document);
//! * `halt` ends the program normally; `halt_error` and `halt(n)` with a non-zero code are reported
//!   as runtime errors.

use std::fmt::{self, Write as _};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use jaq_core::load::{Arena, File, Loader, lex, parse};
use jaq_core::{Compiler, Ctx, Vars, compile, data, load};
use jaq_json::{Num, Val};
use serde_json::{Map, Number, Value};

use super::Stop;

/// Values returned before evaluation stops (count).
pub const MAX_OUTPUTS: usize = 10_000;

/// Longest program accepted (bytes): a query is a line or two; a longer one is generated.
pub const MAX_PROGRAM_BYTES: usize = 4_000;

/// Deepest nesting of `(`, `[` and `{` in a program: jaq parses and compiles recursively.
pub const MAX_NESTING: usize = 64;

/// Deepest nesting of arrays and objects in a document that jq accepts (levels): the JSON parser
/// (serde_json) recurses per level and refuses a 128th rather than overflow its stack.
pub const MAX_DOCUMENT_NESTING: usize = 127;

/// Least memory a query gets (bytes): the worker's own code, allocator arenas and buffers, with
/// room left for an ordinary query over a small document.
pub const MIN_QUERY_MEMORY_BYTES: u64 = 256 << 20;

/// Most memory a query gets (bytes), whatever the document: past it, one query holds a large part
/// of an ordinary machine.
pub const MAX_QUERY_MEMORY_BYTES: u64 = 4 << 30;

/// Memory a query gets per byte of its document (bytes/byte): the parsed document takes up to
/// about 8 times its text (a `0,` is 2 bytes of text and a 16-byte value plus its slot in an
/// array), and the values a query builds get 8 times what the parsed document takes.
pub const QUERY_MEMORY_PER_DOCUMENT_BYTE: u64 = 64;

/// Queries evaluated at once in one process, at most (count; fewer on a machine with fewer cores):
/// with each at up to [`MAX_QUERY_MEMORY_BYTES`], a server answering many clients would otherwise
/// hold that many times over.
pub const MAX_RUNNING: usize = 8;

/// How long a query waits for one of the [`MAX_RUNNING`] slots before it is refused, by default:
/// long enough for a short query ahead of it to end, short enough that a client is told why.
const QUEUE_WAIT: Duration = Duration::from_secs(5);

/// The memory a query over a document of `document_bytes` gets: [`QUERY_MEMORY_PER_DOCUMENT_BYTE`]
/// per byte, at least [`MIN_QUERY_MEMORY_BYTES`] and at most [`MAX_QUERY_MEMORY_BYTES`].
pub fn memory_for_document(document_bytes: u64) -> u64 {
    document_bytes
        .saturating_mul(QUERY_MEMORY_PER_DOCUMENT_BYTE)
        .clamp(MIN_QUERY_MEMORY_BYTES, MAX_QUERY_MEMORY_BYTES)
}

/// The argument that makes the `scratchpad` executable a jq worker (see [`worker_main`]).
pub const WORKER_ARG: &str = "__scratchpad-jq-worker";

/// Stack of the thread a query is evaluated on (bytes; reserved, not committed, until used).
const EVAL_STACK_BYTES: usize = 256 * 1024 * 1024;

/// What one query may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JqLimits {
    /// Wall clock for the whole query.
    pub timeout: Duration,
    /// Memory of the worker process (its address space), document included; `None` sizes it to
    /// the document ([`memory_for_document`]).
    pub memory_bytes: Option<u64>,
    /// How long a query waits for a free slot when [`MAX_RUNNING`] queries are running.
    pub queue_wait: Duration,
}

impl Default for JqLimits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(10),
            memory_bytes: None,
            queue_wait: QUEUE_WAIT,
        }
    }
}

impl JqLimits {
    /// The defaults, or `SCRATCHPAD_JQ_TIMEOUT_MS` and `SCRATCHPAD_JQ_MEMORY_MB` (a fixed memory
    /// limit in place of one sized to the document) where set.
    pub fn from_env() -> Self {
        let number = |name: &str| std::env::var(name).ok()?.trim().parse::<u64>().ok();
        let default = Self::default();
        Self {
            timeout: number("SCRATCHPAD_JQ_TIMEOUT_MS")
                .map_or(default.timeout, Duration::from_millis),
            memory_bytes: number("SCRATCHPAD_JQ_MEMORY_MB")
                .map_or(default.memory_bytes, |mb| Some(mb.saturating_mul(1 << 20))),
            ..default
        }
    }
}

/// Longest excerpt of the program quoted back in an error message (chars).
const MAX_PROGRAM_CHARS: usize = 200;

/// Longest runtime error detail, which can embed whole input values (chars).
const MAX_DETAIL_CHARS: usize = 300;

/// Deepest output value converted to JSON (levels); deeper values could only
/// come from a runaway program and would overflow the stack on conversion.
const MAX_OUTPUT_DEPTH: usize = 512;

/// Errors found per program before the message stops listing them (count).
const MAX_LISTED_ERRORS: usize = 3;

const SYNTAX_HINT: &str =
    "jq syntax: `.key`, `.items[0]`, `.items[] | .id`, `[.[] | select(.ok)] | length`";

const RUNTIME_HINT: &str = "check the shape first (e.g. `type`, `keys`, `.[0]`), \
     then skip values that do not fit with `select(...)`, `.x?` or `.x // default`";

/// Why a jq query produced no result. Each message is complete (it names the
/// program and says what to try next), so callers can show `to_string()` as is.
#[derive(Debug, thiserror::Error)]
pub enum JqError {
    /// The program does not parse, or names a filter or variable that does
    /// not exist.
    #[error("{0}")]
    Syntax(String),
    /// The program failed while running on this document.
    #[error("{0}")]
    Runtime(String),
    /// The document is not a single JSON value.
    #[error("{0}")]
    NotJson(String),
    /// The program or its evaluation went past a limit (size, nesting, recursion, time, memory).
    #[error("{0}")]
    Limit(String),
    /// The caller cancelled the query before it finished.
    #[error("{0}")]
    Stopped(String),
}

/// Runs a jq program over one JSON document within [`JqLimits::from_env`]. Returns every output
/// value, in order; at most [`MAX_OUTPUTS`] values, the rest are not computed.
pub fn run_jq(document: &[u8], program: &str) -> Result<Vec<Value>, JqError> {
    run_jq_within(document, program, JqLimits::from_env())
}

/// [`run_jq`] with explicit limits.
pub fn run_jq_within(
    document: &[u8],
    program: &str,
    limits: JqLimits,
) -> Result<Vec<Value>, JqError> {
    run_jq_until(document, program, limits, Stop::default())
}

/// [`run_jq_within`], giving up when the caller cancels through `stop` (whose deadline is not the
/// query's: `limits.timeout` is). A worker process is killed then; an evaluation on a thread runs
/// on until its query ends, as after a timeout.
pub(crate) fn run_jq_until(
    document: &[u8],
    program: &str,
    limits: JqLimits,
    stop: Stop<'_>,
) -> Result<Vec<Value>, JqError> {
    check_program(program)?;
    let _slot = WorkerSlot::take(stop, limits.queue_wait)?;
    match WORKER.get() {
        Some(exe) => in_worker(exe, document, program, limits, stop),
        None => on_thread(document.to_vec(), program.to_owned(), limits, stop),
    }
}

/// Evaluates on the current thread, without limits beyond [`check_program`]'s: what a worker does.
fn evaluate(document: &[u8], program: &str) -> Result<Vec<Value>, JqError> {
    // Compile before parsing so that a typo is reported without paying for
    // parsing a large document.
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs().filter(|(name, _, _)| *name != "env"))
        .chain(jaq_json::funs());
    let arena = Arena::default();
    let modules = Loader::new(defs)
        .load(
            &arena,
            File {
                code: program,
                path: (),
            },
        )
        .map_err(|errors| JqError::Syntax(load_errors_message(program, errors)))?;
    let filter = Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errors| JqError::Syntax(compile_errors_message(program, errors)))?;

    let input: Val = serde_json::from_slice(document).map_err(|e| not_json(document, &e))?;

    let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
    let mut outputs = Vec::new();
    for output in filter.id.run((ctx, input)) {
        match output {
            Ok(value) => {
                let value = to_json(&value, 0)
                    .map_err(|detail| runtime_error(program, outputs.len(), &detail))?;
                outputs.push(value);
                // Stop before asking for another output: computing it may
                // never finish.
                if outputs.len() >= MAX_OUTPUTS {
                    break;
                }
            }
            Err(exn) => match exn.get_err() {
                Ok(error) => {
                    let detail = bounded_display(&error, MAX_DETAIL_CHARS);
                    return Err(runtime_error(program, outputs.len(), &detail));
                }
                Err(exn) => match exn.get_halt() {
                    Ok(0) => break,
                    Ok(code) => {
                        let detail =
                            format!("the program stopped with `halt_error` (exit code {code})");
                        return Err(runtime_error(program, outputs.len(), &detail));
                    }
                    // Only halts and errors escape a compiled program; anything
                    // else is jaq-internal control flow.
                    Err(_) => {
                        let detail = "internal jaq control flow escaped the program";
                        return Err(runtime_error(program, outputs.len(), detail));
                    }
                },
            },
        }
    }
    Ok(outputs)
}

// ---------------------------------------------------------------------------------------------------
// Limits

/// Refuses programs that could exhaust the stack before evaluation starts: too long, nested too
/// deep, or defining a function that calls itself.
fn check_program(program: &str) -> Result<(), JqError> {
    if program.len() > MAX_PROGRAM_BYTES {
        return Err(JqError::Limit(format!(
            "the jq program is {} bytes, over the limit of {MAX_PROGRAM_BYTES}; write a shorter query \
             (select the part you need first, e.g. `.items[] | select(.id == 7)`)",
            program.len()
        )));
    }
    let tokens = tokens(program);
    let mut depth = 0usize;
    for token in &tokens {
        match *token {
            "(" | "[" | "{" => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(JqError::Limit(format!(
                        "`{}` nests brackets more than {MAX_NESTING} levels deep, the limit for a \
                         jq program; flatten it, e.g. with `|` between steps",
                        excerpt(program)
                    )));
                }
            }
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if let Some(name) = recursive_definition(&tokens) {
        return Err(JqError::Limit(format!(
            "`{name}` calls itself in `{}`; recursive definitions are not allowed (they can recurse \
             until the process runs out of stack). Use jq's `recurse`, `walk`, `paths`, `..` or \
             `reduce` instead",
            excerpt(program)
        )));
    }
    Ok(())
}

/// The program's tokens, coarsely: identifiers (with `$`, `::`), strings as one token, and every
/// other character on its own. Enough to follow brackets and definitions.
fn tokens(program: &str) -> Vec<&str> {
    let bytes = program.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let b = bytes[i];
        if b == b'"' {
            // A string, escapes and all; `\(...)` interpolation is kept inside it (its brackets
            // are counted by jaq's own parser, within MAX_PROGRAM_BYTES).
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
        } else if b == b'#' {
            // A comment, to the end of the line.
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
            // `name`, `$var`, `module::name` (a single `:` ends the name: `def f: …`).
            loop {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'$'))
                {
                    i += 1;
                }
                if bytes[i..].starts_with(b"::") {
                    i += 2;
                } else {
                    break;
                }
            }
        } else if b.is_ascii_whitespace() {
            i += 1;
            continue;
        } else {
            // One character, whole (a multi-byte one included).
            i += program[i..].chars().next().map_or(1, char::len_utf8);
        }
        out.push(&program[start..i]);
    }
    out
}

/// The first `def NAME…: BODY;` whose body mentions NAME. jq has no forward references, so every
/// recursion, direct or through a nested definition, shows as a name used inside its own body.
fn recursive_definition<'a>(tokens: &[&'a str]) -> Option<&'a str> {
    for (at, token) in tokens.iter().enumerate() {
        if *token != "def" {
            continue;
        }
        let name = tokens.get(at + 1)?;
        // The body runs from the `:` after the name (and its parameters) to the `;` that closes
        // this definition: nested `def … ;` open and close levels of their own.
        let mut i = at + 2;
        let mut depth = 0usize;
        while i < tokens.len() && !(tokens[i] == ":" && depth == 0) {
            match tokens[i] {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                _ => {}
            }
            i += 1;
        }
        let mut open_defs = 1usize;
        depth = 0;
        for token in tokens.iter().skip(i + 1) {
            match *token {
                "def" => open_defs += 1,
                ";" if depth == 0 => {
                    open_defs -= 1;
                    if open_defs == 0 {
                        break;
                    }
                }
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                t if t == *name => return Some(name),
                _ => {}
            }
        }
    }
    None
}

/// The executable whose [`WORKER_ARG`] mode evaluates queries, once a face has named it.
static WORKER: OnceLock<PathBuf> = OnceLock::new();

/// Runs every later query in a child process of `exe` (which must call [`worker_main`] when its
/// first argument is [`WORKER_ARG`]), with the time and memory limits enforced by the kernel.
pub fn isolate_in(exe: PathBuf) {
    let _ = WORKER.set(exe);
}

/// Queries evaluated at once, whatever the number of callers: each may hold
/// [`JqLimits::memory_bytes`].
static RUNNING: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

/// Queries that may run at once here: one per core, at most [`MAX_RUNNING`].
fn slots() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_RUNNING)
}

/// One of the evaluation slots, held until dropped.
struct WorkerSlot;

impl WorkerSlot {
    /// Waits up to `wait` for a free slot, or until the caller cancels.
    fn take(stop: Stop<'_>, wait: Duration) -> Result<Self, JqError> {
        let slots = slots();
        let deadline = Instant::now() + wait;
        let (lock, freed) = &RUNNING;
        let mut running = lock.lock().unwrap_or_else(PoisonError::into_inner);
        while *running >= slots {
            cancelled(stop)?;
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(JqError::Limit(format!(
                    "{slots} jq queries are already running in this process, the most it runs at \
                     once, and none ended within {} ms; try again in a few seconds, or narrow \
                     the query so that it ends sooner",
                    wait.as_millis()
                )));
            }
            running = freed
                .wait_timeout(running, left.min(CANCEL_POLL))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *running += 1;
        Ok(WorkerSlot)
    }
}

impl Drop for WorkerSlot {
    fn drop(&mut self) {
        let (lock, freed) = &RUNNING;
        let mut running = lock.lock().unwrap_or_else(PoisonError::into_inner);
        *running = running.saturating_sub(1);
        freed.notify_one();
    }
}

/// How often a query that waits (for a slot, a thread, a worker) asks whether its caller cancelled.
const CANCEL_POLL: Duration = Duration::from_millis(10);

fn cancelled(stop: Stop<'_>) -> Result<(), JqError> {
    stop.check_cancelled()
        .map_err(|err| JqError::Stopped(err.to_string()))
}

fn timed_out(program: &str, limits: JqLimits) -> JqError {
    JqError::Limit(format!(
        "jq `{}` ran longer than {} ms, the limit for one query; narrow it (e.g. `.items[0:100]`, \
         `first(...)`, `limit(10; ...)`) or count with `length` before listing",
        excerpt(program),
        limits.timeout.as_millis()
    ))
}

/// Evaluates on a thread with a large stack, giving up at the deadline or when the caller cancels.
fn on_thread(
    document: Vec<u8>,
    program: String,
    limits: JqLimits,
    stop: Stop<'_>,
) -> Result<Vec<Value>, JqError> {
    let (done, result) = std::sync::mpsc::sync_channel(1);
    let quoted = program.clone();
    let spawned = std::thread::Builder::new()
        .name("jq".into())
        .stack_size(EVAL_STACK_BYTES)
        .spawn(move || {
            let _ = done.send(evaluate(&document, &program));
        });
    if let Err(err) = spawned {
        return Err(JqError::Limit(format!(
            "cannot start a jq evaluation: {err}"
        )));
    }
    let deadline = Instant::now() + limits.timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match result.recv_timeout(left.min(CANCEL_POLL)) {
            Ok(outcome) => return outcome,
            Err(RecvTimeoutError::Timeout) if !left.is_zero() => cancelled(stop)?,
            Err(_) => return Err(timed_out(&quoted, limits)),
        }
    }
}

/// Evaluates in a child process of `exe`, which sets its own limits before reading the query.
fn in_worker(
    exe: &PathBuf,
    document: &[u8],
    program: &str,
    limits: JqLimits,
    stop: Stop<'_>,
) -> Result<Vec<Value>, JqError> {
    let memory = limits
        .memory_bytes
        .unwrap_or_else(|| memory_for_document(document.len() as u64));
    let failed = |what: &str, err: std::io::Error| {
        JqError::Limit(format!("cannot run the jq worker ({what}: {err})"))
    };
    let mut child = Command::new(exe)
        .arg(WORKER_ARG)
        .arg(limits.timeout.as_millis().to_string())
        .arg(memory.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| failed("start", err))?;
    let (Some(mut stdin), Some(mut stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        let _ = child.kill();
        return Err(JqError::Limit("cannot talk to the jq worker".into()));
    };
    let deadline = Instant::now() + limits.timeout;
    let (replied, errors, status) = std::thread::scope(|scope| {
        // The query and the document go in while the reply comes out: neither pipe may fill up.
        scope.spawn(move || {
            let length = (program.len() as u64).to_le_bytes();
            let _ = stdin
                .write_all(&length)
                .and_then(|()| stdin.write_all(program.as_bytes()))
                .and_then(|()| stdin.write_all(document));
        });
        let reply = scope.spawn(move || {
            let mut out = Vec::new();
            let _ = stdout.read_to_end(&mut out);
            out
        });
        let errors = scope.spawn(move || {
            let mut out = Vec::new();
            let _ = stderr.by_ref().take(64 * 1024).read_to_end(&mut out);
            out
        });
        let status = wait_until(&mut child, deadline, stop);
        (
            reply.join().unwrap_or_default(),
            errors.join().unwrap_or_default(),
            status,
        )
    });
    let Some(status) = status? else {
        return Err(timed_out(program, limits));
    };
    if status.success() {
        return serde_json::from_slice::<WorkerReply>(&replied)
            .map_err(|err| JqError::Limit(format!("the jq worker's reply was unreadable: {err}")))?
            .into_result();
    }
    let errors = String::from_utf8_lossy(&errors);
    Err(JqError::Limit(if errors.contains("memory allocation of") {
        format!(
            "jq `{}` needed more than {} MiB, the memory limit for one query; select the part you need \
             first (e.g. `.items[0:100]`) or count with `length` instead of building large arrays",
            excerpt(program),
            memory >> 20
        )
    } else if errors.contains("overflowed its stack") {
        format!(
            "jq `{}` nested deeper than the stack allows; build shallower values",
            excerpt(program)
        )
    } else if cpu_limit(status) {
        return Err(timed_out(program, limits));
    } else {
        let last = errors.lines().last().unwrap_or("no message");
        format!("the jq worker failed ({status}): {last}")
    }))
}

/// The child's status, or `None` once `deadline` passed; the caller's cancelling is an error.
/// Either way the child is killed.
fn wait_until(
    child: &mut std::process::Child,
    deadline: Instant,
    stop: Stop<'_>,
) -> Result<Option<ExitStatus>, JqError> {
    let outcome = loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(Some(status)),
            Ok(None) if Instant::now() < deadline => {
                if let Err(err) = cancelled(stop) {
                    break Err(err);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            _ => break Ok(None),
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    outcome
}

/// Whether the kernel stopped the worker for its CPU time (SIGXCPU, or SIGKILL at the hard limit).
fn cpu_limit(status: ExitStatus) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        matches!(status.signal(), Some(24 | 9))
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        false
    }
}

/// What a worker writes to its stdout.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum WorkerReply {
    Values(Vec<Value>),
    Syntax(String),
    Runtime(String),
    NotJson(String),
    Limit(String),
}

impl WorkerReply {
    fn from_result(result: Result<Vec<Value>, JqError>) -> Self {
        match result {
            Ok(values) => Self::Values(values),
            Err(JqError::Syntax(m)) => Self::Syntax(m),
            Err(JqError::Runtime(m)) => Self::Runtime(m),
            Err(JqError::NotJson(m)) => Self::NotJson(m),
            // A worker is not cancelled from inside: its parent kills it.
            Err(JqError::Limit(m) | JqError::Stopped(m)) => Self::Limit(m),
        }
    }

    fn into_result(self) -> Result<Vec<Value>, JqError> {
        match self {
            Self::Values(values) => Ok(values),
            Self::Syntax(m) => Err(JqError::Syntax(m)),
            Self::Runtime(m) => Err(JqError::Runtime(m)),
            Self::NotJson(m) => Err(JqError::NotJson(m)),
            Self::Limit(m) => Err(JqError::Limit(m)),
        }
    }
}

/// The worker: what the `scratchpad` executable does when its first argument is [`WORKER_ARG`].
/// Arguments: the timeout in ms and the memory limit in bytes; stdin: the program's length (u64,
/// little-endian), the program, then the document; stdout: a `WorkerReply` as JSON. Returns the
/// process's exit code.
pub fn worker_main(args: &[String]) -> u8 {
    let number = |i: usize| args.get(i).and_then(|a| a.parse::<u64>().ok());
    let (Some(timeout_ms), Some(memory)) = (number(0), number(1)) else {
        let _ = writeln!(
            std::io::stderr(),
            "usage: {WORKER_ARG} TIMEOUT_MS MEMORY_BYTES"
        );
        return 2;
    };
    set_limits(timeout_ms, memory);
    let mut input = Vec::new();
    if std::io::stdin().read_to_end(&mut input).is_err() || input.len() < 8 {
        return 2;
    }
    let (length, rest) = input.split_at(8);
    let length = u64::from_le_bytes(length.try_into().unwrap_or([0; 8]));
    let length = usize::try_from(length)
        .unwrap_or(usize::MAX)
        .min(rest.len());
    let (program, document) = rest.split_at(length);
    let program = String::from_utf8_lossy(program).into_owned();
    let document = document.to_vec();
    drop(input);
    let evaluated = std::thread::Builder::new()
        .name("jq".into())
        .stack_size(EVAL_STACK_BYTES)
        .spawn(move || evaluate(&document, &program))
        .map(|thread| thread.join());
    let reply = match evaluated {
        Ok(Ok(result)) => WorkerReply::from_result(result),
        _ => return 3,
    };
    let mut stdout = std::io::stdout().lock();
    let written = serde_json::to_writer(&mut stdout, &reply).is_ok() && stdout.flush().is_ok();
    if written { 0 } else { 3 }
}

/// Caps the worker's memory (address space, the large evaluation stack included) and CPU time;
/// going over either ends the worker, which the parent reports as that limit.
fn set_limits(timeout_ms: u64, memory_bytes: u64) {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, setrlimit};
        let stack = EVAL_STACK_BYTES as u64;
        let memory = memory_bytes.saturating_add(stack);
        let _ = setrlimit(
            Resource::As,
            Rlimit {
                current: Some(memory),
                maximum: Some(memory),
            },
        );
        let seconds = timeout_ms.div_ceil(1000) + 1;
        let _ = setrlimit(
            Resource::Cpu,
            Rlimit {
                current: Some(seconds),
                maximum: Some(seconds + 1),
            },
        );
    }
    #[cfg(not(unix))]
    {
        let _ = (timeout_ms, memory_bytes);
    }
}

fn not_json(document: &[u8], error: &serde_json::Error) -> JqError {
    let what = if document.iter().all(u8::is_ascii_whitespace) {
        "it is empty"
    } else if error.to_string().starts_with("trailing characters") {
        "it holds more than one JSON value (JSON Lines?) or text after the value"
    } else if error.to_string().starts_with("recursion limit exceeded") {
        return JqError::Limit(format!(
            "cannot run jq on this content: it nests arrays and objects more than \
             {MAX_DOCUMENT_NESTING} levels deep (past {}), the most jq here parses; \
             read or search it as text instead (grep for the keys you need, then read those lines)",
            position(error)
        ));
    } else {
        "it is not valid JSON"
    };
    JqError::NotJson(format!(
        "cannot run jq on this content: {what} ({error}); \
         jq needs exactly one JSON document, so read or search this content as text instead"
    ))
}

/// Where a parse error was found, as `line L, column C`.
fn position(error: &serde_json::Error) -> String {
    format!("line {}, column {}", error.line(), error.column())
}

fn runtime_error(program: &str, outputs: usize, detail: &str) -> JqError {
    let after = match outputs {
        0 => String::new(),
        1 => " after 1 output".to_owned(),
        n => format!(" after {n} outputs"),
    };
    JqError::Runtime(format!(
        "jq runtime error in `{}`{after}: {detail}; {RUNTIME_HINT}",
        excerpt(program)
    ))
}

fn load_errors_message(program: &str, errors: load::Errors<&str, ()>) -> String {
    let mut problems = Vec::new();
    for (file, error) in errors {
        match error {
            load::Error::Io(items) => {
                problems.extend(
                    items
                        .into_iter()
                        .map(|(path, why)| format!("cannot load module `{path}`: {why}")),
                );
            }
            load::Error::Lex(items) => {
                problems.extend(items.into_iter().map(|(expect, rest)| {
                    let at = describe_position(file.code, rest);
                    match expect {
                        lex::Expect::Delim(open) => {
                            let close = closing_delimiter(open);
                            let open_at = offset_in(file.code, open)
                                .map_or(String::new(), |o| format!(" at offset {o}"));
                            format!("expected {close} {at} to close `{open}`{open_at}")
                        }
                        other => format!("expected {} {at}", lex_expectation(&other)),
                    }
                }));
            }
            load::Error::Parse(items) => {
                problems.extend(items.into_iter().map(|(expect, found)| {
                    let wanted = match expect {
                        parse::Expect::Just(token) => format!("`{token}`"),
                        other => other.as_str().to_owned(),
                    };
                    format!("expected {wanted} {}", describe_position(file.code, found))
                }));
            }
        }
    }
    syntax_message(program, problems)
}

fn compile_errors_message(program: &str, errors: compile::Errors<&str, ()>) -> String {
    let mut problems = Vec::new();
    for (file, items) in errors {
        for (name, undefined) in items {
            let at =
                offset_in(file.code, name).map_or(String::new(), |o| format!(" at offset {o}"));
            let what = match undefined {
                compile::Undefined::Filter(0) => format!("unknown filter `{name}`"),
                compile::Undefined::Filter(arity) => {
                    format!("unknown filter `{name}` taking {arity} argument(s)")
                }
                other => format!("unknown {} `{name}`", other.as_str()),
            };
            let note = match name.trim_start_matches('$') {
                "env" | "ENV" => " (environment access is disabled)",
                "input" | "inputs" => " (there is only one input document: use `.`)",
                _ => "",
            };
            problems.push(format!("{what}{at}{note}"));
        }
    }
    syntax_message(program, problems)
}

fn syntax_message(program: &str, problems: Vec<String>) -> String {
    let total = problems.len();
    let mut listed: Vec<String> = problems.into_iter().take(MAX_LISTED_ERRORS).collect();
    if total > MAX_LISTED_ERRORS {
        listed.push(format!("{} more error(s)", total - MAX_LISTED_ERRORS));
    }
    if listed.is_empty() {
        listed.push("the program could not be parsed".to_owned());
    }
    format!(
        "jq syntax error in `{}`: {}; {SYNTAX_HINT}",
        excerpt(program),
        listed.join("; ")
    )
}

/// Where `found` (a slice of `code`, possibly empty at its end) sits.
fn describe_position(code: &str, found: &str) -> String {
    let token: String = found
        .split_whitespace()
        .next()
        .unwrap_or("")
        .chars()
        .take(20)
        .collect();
    match offset_in(code, found) {
        Some(offset) if token.is_empty() => format!("at offset {offset} (end of program)"),
        Some(offset) => format!("at offset {offset}, found `{token}`"),
        None if token.is_empty() => "at the end of the program".to_owned(),
        None => format!("but found `{token}`"),
    }
}

/// Byte offset of `part` in `whole`, if `part` is a sub-slice of it. jaq
/// reports positions as sub-slices of the program text.
fn offset_in(whole: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (start + part.len() <= whole.len()).then_some(start)
}

fn closing_delimiter(open: &str) -> &'static str {
    match open {
        "(" => "`)`",
        "[" => "`]`",
        "{" => "`}`",
        "\"" => "`\"`",
        _ => "a closing delimiter",
    }
}

fn lex_expectation(expect: &lex::Expect<&str>) -> &'static str {
    match expect {
        lex::Expect::Digit => "a digit",
        lex::Expect::Ident => "an identifier",
        lex::Expect::Escape => "a string escape such as `\\n` or `\\\"`",
        lex::Expect::Unicode => "4 hex digits after `\\u`",
        lex::Expect::Token => "a jq token (unexpected character)",
        _ => "something else",
    }
}

/// The program as quoted back: its first 200 characters.
pub(crate) fn excerpt(program: &str) -> String {
    let mut chars = program.chars();
    let mut out: String = chars.by_ref().take(MAX_PROGRAM_CHARS).collect();
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// Formats `value`, stopping after `max_chars`: errors can embed values of
/// any size, and formatting a huge one only to cut it would be wasteful.
fn bounded_display(value: &impl fmt::Display, max_chars: usize) -> String {
    struct Bounded {
        out: String,
        left: usize,
        cut: bool,
    }
    impl fmt::Write for Bounded {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            for c in s.chars() {
                if self.left == 0 {
                    self.cut = true;
                    return Err(fmt::Error);
                }
                self.out.push(c);
                self.left -= 1;
            }
            Ok(())
        }
    }
    let mut sink = Bounded {
        out: String::new(),
        left: max_chars,
        cut: false,
    };
    // An error here only means the limit was reached.
    let _ = write!(sink, "{value}");
    if sink.cut {
        sink.out.push('…');
    }
    sink.out
}

fn to_json(value: &Val, depth: usize) -> Result<Value, String> {
    if depth > MAX_OUTPUT_DEPTH {
        return Err(format!(
            "an output value is nested deeper than {MAX_OUTPUT_DEPTH} levels"
        ));
    }
    Ok(match value {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(*b),
        Val::Num(n) => num_to_json(n),
        // Byte strings only arise from jaq extensions such as `tobytes`; JSON
        // has no such type, so they are shown as (lossy) text.
        Val::TStr(bytes) | Val::BStr(bytes) => {
            Value::String(String::from_utf8_lossy(bytes).into_owned())
        }
        Val::Arr(items) => Value::Array(
            items
                .iter()
                .map(|item| to_json(item, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Val::Obj(entries) => {
            let mut map = Map::new();
            for (key, item) in entries.iter() {
                map.insert(key_to_string(key), to_json(item, depth + 1)?);
            }
            Value::Object(map)
        }
    })
}

/// jaq allows non-string object keys (e.g. `{(1): 2}`); JSON does not, so
/// they become their JSON text.
fn key_to_string(key: &Val) -> String {
    match key {
        Val::TStr(bytes) | Val::BStr(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        other => other.to_string(),
    }
}

fn num_to_json(n: &Num) -> Value {
    match n {
        Num::Int(i) => i64::try_from(*i).map_or_else(|_| float_to_json(*i as f64), Value::from),
        Num::Float(f) => float_to_json(*f),
        // Big integers and decimal literals keep their digits if serde_json
        // can hold them, else become the nearest float.
        Num::BigInt(_) | Num::Dec(_) => {
            let text = n.to_string();
            text.parse::<Number>()
                .map(Value::Number)
                .unwrap_or_else(|_| text.parse::<f64>().map_or(Value::Null, float_to_json))
        }
    }
}

/// Like jq 1.7: NaN becomes null, infinities the largest finite floats.
fn float_to_json(f: f64) -> Value {
    let finite = if f.is_infinite() {
        f64::MAX.copysign(f)
    } else {
        f
    };
    Number::from_f64(finite).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn jq(document: &str, program: &str) -> Result<Vec<Value>, JqError> {
        run_jq(document.as_bytes(), program)
    }

    #[test]
    fn selects_a_key() {
        assert_eq!(jq(r#"{"a": 1, "b": 2}"#, ".a").unwrap(), vec![json!(1)]);
        assert_eq!(jq(r#"{"a": 1}"#, ".missing").unwrap(), vec![json!(null)]);
    }

    #[test]
    fn iterates_items() {
        let doc = r#"{"items": [{"id": 1}, {"id": "two"}, {"id": 3.5}]}"#;
        assert_eq!(
            jq(doc, ".items[] | .id").unwrap(),
            vec![json!(1), json!("two"), json!(3.5)]
        );
    }

    #[test]
    fn select_and_length() {
        let doc = r#"[{"x": 0}, {"x": 2}, {"x": 5}, {"y": 9}]"#;
        assert_eq!(
            jq(doc, "[.[] | select(.x > 1)] | length").unwrap(),
            vec![json!(2)]
        );
    }

    #[test]
    fn standard_library_is_available() {
        let doc = r#"{"b": [3, 1, 2], "a": "hello world"}"#;
        assert_eq!(jq(doc, "keys").unwrap(), vec![json!(["a", "b"])]);
        assert_eq!(
            jq(doc, ".b | map(. * 2) | sort").unwrap(),
            vec![json!([2, 4, 6])]
        );
        assert_eq!(
            jq(doc, "to_entries | map(.key)").unwrap(),
            vec![json!(["b", "a"])]
        );
        assert_eq!(jq(doc, r#".a | test("wor")"#).unwrap(), vec![json!(true)]);
        assert_eq!(jq(doc, ".b | add / length").unwrap(), vec![json!(2.0)]);
        assert_eq!(
            jq(doc, ".a | ascii_upcase").unwrap(),
            vec![json!("HELLO WORLD")]
        );
        assert_eq!(
            jq(doc, "tojson | fromjson | .b[0]").unwrap(),
            vec![json!(3)]
        );
    }

    #[test]
    fn keeps_key_order_and_numbers() {
        let doc = r#"{"z": 1, "a": [1.5, -2, 12345678901234567890, 1e300]}"#;
        assert_eq!(
            jq(doc, ".").unwrap(),
            vec![serde_json::from_str::<Value>(doc).unwrap()]
        );
        assert_eq!(
            jq("null", "1.5, 100000000000000000000000, nan, infinite").unwrap(),
            vec![json!(1.5), json!(1e23), json!(null), json!(f64::MAX)]
        );
    }

    #[test]
    fn empty_output_is_ok() {
        assert_eq!(
            jq("[1, 2]", ".[] | select(. > 5)").unwrap(),
            Vec::<Value>::new()
        );
        assert_eq!(jq("[1, 2]", "empty").unwrap(), Vec::<Value>::new());
    }

    #[test]
    fn caps_outputs() {
        let out = jq("null", "range(20000)").unwrap();
        assert_eq!(out.len(), MAX_OUTPUTS);
        assert_eq!(out.last(), Some(&json!(MAX_OUTPUTS - 1)));
        // Infinite generators stop too, and so do programs whose next
        // output would take forever.
        assert_eq!(jq("1", "repeat(.)").unwrap().len(), MAX_OUTPUTS);
        let slow = format!("range({MAX_OUTPUTS}), last(range(1e15))");
        assert_eq!(jq("null", &slow).unwrap().len(), MAX_OUTPUTS);
    }

    #[test]
    fn syntax_error_says_where_and_how() {
        let err = jq("{}", ".items[").unwrap_err();
        let JqError::Syntax(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(
            msg.starts_with("jq syntax error in `.items[`: expected `]`"),
            "{msg}"
        );
        assert!(msg.contains("at offset 7"), "{msg}");
        assert!(msg.contains(SYNTAX_HINT), "{msg}");

        let err = jq("{}", ".a | | .b").unwrap_err();
        let JqError::Syntax(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(
            msg.contains("expected term at offset 5, found `|`"),
            "{msg}"
        );
    }

    #[test]
    fn unknown_filter_is_a_syntax_error() {
        let err = jq("{}", ".a | frobnicate").unwrap_err();
        let JqError::Syntax(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(
            msg.contains("unknown filter `frobnicate` at offset 5"),
            "{msg}"
        );
    }

    #[test]
    fn environment_is_not_exposed() {
        for program in ["env", "$ENV", "$ENV.PATH"] {
            let err = jq("{}", program).unwrap_err();
            let JqError::Syntax(msg) = &err else {
                panic!("{err:?}")
            };
            assert!(msg.contains("environment access is disabled"), "{msg}");
        }
    }

    #[test]
    fn runtime_error_names_the_problem() {
        let err = jq(r#"{"a": "text"}"#, ".a + 1").unwrap_err();
        let JqError::Runtime(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(
            msg.starts_with("jq runtime error in `.a + 1`: cannot"),
            "{msg}"
        );
        assert!(msg.contains(r#""text""#), "{msg}");
        assert!(msg.contains("select(...)"), "{msg}");

        let err = jq("[1, 2, {}]", ".[] | . + 1").unwrap_err();
        let JqError::Runtime(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(msg.contains("after 2 outputs"), "{msg}");
    }

    #[test]
    fn runtime_error_detail_is_bounded() {
        let big = format!(r#"{{"a": "{}"}}"#, "x".repeat(100_000));
        let err = jq(&big, ". + 1").unwrap_err();
        let msg = err.to_string();
        assert!(msg.chars().count() < 1_000, "{} chars", msg.chars().count());
    }

    #[test]
    fn halt_stops_and_halt_error_fails() {
        assert_eq!(jq("null", "1, halt, 2").unwrap(), vec![json!(1)]);
        let err = jq("null", r#""bye" | halt_error"#).unwrap_err();
        assert!(matches!(err, JqError::Runtime(_)), "{err:?}");
    }

    #[test]
    fn invalid_json_is_reported() {
        let err = jq("{not json", ".").unwrap_err();
        let JqError::NotJson(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(msg.contains("not valid JSON"), "{msg}");
        assert!(msg.contains("as text"), "{msg}");

        let err = jq("{\"a\":1}\n{\"a\":2}\n", ".a").unwrap_err();
        let JqError::NotJson(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(msg.contains("more than one JSON value"), "{msg}");

        assert!(matches!(jq("", ".").unwrap_err(), JqError::NotJson(_)));
    }

    #[test]
    fn recursive_definitions_are_refused_before_running() {
        for program in [
            "def f: 1 + f; f",
            "def f(x): x | f(x); f(.)",
            "def a: def b: a; b; a",
            "def deep: if . > 0 then . - 1 | deep else . end; 5 | deep",
            "def m::f: m::f; 1",
        ] {
            let err = jq("1", program).unwrap_err();
            assert!(
                matches!(&err, JqError::Limit(m) if m.contains("calls itself")),
                "{program}: {err:?}"
            );
        }
        for program in [
            "def f: .a; f",
            "def f(g): g; f(.a) | f(.b)",
            "def f: \"def g: g\"; f",
            "[.[] | select(.def == 1)]",
        ] {
            assert!(
                !matches!(jq("{}", program), Err(JqError::Limit(_))),
                "{program}"
            );
        }
    }

    #[test]
    fn programs_too_long_or_too_deep_are_refused() {
        let long = ".a".repeat(MAX_PROGRAM_BYTES);
        assert!(matches!(jq("{}", &long), Err(JqError::Limit(m)) if m.contains("bytes")));
        let deep = format!(
            "{}1{}",
            "(".repeat(MAX_NESTING + 1),
            ")".repeat(MAX_NESTING + 1)
        );
        assert!(matches!(jq("{}", &deep), Err(JqError::Limit(m)) if m.contains("levels deep")));
        let fine = format!("{}1{}", "(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
        assert_eq!(jq("{}", &fine).unwrap(), vec![json!(1)]);
        // Brackets inside strings are not nesting.
        let quoted = format!("\"{}\"", "[".repeat(200));
        assert!(jq("{}", &quoted).is_ok());
    }

    #[test]
    fn a_query_past_its_deadline_is_an_error() {
        let limits = JqLimits {
            timeout: Duration::from_millis(200),
            ..JqLimits::default()
        };
        let started = Instant::now();
        let err =
            run_jq_within(b"null", "reduce range(1e15) as $x (0; . + 1)", limits).unwrap_err();
        assert!(
            matches!(&err, JqError::Limit(m) if m.contains("ran longer than 200 ms")),
            "{err:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_cancelled_query_stops_before_its_deadline() {
        let cancelled = std::sync::atomic::AtomicBool::new(true);
        let limits = JqLimits {
            timeout: Duration::from_secs(600),
            ..JqLimits::default()
        };
        // Runs for a second or so on the thread it leaves behind.
        let program = "reduce range(3e6) as $x (0; . + 1)";
        let err = run_jq_until(
            b"null",
            program,
            limits,
            Stop::default().or_when(&cancelled),
        )
        .unwrap_err();
        assert!(
            matches!(&err, JqError::Stopped(m) if m.contains("cancelled")),
            "{err:?}"
        );
    }

    #[test]
    fn a_document_nested_past_the_limit_names_the_limit_not_bad_json() {
        let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let deepest = nested(MAX_DOCUMENT_NESTING);
        assert_eq!(
            jq(&deepest, "[..] | length").unwrap(),
            vec![json!(MAX_DOCUMENT_NESTING + 1)]
        );
        let err = jq(&nested(MAX_DOCUMENT_NESTING + 1), ".").unwrap_err();
        let JqError::Limit(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(!msg.contains("not valid JSON"), "{msg}");
        assert!(
            msg.contains(&format!("more than {MAX_DOCUMENT_NESTING} levels deep")),
            "{msg}"
        );
        assert!(msg.contains("as text"), "{msg}");
        let err = jq(&format!(r#"{{"a": {}}}"#, nested(1_000)), ".a").unwrap_err();
        assert!(
            matches!(&err, JqError::Limit(m) if m.contains("levels deep")),
            "{err:?}"
        );
    }

    #[test]
    fn query_memory_is_sized_to_the_document() {
        assert_eq!(memory_for_document(3_000), MIN_QUERY_MEMORY_BYTES);
        const { assert!(MIN_QUERY_MEMORY_BYTES <= 256 << 20) };
        assert_eq!(memory_for_document(16 << 20), 1 << 30);
        assert_eq!(memory_for_document(256 << 20), MAX_QUERY_MEMORY_BYTES);
        assert_eq!(memory_for_document(u64::MAX), MAX_QUERY_MEMORY_BYTES);
    }

    #[test]
    fn a_query_over_the_concurrency_cap_is_refused_after_a_short_wait() {
        // Holds every slot of this process, as that many running queries would.
        let mut held = Vec::new();
        for _ in 0..slots() {
            held.push(WorkerSlot::take(Stop::default(), Duration::from_secs(60)).unwrap());
        }
        let limits = JqLimits {
            queue_wait: Duration::from_millis(100),
            ..JqLimits::default()
        };
        let (done, result) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(run_jq_within(b"[1]", ".[0]", limits));
        });
        let outcome = result.recv_timeout(Duration::from_secs(30));
        drop(held);
        let err = outcome
            .expect("a query over the cap waits briefly, not forever")
            .unwrap_err();
        assert!(
            matches!(&err, JqError::Limit(m) if m.contains("already running") && m.contains("try again")),
            "{err:?}"
        );
        // With the slots free again, the same query runs.
        assert_eq!(
            run_jq_within(b"[1]", ".[0]", limits).unwrap(),
            vec![json!(1)]
        );
    }

    #[test]
    fn syntax_is_checked_before_the_document() {
        assert!(matches!(
            jq("{not json", ".[").unwrap_err(),
            JqError::Syntax(_)
        ));
    }
}
