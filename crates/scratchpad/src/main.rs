//! `scratchpad`: store whole tool outputs, show previews, read slices, keep notes — from a shell.

// The argument structs' doc comments are `--help` text, written for a terminal (`<ANY>`, `[default:
// …]`, bare URLs), not rustdoc markup.
#![allow(
    rustdoc::bare_urls,
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags
)]

mod cli;
mod commands;
mod format;
mod interrupt;
mod progress;
mod ranges;
mod speak;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser as _;
use scratchpad_core::read::jq;
use scratchpad_core::{Config, DEFAULT_SESSION, Scratchpad};

use cli::{Cli, Command};
use speak::Shell;

fn main() -> ExitCode {
    // This executable also evaluates jq queries in child processes of its own, so that a runaway
    // query ends a worker with its memory and time limits, never the server it came from.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == jq::WORKER_ARG)
    {
        let args: Vec<String> = std::env::args_os()
            .skip(2)
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect();
        return ExitCode::from(jq::worker_main(&args));
    }
    if let Ok(exe) = std::env::current_exe() {
        jq::isolate_in(exe);
    }
    let cli = Cli::parse();
    init_logging();
    let shell = Shell::new(cli.global.store(), cli.global.session.as_deref());
    match run(cli, shell.clone()) {
        Ok(code) => ExitCode::from(code),
        // A signal stopped a write: its own error says only that its input failed.
        Err(_) if let Some(signal) = interrupt::received() => {
            let _ = writeln!(
                std::io::stderr(),
                "error: {}",
                interrupt::stopped_message(signal)
            );
            ExitCode::from(u8::try_from(128 + signal).unwrap_or(u8::MAX))
        }
        // `scratchpad read big | head` closes our stdout early; that is the reader's choice, not a failure.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "error: {}", describe(&err, &shell));
            ExitCode::FAILURE
        }
    }
}

/// Logs (the MCP faces' warnings, e.g. an upstream reconnect) go to stderr: stdout may carry the
/// protocol. `RUST_LOG` sets the level, warnings by default.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        let io = cause.downcast_ref::<std::io::Error>().or_else(|| {
            match cause.downcast_ref::<scratchpad_core::Error>() {
                Some(scratchpad_core::Error::Io(io)) => Some(io),
                _ => None,
            }
        });
        io.is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The message for a failure, its causes joined as `{:#}` does, with the engine's suggestions
/// spelled the way a shell user types them.
fn describe(err: &anyhow::Error, shell: &Shell) -> String {
    let mut parts = Vec::new();
    for cause in err.chain() {
        match engine_error(cause) {
            Some(engine) => {
                parts.push(engine.render(shell));
                // The engine's message is complete; what it wraps adds nothing a reader needs.
                break;
            }
            None => parts.push(cause.to_string()),
        }
    }
    parts.join(": ")
}

/// The engine's error in `cause`, also where a face's error carries it (the MCP faces' error
/// shows it through, and so hides it from the chain).
fn engine_error<'a>(
    cause: &'a (dyn std::error::Error + 'static),
) -> Option<&'a scratchpad_core::Error> {
    cause.downcast_ref::<scratchpad_core::Error>().or_else(|| {
        match cause.downcast_ref::<scratchpad_mcp::Error>() {
            Some(scratchpad_mcp::Error::Engine(engine)) => Some(engine),
            Some(_) | None => None,
        }
    })
}

/// What every command gets: the scratchpad, the output format and stdout.
#[derive(Debug)]
pub struct Ctx {
    pub pad: Scratchpad,
    pub json: bool,
    pub out: std::io::StdoutLock<'static>,
    /// How calls are spelled for this command line.
    pub shell: Shell,
}

impl Ctx {
    /// Prints a value as one JSON document.
    pub fn print_json(&mut self, value: &impl serde::Serialize) -> anyhow::Result<()> {
        serde_json::to_writer_pretty(&mut self.out, value)?;
        writeln!(self.out)?;
        Ok(())
    }
}

