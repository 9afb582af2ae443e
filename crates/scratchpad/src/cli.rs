//! The command line: every flag, with the help text a person (or an agent with a shell) reads.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use scratchpad_core::store::url::StoreUrl;

use scratchpad::client_config::{Client, Scope};

#[derive(Debug, Parser)]
#[command(
    name = "scratchpad",
    version,
    about = "Keep whole tool outputs out of an LLM's context: previews, slices, notes.",
    long_about = "Keep whole tool outputs out of an LLM's context: previews, slices, notes.\n\n\
        Large outputs are stored whole; you see a short reference with a preview and read slices on demand. \
        Notes you write survive restarts.\n\n\
        Examples:\n  \
        cargo test 2>&1 | scratchpad put tests --tool cargo_test\n  \
        scratchpad run --name build -- make build\n  \
        scratchpad read tests --grep 'FAILED|error' -C 2\n  \
        scratchpad write plan 'step 1: reproduce the bug'",
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Store to use: sqlite:///abs/path.db or a plain file path [default: the user data dir]
    #[arg(
        long,
        global = true,
        env = "SCRATCHPAD_STORE",
        value_name = "URL",
        hide_env_values = true,
        help_heading = "Global options"
    )]
    pub store: Option<StoreUrl>,
    /// Session whose entries you see; other sessions' entries are invisible [default: default]
    #[arg(
        long,
        global = true,
        env = "SCRATCHPAD_SESSION",
        value_name = "NAME",
        hide_env_values = true,
        help_heading = "Global options"
    )]
    pub session: Option<String>,
    /// TOML configuration file [default: ~/.config/scratchpad/config.toml when it exists]
    #[arg(
        long,
        global = true,
        value_name = "PATH",
        help_heading = "Global options"
    )]
    pub config: Option<PathBuf>,
    /// Print machine-readable JSON instead of text
    #[arg(long, global = true, help_heading = "Global options")]
    pub json: bool,
    /// Who you are: recorded as the author of every change you make (`history`, `ls --long`) and
    /// the default lease holder; the commands that write also take it after their name
    #[arg(
        long,
        env = "SCRATCHPAD_AUTHOR",
        value_name = "NAME",
        hide_env_values = true,
        help_heading = "Global options"
    )]
    pub author: Option<String>,
}

impl GlobalArgs {
    /// The store URL given, password included: for opening the store. `Debug` shows it redacted.
    pub fn store(&self) -> Option<&str> {
        self.store.as_ref().map(StoreUrl::as_str)
    }
}

/// Who makes a change. Taken by the commands that write rather than globally, because `ls
/// --author` is a filter.
#[derive(Debug, Args)]
pub struct Who {
    /// Who you are: recorded as the author of this change (`history`, `ls --long`)
    #[arg(
        long,
        env = "SCRATCHPAD_AUTHOR",
        value_name = "NAME",
        hide_env_values = true
    )]
    pub author: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Put(PutArgs),
    Run(RunArgs),
    Read(ReadArgs),
    Show(ShowArgs),
    Ls(LsArgs),
    Search(SearchArgs),
    Write(WriteArgs),
    Append(AppendArgs),
    Edit(EditArgs),
    Mv(MvArgs),
    Rm(RmArgs),
    History(HistoryArgs),
    Restore(RestoreArgs),
    Diff(DiffArgs),
    Lease(LeaseArgs),
    /// Pin an entry: it never expires and is never evicted
    #[command(
        long_about = "Pin an entry: it never expires and is never evicted to meet the quota.\n\n\
        Example:\n  \
        scratchpad pin tests"
    )]
    Pin(PinArgs),
    /// Unpin an entry: its TTL applies again
    #[command(
        long_about = "Unpin an entry: its TTL applies again and it may be evicted to meet the \
        quota.\n\n\
        Example:\n  \
        scratchpad unpin tests"
    )]
    Unpin(PinArgs),
    Ttl(TtlArgs),
    ExpireTurn(ExpireTurnArgs),
    Resolve(ResolveArgs),
    /// Remove expired entries, evict over quota and give disk space back
    #[command(
        long_about = "Remove expired entries, evict the least recently read unpinned entries \
        when the store is over its quota, and give disk space back. It also runs on its own now and \
        then. Whatever the store did not make in its own folders (a symbolic link, a folder where a \
        file belongs, a name it never gives) is listed and left alone, never followed or deleted.\n\n\
        Example:\n  \
        scratchpad gc"
    )]
    Gc,
    /// Verify every stored content against its checksums and hash
    #[command(
        long_about = "Read every content of the store (all sessions) back, and verify each chunk \
        against its checksum, the chunks against the index, and the whole against its blake3 hash. \
        Prints what is damaged and the entries it hits, and exits with 1 if anything is; entries \
        whose content is intact read as before. Side files no entry refers to are counted (`gc` \
        removes them). Whatever the store did not make in its own folders (a symbolic link, a \
        folder where a file belongs, a name it never gives) is listed too, and also exits with 1.\n\n\
        Example:\n  \
        scratchpad check"
    )]
    Check,
    /// Show entries, bytes and the tokens kept out of context
    #[command(
        long_about = "Show the session's entries, pinned entries, bytes and estimated tokens \
        kept out of context, plus the store's size and quota.\n\n\
        Example:\n  \
        scratchpad stats"
    )]
    Stats,
    Mcp(McpArgs),
    Ui(UiArgs),
    Hooks(HooksArgs),
}

impl Command {
    /// Who the command's changes are recorded as, when it writes and was told.
    pub fn author(&self) -> Option<&str> {
        let who = match self {
            Self::Put(args) => &args.who,
            Self::Run(args) => &args.who,
            Self::Write(args) => &args.who,
            Self::Append(args) => &args.who,
            Self::Edit(args) => &args.who,
            Self::Mv(args) => &args.who,
            Self::Rm(args) => &args.who,
            Self::Pin(args) | Self::Unpin(args) => &args.who,
            Self::Ttl(args) => &args.who,
            Self::ExpireTurn(args) => &args.who,
            Self::Restore(args) => &args.who,
            Self::Lease(LeaseArgs {
                command: LeaseCommand::Acquire(args),
            }) => &args.who,
            Self::Lease(LeaseArgs {
                command: LeaseCommand::Renew(args),
            }) => &args.who,
            Self::Lease(LeaseArgs {
                command: LeaseCommand::Release(args),
            }) => &args.who,
            Self::Read(_)
            | Self::Show(_)
            | Self::Ls(_)
            | Self::Search(_)
            | Self::History(_)
            | Self::Diff(_)
            | Self::Lease(_)
            | Self::Resolve(_)
            | Self::Gc
            | Self::Check
            | Self::Stats
            | Self::Mcp(_)
            | Self::Ui(_)
            | Self::Hooks(_) => return None,
        };
        who.author.as_deref()
    }
}

/// Put the scratchpad into a coding agent's own hooks
#[derive(Debug, Args)]
#[command(
    long_about = "Put the scratchpad into a coding agent's own hooks, take it out again, or run one \
    (the agent runs them).\n\n\
    Claude Code: a SessionStart hook (at startup, on resume, after /clear and after compaction) \
    tells the model that the scratchpad keeps its notes and outputs, and lists the pinned notes of \
    the session, so a plan survives compaction without the model remembering to look.\n\n\
    Examples:\n  \
    scratchpad hooks install --client claude-code\n  \
    scratchpad --session myproject hooks install --client claude-code --scope project\n  \
    scratchpad hooks uninstall --client claude-code"
)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub command: HooksCommand,
}

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    Install(HooksInstallArgs),
    Uninstall(HooksUninstallArgs),
    Run(HooksRunArgs),
    Capture(HooksCaptureArgs),
}

/// An agent with hooks the scratchpad can go in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HookClient {
    /// Claude Code: ~/.claude/settings.json (user), .claude/settings.json (project)
    #[value(alias = "claude")]
    ClaudeCode,
    /// Gemini CLI: ~/.gemini/settings.json and .env (user), .gemini/ in the project (project)
    #[value(alias = "gemini-cli")]
    Gemini,
    /// Codex: ~/.codex/config.toml (user; $CODEX_HOME moves it), .codex/config.toml (project)
    Codex,
}

