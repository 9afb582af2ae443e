//! `scratchpad mcp …`: the MCP faces, served until the client goes away or a signal arrives.

use std::io::Write as _;

use scratchpad_core::Scratchpad;
use scratchpad_core::config::GatewayServerConfig;
use scratchpad_mcp::{HttpOptions, HttpUpstream};

use crate::cli::{GatewayArgs, McpArgs, McpCommand, ProxyArgs, ServeArgs};

/// `fixed_session`: `--session` (or its env) was given, so HTTP clients share it instead of one each.
pub fn mcp(pad: Scratchpad, args: McpArgs, fixed_session: bool) -> anyhow::Result<()> {
    match args.command {
        McpCommand::Serve(serve) => serve_command(pad, serve, fixed_session),
        McpCommand::Proxy(proxy) => proxy_command(pad, proxy),
        McpCommand::Gateway(gateway) => gateway_command(pad, gateway),
        McpCommand::Install(_)
        | McpCommand::Uninstall(_)
        | McpCommand::Wrap(_)
        | McpCommand::Unwrap(_) => unreachable!("client files are edited before a store opens"),
    }
}

fn proxy_command(pad: Scratchpad, args: ProxyArgs) -> anyhow::Result<()> {
    let upstream = match (args.upstream_url, args.upstream.split_first()) {
        (Some(url), _) => {
            anyhow::ensure!(
                url.starts_with("http://") || url.starts_with("https://"),
                "--upstream-url must be an http:// or https:// URL, e.g. http://127.0.0.1:3001/mcp \
                 (got `{url}`)"
            );
            let mut headers = args
                .upstream_headers
                .iter()
                .map(|header| HttpUpstream::parse_header(header))
                .collect::<Result<Vec<_>, _>>()?;
            headers.extend(env_headers()?);
            if let Some(token) = args.upstream_token {
                headers.push(("Authorization".to_owned(), format!("Bearer {token}")));
            }
            scratchpad_mcp::UpstreamSpec::Url(HttpUpstream { url, headers })
        }
        (None, Some((program, rest))) => scratchpad_mcp::UpstreamSpec::Command {
            program: program.clone(),
            args: rest.to_vec(),
            env: Vec::new(),
        },
        (None, None) => anyhow::bail!(
            "no upstream server: give its command after `--` (scratchpad mcp proxy -- npx -y \
             @modelcontextprotocol/server-everything) or --upstream-url URL"
        ),
    };
    let mut options = scratchpad_mcp::ProxyOptions::new(upstream);
    options.threshold = args.threshold;
    options.lazy_tools = args.lazy_tools;
    options.scratchpad_tools = !args.no_scratchpad_tools;
    options.call_timeout = std::time::Duration::from_secs(args.call_timeout.max(1));
    options.max_message_bytes = args.max_body_bytes;
    options.max_result_bytes = args.max_result_bytes;
    options.reuse = reuse_policy(&pad, args.reuse_window, args.reuse_tools);
    scratchpad_mcp::serve_proxy_stdio(pad, options)?;
    Ok(())
}

fn gateway_command(pad: Scratchpad, args: GatewayArgs) -> anyhow::Result<()> {
    let mut upstreams = Vec::new();
    let mut add = |name: &str, config: &GatewayServerConfig, from: &str| -> anyhow::Result<()> {
        let spec = upstream_spec(config)
            .map_err(|err| anyhow::anyhow!("the server `{name}` of {from}: {err}"))?;
        upstreams.push(scratchpad_mcp::GatewayUpstream {
            name: name.to_owned(),
            spec,
        });
        Ok(())
    };
    for (name, config) in &pad.config().gateway.servers {
        add(name, config, "[gateway.servers] in the configuration file")?;
    }
    if let Some(path) = &args.servers_from {
        let text = std::fs::read_to_string(path)
            .map_err(|err| anyhow::anyhow!("cannot read {}: {err}", path.display()))?;
        let toml = path.extension().is_some_and(|ext| ext == "toml");
        let read = scratchpad::client_config::servers::read(&text, toml)
            .map_err(|err| anyhow::anyhow!("{}: {err}", path.display()))?;
        for (name, reason) in &read.skipped {
            let _ = writeln!(
                std::io::stderr(),
                "scratchpad gateway: {}: the server `{name}` is left out: {reason}",
                path.display()
            );
        }
        let from = path.display().to_string();
        for (name, config) in &read.servers {
            add(name, config, &from)?;
        }
    }
    for given in &args.servers {
        let (name, command) = split_named(
            given,
            "--server",
            "fs=npx -y @modelcontextprotocol/server-filesystem /srv",
        )?;
        let mut words = split_command(command)?.into_iter();
        let config = GatewayServerConfig {
            command: words.next(),
            args: words.collect(),
            ..GatewayServerConfig::default()
        };
        add(name, &config, "--server")?;
    }
    for given in &args.upstream_urls {
        let (name, url) = split_named(given, "--upstream-url", "docs=http://127.0.0.1:3001/mcp")?;
        let config = GatewayServerConfig {
            url: Some(url.to_owned()),
            ..GatewayServerConfig::default()
        };
        add(name, &config, "--upstream-url")?;
    }
    let mut options = scratchpad_mcp::GatewayOptions::new(upstreams);
    options.threshold = args.threshold;
    options.call_timeout = std::time::Duration::from_secs(args.call_timeout.max(1));
    options.startup_wait = std::time::Duration::from_secs(args.startup_wait);
    options.max_message_bytes = args.max_body_bytes;
    options.max_result_bytes = args.max_result_bytes;
    options.reuse = reuse_policy(&pad, args.reuse_window, args.reuse_tools);
    scratchpad_mcp::serve_gateway_stdio(pad, options)?;
    Ok(())
}

