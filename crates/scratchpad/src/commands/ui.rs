//! `scratchpad ui`: the web view, served until Ctrl-C. The first line on stdout is the address to
//! open (a supervisor or a test reads it there); everything else goes to stderr.

use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddr};

use scratchpad_core::Scratchpad;
use scratchpad_ui::UiOptions;

use crate::cli::UiArgs;

/// Where the view listens when no address is given; taken, a free port instead.
const DEFAULT_PORT: u16 = 8933;

pub fn ui(pad: Scratchpad, args: UiArgs, store: Option<&str>) -> anyhow::Result<()> {
    let author = args
        .who
        .author
        .clone()
        .or_else(|| pad.author().map(str::to_owned))
        .unwrap_or_else(default_author);
    let addr = match args.http {
        Some(addr) => addr,
        None => default_addr(),
    };
    let options = UiOptions {
        addr,
        token: args.token,
        read_only: args.read_only,
        allowed_hosts: args.allowed_hosts,
        allowed_origins: args.allowed_origins,
        author,
        store_label: store_label(store, pad.config().store.as_ref().map(|url| url.as_str())),
    };
    let open = !args.no_open;
    scratchpad_ui::serve(pad, options, |url| {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "{url}");
        let _ = out.flush();
        let _ = writeln!(
            std::io::stderr(),
            "scratchpad ui: serving the store at {url_base}; stop with Ctrl-C",
            url_base = url.split('?').next().unwrap_or(url)
        );
        if open {
            open_browser(url);
        }
    })?;
    Ok(())
}

/// The default port when it is free, else one the system picks.
fn default_addr() -> SocketAddr {
    let preferred = SocketAddr::from((Ipv4Addr::LOCALHOST, DEFAULT_PORT));
    match std::net::TcpListener::bind(preferred) {
        Ok(probe) => {
            drop(probe);
            preferred
        }
        Err(_) => SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
    }
}

/// The person at the keyboard, marked as working through the view.
fn default_author() -> String {
    match std::env::var("USER").or_else(|_| std::env::var("USERNAME")) {
        Ok(user) if !user.trim().is_empty() => format!("{} (ui)", user.trim()),
        _ => "scratchpad ui".to_owned(),
    }
}

/// The store as the page's footer names it: a path, or a URL without its password or secrets.
fn store_label(flag: Option<&str>, config: Option<&str>) -> String {
    match flag.or(config) {
        Some(url) => match url.strip_prefix("sqlite://") {
            Some(path) => path.to_owned(),
            None => scratchpad_core::store::url::redact(url),
        },
        None => scratchpad_core::default_store_path().display().to_string(),
    }
}

/// Opens `url` in the desktop's browser, when there is a desktop; says so when it cannot.
fn open_browser(url: &str) {
    let command: Option<(&str, Vec<&str>)> = if cfg!(target_os = "macos") {
        Some(("open", vec![url]))
    } else if cfg!(windows) {
        Some(("cmd", vec!["/C", "start", "", url]))
    } else if std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
    {
        Some(("xdg-open", vec![url]))
    } else {
        None
    };
    let Some((program, args)) = command else {
        let _ = writeln!(
            std::io::stderr(),
            "scratchpad ui: no display to open a browser on; open the address above"
        );
        return;
    };
    let spawned = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        // Reaped on a thread of its own: the opener exits at once, the browser lives on.
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(err) => {
            let _ = writeln!(
                std::io::stderr(),
                "scratchpad ui: could not open a browser ({program}: {err}); open the address above"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::store_label;

    #[test]
    fn store_labels_never_show_a_password() {
        let shown = store_label(
            Some("postgres://agent:hunter2@db:5432/pad?sslmode=require"),
            None,
        );
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(
            shown.contains("agent") && shown.contains("db:5432/pad"),
            "{shown}"
        );
        assert_eq!(
            store_label(Some("sqlite:///tmp/pad.db"), None),
            "/tmp/pad.db"
        );
        assert_eq!(store_label(None, Some("/srv/pad.db")), "/srv/pad.db");
    }
}
