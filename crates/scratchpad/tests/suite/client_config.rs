//! The client-configuration edits as functions over text (`scratchpad::client_config`), on
//! generated files of every layout a client reads: whatever the spacing, line breaks, comments,
//! trailing commas, key order and table style, wrap then unwrap and install then uninstall give the
//! text back byte for byte, every stdio server is wrapped, and the edited text still parses.

use proptest::prelude::*;
use scratchpad::client_config::{self, Client, ServerEntry, Verdict};

/// String tokens as written in a file (escapes included), and the same in TOML.
const WORDS: [&str; 8] = [
    r#""npx""#,
    r#""-y""#,
    r#""a b""#,
    r#""x\"y""#,
    r#""ü/é""#,
    r#""C:\\tools\\srv.exe""#,
    r#""--port""#,
    r#""8080""#,
];

/// A JSON member or item separator's surroundings: what may sit between two tokens.
fn gaps(comments: bool) -> Vec<&'static str> {
    let mut gaps = vec!["", " ", "\n", "\n    ", "  ", "\r\n  ", "\t", "\n\n\t\t"];
    if comments {
        gaps.extend(["/* c */", " // note\n  ", "\n  /* a\n b */ "]);
    }
    gaps
}

#[derive(Debug, Clone)]
enum Server {
    Stdio {
        command: usize,
        /// `None`: no args member.
        args: Option<Vec<usize>>,
        typed: bool,
        env: bool,
        disabled: bool,
    },
    Url {
        headers: Vec<usize>,
        typed: bool,
        /// Which of the client's URL keys (Windsurf has two).
        key: usize,
    },
}

fn server() -> impl Strategy<Value = Server> {
    prop_oneof![
        3 => (0..WORDS.len(), proptest::option::of(proptest::collection::vec(0..WORDS.len(), 0..4)), any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(command, args, typed, env, disabled)| Server::Stdio { command, args, typed, env, disabled }),
        1 => (proptest::collection::vec(0..3usize, 0..3), any::<bool>(), 0..2usize)
            .prop_map(|(headers, typed, key)| Server::Url { headers, typed, key }),
    ]
}

/// A whole file's worth of choices: servers, the gaps (cycled through), member order shuffles,
/// trailing commas.
#[derive(Debug, Clone)]
struct Layout {
    servers: Vec<Server>,
    gaps: Vec<usize>,
    flips: Vec<bool>,
}

fn layout() -> impl Strategy<Value = Layout> {
    (
        proptest::collection::vec(server(), 1..4),
        proptest::collection::vec(0..11usize, 1..40),
        proptest::collection::vec(any::<bool>(), 1..40),
    )
        .prop_map(|(servers, gaps, flips)| Layout {
            servers,
            gaps,
            flips,
        })
}

/// Writes a layout out, taking gaps and flips in turn.
struct Writer<'a> {
    layout: &'a Layout,
    gaps: Vec<&'static str>,
    gap: usize,
    flip: usize,
}

impl Writer<'_> {
    fn gap(&mut self) -> &'static str {
        let choice = self.layout.gaps[self.gap % self.layout.gaps.len()];
        self.gap += 1;
        self.gaps[choice % self.gaps.len()]
    }

    fn flip(&mut self) -> bool {
        let choice = self.layout.flips[self.flip % self.layout.flips.len()];
        self.flip += 1;
        choice
    }

    /// `{ "k": v, … }` in JSON with gaps everywhere, the members maybe reversed, and a trailing
    /// comma where allowed.
    fn object(&mut self, mut members: Vec<(String, String)>, trailing: bool) -> String {
        if self.flip() {
            members.reverse();
        }
        let mut out = format!("{{{}", self.gap());
        let count = members.len();
        for (i, (key, value)) in members.into_iter().enumerate() {
            out.push_str(&format!(
                "{key}{}:{}{value}{}",
                self.gap(),
                self.gap(),
                self.gap()
            ));
            if i + 1 < count || (trailing && self.flip()) {
                out.push(',');
                out.push_str(self.gap());
            }
        }
        out.push('}');
        out
    }

    fn array(&mut self, items: Vec<String>, trailing: bool) -> String {
        let mut out = format!("[{}", self.gap());
        let count = items.len();
        for (i, item) in items.into_iter().enumerate() {
            out.push_str(&item);
            out.push_str(self.gap());
            if i + 1 < count || (count > 0 && trailing && self.flip()) {
                out.push(',');
                out.push_str(self.gap());
            }
        }
        out.push(']');
        out
    }
}