/// The agent's settings file one command edits.
#[derive(Debug, Args)]
pub struct HookFile {
    /// The agent whose settings to edit
    #[arg(long, value_enum, value_name = "NAME")]
    pub client: HookClient,
    /// The settings file, instead of where the agent keeps it
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// `user`: your own settings; `project`: the current directory's (shared through the repository)
    #[arg(long, value_enum, default_value_t = Scope::User, value_name = "SCOPE")]
    pub scope: Scope,
    /// Print the change as a unified diff and write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// Add the scratchpad's hooks to an agent's settings
#[derive(Debug, Args)]
#[command(
    long_about = "Add the scratchpad's hooks to an agent's settings file, next to the hooks already \
    there. Comments, key order, indentation and line endings are kept; the old file is copied to \
    FILE.scratchpad-backup-TIMESTAMP first. Running it again changes nothing, and `hooks \
    uninstall` gives the file back byte for byte.\n\n\
    The hooks use the store the scratchpad command finds on its own (SCRATCHPAD_STORE, the \
    configuration file, or the default one): the one the model's own `scratchpad` commands in its \
    shell tool see. --session is written into the hook's command; without it the hook reads the \
    session those commands read (SCRATCHPAD_SESSION, the configuration file, or `default`).\n\n\
    What each agent gets:\n  \
    claude-code  a SessionStart hook: on startup, resume, /clear and compaction it tells the model, in \
    a few lines, where its notes are and lists the pinned ones, and it sends the output of the Bash \
    tool through `scratchpad hooks capture` (see its --help) by lines it adds to $CLAUDE_ENV_FILE.\n  \
    gemini       the same SessionStart hook in settings.json; the output of run_shell_command goes \
    through the capture by BASH_ENV, set in the .env file beside settings.json to the capture lines \
    written there as scratchpad-bash-env.sh. Gemini CLI reads that .env only in trusted folders, and \
    only when the project has no .gemini/.env or .env of its own (add the BASH_ENV line there then).\n  \
    codex        exec_command's output through the capture: config.toml gets [shell_environment_policy] \
    set.BASH_ENV, naming scratchpad-bash-env.sh written beside it, and set.SHLVL = \"1\" (a level-1 \
    bash in Codex's sandbox skips BASH_ENV), and for a SQLite store its directory in \
    [sandbox_workspace_write] writable_roots, so that sandboxed commands can store.\n\n\
    Small output reaches the model as it was, long output as a stored entry's reference. The \
    commands are never rewritten, so permission rules and allow lists match them as before. A \
    BASH_ENV the user set already is never replaced: install refuses and says so.",
    after_long_help = "Examples:\n  \
    scratchpad hooks install --client claude-code\n  \
    scratchpad --session myproject hooks install --client claude-code --scope project --dry-run\n  \
    scratchpad hooks install --client gemini\n  \
    scratchpad hooks install --client codex --dry-run\n\n\
    Settings files (--scope user; --scope project, in the current directory):\n  \
    claude-code     ~/.claude/settings.json ($CLAUDE_CONFIG_DIR if set); .claude/settings.json\n  \
    gemini          ~/.gemini/settings.json and ~/.gemini/.env; .gemini/settings.json and .gemini/.env\n  \
    codex           ~/.codex/config.toml ($CODEX_HOME if set); .codex/config.toml"
)]
pub struct HooksInstallArgs {
    #[command(flatten)]
    pub file: HookFile,
    /// The command to write [default: this executable's path; `scratchpad` with --scope project]
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
}

/// Remove the hooks that `hooks install` added
#[derive(Debug, Args)]
#[command(
    long_about = "Remove the scratchpad's hooks and settings, and nothing else: after install then \
    uninstall each file is byte for byte what it was (a file install created is removed, and so is \
    the scratchpad-bash-env.sh it wrote). The old file is copied to FILE.scratchpad-backup-TIMESTAMP \
    first.",
    after_long_help = "Example:\n  \
    scratchpad hooks uninstall --client claude-code --scope project"
)]
pub struct HooksUninstallArgs {
    #[command(flatten)]
    pub file: HookFile,
}

/// Run one hook, as the agent does: its event's JSON on stdin, the answer on stdout
#[derive(Debug, Args)]
#[command(
    long_about = "Run one hook, as the agent does: the event's JSON on stdin, the agent's answer on \
    stdout. A hook never stops the agent: when the store cannot be opened or read it answers \
    nothing, exits 0 and says why on stderr.",
    after_long_help = "Example:\n  \
    echo '{\"hook_event_name\": \"SessionStart\", \"source\": \"compact\"}' | scratchpad hooks run session-start"
)]
pub struct HooksRunArgs {
    /// The event
    #[arg(value_enum)]
    pub event: HookEvent,
}

/// Pass a command's output on, or store it when it is long and pass on a reference instead
#[derive(Debug, Args)]
#[command(
    long_about = "Pass a command's output on, or store it when it is long and pass on a reference \
    instead. The shell tools of Claude Code, Gemini CLI and Codex send each command's output \
    (stdout and stderr merged, as the agent shows them) through it once `hooks install` has set \
    them up: lines run by the agent's shell before the command (from $CLAUDE_ENV_FILE for Claude \
    Code, from BASH_ENV for the others) redirect it. The command itself runs unchanged in the \
    agent's shell, so its exit code, working directory and interleaving are its own, and the \
    agent's permission rules see it as it is.\n\n\
    Output up to the offload threshold (`threshold_bytes`, or `[tools.bash] threshold_bytes` in the \
    configuration file; 4,096 bytes by default) is passed on byte for byte: as it comes once it has \
    been held a second (a slow command is seen live). Longer output is spooled to a removed temporary \
    file, stored whole as an entry `bash_N` in the store and session the scratchpad command in the \
    same shell uses, and what passes on is the entry's name, its preview (notable lines with their \
    numbers, head and tail), the exit code and the `scratchpad read` command that reads on. When the \
    entry cannot be stored, the output is passed on whole and the reason goes to stderr (the capture \
    lines send it to /dev/null, so it never mixes with the output); so is an output larger than the \
    store's quota, or one that would leave less than 1 GiB free where it is spooled. A command that runs \
    `scratchpad` (first, or after ;, &&, |, ( or a line break) is not sent through it: what \
    `scratchpad read` prints reaches the model as it is. `scratchpad hooks uninstall --client NAME` \
    turns it off for the sessions started after it.\n\n\
    With --marker, the input ends with a line the shell writes on exit: NUL, `scratchpad-exit`, the \
    marker, the exit status; it is taken out and the status shown with a stored output. Without it, \
    all of stdin is output.",
    after_long_help = "Examples:\n  \
    make 2>&1 | scratchpad hooks capture\n  \
    scratchpad --session myproject hooks capture --marker 1234 < output.txt"
)]
pub struct HooksCaptureArgs {
    /// The nonce of the exit-status line the shell ends the output with
    #[arg(long, value_name = "NONCE")]
    pub marker: Option<String>,
    /// Copy stdin to stdout until it ends, nothing else: what a capture leaves behind for the
    /// background children of a command that has ended
    #[arg(long, hide = true)]
    pub drain: bool,
}

/// The events the scratchpad has a hook for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HookEvent {
    /// SessionStart (Claude Code: startup, resume, /clear and compaction; Gemini CLI: startup,
    /// resume and /clear)
    SessionStart,
}

/// Serve the scratchpad to MCP clients
#[derive(Debug, Args)]
#[command(
    long_about = "Serve the scratchpad to MCP clients (desktop apps, coding agents), put it in a \
    client's configuration, or put the proxy in front of the servers a client already has.\n\n\
    Examples:\n  \
    scratchpad mcp serve\n  \
    scratchpad --session myproject mcp serve\n  \
    scratchpad mcp serve --http 127.0.0.1:8931\n  \
    scratchpad mcp install --client cursor\n  \
    scratchpad mcp wrap --client claude-desktop --dry-run"
)]
pub struct McpArgs {
    #[command(subcommand)]
    pub command: McpCommand,
}

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    Serve(ServeArgs),
    Proxy(ProxyArgs),
    Gateway(GatewayArgs),
    Install(InstallArgs),
    Uninstall(UninstallArgs),
    Wrap(WrapArgs),
    Unwrap(UnwrapArgs),
}

