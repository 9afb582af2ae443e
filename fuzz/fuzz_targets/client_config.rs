//! Any text as any client's configuration file, through `scratchpad mcp install|uninstall|wrap|
//! unwrap`'s edits: each either refuses it cleanly or edits it into a file that still parses, and
//! wrap then unwrap, and install then uninstall, give the text back byte for byte. The first byte
//! picks the client.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scratchpad::client_config::{self, Client, ServerEntry};

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
});