/// The configuration's reuse settings with the flags': the window given replaces the configured
/// one, the tools given are added to the configured ones.
fn reuse_policy(
    pad: &Scratchpad,
    window: Option<scratchpad_core::ReuseWindow>,
    tools: Vec<String>,
) -> scratchpad_mcp::proxy::reuse::ReusePolicy {
    let config = pad.config();
    scratchpad_mcp::proxy::reuse::ReusePolicy {
        window: window.unwrap_or(config.reuse_window).duration(),
        tools: config.reuse_tools.iter().cloned().chain(tools).collect(),
    }
}

/// The upstream a gateway server entry describes.
fn upstream_spec(config: &GatewayServerConfig) -> anyhow::Result<scratchpad_mcp::UpstreamSpec> {
    match (&config.command, &config.url) {
        (Some(program), None) => Ok(scratchpad_mcp::UpstreamSpec::Command {
            program: program.clone(),
            args: config.args.clone(),
            env: config
                .env
                .iter()
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect(),
        }),
        (None, Some(url)) => {
            anyhow::ensure!(
                url.starts_with("http://") || url.starts_with("https://"),
                "the url must be an http:// or https:// URL of a streamable-HTTP MCP server \
                 (got `{url}`)"
            );
            let headers = config
                .headers
                .iter()
                .map(|(name, value)| HttpUpstream::parse_header(&format!("{name}: {value}")))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(scratchpad_mcp::UpstreamSpec::Url(HttpUpstream {
                url: url.clone(),
                headers,
            }))
        }
        (Some(_), Some(_)) => anyhow::bail!("give either a command or a url, not both"),
        (None, None) => anyhow::bail!("give a command (with args) or a url"),
    }
}

/// `NAME=VALUE` as given to a gateway option.
fn split_named<'a>(
    given: &'a str,
    option: &str,
    example: &str,
) -> anyhow::Result<(&'a str, &'a str)> {
    match given.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() && !value.trim().is_empty() => {
            Ok((name.trim(), value.trim()))
        }
        _ => anyhow::bail!("{option} takes NAME=VALUE, e.g. {option} '{example}' (got `{given}`)"),
    }
}

/// A command line split at spaces; '…' and "…" keep their spaces (no escapes, no expansion).
fn split_command(line: &str) -> anyhow::Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    anyhow::ensure!(quote.is_none(), "a quote is not closed in `{line}`");
    words.extend(word);
    anyhow::ensure!(!words.is_empty(), "no command given");
    Ok(words)
}

/// `SCRATCHPAD_UPSTREAM_HEADER_<ANY>=Name: value` variables, in name order: how `mcp wrap` hands a
/// client's headers to the proxy without putting them on its command line.
fn env_headers() -> anyhow::Result<Vec<(String, String)>> {
    let prefix = scratchpad::client_config::HEADER_ENV_PREFIX;
    let mut variables: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(name, value)| {
            let name = name.into_string().ok()?;
            name.starts_with(prefix)
                .then_some((name, value.to_string_lossy().into_owned()))
        })
        .collect();
    variables.sort();
    variables
        .iter()
        .map(|(name, value)| {
            // The parser's own message quotes the text, which here is likely a token.
            anyhow::ensure!(
                value.contains(':'),
                "environment variable {name} must hold a header as `Name: value`"
            );
            HttpUpstream::parse_header(value)
                .map_err(|err| anyhow::anyhow!("environment variable {name}: {err}"))
        })
        .collect()
}

fn serve_command(pad: Scratchpad, args: ServeArgs, fixed_session: bool) -> anyhow::Result<()> {
    let Some(addr) = args.http else {
        scratchpad_mcp::serve_stdio(pad, args.max_body_bytes)?;
        return Ok(());
    };
    let options = HttpOptions {
        addr,
        tokens: args.tokens,
        fixed_session,
        allowed_hosts: args.allowed_hosts,
        allowed_origins: args.allowed_origins,
        max_body_bytes: args.max_body_bytes,
        sessions: scratchpad_mcp::http::SessionLimits {
            max_total: args.max_sessions,
            max_per_client: args.max_sessions_per_client,
            idle: std::time::Duration::from_secs(args.session_idle_secs.max(1)),
        },
        connections: scratchpad_mcp::http::ConnectionLimits {
            max_total: args.max_connections,
            max_per_address: args.max_connections_per_address,
            header_timeout: std::time::Duration::from_secs(args.header_timeout_secs),
            keep_alive: std::time::Duration::from_secs(args.keep_alive_secs),
            body_timeout: std::time::Duration::from_secs(args.body_timeout_secs),
        },
    };
    let session = pad.session().to_owned();
    let per_client = !options.tokens.is_empty() && !fixed_session;
    scratchpad_mcp::serve_http(pad, options, |bound| {
        let sessions = if per_client {
            "each token has its own session".to_owned()
        } else {
            format!("session `{session}`")
        };
        // stderr: a supervisor or test reads the port picked for :0 from here.
        let _ = writeln!(
            std::io::stderr(),
            "scratchpad MCP server listening on http://{bound}{} ({sessions})",
            scratchpad_mcp::http::ENDPOINT
        );
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::split_command;

    #[test]
    fn a_server_command_splits_at_spaces_and_keeps_quoted_ones() {
        assert_eq!(
            split_command("npx -y pkg '/srv/my files' \"\"").unwrap(),
            ["npx", "-y", "pkg", "/srv/my files", ""]
        );
        assert!(split_command("npx 'open").is_err());
        assert!(split_command("   ").is_err());
    }
}