/// Which client file to edit, and whether to write it.
#[derive(Debug, Args)]
pub struct ClientFile {
    /// The MCP client whose configuration to edit
    #[arg(long, value_enum, value_name = "NAME")]
    pub client: Client,
    /// The client's configuration file, instead of where the client keeps it
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// `user`: your own file; `project`: the one in the current directory (Claude Code,
    /// Cursor, VS Code, Gemini CLI, Codex)
    #[arg(long, value_enum, default_value_t = Scope::User, value_name = "SCOPE")]
    pub scope: Scope,
    /// Print the change as a unified diff (secrets masked) and write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// Where each client keeps its file, for the help of the commands that edit them.
macro_rules! client_files {
    () => {
        "\n\nClient files (--scope user; --scope project, in the current directory):\n  \
        claude-code     ~/.claude.json; .mcp.json\n  \
        claude-desktop  Claude/claude_desktop_config.json in the config dir: ~/.config (Linux), \
        ~/Library/Application Support (macOS), %APPDATA% (Windows)\n  \
        cursor          ~/.cursor/mcp.json; .cursor/mcp.json\n  \
        vscode          Code/User/mcp.json in that config dir; .vscode/mcp.json\n  \
        windsurf        ~/.codeium/windsurf/mcp_config.json\n  \
        gemini          ~/.gemini/settings.json; .gemini/settings.json\n  \
        codex           ~/.codex/config.toml ($CODEX_HOME if set); .codex/config.toml"
    };
}

/// Add the scratchpad MCP server to a client's configuration
#[derive(Debug, Args)]
#[command(
    long_about = "Add the scratchpad MCP server (`scratchpad mcp serve`) to an MCP client's \
    configuration file, next to the servers already there. Comments, key order, indentation and \
    line endings are kept; the old file is copied to FILE.scratchpad-backup-TIMESTAMP first. A \
    missing file is created; an empty one is filled in. Running it again changes nothing. --session \
    and --store are checked as the server will check them, and refused before anything is \
    written.\n\n\
    The command written is this executable's absolute path in user files (apps started from a \
    desktop do not see your shell's PATH) and plain `scratchpad` in project files (shared with \
    others); --command overrides it. --session is passed on as an argument, --store as the \
    server's SCRATCHPAD_STORE variable (a URL may hold a password).",
    after_long_help = concat!(
        "Examples:\n  \
        scratchpad mcp install --client cursor\n  \
        scratchpad --session myproject mcp install --client claude-code --scope project\n  \
        scratchpad mcp install --client codex --dry-run",
        client_files!()
    )
)]
pub struct InstallArgs {
    #[command(flatten)]
    pub file: ClientFile,
    /// The server's name in the client's file
    #[arg(long, value_name = "NAME", default_value = "scratchpad")]
    pub name: String,
    /// The command to write [default: this executable's path; `scratchpad` with --scope project]
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
}

/// Remove the scratchpad MCP server that install added
#[derive(Debug, Args)]
#[command(
    long_about = "Remove the server that `scratchpad mcp install` added, and nothing else: after \
    install then uninstall the file is byte for byte what it was (a file install created is \
    removed). A server of that name that does not run `scratchpad mcp serve` is left alone. The \
    old file is copied to FILE.scratchpad-backup-TIMESTAMP first.",
    after_long_help = concat!(
        "Examples:\n  \
    scratchpad mcp uninstall --client cursor\n  \
    scratchpad mcp uninstall --client claude-code --scope project --dry-run",
        client_files!()
    )
)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub file: ClientFile,
    /// The server's name in the client's file
    #[arg(long, value_name = "NAME", default_value = "scratchpad")]
    pub name: String,
}

/// Put the proxy in front of a client's existing servers
#[derive(Debug, Args)]
#[command(
    long_about = "Put `scratchpad mcp proxy` in front of the MCP servers a client already has, so \
    their large results are offloaded and the scratchpad tools join theirs.\n\n\
    A stdio server's command becomes `scratchpad mcp proxy --wrapped=args -- <its command and \
    args>`. A streamable-HTTP server (url, serverUrl, httpUrl) becomes `scratchpad mcp proxy \
    --wrapped=url --upstream-url URL` (--wrapped marks what `unwrap` may take apart), and its headers move into its env as SCRATCHPAD_UPSTREAM_HEADER_<NAME> = \
    \"Name: value\", where the proxy reads them (a token on a command line is visible to other \
    users; variable references like ${TOKEN} keep working where the client expands env). Env, \
    cwd, timeouts, disabled flags, every other setting and every comment stay as they are.\n\n\
    Left alone, and said so: servers already wrapped, the scratchpad server itself, SSE servers \
    (the proxy speaks streamable HTTP upstream), servers that sign in through the client (OAuth, \
    Codex's bearer_token_env_var), and any whose edit `unwrap` could not undo byte for byte. A \
    remote server that relies on the client's own OAuth sign-in should be unwrapped again \
    (--server NAME).\n\n\
    The old file is copied to FILE.scratchpad-backup-TIMESTAMP first; --dry-run prints the diff \
    instead. Running it again changes nothing; `scratchpad mcp unwrap` restores the file byte for \
    byte.\n\n\
    The scratchpad tools are listed once per client: the first server wrapped keeps them and every \
    other proxy gets --no-scratchpad-tools (none does when the file already has the scratchpad \
    server or a proxy that lists them). One entry per server is kept, rather than one \
    `scratchpad mcp gateway` entry for all, because every client's UI switches servers on and off \
    one by one, and shows each server's tools and errors under its own name; switching off the \
    server that keeps the tools hides them (`scratchpad mcp install` adds them as a server of their \
    own). To have one process in front of them all instead, run `scratchpad mcp gateway \
    --servers-from FILE` as the client's only server.",
    after_long_help = concat!(
        "Examples:\n  \
    scratchpad mcp wrap --client claude-desktop --dry-run\n  \
    scratchpad mcp wrap --client cursor --server github --server filesystem\n  \
    scratchpad mcp wrap --client vscode --scope project\n  \
    scratchpad mcp wrap --client codex --config ./config.toml",
        client_files!()
    )
)]
pub struct WrapArgs {
    #[command(flatten)]
    pub file: ClientFile,
    /// Only this server (repeat for several) [default: all]
    #[arg(long = "server", value_name = "NAME")]
    pub servers: Vec<String>,
    /// The command to write [default: this executable's path; `scratchpad` with --scope project]
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
}

/// Take the proxy away from the servers wrap put it in front of
#[derive(Debug, Args)]
#[command(
    long_about = "Give back the servers `scratchpad mcp wrap` put the proxy in front of, exactly as \
    they were: after wrap then unwrap the file is byte for byte what it was. Only proxies wrap put in \
    (their args carry --wrapped=FORM) are taken apart, also after you edited them; servers wrap did \
    not touch, and proxies put in by hand, are left alone. The old file is copied to \
    FILE.scratchpad-backup-TIMESTAMP first.",
    after_long_help = concat!(
        "Examples:\n  \
    scratchpad mcp unwrap --client claude-desktop\n  \
    scratchpad mcp unwrap --client cursor --server github --dry-run",
        client_files!()
    )
)]
pub struct UnwrapArgs {
    #[command(flatten)]
    pub file: ClientFile,
    /// Only this server (repeat for several) [default: all]
    #[arg(long = "server", value_name = "NAME")]
    pub servers: Vec<String>,
}