fn json_file(client: Client, layout: &Layout) -> String {
    let shape = (
        matches!(client, Client::Vscode | Client::Gemini),
        client == Client::Vscode,
    );
    let (comments, trailing) = shape;
    let mut w = Writer {
        layout,
        gaps: gaps(comments),
        gap: 0,
        flip: 0,
    };
    let servers_key = if client == Client::Vscode {
        "servers"
    } else {
        "mcpServers"
    };
    let url_keys: &[&str] = match client {
        Client::Windsurf => &["serverUrl", "url"],
        Client::Gemini => &["httpUrl"],
        _ => &["url"],
    };
    let mut servers = Vec::new();
    for (n, server) in layout.servers.iter().enumerate() {
        let mut members: Vec<(String, String)> = Vec::new();
        match server {
            Server::Stdio {
                command,
                args,
                typed,
                env,
                disabled,
            } => {
                if *typed {
                    members.push(("\"type\"".into(), "\"stdio\"".into()));
                }
                members.push(("\"command\"".into(), WORDS[*command].into()));
                if let Some(args) = args {
                    let items = args.iter().map(|a| WORDS[*a].to_owned()).collect();
                    members.push(("\"args\"".into(), w.array(items, trailing)));
                }
                if *env {
                    let env = w.object(
                        vec![("\"A_KEY\"".into(), "\"s3cr3t-value\"".into())],
                        trailing,
                    );
                    members.push(("\"env\"".into(), env));
                }
                if *disabled {
                    members.push(("\"disabled\"".into(), "false".into()));
                }
            }
            Server::Url {
                headers,
                typed,
                key,
            } => {
                if *typed && client != Client::Gemini {
                    members.push(("\"type\"".into(), "\"http\"".into()));
                }
                let key = url_keys[key % url_keys.len()];
                members.push((
                    format!("\"{key}\""),
                    format!("\"https://h{n}.example/mcp\""),
                ));
                if !headers.is_empty() {
                    let mut seen = Vec::new();
                    let list = headers
                        .iter()
                        .filter(|h| {
                            let new = !seen.contains(*h);
                            seen.push(**h);
                            new
                        })
                        .map(|h| (format!("\"X-H{h}\""), format!("\"v{h} value\"")))
                        .collect();
                    let headers = w.object(list, trailing);
                    members.push(("\"headers\"".into(), headers));
                }
            }
        }
        // The order of members is the user's: keep the order written for one flip, move the
        // command last for the other.
        if w.flip() {
            members.rotate_left(1);
        }
        let entry = w.object(members, trailing);
        servers.push((format!("\"s{n}\""), entry));
    }
    let servers = w.object(servers, trailing);
    let mut top = vec![(format!("\"{servers_key}\""), servers)];
    if w.flip() {
        top.push(("\"theme\"".into(), "\"dark\"".into()));
    }
    let body = w.object(top, trailing);
    let end = if w.flip() { "\n" } else { "" };
    format!("{}{body}{end}", if w.flip() { "" } else { "\n" })
}

