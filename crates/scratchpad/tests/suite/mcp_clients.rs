//! `scratchpad mcp install|uninstall|wrap|unwrap` on realistic configuration files of every client
//! (`tests/fixtures/clients/`, written from each client's documented format: comments where the
//! format has them, URL servers, odd indentation, CRLF): the edits, their exact undoing, idempotence,
//! dry runs, backups, refusals, and a real MCP client started from a wrapped file.

use std::path::{Path, PathBuf};

use crate::common::Pad;
use crate::common::clients::{bin, node_prefix, path_str, python_flow};

/// Each client with its sample file.
const CLIENTS: [(&str, &str); 7] = [
    ("claude-code", "claude-code.json"),
    ("claude-desktop", "claude-desktop.json"),
    ("cursor", "cursor.json"),
    ("vscode", "vscode.jsonc"),
    ("windsurf", "windsurf.json"),
    ("gemini", "gemini.json"),
    ("codex", "codex.toml"),
];

/// Literal secrets in the samples; no output may show them.
const SECRETS: [&str; 7] = [
    "ghp_LIVESECRET",
    "pgSECRETpw",
    "lin_api_LIVESECRET",
    "tk_LIVESECRET",
    "ghp_WINDSURFSECRET",
    "gem-LIVESECRET",
    "c7_LIVESECRET",
];

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/clients")
            .join(name),
    )
    .unwrap()
}

/// A copy of a sample in the pad's directory.
fn copy(pad: &Pad, name: &str) -> PathBuf {
    let path = pad.dir.path().join(name);
    std::fs::write(&path, fixture(name)).unwrap();
    path
}

fn edit(pad: &Pad, verb: &str, client: &str, path: &Path, extra: &[&str]) -> crate::common::Run {
    let mut args = vec!["mcp", verb, "--client", client, "--config", path_str(path)];
    args.extend(extra);
    pad.run(&args)
}

/// The backup a run reported.
fn backup_of(stdout: &str) -> PathBuf {
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix("backup: "))
        .unwrap_or_else(|| panic!("no backup reported:\n{stdout}"));
    PathBuf::from(line)
}

fn backups(pad: &Pad) -> Vec<String> {
    std::fs::read_dir(pad.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("scratchpad-backup"))
        .collect()
}

/// Snapshot text: the temporary directory and backup times masked, carriage returns shown.
fn settings(pad: &Pad) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    let escaped: String = pad
        .path()
        .chars()
        .flat_map(|c| {
            "\\.+*?()|[]{}^$#&-~"
                .contains(c)
                .then_some('\\')
                .into_iter()
                .chain([c])
        })
        .collect();
    settings.add_filter(&escaped, "[TMP]");
    settings.add_filter(
        r"scratchpad-backup-\d{8}T\d{6}Z(-\d+)?",
        "scratchpad-backup-[TIME]",
    );
    settings
}

fn shown(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .replace('\r', "␍")
}

#[test]
fn wrap_then_unwrap_gives_every_client_file_back_byte_for_byte() {
    for (client, name) in CLIENTS {
        let pad = Pad::new();
        let path = copy(&pad, name);
        let original = fixture(name);

        let out = edit(&pad, "wrap", client, &path, &["--command", "scratchpad"])
            .ok()
            .stdout;
        assert_eq!(
            std::fs::read(backup_of(&out)).unwrap(),
            original,
            "{client}: backup"
        );
        let wrapped = std::fs::read(&path).unwrap();
        assert_ne!(wrapped, original, "{client}: nothing wrapped");
        let report: String = out
            .lines()
            .filter(|l| l.starts_with("  "))
            .map(|l| format!("{l}\n"))
            .collect();
        settings(&pad).bind(|| {
            insta::assert_snapshot!(
                format!("wrap_{client}"),
                format!("{report}---\n{}", shown(&wrapped))
            );
        });

        // Twice changes nothing, and says so.
        let again = edit(&pad, "wrap", client, &path, &["--command", "scratchpad"])
            .ok()
            .stdout;
        assert!(again.contains("nothing to change"), "{client}: {again}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            wrapped,
            "{client}: second wrap"
        );
        assert_eq!(backups(&pad).len(), 1, "{client}: a no-op writes no backup");

        let out = edit(&pad, "unwrap", client, &path, &[]).ok().stdout;
        assert_eq!(
            std::fs::read(backup_of(&out)).unwrap(),
            wrapped,
            "{client}: backup"
        );
        assert_eq!(
            shown(&std::fs::read(&path).unwrap()),
            shown(&original),
            "{client}: unwrap"
        );
        let again = edit(&pad, "unwrap", client, &path, &[]).ok().stdout;
        assert!(again.contains("nothing to change"), "{client}: {again}");
    }
}