/// Wrap any MCP server: its tools gain offload of large results, the `scratchpad` argument and
/// {{scratchpad:NAME}} placeholders, and the scratchpad tools join its tool list
#[derive(Debug, Args)]
#[command(
    long_about = "Sit between an MCP client and any existing MCP server, so the server gains the \
    scratchpad without changing a line. Everything is forwarded both ways (initialize, tools, resources, \
    prompts, completions, logging, progress, cancellation). Tool results larger than the threshold (bytes \
    of serialized content, default 4096; per-tool overrides in the config file under [tools.NAME] \
    threshold_bytes) are stored whole and replaced by a JSON reference with a preview (first and last \
    lines, error lines) and a resource_link; the model reads slices with scratchpad_read. Every proxied \
    tool gains an optional `scratchpad` argument (save the full output under this name), and \
    {{scratchpad:NAME}} placeholders in arguments (#lines=A-B, #range=A-B, #json=QUERY select a part) are \
    replaced by stored content before the upstream sees them. Output schemas are widened so strict \
    clients accept an offloaded result. An upstream tool whose name clashes with a scratchpad tool is \
    listed as upstream_NAME.\n\n\
    Speaks MCP on stdin/stdout; logs and the upstream's stderr go to stderr. Read modes of \
    scratchpad_read: head, tail, range, lines, grep, json, bytes, full. A `scratchpad` name that \
    already exists is replaced (the result says so). `resources/list` shows the upstream's resources, \
    then this session's entries as scratchpad://SESSION/NAME. An upstream that crashes is started \
    again on the next request (the cut call is reported, not retried); the upstream child is reaped \
    when the proxy exits.\n\n\
    In a client's configuration, replace\n  \
    \"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/srv\"]\n\
    with\n  \
    \"command\": \"scratchpad\", \"args\": [\"mcp\", \"proxy\", \"--\", \"npx\", \"-y\", \
    \"@modelcontextprotocol/server-filesystem\", \"/srv\"]\n\
    (`scratchpad mcp wrap` does this for you, adding --wrapped=args so that `mcp unwrap` knows it)\n\n\
    Examples:\n  \
    scratchpad mcp proxy -- npx -y @modelcontextprotocol/server-everything\n  \
    scratchpad --session build mcp proxy --threshold 8192 -- ./my-server --verbose\n  \
    scratchpad mcp proxy --upstream-url http://127.0.0.1:3001/mcp --lazy-tools\n  \
    SCRATCHPAD_UPSTREAM_TOKEN=… scratchpad mcp proxy --upstream-url https://mcp.example.com/mcp"
)]
pub struct ProxyArgs {
    /// Offload tool results larger than this many bytes of serialized content [default: the
    /// config's threshold_bytes, 4096]
    #[arg(long, value_name = "BYTES")]
    pub threshold: Option<usize>,
    /// Proxy a streamable-HTTP MCP server at this URL (http:// or https://) instead of starting a
    /// command. Certificates are checked against the system's roots; for a private CA set
    /// SSL_CERT_FILE to its PEM file
    #[arg(long, value_name = "URL", conflicts_with = "upstream")]
    pub upstream_url: Option<String>,
    /// Bearer token for the HTTP upstream, sent as `Authorization: Bearer TOKEN` (prefer the
    /// environment variable: a command line is visible to other users)
    #[arg(
        long,
        env = "SCRATCHPAD_UPSTREAM_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub upstream_token: Option<String>,
    /// Send this header to the HTTP upstream with every request, as `Name: value` (repeat for
    /// several), e.g. `X-Api-Key: abc`. Each environment variable SCRATCHPAD_UPSTREAM_HEADER_<ANY>
    /// holding `Name: value` adds one too, off the command line
    #[arg(
        long = "upstream-header",
        value_name = "NAME: VALUE",
        requires = "upstream_url"
    )]
    pub upstream_headers: Vec<String>,
    /// List the scratchpad tools only once a first result has been offloaded (announced with
    /// notifications/tools/list_changed)
    #[arg(long)]
    pub lazy_tools: bool,
    /// Do not list the scratchpad tools or entries (another server of the same client lists
    /// them); offload, the `scratchpad` argument and placeholders still work. `mcp wrap` gives it
    /// to every proxy of a client but one
    #[arg(long, conflicts_with = "lazy_tools")]
    pub no_scratchpad_tools: bool,
    /// Seconds a tool call may run upstream before the client gets an error and the upstream a
    /// cancellation (the upstream's start-up handshake gets this long too, at most 30)
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub call_timeout: u64,
    /// Answer a call identical to one made at most this long ago from its stored result, without
    /// calling the tool, for tools that declare readOnlyHint and idempotentHint (or are named with
    /// --reuse-tool): e.g. 60s, 5m, or `off` [default: the config's reuse_window, 60s]
    #[arg(long, value_name = "DURATION")]
    pub reuse_window: Option<scratchpad_core::ReuseWindow>,
    /// Reuse the repeated calls of this tool too (NAME as the client lists it; repeat for several; added to the
    /// config's reuse_tools)
    #[arg(long = "reuse-tool", value_name = "NAME")]
    pub reuse_tools: Vec<String>,
    /// Largest message accepted from the client, in bytes (a longer one is answered with an error
    /// naming this limit)
    #[arg(long, value_name = "BYTES", default_value_t = scratchpad_mcp::lines::DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_body_bytes: usize,
    /// Largest message accepted from the upstream, e.g. one tool result, in bytes. Results past a
    /// few megabytes are spooled to a temporary file as they arrive, then stored; a longer one fails
    /// its call at once with an error naming this limit
    #[arg(long, value_name = "BYTES", default_value_t = scratchpad_mcp::lines::DEFAULT_MAX_RESULT_BYTES)]
    pub max_result_bytes: u64,
    /// Set by `scratchpad mcp wrap`: marks a proxy it put in front of a server, so that `mcp
    /// unwrap` takes apart only those, and says what unwrap gives back (`args`, `command`, or the
    /// key the URL was under). The proxy itself does nothing with it
    #[arg(long, value_name = "FORM", hide_short_help = true)]
    pub wrapped: Option<String>,
    /// The upstream server's command and arguments, after `--`
    #[arg(last = true, value_name = "UPSTREAM_CMD")]
    pub upstream: Vec<String>,
}

/// One server in front of several MCP servers: each one's tools as SERVER__TOOL, the scratchpad
/// tools listed once
#[derive(Debug, Args)]
#[command(
    long_about = "Stand in front of several MCP servers at once, so a client sees each server's \
    tools and prompts under SERVER__NAME and the scratchpad tools once (one proxy per server would \
    list them once per server). Everything `scratchpad mcp proxy` does is done for each server: large \
    results offloaded, the `scratchpad` argument, {{scratchpad:NAME}} placeholders, progress, \
    cancellation, list changes, sampling/elicitation/roots requests passed to the client, timeouts, \
    and a crashed server started again on its next request without disturbing the others.\n\n\
    Servers come from --servers-from FILE, a file in the shape MCP clients write (\"mcpServers\": \
    {\"NAME\": {\"command\", \"args\", \"env\"} or {\"url\" | \"serverUrl\" | \"httpUrl\", \
    \"headers\"}}; VS Code's \"servers\" and Codex's [mcp_servers.NAME] TOML too; comments and \
    trailing commas allowed), from [gateway.servers.NAME] tables of the configuration file (command, \
    args, env, url, headers), and from --server NAME=COMMAND / --upstream-url NAME=URL. A name given \
    twice is refused.\n\n\
    Names: characters other than letters, digits, `_` and `-` become `_`; a name longer than 64 \
    characters, or one that would clash with another, is cut and ends in `_` and a hash, and its \
    description says what the server calls it. Resources keep their URIs (the first server to list \
    a URI serves it).\n\n\
    Servers start at once, side by side. One that fails to start, or is still starting after \
    --startup-wait, is listed as the single tool SERVER__unavailable, which says why and what to \
    fix, and starts it again when called; the client is told to list the tools again when it comes \
    up.",
    after_long_help = "Examples:\n  \
    scratchpad mcp gateway --servers-from ~/.cursor/mcp.json\n  \
    scratchpad mcp gateway --server 'fs=npx -y @modelcontextprotocol/server-filesystem /srv' \\\n      \
    --upstream-url docs=http://127.0.0.1:3001/mcp\n  \
    scratchpad mcp gateway    # the servers of [gateway.servers.NAME] in config.toml\n\n\
    In config.toml:\n  \
    [gateway.servers.fs]\n  \
    command = \"npx\"\n  \
    args = [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/srv\"]\n  \
    [gateway.servers.docs]\n  \
    url = \"https://mcp.example.com/mcp\"\n  \
    headers = { Authorization = \"Bearer …\" }"
)]
pub struct GatewayArgs {
    /// Read the servers from this file, in the shape MCP clients write (mcpServers, servers, or
    /// Codex's TOML mcp_servers)
    #[arg(long, value_name = "FILE")]
    pub servers_from: Option<PathBuf>,
    /// An upstream started as COMMAND (split at spaces; quote an argument with ' or " to keep
    /// its spaces), e.g. `fs=npx -y @modelcontextprotocol/server-filesystem /srv` (repeat for
    /// several)
    #[arg(long = "server", value_name = "NAME=COMMAND")]
    pub servers: Vec<String>,
    /// A streamable-HTTP upstream, e.g. `docs=http://127.0.0.1:3001/mcp` (repeat for several)
    #[arg(long = "upstream-url", value_name = "NAME=URL")]
    pub upstream_urls: Vec<String>,
    /// Offload tool results larger than this many bytes of serialized content [default: the
    /// config's threshold_bytes, 4096]
    #[arg(long, value_name = "BYTES")]
    pub threshold: Option<usize>,
    /// Seconds a tool call may run upstream before the client gets an error and the upstream a
    /// cancellation
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub call_timeout: u64,
    /// Seconds the client's initialize and a tools/list wait for a server still starting before
    /// listing its SERVER__unavailable placeholder instead
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    pub startup_wait: u64,
    /// Answer a call identical to one made at most this long ago from its stored result, without
    /// calling the tool, for tools that declare readOnlyHint and idempotentHint (or are named with
    /// --reuse-tool): e.g. 60s, 5m, or `off` [default: the config's reuse_window, 60s]
    #[arg(long, value_name = "DURATION")]
    pub reuse_window: Option<scratchpad_core::ReuseWindow>,
    /// Reuse the repeated calls of this tool too (NAME is SERVER__TOOL, the tool's name as that server calls it; repeat for several; added to the
    /// config's reuse_tools)
    #[arg(long = "reuse-tool", value_name = "NAME")]
    pub reuse_tools: Vec<String>,
    /// Largest message accepted from the client, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = scratchpad_mcp::lines::DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_body_bytes: usize,
    /// Largest message accepted from an upstream, e.g. one tool result, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = scratchpad_mcp::lines::DEFAULT_MAX_RESULT_BYTES)]
    pub max_result_bytes: u64,
}