/// TOML: each server as its own table, an inline table under `[mcp_servers]`, or a dotted key.
fn toml_file(layout: &Layout) -> String {
    let mut w = Writer {
        layout,
        gaps: vec![""],
        gap: 0,
        flip: 0,
    };
    let spaces = [" ", "", "  ", "\t"];
    let mut out = String::from("model = \"o3\"\n");
    let mut inline = Vec::new();
    for (n, server) in layout.servers.iter().enumerate() {
        let s = spaces[n % spaces.len()];
        let mut pairs: Vec<(String, String)> = Vec::new();
        match server {
            Server::Stdio {
                command, args, env, ..
            } => {
                pairs.push(("command".into(), WORDS[*command].into()));
                if let Some(args) = args {
                    let items: Vec<&str> = args.iter().map(|a| WORDS[*a]).collect();
                    let list = if w.flip() {
                        format!("[{s}{}{s}]", items.join(&format!(",{s}")))
                    } else {
                        let lines: String = items.iter().map(|i| format!("\n  {i}, # c")).collect();
                        format!("[{lines}\n]")
                    };
                    pairs.push(("args".into(), list));
                }
                if *env {
                    pairs.push((
                        "env".into(),
                        format!("{{{s}A_KEY{s}={s}\"s3cr3t-value\"{s}}}"),
                    ));
                }
            }
            Server::Url { headers, .. } => {
                pairs.push(("url".into(), format!("\"https://h{n}.example/mcp\"")));
                if let Some(h) = headers.first() {
                    pairs.push((
                        "http_headers".into(),
                        format!("{{{s}\"X-H{h}\"{s}={s}\"v{h} value\"{s}}}"),
                    ));
                }
            }
        }
        if w.flip() {
            pairs.rotate_left(1);
        }
        if w.flip() {
            out.push_str(&format!("\n[mcp_servers.s{n}]{s}# server\n"));
            for (key, value) in pairs {
                out.push_str(&format!("{key}{s}={s}{value}\n"));
            }
        } else {
            let fields: Vec<String> = pairs
                .into_iter()
                .map(|(key, value)| format!("{key}{s}={s}{value}"))
                .collect();
            inline.push(format!("s{n}{s}={s}{{ {} }}\n", fields.join(", ")));
        }
    }
    if !inline.is_empty() {
        out.push_str("\n[mcp_servers]\n");
        for line in inline {
            out.push_str(&line);
        }
    }
    out
}

fn entry(client: Client) -> ServerEntry {
    ServerEntry {
        command: "scratchpad".to_owned(),
        args: vec!["mcp".into(), "serve".into()],
        env: vec![("SCRATCHPAD_STORE".into(), "/tmp/pad.db".into())],
        stdio_type: client.shape().stdio_type,
    }
}

/// Wrap then unwrap, and install then uninstall, give `text` back; every stdio server is wrapped.
fn round_trips(client: Client, text: &str, layout: &Layout) -> Result<(), TestCaseError> {
    prop_assert!(
        client_config::check(client, text).is_ok(),
        "the generated file does not parse: {:?}\n{text}",
        client_config::check(client, text)
    );
    let wrapped = client_config::wrap(client, text, &[], "/usr/bin/scratchpad").unwrap();
    for ((name, verdict), server) in wrapped.servers.iter().zip(&layout.servers) {
        if matches!(server, Server::Stdio { .. }) {
            prop_assert!(
                matches!(verdict, Verdict::Changed(_)),
                "{name} not wrapped: {verdict:?}\n{text}"
            );
        }
    }
    if let Ok(new) = &wrapped.change {
        prop_assert!(client_config::check(client, new).is_ok(), "{new}");
        let again = client_config::wrap(client, new, &[], "/usr/bin/scratchpad").unwrap();
        prop_assert!(again.change.is_err(), "wrapped twice:\n{new}");
        let back = client_config::unwrap(client, new, &[]).unwrap();
        prop_assert_eq!(back.change.as_deref(), Ok(text), "wrapped:\n{}", new);
    }
    let installed = client_config::install(client, Some(text), "pad", &entry(client)).unwrap();
    let new = installed.change.unwrap();
    prop_assert!(client_config::check(client, &new).is_ok(), "{new}");
    let back = client_config::uninstall(client, &new, "pad").unwrap();
    prop_assert_eq!(back.change.as_deref(), Ok(text), "installed:\n{}", new);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_json_layout_round_trips(layout in layout(), which in 0..5usize) {
        let client = [Client::Cursor, Client::ClaudeCode, Client::Vscode, Client::Gemini, Client::Windsurf][which];
        let text = json_file(client, &layout);
        round_trips(client, &text, &layout)?;
    }

    #[test]
    fn any_toml_layout_round_trips(layout in layout()) {
        let text = toml_file(&layout);
        round_trips(Client::Codex, &text, &layout)?;
    }
}