#[test]
fn install_then_uninstall_gives_every_client_file_back_byte_for_byte() {
    for (client, name) in CLIENTS {
        let pad = Pad::new();
        let path = copy(&pad, name);
        let original = fixture(name);
        let install = ["--command", "scratchpad"];

        let diff = pad
            .run(&[
                "--session",
                "notes",
                "mcp",
                "install",
                "--client",
                client,
                "--config",
                path_str(&path),
                "--command",
                "scratchpad",
                "--dry-run",
            ])
            .ok()
            .stdout;
        settings(&pad)
            .bind(|| insta::assert_snapshot!(format!("install_{client}"), diff.replace('\r', "␍")));

        let out = edit(&pad, "install", client, &path, &install).ok().stdout;
        assert_eq!(
            std::fs::read(backup_of(&out)).unwrap(),
            original,
            "{client}: backup"
        );
        let installed = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
        assert!(
            installed.contains(r#""mcp", "serve""#),
            "{client}:\n{installed}"
        );
        let again = edit(&pad, "install", client, &path, &install).ok().stdout;
        assert!(again.contains("nothing to change"), "{client}: {again}");
        // Other settings for the same name are refused, not overwritten.
        let other = pad
            .run(&[
                "--session",
                "other",
                "mcp",
                "install",
                "--client",
                client,
                "--config",
                path_str(&path),
                "--command",
                "scratchpad",
            ])
            .fails();
        assert!(other.stderr.contains("uninstall"), "{}", other.stderr);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), installed);

        edit(&pad, "uninstall", client, &path, &[]).ok();
        assert_eq!(
            shown(&std::fs::read(&path).unwrap()),
            shown(&original),
            "{client}: uninstall"
        );
        let again = edit(&pad, "uninstall", client, &path, &[]).ok().stdout;
        assert!(again.contains("nothing to change"), "{client}: {again}");

        // Both together: install, wrap (the scratchpad server is left alone), unwrap, uninstall.
        edit(&pad, "install", client, &path, &install).ok();
        let out = edit(&pad, "wrap", client, &path, &install).ok().stdout;
        assert!(
            out.contains("left alone scratchpad: the scratchpad server itself"),
            "{out}"
        );
        edit(&pad, "unwrap", client, &path, &[]).ok();
        edit(&pad, "uninstall", client, &path, &[]).ok();
        assert_eq!(
            shown(&std::fs::read(&path).unwrap()),
            shown(&original),
            "{client}: all"
        );
    }
}