fn run(cli: Cli, shell: Shell) -> anyhow::Result<u8> {
    // Editing a client's configuration needs no store: nothing is opened or created for it.
    if let Command::Mcp(cli::McpArgs { command }) = &cli.command
        && let Some(code) = commands::clients::run(&cli.global, command)?
    {
        return Ok(code);
    }
    // Hooks edit a settings file, or are run by the agent and must never stop it: they open the
    // store themselves, if at all.
    if let Command::Hooks(args) = &cli.command {
        return commands::hooks::run(&cli.global, args);
    }
    let config = Config::load(cli.global.config.as_deref())?;
    // Flag and env beat the file; the engine reads the file's store when no URL is given.
    let session = cli
        .global
        .session
        .clone()
        .or_else(|| config.session.clone())
        .unwrap_or_else(|| DEFAULT_SESSION.to_owned());
    let pad = Scratchpad::open_with(cli.global.store(), config)?.with_session(&session)?;
    // Without one, the MCP faces name each client as the author of what it writes.
    let pad = match cli.command.author().or(cli.global.author.as_deref()) {
        Some(author) => pad.with_author(author)?,
        None => pad,
    };
    // The web view serves until stopped and prints only its address.
    if let Command::Ui(args) = cli.command {
        commands::ui::ui(pad, args, cli.global.store())?;
        return Ok(0);
    }
    // The MCP faces own stdout (the protocol) and spell calls as tools, so they skip the CLI context.
    if let Command::Mcp(args) = cli.command {
        let fixed_session = cli.global.session.is_some();
        commands::mcp::mcp(pad, args, fixed_session)?;
        return Ok(0);
    }
    interrupt::watch();
    let mut ctx = Ctx {
        pad,
        json: cli.global.json,
        out: std::io::stdout().lock(),
        shell,
    };
    let code = match cli.command {
        Command::Put(args) => commands::put::put(&mut ctx, args)?,
        Command::Run(args) => commands::run::run(&mut ctx, args)?,
        Command::Read(args) => commands::read::read(&mut ctx, args)?,
        Command::Show(args) => commands::inspect::show(&mut ctx, &args)?,
        Command::Ls(args) => commands::inspect::ls(&mut ctx, args)?,
        Command::Search(args) => commands::inspect::search(&mut ctx, &args)?,
        Command::Stats => commands::inspect::stats(&mut ctx)?,
        Command::Gc => commands::inspect::gc(&mut ctx)?,
        Command::Check => commands::inspect::check(&mut ctx)?,
        Command::Write(args) => commands::notes::write(&mut ctx, args)?,
        Command::Append(args) => commands::notes::append(&mut ctx, args)?,
        Command::Edit(args) => commands::notes::edit(&mut ctx, &args)?,
        Command::Mv(args) => commands::notes::mv(&mut ctx, &args)?,
        Command::Rm(args) => commands::notes::rm(&mut ctx, &args)?,
        Command::History(args) => commands::history::history(&mut ctx, &args)?,
        Command::Restore(args) => commands::history::restore(&mut ctx, &args)?,
        Command::Diff(args) => commands::history::diff(&mut ctx, &args)?,
        Command::Lease(args) => commands::lease::lease(&mut ctx, args)?,
        Command::Pin(args) => commands::notes::pin(&mut ctx, &args, true)?,
        Command::Unpin(args) => commands::notes::pin(&mut ctx, &args, false)?,
        Command::Ttl(args) => commands::notes::ttl(&mut ctx, &args)?,
        Command::ExpireTurn(args) => commands::notes::expire_turn(&mut ctx, &args)?,
        Command::Resolve(args) => commands::notes::resolve(&mut ctx, args)?,
        Command::Mcp(_) | Command::Ui(_) | Command::Hooks(_) => unreachable!("served above"),
    };
    ctx.out.flush()?;
    Ok(code)
}