/// Run the MCP server: scratchpad tools, resources and guidance, over stdio or HTTP
#[derive(Debug, Args)]
#[command(
    long_about = "Run the MCP server: the scratchpad_* tools (write, read, edit, list, delete, search, pin, \
    rename), every entry as a scratchpad://SESSION/NAME resource, and instructions telling the model when \
    to keep notes and how to read slices.\n\n\
    Without --http it speaks MCP on stdin/stdout (logs go to stderr): point your MCP client's command at \
    `scratchpad mcp serve`. With --http it serves streamable HTTP at http://ADDR/mcp, on loopback unless \
    you bind elsewhere; any other address requires --token. With tokens, each token is a client with its \
    own session unless --session fixes one for all.\n\n\
    Over HTTP no client can starve the others: connections are capped per address and in total, a \
    connection that sends its request slowly or sits idle is closed (--header-timeout-secs, \
    --keep-alive-secs, --body-timeout-secs), and MCP sessions are capped per client without one \
    client's new sessions ever closing another's.\n\n\
    Examples:\n  \
    scratchpad --session myproject mcp serve\n  \
    scratchpad mcp serve --http 127.0.0.1:8931\n  \
    SCRATCHPAD_MCP_TOKEN=$(openssl rand -hex 32) scratchpad mcp serve --http 0.0.0.0:8931 \\\n    \
    --allowed-host pad.internal:8931"
)]
pub struct ServeArgs {
    /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8931) instead of stdio
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// Bearer token a client must send (repeat for several clients; required off loopback)
    #[arg(
        long = "token",
        env = "SCRATCHPAD_MCP_TOKEN",
        value_name = "TOKEN",
        value_delimiter = ',',
        hide_env_values = true
    )]
    pub tokens: Vec<String>,
    /// Also accept this Host header (the name clients use to reach a non-loopback bind)
    #[arg(long = "allowed-host", value_name = "HOST[:PORT]")]
    pub allowed_hosts: Vec<String>,
    /// Also accept requests from this browser origin, e.g. https://app.example.com:443
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,
    /// Largest request accepted, in bytes: an HTTP body, or one message on stdio (a longer one is
    /// answered with an error naming this limit)
    #[arg(long, value_name = "BYTES", default_value_t = scratchpad_mcp::http::DEFAULT_MAX_BODY_BYTES)]
    pub max_body_bytes: usize,
    /// HTTP: most MCP sessions open at once, all clients together (new ones are refused with 503)
    #[arg(long, value_name = "N", default_value_t = scratchpad_mcp::http::SessionLimits::default().max_total)]
    pub max_sessions: usize,
    /// HTTP: most MCP sessions one client keeps open. With tokens a client is a token, and opening
    /// one more closes its own least recently used; without tokens each session is its own client,
    /// and one more from the same address is refused (429) until one ends or idles out
    #[arg(long, value_name = "N", default_value_t = scratchpad_mcp::http::SessionLimits::default().max_per_client)]
    pub max_sessions_per_client: usize,
    /// HTTP: seconds after which an unused MCP session is closed (its client starts a new one)
    #[arg(long, value_name = "SECONDS", default_value_t = scratchpad_mcp::http::SessionLimits::default().idle.as_secs())]
    pub session_idle_secs: u64,
    /// HTTP: most connections open at once, all clients together (more are answered 503 and closed)
    #[arg(long, value_name = "N", default_value_t = scratchpad_mcp::http::ConnectionLimits::default().max_total)]
    pub max_connections: usize,
    /// HTTP: most connections open at once from one IP address (more are answered 429 and closed)
    #[arg(long, value_name = "N", default_value_t = scratchpad_mcp::http::ConnectionLimits::default().max_per_address)]
    pub max_connections_per_address: usize,
    /// HTTP: seconds a request's line and headers may take to arrive whole, from their first byte
    /// (for a new connection, from its opening); a slower connection is closed
    #[arg(long, value_name = "SECONDS", default_value_t = scratchpad_mcp::http::ConnectionLimits::default().header_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout_secs: u64,
    /// HTTP: seconds a connection may wait idle for its next request (or for its client to read a
    /// response) before it is closed
    #[arg(long, value_name = "SECONDS", default_value_t = scratchpad_mcp::http::ConnectionLimits::default().keep_alive.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    pub keep_alive_secs: u64,
    /// HTTP: seconds a request's body may take to arrive whole; a slower one is answered 408
    #[arg(long, value_name = "SECONDS", default_value_t = scratchpad_mcp::http::ConnectionLimits::default().body_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    pub body_timeout_secs: u64,
}

/// Open a live web view of the store in your browser
#[derive(Debug, Args)]
#[command(
    long_about = "Serve a live web view of the store on this machine and open it in the browser: \
    every session, each entry with the preview the model saw, the whole content read in place (any \
    size), notes with their history and diffs, search across sessions, and the tokens the scratchpad \
    kept out of contexts against those read back. Open pages follow what agents write as they write \
    it.\n\n\
    The first line printed is the address to open, with a token made for this launch; every request \
    must carry it (the browser keeps it as a cookie after the first visit). Stop with Ctrl-C.\n\n\
    Examples:\n  \
    scratchpad ui\n  \
    scratchpad ui --http 127.0.0.1:0 --no-open --read-only\n  \
    scratchpad --store postgres://me@db.internal/pad ui"
)]
pub struct UiArgs {
    /// Listen on this address; port 0 picks a free one [default: 127.0.0.1:8933, or a free port
    /// when that one is taken]
    #[arg(long, value_name = "ADDR:PORT")]
    pub http: Option<std::net::SocketAddr>,
    /// Print the address but do not open a browser
    #[arg(long)]
    pub no_open: bool,
    /// Show the store and change nothing: every change is refused
    #[arg(long)]
    pub read_only: bool,
    /// The token every request must carry instead of one made for this launch (required off
    /// loopback; 16 characters or more)
    #[arg(
        long,
        env = "SCRATCHPAD_UI_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,
    /// Also accept this Host header (the name browsers use to reach a non-loopback bind)
    #[arg(long = "allowed-host", value_name = "HOST[:PORT]")]
    pub allowed_hosts: Vec<String>,
    /// Also accept changes from pages of this origin, e.g. https://pad.internal:443
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,
    #[command(flatten)]
    pub who: Who,
}

/// Store stdin (or a file) and print a reference with a preview.
#[derive(Debug, Args)]
#[command(
    long_about = "Store stdin (or a file) whole and print a reference with a preview.\n\n\
    Small content prints just one line; content above the offload threshold also prints a preview \
    (start, end, notable lines) and the commands that read more.\n\n\
    Examples:\n  \
    cargo build 2>&1 | scratchpad put --tool cargo_build\n  \
    scratchpad put api_response --file response.json --ttl 7d"
)]
pub struct PutArgs {
    /// Entry name; without it the name is `<tool>_<n>` (or `put_<n>`), never reusing an old one
    pub name: Option<String>,
    /// Read this file instead of stdin
    #[arg(long, short, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// The tool that produced the content (shown in listings, used for automatic names)
    #[arg(long, value_name = "T")]
    pub tool: Option<String>,
    #[command(flatten)]
    pub keep: KeepArgs,
    /// Tag the entry with a turn, so `expire-turn TAG` can remove it later
    #[arg(long, value_name = "TAG")]
    pub turn: Option<String>,
    /// Only overwrite NAME if it is at this version (a mismatch is an error naming the current one)
    #[arg(long, value_name = "N")]
    pub if_version: Option<u64>,
    /// Free metadata to keep with the entry, as a JSON object
    #[arg(long, value_name = "JSON")]
    pub meta: Option<String>,
    /// Keep the versions later writes replace, as notes do (outputs of tools keep none by default)
    #[arg(long)]
    pub keep_history: bool,
    /// Lease token from `lease acquire NAME`: refused if a newer token was issued for NAME since
    #[arg(long, value_name = "TOKEN")]
    pub lease: Option<u64>,
    #[command(flatten)]
    pub who: Who,
}

/// Lifetime flags shared by the commands that create entries.
#[derive(Debug, Args)]
pub struct KeepArgs {
    /// How long to keep the entry: 30m, 24h, 7d, or `never` [default: 24h for automatic names, never for named]
    #[arg(long, value_name = "DURATION")]
    pub ttl: Option<String>,
    /// Pin the entry: it never expires and is never evicted to meet the quota
    #[arg(long)]
    pub pin: bool,
}