#[test]
fn a_dry_run_writes_nothing_and_prints_a_diff_without_secrets() {
    for (client, name) in CLIENTS {
        let pad = Pad::new();
        let path = copy(&pad, name);
        for verb in ["wrap", "install"] {
            let out = edit(&pad, verb, client, &path, &["--dry-run"]).ok().stdout;
            assert!(
                out.contains(&format!("--- {}", path.display()))
                    && out.contains(&format!("+++ {}", path.display()))
                    && out.contains("\n@@ -"),
                "{client} {verb}: no diff:\n{out}"
            );
            assert!(out.contains("dry run: nothing was written"), "{out}");
            for secret in SECRETS {
                assert!(
                    !out.contains(secret),
                    "{client} {verb} shows {secret}:\n{out}"
                );
            }
            assert_eq!(
                std::fs::read(&path).unwrap(),
                fixture(name),
                "{client} {verb}"
            );
            assert!(
                backups(&pad).is_empty(),
                "{client} {verb}: {:?}",
                backups(&pad)
            );
        }
        // The unwrap diff of a wrapped file shows no secret either.
        edit(&pad, "wrap", client, &path, &[]).ok();
        let out = edit(&pad, "unwrap", client, &path, &["--dry-run"])
            .ok()
            .stdout;
        for secret in SECRETS {
            assert!(
                !out.contains(secret),
                "{client} unwrap shows {secret}:\n{out}"
            );
        }
    }
}

#[test]
fn a_broken_file_is_refused_and_left_untouched() {
    for (client, name) in CLIENTS {
        let pad = Pad::new();
        let path = pad.dir.path().join(name);
        let mut broken = fixture(name);
        if name.ends_with(".toml") {
            broken.extend_from_slice(b"\n[mcp_servers.half\ncommand = \"x\"\n");
        } else {
            // The last closing brace gone: invalid in every JSON flavour.
            let at = broken.iter().rposition(|b| *b == b'}').unwrap();
            broken.remove(at);
        }
        std::fs::write(&path, &broken).unwrap();
        for verb in ["wrap", "unwrap", "install", "uninstall"] {
            let run = edit(&pad, verb, client, &path, &[]).fails();
            assert!(
                run.stderr.contains("is not valid") && run.stderr.contains("nothing was changed"),
                "{client} {verb}: {}",
                run.stderr
            );
            for secret in SECRETS {
                assert!(!run.stderr.contains(secret), "{}", run.stderr);
            }
            assert_eq!(std::fs::read(&path).unwrap(), broken, "{client} {verb}");
        }
        assert!(backups(&pad).is_empty());
    }
    // Comments are fine where the client reads them, refused where it does not.
    let pad = Pad::new();
    let path = pad.dir.path().join("mcp.json");
    let commented = "{\n  // mine\n  \"mcpServers\": {}\n}\n";
    std::fs::write(&path, commented).unwrap();
    let run = edit(&pad, "install", "cursor", &path, &[]).fails();
    assert!(
        run.stderr.contains("comments are not allowed"),
        "{}",
        run.stderr
    );
    edit(&pad, "install", "gemini", &path, &[]).ok();
}

