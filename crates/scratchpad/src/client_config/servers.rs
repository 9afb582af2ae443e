//! Reading the servers out of a file in the shape MCP clients write them (`mcpServers`, VS Code's
//! `servers`, Codex's `[mcp_servers.NAME]`), for `scratchpad mcp gateway --servers-from`.

use scratchpad_core::config::GatewayServerConfig;

use super::client::{Format, Shape, Transport};
use super::doc::{Doc, is_scratchpad};
use super::json::Flavor;
use super::tree::Node;

/// The servers of a file, in file order, and those left out with the reason.
#[derive(Debug, Default)]
pub struct Servers {
    pub servers: Vec<(String, GatewayServerConfig)>,
    pub skipped: Vec<(String, String)>,
}

/// Keys a streamable-HTTP server's URL is found under, across clients.
const URL_KEYS: [&str; 3] = ["url", "serverUrl", "httpUrl"];

/// Reads the servers of a client-shaped file: JSON with comments and trailing commas tolerated
/// (`toml` false), or TOML. Servers marked disabled, and the scratchpad's own entries (the server,
/// or a proxy `mcp wrap` put in), are skipped and said so.
pub fn read(text: &str, toml: bool) -> Result<Servers, String> {
    let shapes: &[Shape] = if toml {
        &[shape(Format::Toml, "mcp_servers")]
    } else {
        let jsonc = Format::Json(Flavor {
            comments: true,
            trailing_commas: true,
        });
        &[
            shape(jsonc, "mcpServers"),
            shape(jsonc, "servers"),
            shape(jsonc, "mcp_servers"),
        ]
    };
    let mut found = None;
    for candidate in shapes {
        let doc = Doc::parse(text, *candidate)?;
        if doc.servers_member().is_some() {
            found = Some(doc);
            break;
        }
    }
    let Some(doc) = found else {
        return Err(
            "no servers in it: expected {\"mcpServers\": {\"NAME\": {\"command\": …}}} (or VS \
             Code's \"servers\", or Codex's [mcp_servers.NAME])"
                .to_owned(),
        );
    };
    let mut result = Servers::default();
    for (name, node) in doc.servers()? {
        match server(&doc, node) {
            Ok(Some(config)) => result.servers.push((name.to_owned(), config)),
            Ok(None) => {}
            Err(reason) => result.skipped.push((name.to_owned(), reason)),
        }
    }
    Ok(result)
}

fn shape(format: Format, servers_key: &'static str) -> Shape {
    Shape {
        format,
        servers_key,
        url_keys: &[("url", Transport::Http)],
        headers_key: "headers",
        stdio_type: false,
    }
}

/// One server; `Ok(None)` for one switched off in the file.
fn server(doc: &Doc, node: &Node) -> Result<Option<GatewayServerConfig>, String> {
    let map = node
        .as_map()
        .ok_or_else(|| "its entry is not an object".to_owned())?;
    let literal = |key: &str| {
        map.get(key)
            .map(|member| doc.slice(member.value.span.clone()))
    };
    if literal("disabled") == Some("true") || literal("enabled") == Some("false") {
        return Ok(None);
    }
    let strings = |key: &str| -> Result<std::collections::BTreeMap<String, String>, String> {
        let Some(member) = map.get(key) else {
            return Ok(Default::default());
        };
        let table = member
            .value
            .as_map()
            .ok_or_else(|| format!("`{key}` is not an object"))?;
        table
            .members
            .iter()
            .map(|m| {
                m.value
                    .as_str()
                    .map(|value| (m.name.clone(), value.to_owned()))
                    .ok_or_else(|| format!("`{key}.{}` is not a string", m.name))
            })
            .collect()
    };
    let mut config = GatewayServerConfig {
        env: strings("env")?,
        ..GatewayServerConfig::default()
    };
    if let Some(command) = map.get("command") {
        let command = command
            .value
            .as_str()
            .ok_or_else(|| "`command` is not a string".to_owned())?;
        if is_scratchpad(command) {
            return Err(
                "it runs the scratchpad itself (the gateway lists the scratchpad tools \
                 already; give the original server instead of one `mcp wrap` put the proxy in \
                 front of: `scratchpad mcp unwrap` gives it back)"
                    .to_owned(),
            );
        }
        config.command = Some(command.to_owned());
        if let Some(args) = map.get("args") {
            config.args = args
                .value
                .strings()
                .ok_or_else(|| "`args` is not a list of strings".to_owned())?
                .into_iter()
                .map(str::to_owned)
                .collect();
        }
        return Ok(Some(config));
    }
    for key in URL_KEYS {
        if let Some(url) = map.get(key).and_then(|member| member.value.as_str()) {
            config.url = Some(url.to_owned());
            config.headers = strings("headers")?;
            config.headers.extend(strings("http_headers")?);
            return Ok(Some(config));
        }
    }
    Err("it has neither a `command` nor a `url`".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_urls_and_headers_are_read_and_disabled_servers_skipped() {
        let text = r#"{
          // JSONC, as VS Code writes it
          "mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "pkg", "/srv"], "env": {"A": "1"}},
            "remote": {"serverUrl": "https://mcp.example.com/mcp", "headers": {"X-Key": "k"}},
            "off": {"command": "x", "disabled": true},
            "pad": {"command": "/usr/bin/scratchpad", "args": ["mcp", "serve"]},
          }
        }"#;
        let servers = read(text, false).unwrap();
        let names: Vec<&str> = servers.servers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["fs", "remote"]);
        assert_eq!(servers.servers[0].1.args, ["-y", "pkg", "/srv"]);
        assert_eq!(
            servers.servers[0].1.env.get("A").map(String::as_str),
            Some("1")
        );
        assert_eq!(
            servers.servers[1].1.url.as_deref(),
            Some("https://mcp.example.com/mcp")
        );
        assert_eq!(servers.skipped.len(), 1);
        assert_eq!(servers.skipped[0].0, "pad");
    }

    #[test]
    fn codex_toml_is_read() {
        let text = "[mcp_servers.docs]\ncommand = \"docs-server\"\nargs = [\"--stdio\"]\n";
        let servers = read(text, true).unwrap();
        assert_eq!(servers.servers[0].0, "docs");
        assert_eq!(servers.servers[0].1.command.as_deref(), Some("docs-server"));
    }
}
