//! Any text as any client's configuration file, through `scratchpad mcp install|uninstall|wrap|
//! unwrap`'s edits and `scratchpad hooks install|uninstall`'s (the hooks of Claude Code's and Gemini
//! CLI's settings, Codex's `BASH_ENV` and writable root, a `.env` file's `BASH_ENV`): each either
//! refuses it cleanly or edits it into a file that still parses, and wrap then unwrap, and install
//! then uninstall, give the text back byte for byte. The first byte picks the client.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scratchpad::client_config::hooks::{self, Hook};
use scratchpad::client_config::{self, Client, ServerEntry, bash_env};

/// The first byte's pick, in this order: scripts/fuzz seeds each client with the CLI tests' sample
/// of its configuration file behind its index here.
const CLIENTS: [Client; 7] = [
    Client::ClaudeCode,
    Client::ClaudeDesktop,
    Client::Cursor,
    Client::Vscode,
    Client::Windsurf,
    Client::Gemini,
    Client::Codex,
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let client = CLIENTS[usize::from(pick) % CLIENTS.len()];
    let parses = client_config::check(client, text).is_ok();

    if let Ok(wrapped) = client_config::wrap(client, text, &[], "/usr/bin/scratchpad") {
        assert!(parses, "wrap edited a file that does not parse");
        if let Ok(new) = &wrapped.change {
            assert!(
                client_config::check(client, new).is_ok(),
                "wrap broke:\n{new}"
            );
            let again = client_config::wrap(client, new, &[], "/usr/bin/scratchpad").unwrap();
            assert!(again.change.is_err(), "wrap is not idempotent:\n{new}");
            let back = client_config::unwrap(client, new, &[]).unwrap();
            assert_eq!(back.change.as_deref(), Ok(text), "unwrap of:\n{new}");
        }
    }
    if let Ok(unwrapped) = client_config::unwrap(client, text, &[])
        && let Ok(new) = &unwrapped.change
    {
        assert!(
            client_config::check(client, new).is_ok(),
            "unwrap broke:\n{new}"
        );
    }

    let entry = ServerEntry {
        command: "/usr/bin/scratchpad".to_owned(),
        args: vec![
            "mcp".into(),
            "serve".into(),
            "--session".into(),
            "fuzz".into(),
        ],
        env: vec![("SCRATCHPAD_STORE".into(), "/tmp/pad.db".into())],
        stdio_type: client.shape().stdio_type,
    };
    if let Ok(installed) = client_config::install(client, Some(text), "pad-fuzz", &entry)
        && let Ok(new) = &installed.change
    {
        assert!(
            client_config::check(client, new).is_ok(),
            "install broke:\n{new}"
        );
        let back = client_config::uninstall(client, new, "pad-fuzz").unwrap();
        assert_eq!(back.change.as_deref(), Ok(text), "uninstall of:\n{new}");
    }
    if let Ok(removed) = client_config::uninstall(client, text, "scratchpad")
        && let Ok(new) = &removed.change
    {
        assert!(
            client_config::check(client, new).is_ok(),
            "uninstall broke:\n{new}"
        );
    }

    match client {
        Client::ClaudeCode | Client::Gemini => {
            let wanted = [Hook {
                event: "SessionStart",
                command: "/usr/bin/scratchpad hooks run session-start".to_owned(),
            }];
            if let Ok(installed) = hooks::install(client, Some(text), &wanted)
                && let Ok(new) = &installed.change
            {
                assert!(
                    client_config::check(client, new).is_ok(),
                    "hooks install broke:\n{new}"
                );
                let back = hooks::uninstall(client, new).unwrap();
                assert_eq!(
                    back.change.as_deref(),
                    Ok(text),
                    "hooks uninstall of:\n{new}"
                );
            }
        }
        Client::Codex => {
            let wanted = bash_env::CodexEnv {
                lines_file: "/home/u/.codex/scratchpad-bash-env.sh",
                writable_root: Some("/home/u/.local/share/scratchpad"),
            };
            if let Ok(installed) = bash_env::install_codex(Some(text), wanted)
                && let Ok(new) = &installed.change
            {
                assert!(
                    client_config::check(client, new).is_ok(),
                    "BASH_ENV install broke:\n{new}"
                );
                let back = bash_env::uninstall_codex(new, wanted.writable_root).unwrap();
                assert_eq!(
                    back.change.as_deref(),
                    Ok(text),
                    "BASH_ENV uninstall of:\n{new}"
                );
            }
        }
        Client::ClaudeDesktop | Client::Cursor | Client::Vscode | Client::Windsurf => {}
    }
    // Any text as a `.env` file.
    if let Ok(installed) =
        bash_env::install_dotenv(Some(text), "/home/u/.gemini/scratchpad-bash-env.sh")
        && let Ok(new) = &installed.change
    {
        let back = bash_env::uninstall_dotenv(new).unwrap();
        assert_eq!(
            back.change.as_deref(),
            Ok(text),
            ".env uninstall of:\n{new}"
        );
    }
});