#[test]
fn default_locations_missing_files_and_scopes() {
    let pad = Pad::new();
    let home = pad.dir.path();
    // Wrap needs a file and names the one it looked for.
    let run = pad.run(&["mcp", "wrap", "--client", "cursor"]).fails();
    assert!(
        run.stderr.contains(&format!(
            "{}/.cursor/mcp.json does not exist",
            home.display()
        )),
        "{}",
        run.stderr
    );
    // Install creates it, with this executable's absolute path; uninstall removes it again.
    for (client, file) in [
        ("cursor", ".cursor/mcp.json"),
        ("claude-desktop", "config/Claude/claude_desktop_config.json"),
        ("vscode", "config/Code/User/mcp.json"),
        ("windsurf", ".codeium/windsurf/mcp_config.json"),
        ("gemini", ".gemini/settings.json"),
        ("codex", ".codex/config.toml"),
        ("claude-code", ".claude.json"),
    ] {
        let path = home.join(file);
        let out = pad.ok(&["mcp", "install", "--client", client]);
        assert!(
            out.contains(&format!("created {}", path.display())),
            "{out}"
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(&format!("\"{}\"", bin())),
            "{client}:\n{text}"
        );
        pad.ok(&["mcp", "uninstall", "--client", client]);
        assert!(
            !path.exists(),
            "{client}: the file install created is removed"
        );
    }
    // Project scope: the file in the current directory, with plain `scratchpad` (shared with
    // others whose paths differ).
    pad.ok(&[
        "mcp",
        "install",
        "--client",
        "claude-code",
        "--scope",
        "project",
    ]);
    let project = std::fs::read_to_string(home.join(".mcp.json")).unwrap();
    assert!(project.contains(r#""command": "scratchpad""#), "{project}");
    let run = pad
        .run(&[
            "mcp", "install", "--client", "windsurf", "--scope", "project",
        ])
        .fails();
    assert!(
        run.stderr.contains("no project configuration"),
        "{}",
        run.stderr
    );
    let run = pad.run(&["mcp", "install", "--client", "notepad"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("possible values"), "{}", run.stderr);
}

#[test]
fn server_picks_which_servers_are_wrapped() {
    let pad = Pad::new();
    let path = copy(&pad, "cursor.json");
    let out = edit(&pad, "wrap", "cursor", &path, &["--server", "browser"])
        .ok()
        .stdout;
    assert!(
        out.contains("wrapped    browser") && !out.contains("linear"),
        "{out}"
    );
    let run = edit(&pad, "wrap", "cursor", &path, &["--server", "nope"]).fails();
    assert!(
        run.stderr.contains("no server named `nope`") && run.stderr.contains("linear, browser"),
        "{}",
        run.stderr
    );
    edit(&pad, "wrap", "cursor", &path, &[]).ok();
    edit(&pad, "unwrap", "cursor", &path, &["--server", "linear"]).ok();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains(r#""url": "https://mcp.linear.app/mcp""#),
        "{text}"
    );
    assert!(text.contains(r#""--", "npx""#), "{text}");
    edit(&pad, "unwrap", "cursor", &path, &[]).ok();
    assert_eq!(std::fs::read(&path).unwrap(), fixture("cursor.json"));
}

/// The official Python SDK client starts the server exactly as a wrapped file says (command, args
/// and env as written) and reads an 800 KB file through server-filesystem: the result is a
/// reference, not the file.
#[test]
fn a_real_client_runs_a_wrapped_server_filesystem_and_gets_a_reference() {
    let pad = Pad::new();
    let files = tempfile::tempdir().unwrap();
    let root = files.path().canonicalize().unwrap();
    let big: String = (1..=12_000)
        .map(|i| format!("line {i} of a large build log, with enough text to weigh\n"))
        .collect();
    std::fs::write(root.join("build.log"), &big).unwrap();
    let node = node_prefix().join("node_modules/node/bin/node");
    let server =
        node_prefix().join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    let config = serde_json::json!({
        "mcpServers": {
            "filesystem": {
                "command": path_str(&node),
                "args": [path_str(&server), path_str(&root)],
                "env": { "SCRATCHPAD_STORE": pad.store }
            }
        }
    });
    let path = pad.dir.path().join("mcp.json");
    std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
    edit(&pad, "wrap", "cursor", &path, &[]).ok();
    let wrapped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        wrapped["mcpServers"]["filesystem"]["command"],
        bin(),
        "{wrapped}"
    );
    let flow = python_flow(
        "mcp_client_config.py",
        &[
            path_str(&path),
            "filesystem",
            path_str(&root.join("build.log")),
        ],
    );
    assert!(flow.contains("offloaded as read_text_file_"), "{flow}");
}

/// The proxy reads the headers wrap moved into env: a malformed one is named, its value is not.
#[test]
fn the_proxy_reads_headers_from_its_environment() {
    let pad = Pad::new();
    let output = pad
        .command(&["mcp", "proxy", "--upstream-url", "http://127.0.0.1:9/mcp"])
        .env("SCRATCHPAD_UPSTREAM_HEADER_X_API_KEY", "sk-NOCOLONSECRET")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("SCRATCHPAD_UPSTREAM_HEADER_X_API_KEY")
            && stderr.contains("Name: value")
            && !stderr.contains("NOCOLONSECRET"),
        "{stderr}"
    );
}

/// A proxy the user put in front of a server by hand is theirs: unwrap takes apart only what wrap
/// made, and says so.
#[test]
fn unwrap_leaves_a_proxy_put_in_by_hand_alone() {
    let pad = Pad::new();
    let path = pad.dir.path().join("mcp.json");
    let original = r#"{
  "mcpServers": {
    "mine": {
      "command": "scratchpad",
      "args": ["--session", "work", "mcp", "proxy", "--", "npx", "-y", "server-git"]
    },
    "plain": { "command": "scratchpad", "args": ["mcp", "proxy", "--", "uvx", "fetch"] },
    "remote": { "command": "scratchpad", "args": ["mcp", "proxy", "--upstream-url", "https://x.example/mcp"] },
    "other": { "command": "npx", "args": ["-y", "server-memory"] }
  }
}
"#;
    std::fs::write(&path, original).unwrap();
    let out = edit(&pad, "wrap", "cursor", &path, &["--command", "scratchpad"])
        .ok()
        .stdout;
    assert!(out.contains("wrapped    other"), "{out}");
    let out = edit(&pad, "unwrap", "cursor", &path, &[]).ok().stdout;
    assert!(out.contains("unwrapped  other"), "{out}");
    for name in ["mine", "plain", "remote"] {
        assert!(
            !out.contains(&format!("unwrapped  {name}")),
            "{name} was taken apart:\n{out}"
        );
        assert!(
            out.contains(&format!("left alone {name}: ")) && out.contains("by hand"),
            "{out}"
        );
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    // On its own, a hand-made proxy is not unwrapped either.
    let out = edit(&pad, "unwrap", "cursor", &path, &["--server", "plain"])
        .ok()
        .stdout;
    assert!(out.contains("nothing to change"), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
}

/// What wrap made stays its own after the user edits it: a wrapped entry whose upstream arguments,
/// layout and settings were changed by hand is still unwrapped, with those changes kept.
#[test]
fn unwrap_after_a_manual_edit_of_a_wrapped_entry_keeps_the_edit() {
    let pad = Pad::new();
    let path = pad.dir.path().join("mcp.json");
    std::fs::write(
        &path,
        "{\n  \"mcpServers\": {\n    \"git\": {\"command\": \"npx\", \"args\": [\"-y\", \"server-git\"]}\n  }\n}\n",
    )
    .unwrap();
    edit(&pad, "wrap", "cursor", &path, &["--command", "scratchpad"]).ok();
    let wrapped = std::fs::read_to_string(&path).unwrap();
    // The user adds an argument of the upstream's, spreads the list over lines and adds env.
    let value: serde_json::Value = serde_json::from_str(&wrapped).unwrap();
    let mut args: Vec<String> =
        serde_json::from_value(value["mcpServers"]["git"]["args"].clone()).unwrap();
    args.push("--repository".to_owned());
    args.push("/src".to_owned());
    let spread: Vec<String> = args.iter().map(|a| format!("        {a:?}")).collect();
    let edited = format!(
        "{{\n  \"mcpServers\": {{\n    \"git\": {{\n      \"command\": \"scratchpad\",\n      \"args\": [\n{}\n      ],\n      \"env\": {{ \"GIT_DIR\": \"/src/.git\" }}\n    }}\n  }}\n}}\n",
        spread.join(",\n")
    );
    std::fs::write(&path, &edited).unwrap();
    let out = edit(&pad, "unwrap", "cursor", &path, &[]).ok().stdout;
    assert!(out.contains("unwrapped  git"), "{out}");
    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        back["mcpServers"]["git"],
        serde_json::json!({
            "command": "npx",
            "args": ["-y", "server-git", "--repository", "/src"],
            "env": { "GIT_DIR": "/src/.git" }
        })
    );
}

/// Two installs on one file at once both land: the read-modify-write is locked, so neither
/// overwrites the server the other added.
#[test]
fn installs_running_at_once_lose_no_server() {
    const WRITERS: usize = 4;
    const ROUNDS: usize = 30;
    let pad = Pad::new();
    let path = pad.dir.path().join("mcp.json");
    for round in 0..ROUNDS {
        std::fs::write(&path, "{\n  \"mcpServers\": {}\n}\n").unwrap();
        let children: Vec<_> = (0..WRITERS)
            .map(|i| {
                let name = format!("pad{i}");
                pad.command(&[
                    "mcp",
                    "install",
                    "--client",
                    "cursor",
                    "--config",
                    path_str(&path),
                    "--command",
                    "scratchpad",
                    "--name",
                    &name,
                ])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        for i in 0..WRITERS {
            assert!(
                value["mcpServers"].get(format!("pad{i}")).is_some(),
                "round {round}: pad{i} was lost:\n{text}"
            );
        }
    }
    let leftovers: Vec<String> = std::fs::read_dir(pad.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "mcp.json" && !name.contains("scratchpad-backup"))
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
}

/// A file the user made read-only is not replaced behind their back (a rename would do it, since
/// the directory is writable): every command that would write refuses and says what to do.
#[cfg(unix)]
#[test]
fn a_read_only_config_is_refused_not_replaced() {
    use std::os::unix::fs::PermissionsExt as _;
    for (client, name) in CLIENTS {
        let pad = Pad::new();
        let path = copy(&pad, name);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        for verb in ["install", "wrap"] {
            let run = edit(&pad, verb, client, &path, &[]).fails();
            assert!(
                run.stderr.contains("read-only") && run.stderr.contains("chmod"),
                "{client} {verb}: {}",
                run.stderr
            );
            assert_eq!(std::fs::read(&path).unwrap(), fixture(name), "{client}");
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o444, "{client} {verb}");
        }
        // A dry run only reads, so it still shows the diff.
        edit(&pad, "wrap", client, &path, &["--dry-run"]).ok();
        assert!(backups(&pad).is_empty(), "{client}: {:?}", backups(&pad));
    }
}

/// An empty or blank file is an empty configuration (an editor or `touch` made it), not a broken
/// one: install fills it in, and the other commands find nothing to change.
#[test]
fn an_empty_config_file_is_an_empty_configuration() {
    for (client, name) in CLIENTS {
        for blank in ["", "\n", "  \r\n\t\n"] {
            let pad = Pad::new();
            let path = pad.dir.path().join(name);
            std::fs::write(&path, blank).unwrap();
            for verb in ["wrap", "unwrap", "uninstall"] {
                let out = edit(&pad, verb, client, &path, &[]).ok().stdout;
                assert!(
                    out.contains("nothing to change"),
                    "{client} {verb} {blank:?}: {out}"
                );
                assert_eq!(std::fs::read_to_string(&path).unwrap(), blank);
            }
            edit(&pad, "install", client, &path, &["--command", "scratchpad"]).ok();
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                text.contains("scratchpad") && text.contains("serve"),
                "{client} {blank:?}:\n{text}"
            );
            // Taking it out again leaves no file behind, as for a file install created.
            edit(&pad, "uninstall", client, &path, &[]).ok();
            assert!(!path.exists(), "{client} {blank:?}");
        }
    }
}

/// A configuration that is a symbolic link (dotfile managers make them) is edited through the
/// link: the link stays, its target changes; a link whose target is missing gets the target.
#[cfg(unix)]
#[test]
fn a_symlinked_config_is_edited_through_the_link() {
    let pad = Pad::new();
    let dotfiles = pad.dir.path().join("dotfiles");
    std::fs::create_dir(&dotfiles).unwrap();
    let target = dotfiles.join("mcp.json");
    std::fs::write(&target, fixture("cursor.json")).unwrap();
    let link = pad.dir.path().join("mcp.json");
    std::os::unix::fs::symlink("dotfiles/mcp.json", &link).unwrap();
    for verb in ["install", "wrap", "unwrap", "uninstall"] {
        let extra: &[&str] = if matches!(verb, "install" | "wrap") {
            &["--command", "scratchpad"]
        } else {
            &[]
        };
        edit(&pad, verb, "cursor", &link, extra).ok();
        assert!(link.is_symlink(), "{verb} replaced the link");
    }
    assert_eq!(std::fs::read(&target).unwrap(), fixture("cursor.json"));

    // Dangling: the target is created where the link points.
    let missing = dotfiles.join("claude.json");
    let dangling = pad.dir.path().join(".claude.json");
    std::os::unix::fs::symlink(&missing, &dangling).unwrap();
    let out = edit(&pad, "install", "claude-code", &dangling, &[])
        .ok()
        .stdout;
    assert!(
        dangling.is_symlink(),
        "the dangling link was replaced:\n{out}"
    );
    let text = std::fs::read_to_string(&missing).unwrap();
    assert!(text.contains("\"scratchpad\""), "{text}");
    // Uninstall keeps the target (removing it would leave the link dangling again).
    edit(&pad, "uninstall", "claude-code", &dangling, &[]).ok();
    assert!(dangling.is_symlink() && missing.exists());
    assert_eq!(std::fs::read_to_string(&missing).unwrap(), "{\n}\n");

    // A link into a directory that does not exist is refused, and nothing is created.
    let nowhere = pad.dir.path().join("gone.json");
    std::os::unix::fs::symlink(pad.dir.path().join("no/such/dir/mcp.json"), &nowhere).unwrap();
    let run = edit(&pad, "install", "cursor", &nowhere, &[]).fails();
    assert!(
        run.stderr.contains("symbolic link") && run.stderr.contains("does not exist"),
        "{}",
        run.stderr
    );
    assert!(!pad.dir.path().join("no").exists());
}

/// Entries written on one line, or in any other valid layout, are wrapped too, and unwrap gives
/// the file back byte for byte.
#[test]
fn compact_entries_are_wrapped_and_unwrapped_byte_for_byte() {
    let cases: [(&str, &str); 12] = [
        (
            "cursor",
            r#"{"mcpServers": {"a": {"command": "srv", "args": []}}}"#,
        ),
        (
            "cursor",
            r#"{"mcpServers":{"a":{"command":"srv","args":[]}}}"#,
        ),
        ("cursor", r#"{"mcpServers":{"a":{"command":"srv"}}}"#),
        (
            "cursor",
            r#"{"mcpServers":{"a":{"args":["x"],"command":"srv"}}}"#,
        ),
        (
            "cursor",
            "{\"mcpServers\": {\"a\": {\"command\": \"srv\",\n\"args\": [ ]}}}\n",
        ),
        (
            "cursor",
            "{\"mcpServers\": {\"a\": {\"command\"  :  \"srv\" , \"args\" : [ \"x\" ,\"y\" ] }}}",
        ),
        (
            "cursor",
            "{\"mcpServers\":{\"r\":{\"url\":\"https://x.example/mcp\",\"headers\":{\"A\":\"b\"}}}}",
        ),
        (
            "claude-code",
            "{\"mcpServers\":{\"r\":{\"type\":\"http\",\"url\":\"https://x.example/mcp\"}}}",
        ),
        (
            "vscode",
            "{\"servers\":{\"a\":{\"command\":\"srv\",/* c */\"args\":[],},},}",
        ),
        (
            "windsurf",
            "{\"mcpServers\":{\"r\":{\"url\":\"https://x.example/mcp\"}}}",
        ),
        ("codex", "[mcp_servers.a]\ncommand=\"srv\"\nargs=[]\n"),
        (
            "codex",
            "mcp_servers.a = { command = \"srv\", args = [] }\n",
        ),
    ];
    for (client, original) in cases {
        let pad = Pad::new();
        let path = pad.dir.path().join("config");
        std::fs::write(&path, original).unwrap();
        let out = edit(&pad, "wrap", client, &path, &["--command", "scratchpad"])
            .ok()
            .stdout;
        assert!(out.contains("  wrapped "), "{client} {original}:\n{out}");
        edit(&pad, "unwrap", client, &path, &[]).ok();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            original,
            "{client}"
        );
    }
}

/// install writes only what the server accepts when the client starts it: a session name or a
/// store the server would refuse is refused here, before anything is written.
#[test]
fn install_refuses_settings_the_server_would_refuse() {
    let pad = Pad::new();
    let path = pad.dir.path().join("mcp.json");
    let missing_dir = format!("sqlite://{}/no/such/dir/pad.db", pad.path());
    for (global, expect) in [
        (["--session", "my project"], "session"),
        (["--session", "../etc"], "session"),
        (["--session", ""], "session"),
        (["--store", "ftp://host/pad.db"], "unknown store scheme"),
        (["--store", "sqlite://"], "empty SQLite path"),
        (["--store", missing_dir.as_str()], "does not exist"),
    ] {
        let mut args = vec![global[0], global[1]];
        args.extend([
            "mcp",
            "install",
            "--client",
            "cursor",
            "--config",
            path_str(&path),
        ]);
        let run = pad.run(&args).fails();
        assert!(
            run.stderr.contains(expect) && run.stderr.contains("nothing was written"),
            "{global:?}: {}",
            run.stderr
        );
        assert!(!path.exists(), "{global:?}");
    }
    // What the server accepts is written.
    pad.run(&[
        "--session",
        "my-project.v2",
        "mcp",
        "install",
        "--client",
        "cursor",
        "--config",
        path_str(&path),
    ])
    .ok();
}

/// The JSON-with-comments readers (VS Code's, Gemini CLI's) refuse what JSON refuses outside
/// comments and commas: a number like `1-2` or `01` is not written around.
#[test]
fn a_commented_json_file_with_a_broken_number_is_refused() {
    for client in ["vscode", "gemini"] {
        for number in ["1-2", "01", "1.2.3", "-", "1e"] {
            let pad = Pad::new();
            let path = pad.dir.path().join("settings.json");
            let text = format!("{{\n  // mine\n  \"timeout\": {number},\n  \"x\": 1\n}}\n");
            std::fs::write(&path, &text).unwrap();
            let run = edit(&pad, "install", client, &path, &[]).fails();
            assert!(
                run.stderr.contains("is not valid") && run.stderr.contains("line 3"),
                "{client} {number}: {}",
                run.stderr
            );
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }
}

/// Regression: the dry run masked secrets by searching the diff for their text, so a store
/// password written with escapes (`"` or `\` in it) was printed as it is, and a short one was left
/// visible everywhere. The store now shows which it is, rebuilt without its password.
#[test]
fn a_dry_run_shows_the_store_without_its_password_however_it_is_written() {
    for (password, client, name) in [
        (r#"p"w\x@y"#, "claude-desktop", "c.json"),
        ("a", "claude-desktop", "c.json"),
        (r#"p"w\x@y"#, "codex", "c.toml"),
    ] {
        let pad = Pad::new();
        let path = pad.dir.path().join(name);
        let store = format!("postgres://agent:{password}@db.internal:5432/pad");
        let run = pad
            .run(&[
                "--store",
                &store,
                "mcp",
                "install",
                "--client",
                client,
                "--config",
                path_str(&path),
                "--command",
                "scratchpad",
                "--dry-run",
            ])
            .ok();
        let out = run.stdout;
        assert!(
            out.contains("SCRATCHPAD_STORE")
                && out.contains("postgres://agent:***@db.internal:5432/pad"),
            "{client} {password}:\n{out}"
        );
        let escaped = password.replace('\\', "\\\\").replace('"', "\\\"");
        assert!(
            !out.contains(&format!("agent:{escaped}@"))
                && !out.contains(&format!("agent:{password}@")),
            "{client} shows the password:\n{out}"
        );
        if password.len() > 1 {
            assert!(
                !out.contains(password) && !out.contains(&escaped),
                "{client} shows the password:\n{out}"
            );
        }
        // Nothing else was masked by the letters of a short password.
        assert!(out.contains("scratchpad") && out.contains("serve"), "{out}");
    }
}
