//! The MCP clients whose configuration files we edit: where each keeps its servers and how it
//! writes them.

use std::path::{Path, PathBuf};

use super::json::Flavor;

/// A client, as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// Claude Code: ~/.claude.json (user), .mcp.json (project)
    #[value(alias = "claude")]
    ClaudeCode,
    /// Claude Desktop: claude_desktop_config.json in the app's config dir
    ClaudeDesktop,
    /// Cursor: ~/.cursor/mcp.json (user), .cursor/mcp.json (project)
    Cursor,
    /// VS Code: mcp.json in the user profile (user), .vscode/mcp.json (project)
    #[value(alias = "code", alias = "vs-code")]
    Vscode,
    /// Windsurf: ~/.codeium/windsurf/mcp_config.json
    Windsurf,
    /// Gemini CLI: ~/.gemini/settings.json (user), .gemini/settings.json (project)
    #[value(alias = "gemini-cli")]
    Gemini,
    /// Codex: ~/.codex/config.toml (user), .codex/config.toml (project)
    Codex,
}

/// Which file: the user's own, or the one in the project (current) directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    User,
    Project,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json(Flavor),
    Toml,
}

/// How a remote server is reached through one of its URL keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Streamable HTTP, the transport the proxy speaks upstream.
    Http,
    /// The older HTTP+SSE transport.
    Sse,
}

/// What the edit rules need to know about a client's file.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub format: Format,
    /// The key under which servers live, at the top level.
    pub servers_key: &'static str,
    /// Keys holding a remote server's URL; the first HTTP one is written back by unwrap.
    pub url_keys: &'static [(&'static str, Transport)],
    pub headers_key: &'static str,
    /// Entries say `"type": "stdio"` when the client writes it itself.
    pub stdio_type: bool,
}

const STRICT: Flavor = Flavor {
    comments: false,
    trailing_commas: false,
};

impl Client {
    pub fn title(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::ClaudeDesktop => "Claude Desktop",
            Client::Cursor => "Cursor",
            Client::Vscode => "VS Code",
            Client::Windsurf => "Windsurf",
            Client::Gemini => "Gemini CLI",
            Client::Codex => "Codex",
        }
    }

    /// The name `--client` takes.
    pub fn flag(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Windsurf => "windsurf",
            Client::Gemini => "gemini",
            Client::Codex => "codex",
        }
    }

    pub fn shape(self) -> Shape {
        const URL: &[(&str, Transport)] = &[("url", Transport::Http)];
        let json = |flavor, servers_key, stdio_type| Shape {
            format: Format::Json(flavor),
            servers_key,
            url_keys: URL,
            headers_key: "headers",
            stdio_type,
        };
        match self {
            Client::ClaudeCode => json(STRICT, "mcpServers", true),
            Client::ClaudeDesktop | Client::Cursor => json(STRICT, "mcpServers", false),
            // VS Code reads its mcp.json as JSONC: comments and trailing commas.
            Client::Vscode => json(
                Flavor {
                    comments: true,
                    trailing_commas: true,
                },
                "servers",
                true,
            ),
            Client::Windsurf => Shape {
                url_keys: &[("serverUrl", Transport::Http), ("url", Transport::Http)],
                ..json(STRICT, "mcpServers", false)
            },
            // Gemini CLI strips comments before JSON.parse, so trailing commas still break it.
            // `httpUrl` is streamable HTTP, `url` is SSE.
            Client::Gemini => Shape {
                url_keys: &[("httpUrl", Transport::Http), ("url", Transport::Sse)],
                ..json(
                    Flavor {
                        comments: true,
                        trailing_commas: false,
                    },
                    "mcpServers",
                    false,
                )
            },
            Client::Codex => Shape {
                format: Format::Toml,
                servers_key: "mcp_servers",
                url_keys: URL,
                headers_key: "http_headers",
                stdio_type: false,
            },
        }
    }

    /// The configuration file for a scope, or why there is none.
    pub fn path(self, scope: Scope, project: &Path) -> anyhow::Result<PathBuf> {
        let home = || {
            dirs::home_dir().ok_or_else(|| {
                anyhow::anyhow!("no home directory found; give the file with --config PATH")
            })
        };
        let config = || {
            dirs::config_dir().ok_or_else(|| {
                anyhow::anyhow!(
                    "no configuration directory found; give the file with --config PATH"
                )
            })
        };
        let env_dir = |var: &str| {
            std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Ok(match (self, scope) {
            // CLAUDE_CONFIG_DIR moves Claude Code's user files, ~/.claude.json included.
            (Client::ClaudeCode, Scope::User) => match env_dir("CLAUDE_CONFIG_DIR") {
                Some(dir) => dir.join(".claude.json"),
                None => home()?.join(".claude.json"),
            },
            (Client::ClaudeCode, Scope::Project) => project.join(".mcp.json"),
            // dirs::config_dir is ~/.config on Linux, ~/Library/Application Support on macOS and
            // %APPDATA% on Windows: where both apps keep their files.
            (Client::ClaudeDesktop, Scope::User) => {
                config()?.join("Claude").join("claude_desktop_config.json")
            }
            (Client::Cursor, Scope::User) => home()?.join(".cursor").join("mcp.json"),
            (Client::Cursor, Scope::Project) => project.join(".cursor").join("mcp.json"),
            (Client::Vscode, Scope::User) => config()?.join("Code").join("User").join("mcp.json"),
            (Client::Vscode, Scope::Project) => project.join(".vscode").join("mcp.json"),
            (Client::Windsurf, Scope::User) => home()?
                .join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
            (Client::Gemini, Scope::User) => home()?.join(".gemini").join("settings.json"),
            (Client::Gemini, Scope::Project) => project.join(".gemini").join("settings.json"),
            (Client::Codex, Scope::User) => match env_dir("CODEX_HOME") {
                Some(dir) => dir.join("config.toml"),
                None => home()?.join(".codex").join("config.toml"),
            },
            // Codex reads it only in projects the user has trusted.
            (Client::Codex, Scope::Project) => project.join(".codex").join("config.toml"),
            (Client::ClaudeDesktop | Client::Windsurf, Scope::Project) => anyhow::bail!(
                "{} has no project configuration file; use --scope user, or --config PATH",
                self.title()
            ),
        })
    }
}