/// Run a command and store its output (stdout and stderr merged).
#[derive(Debug, Args)]
#[command(
    long_about = "Run a command, storing its output: stdout and stderr merged line by line, in the \
    order they arrive (lines written to both at the same moment may land in either order).\n\n\
    Small output prints inline as it is; large output prints a reference with a preview, how many \
    lines came on stderr with the last of them (numbered as in the entry), the exit code, and the \
    commands that read more. The entry's metadata keeps the command, its directory, its exit code \
    and its stderr line count (`show NAME`). The exit code of `run` is the command's own.\n\n\
    Examples:\n  \
    scratchpad run -- cargo test --workspace\n  \
    scratchpad run --name deps -- cargo tree"
)]
pub struct RunArgs {
    /// Entry name [default: `<command>_<n>`]
    #[arg(long, value_name = "N")]
    pub name: Option<String>,
    #[command(flatten)]
    pub keep: KeepArgs,
    /// Tag the entry with a turn, so `expire-turn TAG` can remove it later
    #[arg(long, value_name = "TAG")]
    pub turn: Option<String>,
    /// The command and its arguments (after `--`)
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "CMD"
    )]
    pub command: Vec<String>,
    #[command(flatten)]
    pub who: Who,
}

/// Read part of an entry: head, tail, a range, lines, grep, jq, bytes, or all of it.
#[derive(Debug, Args)]
#[command(
    long_about = "Read part of an entry: head, tail, a range, lines, grep, jq, bytes, or all of it.\n\n\
    Give at most one mode; without one the whole entry is read (refused above a size guard unless \
    --force; --raw streams it whole at any size). Every reply says which part it covers and, when \
    cut at the budget, ends with the exact command that continues it.\n\n\
    Examples:\n  \
    scratchpad read tests --grep 'FAILED|error' -C 3\n  \
    scratchpad read tests --lines 200-260\n  \
    scratchpad read big_log --raw > big_log.txt\n  \
    scratchpad read plan --version 3",
    group = clap::ArgGroup::new("mode").multiple(false)
)]
pub struct ReadArgs {
    /// Entry name or id
    #[arg(value_name = "REF")]
    pub reference: String,
    /// The first N lines, like head -n (characters: --range) [default: 100]
    #[arg(long, value_name = "N", num_args = 0..=1, group = "mode")]
    pub head: Option<Option<u64>>,
    /// The last N lines, like tail -n [default: 100]
    #[arg(long, value_name = "N", num_args = 0..=1, group = "mode")]
    pub tail: Option<Option<u64>>,
    /// Characters FROM-TO (0-based, end exclusive); FROM- reads to the end
    #[arg(long, value_name = "A-B", group = "mode", allow_hyphen_values = true)]
    pub range: Option<String>,
    /// Lines FROM-TO (1-based, inclusive), numbered; FROM- reads to the end, N reads one line
    #[arg(long, value_name = "A-B", group = "mode", allow_hyphen_values = true)]
    pub lines: Option<String>,
    /// Lines matching a regular expression, numbered, with the total match count
    #[arg(
        long,
        value_name = "PATTERN",
        group = "mode",
        allow_hyphen_values = true
    )]
    pub grep: Option<String>,
    /// With --grep: lines of context around each match
    #[arg(
        short = 'C',
        long,
        value_name = "N",
        requires = "grep",
        default_value_t = 0,
        hide_default_value = true
    )]
    pub context: u64,
    /// With --grep: match case-insensitively
    #[arg(short, long, requires = "grep")]
    pub ignore_case: bool,
    /// With --grep: list at most N matching lines [default: 100]
    #[arg(long, value_name = "N", requires = "grep")]
    pub max: Option<u64>,
    /// With --grep: start searching at this line
    #[arg(long, value_name = "N", requires = "grep")]
    pub from_line: Option<u64>,
    /// Run a jq query over a JSON entry, e.g. '.items[0]' or 'keys'
    #[arg(long, value_name = "QUERY", group = "mode", allow_hyphen_values = true)]
    pub jq: Option<String>,
    /// Bytes FROM-TO (0-based, end exclusive) as base64; FROM- reads to the end
    #[arg(long, value_name = "A-B", group = "mode", allow_hyphen_values = true)]
    pub bytes: Option<String>,
    /// The whole entry (the default when no mode is given); refused above the size guard unless
    /// --force or --raw
    #[arg(long, group = "mode")]
    pub full: bool,
    /// The entry's line templates (numbers, ids, paths masked) with counts, level, first and last
    /// line and an example, most severe first; FROM is the first template to list
    #[arg(long, value_name = "FROM", num_args = 0..=1, group = "mode")]
    pub summary: Option<Option<u64>>,
    /// Read the whole entry whatever its size (a full read: with --full or without a mode)
    #[arg(
        long,
        conflicts_with_all = ["head", "tail", "range", "lines", "grep", "jq", "bytes", "summary"]
    )]
    pub force: bool,
    /// Characters this reply may hold, instead of the configured budget
    #[arg(long, value_name = "CHARS")]
    pub budget: Option<usize>,
    /// Print only the content on stdout: no header or notes (a continuation, when --budget cuts
    /// the reply, goes to stderr). With --full (or no mode) the entry, or its --version, is
    /// streamed as stored, any size and any kind, so `read NAME --raw > file` exports it
    #[arg(long)]
    pub raw: bool,
    /// Read this older version (`history REF` lists them), with any mode
    #[arg(long, value_name = "N")]
    pub version: Option<u64>,
}

/// Show an entry's metadata, preview and how to read it.
#[derive(Debug, Args)]
#[command(
    long_about = "Show an entry's metadata (sizes, times, version, source), its preview and \
    the commands that read it.\n\n\
    Example:\n  \
    scratchpad show tests"
)]
pub struct ShowArgs {
    /// Entry name or id
    #[arg(value_name = "REF")]
    pub reference: String,
}

/// List the session's entries, newest first.
#[derive(Debug, Args)]
#[command(
    long_about = "List the session's entries, newest first, a page at a time.\n\n\
    Examples:\n  \
    scratchpad ls --kind json\n  \
    scratchpad ls --tool cargo_test --limit 10\n  \
    scratchpad ls --long --author agent-b\n  \
    scratchpad ls --removed"
)]
pub struct LsArgs {
    /// Only entries of this kind: text, json or binary
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Only names starting with this
    #[arg(long, value_name = "PREFIX")]
    pub prefix: Option<String>,
    /// Only entries produced by this tool
    #[arg(long, value_name = "T")]
    pub tool: Option<String>,
    /// Only pinned entries
    #[arg(long)]
    pub pinned: bool,
    /// Only entries tagged with this turn
    #[arg(long, value_name = "TAG")]
    pub turn: Option<String>,
    /// Only entries whose current version this author wrote
    #[arg(long, value_name = "NAME")]
    pub author: Option<String>,
    /// Also show who wrote each entry and when (UTC)
    #[arg(long, short)]
    pub long: bool,
    /// Entries per page
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: usize,
    /// Continue a listing where the previous page ended (printed after the table)
    #[arg(long, value_name = "C")]
    pub cursor: Option<String>,
    /// List removed notes instead: restorable until the time shown (`restore REF --removed`)
    #[arg(long, conflicts_with_all = ["kind", "prefix", "tool", "pinned", "turn", "author", "cursor"])]
    pub removed: bool,
}

/// Full-text search over the session's entries.
#[derive(Debug, Args)]
#[command(
    long_about = "Full-text search over the session's entries, best match first, with a \
    snippet of each. It finds which entry mentions something: names, notes and the first 192 KB and \
    last 64 KB of each text entry are indexed. To search all of one large entry, use \
    `scratchpad read NAME --grep PATTERN`.\n\n\
    Example:\n  \
    scratchpad search 'connection refused'"
)]
pub struct SearchArgs {
    /// Words to look for
    pub query: String,
    /// Hits to show at most
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub limit: usize,
}

/// Create or overwrite a note.
#[derive(Debug, Args)]
#[command(
    long_about = "Create or overwrite a note with TEXT, or with stdin when TEXT is absent.\n\n\
    Notes never expire unless given a TTL.\n\n\
    Examples:\n  \
    scratchpad write plan '1. reproduce  2. bisect  3. fix'\n  \
    scratchpad write findings < findings.md"
)]
pub struct WriteArgs {
    /// Note name
    pub name: String,
    /// The text [default: stdin]
    pub text: Option<String>,
    /// Only overwrite if the note is at this version
    #[arg(long, value_name = "N")]
    pub if_version: Option<u64>,
    #[command(flatten)]
    pub keep: KeepArgs,
    /// Lease token from `lease acquire NAME`: refused if a newer token was issued for NAME since
    #[arg(long, value_name = "TOKEN")]
    pub lease: Option<u64>,
    #[command(flatten)]
    pub who: Who,
}

