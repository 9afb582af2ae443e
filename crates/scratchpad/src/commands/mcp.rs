//! `scratchpad mcp …`: the MCP faces, served until the client goes away or a signal arrives.

use std::io::Write as _;

use scratchpad_core::Scratchpad;
use scratchpad_mcp::{HttpOptions, HttpUpstream};

use crate::cli::{McpArgs, McpCommand, ProxyArgs, ServeArgs};

/// `fixed_session`: `--session` (or its env) was given, so HTTP clients share it instead of one each.
pub fn mcp(pad: Scratchpad, args: McpArgs, fixed_session: bool) -> anyhow::Result<()> {
    match args.command {
        McpCommand::Serve(serve) => serve_command(pad, serve, fixed_session),
        McpCommand::Proxy(proxy) => proxy_command(pad, proxy),
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
        },
        (None, None) => anyhow::bail!(
            "no upstream server: give its command after `--` (scratchpad mcp proxy -- npx -y \
             @modelcontextprotocol/server-everything) or --upstream-url URL"
        ),
    };
    let mut options = scratchpad_mcp::ProxyOptions::new(upstream);
    options.threshold = args.threshold;
    options.lazy_tools = args.lazy_tools;
    options.call_timeout = std::time::Duration::from_secs(args.call_timeout.max(1));
    options.max_message_bytes = args.max_body_bytes;
    options.max_result_bytes = args.max_result_bytes;
    scratchpad_mcp::serve_proxy_stdio(pad, options)?;
    Ok(())
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