/// Append text to a note (creating it when absent).
#[derive(Debug, Args)]
#[command(
    long_about = "Append TEXT (or stdin when TEXT is absent) to a note, creating it when \
    absent. Nothing is added between the old and the new text. Several agents may append to \
    one note at once: each text lands whole, after whatever the newest version holds (give \
    --if-version to append only to the version you read).\n\n\
    Example:\n  \
    scratchpad append findings $'- the cache key ignores the locale\\n'"
)]
pub struct AppendArgs {
    /// Note name
    pub name: String,
    /// The text [default: stdin]
    pub text: Option<String>,
    /// Only append if the note is at this version
    #[arg(long, value_name = "N")]
    pub if_version: Option<u64>,
    /// Lease token from `lease acquire NAME`: refused if a newer token was issued for NAME since
    #[arg(long, value_name = "TOKEN")]
    pub lease: Option<u64>,
    #[command(flatten)]
    pub who: Who,
}

/// Replace text in a note, or insert lines at a line.
#[derive(Debug, Args)]
#[command(
    long_about = "Replace OLD by NEW in a note. OLD must occur exactly once unless \
    --replace-all. With --after-line N instead of --old, NEW is inserted as whole lines after \
    line N (0: before the first line).\n\n\
    Examples:\n  \
    scratchpad edit plan --old '[ ] bisect' --new '[x] bisect'\n  \
    scratchpad edit plan --after-line 2 --new '3. rerun the failing test'"
)]
pub struct EditArgs {
    /// Note name or id
    pub name: String,
    /// The exact text to replace (whitespace and line breaks count)
    #[arg(
        long,
        value_name = "OLD",
        allow_hyphen_values = true,
        required_unless_present = "after_line"
    )]
    pub old: Option<String>,
    /// The replacement text, or the lines to insert with --after-line
    #[arg(long, value_name = "NEW", allow_hyphen_values = true)]
    pub new: String,
    /// Replace every occurrence instead of requiring exactly one
    #[arg(long, conflicts_with = "after_line")]
    pub replace_all: bool,
    /// Insert NEW as whole lines after line N instead of replacing (0: before the first line)
    #[arg(long, value_name = "N", conflicts_with = "old")]
    pub after_line: Option<u64>,
    /// Only edit if the note is at this version
    #[arg(long, value_name = "N")]
    pub if_version: Option<u64>,
    /// Lease token from `lease acquire NAME`: refused if a newer token was issued for NAME since
    #[arg(long, value_name = "TOKEN")]
    pub lease: Option<u64>,
    #[command(flatten)]
    pub who: Who,
}

/// Rename an entry.
#[derive(Debug, Args)]
#[command(
    long_about = "Rename an entry (a way to keep an offload as a note).\n\n\
    Example:\n  \
    scratchpad mv tests failing_tests"
)]
pub struct MvArgs {
    /// Current name or id
    pub name: String,
    /// New name
    pub new_name: String,
    /// Only rename if the entry is at this version
    #[arg(long, value_name = "N")]
    pub if_version: Option<u64>,
    /// Lease token from `lease acquire NAME`: refused if a newer token was issued for NAME since
    #[arg(long, value_name = "TOKEN")]
    pub lease: Option<u64>,
    #[command(flatten)]
    pub who: Who,
}

/// Remove entries; a removed note stays restorable for a while.
#[derive(Debug, Args)]
#[command(
    long_about = "Remove entries by name or id; each name is free for new writes at once. Each \
    is reported; the exit code is 1 if any could not be removed.\n\n\
    A removed note keeps all its versions for 7 days (`keep_removed` in the configuration; `0` \
    purges at once): `ls --removed` lists it, `history REF --removed` shows its versions and who \
    removed it, `restore REF --removed` brings it back. Outputs of tools keep no history and are \
    deleted at once, so removing one frees its space. --purge deletes a note with all its versions \
    at once, or the kept versions of a note removed before.\n\n\
    Examples:\n  \
    scratchpad rm tests build\n  \
    scratchpad rm plan --purge"
)]
pub struct RmArgs {
    /// Names or ids
    #[arg(required = true)]
    pub names: Vec<String>,
    /// Delete at once with every version, and free the space; a name removed before: its kept versions
    #[arg(long)]
    pub purge: bool,
    /// Only remove if the entry is at this version
    #[arg(long, value_name = "N")]
    pub if_version: Option<u64>,
    /// Lease token from `lease acquire NAME`: refused if a newer token was issued for NAME since
    #[arg(long, value_name = "TOKEN")]
    pub lease: Option<u64>,
    #[command(flatten)]
    pub who: Who,
}

/// An entry to pin or unpin.
#[derive(Debug, Args)]
pub struct PinArgs {
    /// Name or id
    pub name: String,
    /// Only change it if the entry is at this version
    #[arg(long, value_name = "N")]
    pub if_version: Option<u64>,
    /// Lease token from `lease acquire NAME`: refused if a newer token was issued for NAME since
    #[arg(long, value_name = "TOKEN")]
    pub lease: Option<u64>,
    #[command(flatten)]
    pub who: Who,
}

/// Set how long an entry lives, from now.
#[derive(Debug, Args)]
#[command(long_about = "Set how long an entry lives, counted from now.\n\n\
    Examples:\n  \
    scratchpad ttl tests 7d\n  \
    scratchpad ttl plan never")]
pub struct TtlArgs {
    /// Name or id
    pub name: String,
    /// 30m, 24h, 7d, a number of seconds, or `never`
    #[arg(value_name = "DURATION")]
    pub duration: String,
    /// Only change it if the entry is at this version
    #[arg(long, value_name = "N")]
    pub if_version: Option<u64>,
    /// Lease token from `lease acquire NAME`: refused if a newer token was issued for NAME since
    #[arg(long, value_name = "TOKEN")]
    pub lease: Option<u64>,
    #[command(flatten)]
    pub who: Who,
}

/// Remove every entry tagged with a turn.
#[derive(Debug, Args)]
#[command(
    long_about = "Remove every entry of the session tagged with TAG (see `put --turn`).\n\n\
    Example:\n  \
    scratchpad expire-turn turn-12"
)]
pub struct ExpireTurnArgs {
    /// The turn tag
    pub tag: String,
    #[command(flatten)]
    pub who: Who,
}

/// Replace {{scratchpad:NAME}} placeholders with stored content.
#[derive(Debug, Args)]
#[command(
    long_about = "Replace {{scratchpad:NAME}} placeholders in TEXT (or stdin) with the \
    entries' content and print the result. `#lines=10-20`, `#range=0-500` and `#json=.a.b` select a \
    part; `\\{{` escapes a placeholder.\n\n\
    Example:\n  \
    scratchpad resolve 'the failing line: {{scratchpad:tests#lines=120-120}}'"
)]
pub struct ResolveArgs {
    /// Text with placeholders [default: stdin]
    pub text: Option<String>,
}

/// List an entry's versions: number, time, size, author and what each change did.
#[derive(Debug, Args)]
#[command(
    long_about = "List an entry's versions, newest first: the current one and the older ones it \
    keeps, each with its number, when and by whom it was written, its size, and a one-line summary \
    of the change that made it (`+3 −1 lines`, `appended 42 bytes`, `restored version 2`).\n\n\
    Every change to a note keeps the version it replaces: by default the last 100, for 30 days \
    (`history_versions`, `history_max_age` in the configuration). Outputs of tools keep none \
    unless stored with `put --keep-history`. Read an old version with `read REF --version N`, \
    compare with `diff REF --from N`, make it current again with `restore REF --version N`.\n\n\
    A removed note's versions are listed with --removed (or when no entry has that name), with \
    who removed it, when, and until when they are kept.\n\n\
    Examples:\n  \
    scratchpad history plan\n  \
    scratchpad read plan --version 2\n  \
    scratchpad diff plan --from 2\n  \
    scratchpad history plan --removed"
)]
pub struct HistoryArgs {
    /// Entry name or id
    #[arg(value_name = "REF")]
    pub reference: String,
    /// The versions of the removed note REF (its latest removal, or the removed entry with that id)
    #[arg(long)]
    pub removed: bool,
    /// Versions to list at most, newest first
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: usize,
}

/// Make an older version of an entry current again, or bring back a removed note.
#[derive(Debug, Args)]
#[command(
    long_about = "Make an older version of an entry current again. The restore is itself a new \
    version, so nothing is lost: the version it replaces is kept too, and `history` says \
    `restored version N`.\n\n\
    With --removed, bring back a removed note (`ls --removed` lists them) with all its versions: \
    its last version, or --version N, becomes current. A name written again since the removal is \
    never overwritten: restore under another name with --as.\n\n\
    Examples:\n  \
    scratchpad restore plan --version 2\n  \
    scratchpad restore plan --version 2 --if-version 5\n  \
    scratchpad restore plan --removed\n  \
    scratchpad restore plan --removed --as plan-restored"
)]
pub struct RestoreArgs {
    /// Entry name or id (with --removed: a removed note's name, or its id to pick one removal)
    #[arg(value_name = "REF")]
    pub reference: String,
    /// The version to bring back (`history REF` lists them); required unless --removed
    #[arg(long, value_name = "N", required_unless_present = "removed")]
    pub version: Option<u64>,
    /// Bring back a removed note
    #[arg(long)]
    pub removed: bool,
    /// With --removed: the name to restore it under
    #[arg(long = "as", value_name = "NAME", requires = "removed")]
    pub as_name: Option<String>,
    /// Only restore if the entry is still at this version
    #[arg(long, value_name = "N")]
    pub if_version: Option<u64>,
    /// Lease token from `lease acquire NAME`: refused if a newer token was issued for NAME since
    #[arg(long, value_name = "TOKEN")]
    pub lease: Option<u64>,
    #[command(flatten)]
    pub who: Who,
}

/// Compare two entries, or two versions of one, as a unified diff.
#[derive(Debug, Args)]
#[command(
    long_about = "Compare two entries, or two versions of one entry, as a unified line diff \
    (`-` lines only in A, `+` lines only in B), cut at the reply budget with the exact command \
    that continues it.\n\n\
    `diff A B` compares the current versions of two entries; `diff REF --from N` compares version \
    N of one entry with its current version, and `--to M` with version M instead. With two \
    entries, --from and --to pick a version of each. Two JSON entries are compared with their keys \
    sorted and one value per line (--text compares the stored lines). Large entries are streamed: \
    two 100 MB test runs are compared in tens of megabytes of memory.\n\n\
    Examples:\n  \
    scratchpad diff test_run_1 test_run_2\n  \
    scratchpad diff plan --from 3\n  \
    scratchpad diff plan --from 3 --to 5 -U 1"
)]
pub struct DiffArgs {
    /// The entry to compare from (name or id)
    #[arg(value_name = "A")]
    pub a: String,
    /// The entry to compare with [default: A itself, at its current version]
    #[arg(value_name = "B")]
    pub b: Option<String>,
    /// The version of A to compare from [default: its current version]
    #[arg(long, value_name = "N")]
    pub from: Option<u64>,
    /// The version of B (or of A, when B is not given) to compare with [default: current]
    #[arg(long, value_name = "M")]
    pub to: Option<u64>,
    /// Lines of context around each change
    #[arg(short = 'U', long, value_name = "N", default_value_t = 3)]
    pub context: usize,
    /// Characters this reply may hold, instead of the configured budget
    #[arg(long, value_name = "CHARS")]
    pub budget: Option<usize>,
    /// Where to go on from, as a cut diff prints it (`A_LINE:B_LINE`)
    #[arg(long, value_name = "A:B")]
    pub cursor: Option<String>,
    /// Compare the stored lines even when both entries are JSON
    #[arg(long)]
    pub text: bool,
}

/// Claim a name for a while, with a fencing token that writes carry.
#[derive(Debug, Args)]
#[command(
    long_about = "Leases let several agents share a scratchpad without overwriting each other: \
    one holder at a time claims a name for a while, and every claim gets a fencing token, a number \
    that only grows per name. A write that carries a token (--lease TOKEN) is refused once a newer \
    token was issued for that name, so an agent that paused until its lease expired cannot \
    overwrite its successor's work. Expiry is judged by the store's clock (the PostgreSQL server's \
    on a shared store), so agents on hosts whose clocks disagree still agree. Writes without \
    --lease are not checked.\n\n\
    Examples:\n  \
    token=$(scratchpad lease acquire plan --holder agent-a --ttl 60s)\n  \
    scratchpad write plan '1. profile the parser' --lease \"$token\"\n  \
    scratchpad lease renew plan --token \"$token\" --holder agent-a --ttl 60s\n  \
    scratchpad lease show plan\n  \
    scratchpad lease release plan --token \"$token\" --holder agent-a"
)]
pub struct LeaseArgs {
    #[command(subcommand)]
    pub command: LeaseCommand,
}

#[derive(Debug, Subcommand)]
pub enum LeaseCommand {
    Acquire(LeaseAcquireArgs),
    Renew(LeaseRenewArgs),
    Release(LeaseReleaseArgs),
    Show(LeaseShowArgs),
}

/// Claim a name: prints the fencing token (stdout) and who holds it until when (stderr).
#[derive(Debug, Args)]
#[command(
    long_about = "Claim NAME for --ttl and print the new fencing token alone on stdout (who \
    holds the lease until when goes to stderr), so a shell keeps it with `token=$(…)`. If someone \
    holds NAME and the lease has not expired by the store's clock, this fails and says who holds \
    it and until when.\n\n\
    Examples:\n  \
    token=$(scratchpad lease acquire plan --holder agent-a --ttl 60s)\n  \
    SCRATCHPAD_AUTHOR=agent-b scratchpad lease acquire plan --ttl 5m"
)]
pub struct LeaseAcquireArgs {
    /// The name to claim (usually the note the lease guards)
    pub name: String,
    /// Who claims it [default: --author / SCRATCHPAD_AUTHOR]
    #[arg(long, value_name = "H")]
    pub holder: Option<String>,
    /// How long the claim lasts unless renewed: 90s, 10m, 1h
    #[arg(long, value_name = "DURATION", default_value = "60s")]
    pub ttl: String,
    #[command(flatten)]
    pub who: Who,
}

/// Extend a claim you hold, by its token.
#[derive(Debug, Args)]
#[command(
    long_about = "Extend the claim that TOKEN made on NAME to --ttl from now, and print the \
    token again. Only the holder that acquired it may (--holder, or --author / SCRATCHPAD_AUTHOR); \
    anyone else is refused and told who holds it. Refused too once a newer token was issued for \
    NAME (someone claimed it after yours lapsed) or the claim was released; a lapsed lease that \
    nobody claimed since is renewed.\n\n\
    Example:\n  \
    scratchpad lease renew plan --token 7 --holder agent-a --ttl 60s"
)]
pub struct LeaseRenewArgs {
    pub name: String,
    /// The token `lease acquire` printed
    #[arg(long, value_name = "TOKEN")]
    pub token: u64,
    /// Who holds it [default: --author / SCRATCHPAD_AUTHOR]
    #[arg(long, value_name = "H")]
    pub holder: Option<String>,
    /// How long from now the claim lasts
    #[arg(long, value_name = "DURATION", default_value = "60s")]
    pub ttl: String,
    #[command(flatten)]
    pub who: Who,
}

/// Give up a claim you hold, so another holder may take the name at once.
#[derive(Debug, Args)]
#[command(
    long_about = "Give up the claim that TOKEN made on NAME, so another holder may acquire it \
    at once; from then on a write carrying TOKEN is refused. Only the holder that acquired it may \
    (--holder, or --author / SCRATCHPAD_AUTHOR); anyone else is refused and told who holds it. \
    Releasing twice is harmless; releasing a claim that was superseded fails and says by whom.\n\n\
    Example:\n  \
    scratchpad lease release plan --token 7 --holder agent-a"
)]
pub struct LeaseReleaseArgs {
    pub name: String,
    /// The token `lease acquire` printed
    #[arg(long, value_name = "TOKEN")]
    pub token: u64,
    /// Who holds it [default: --author / SCRATCHPAD_AUTHOR]
    #[arg(long, value_name = "H")]
    pub holder: Option<String>,
    #[command(flatten)]
    pub who: Who,
}

/// Show who holds a name, with which token, until when.
#[derive(Debug, Args)]
#[command(
    long_about = "Show the lease on NAME: held, expired or released, the holder, the latest \
    token, and when it was acquired and expires, by the store's clock.\n\n\
    Example:\n  \
    scratchpad lease show plan"
)]
pub struct LeaseShowArgs {
    pub name: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parsed_command_line_shows_the_store_without_its_password() {
        let cli = Cli::try_parse_from([
            "scratchpad",
            "--store",
            "postgres://agent:p@ss@db.internal/pad",
            "ls",
        ])
        .unwrap();
        assert_eq!(
            cli.global.store(),
            Some("postgres://agent:p@ss@db.internal/pad")
        );
        let shown = format!("{cli:?}");
        assert!(
            shown.contains("postgres://agent:***@db.internal/pad"),
            "{shown}"
        );
        assert!(!shown.contains("p@ss"), "{shown}");
    }
}
