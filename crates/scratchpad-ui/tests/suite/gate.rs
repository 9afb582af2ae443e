//! What every request passes: the launch token, Host and Origin, read-only mode; and what every
//! answer carries.

use scratchpad_ui::{UiOptions, UiServer};

use crate::common::{note, serve, serve_with, sqlite_pad};

#[test]
fn every_request_needs_the_launch_token() {
    let (dir, pad) = sqlite_pad();
    note(&pad, "plan", "1. reproduce");
    let served = serve(pad, Some(dir));
    for path in [
        "/",
        "/s/default",
        "/s/default/e/plan",
        "/api/sessions",
        "/assets/app.js",
        "/nowhere",
    ] {
        let reply = served.raw("GET", path, &[], b"");
        assert_eq!(reply.status, 401, "{path}");
        assert!(
            reply.text().contains("launch token"),
            "{path}: {}",
            reply.text()
        );
        let wrong = served.raw(
            "GET",
            path,
            &[("Authorization", "Bearer not-the-token-at-all")],
            b"",
        );
        assert_eq!(wrong.status, 401, "{path}");
    }
    assert_eq!(served.get("/api/sessions").status, 200);
    assert_eq!(served.get("/assets/app.js").status, 200);
}

#[test]
fn the_first_visit_trades_the_token_for_a_strict_cookie() {
    let (dir, pad) = sqlite_pad();
    note(&pad, "plan", "1. reproduce");
    let served = serve(pad, Some(dir));
    let first = served.raw(
        "GET",
        &format!("/s/default/e/plan?token={}&lines=1-2", served.token),
        &[],
        b"",
    );
    assert_eq!(first.status, 303);
    // The address loses the token and keeps the rest.
    assert_eq!(
        first.header("location"),
        Some("/s/default/e/plan?lines=1-2")
    );
    let cookie = first.header("set-cookie").unwrap();
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    let pair = cookie.split(';').next().unwrap();
    let page = served.raw(
        "GET",
        "/s/default/e/plan?lines=1-2",
        &[("Cookie", pair)],
        b"",
    );
    assert_eq!(page.status, 200);
    assert!(page.text().contains("1. reproduce"));
    // Another view's cookie (another port) is not this one's.
    let other = served.raw("GET", "/", &[("Cookie", "scratchpad_ui_1=abc")], b"");
    assert_eq!(other.status, 401);
}

#[test]
fn a_foreign_host_is_refused_against_dns_rebinding() {
    let (dir, pad) = sqlite_pad();
    let served = serve(pad, Some(dir));
    let auth = format!("Bearer {}", served.token);
    for host in ["evil.example", "evil.example:80", "127.0.0.1.nip.io"] {
        let reply = served.raw(
            "GET",
            "/api/sessions",
            &[("Host", host), ("Authorization", &auth)],
            b"",
        );
        assert_eq!(reply.status, 403, "{host}");
        assert!(reply.text().contains("DNS rebinding"), "{}", reply.text());
    }
    let localhost = format!("localhost:{}", served.addr.port());
    let ok = served.raw(
        "GET",
        "/api/sessions",
        &[("Host", &localhost), ("Authorization", &auth)],
        b"",
    );
    assert_eq!(ok.status, 200);
}

#[test]
fn a_change_from_another_origin_is_refused_and_changes_nothing() {
    let (dir, pad) = sqlite_pad();
    note(&pad, "plan", "mine");
    let served = serve(pad.clone(), Some(dir));
    let auth = format!("Bearer {}", served.token);
    let body = br#"{"text":"theirs"}"#;
    for (name, value) in [
        ("Origin", "http://evil.example"),
        ("Origin", "http://127.0.0.1:1"),
        ("Origin", "null"),
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Site", "same-site"),
    ] {
        let reply = served.raw(
            "POST",
            "/api/s/default/e/plan/write",
            &[
                ("Authorization", &auth),
                (name, value),
                ("Content-Type", "application/json"),
            ],
            body,
        );
        assert_eq!(reply.status, 403, "{name}: {value}");
    }
    // A page elsewhere cannot read either: its Origin is refused on GET as well.
    let read = served.raw(
        "GET",
        "/api/s/default/e/plan/raw",
        &[("Authorization", &auth), ("Origin", "http://evil.example")],
        b"",
    );
    assert_eq!(read.status, 403);
    assert_eq!(
        pad.read(
            "plan",
            &scratchpad_core::ReadMode::Full { force: false },
            None
        )
        .unwrap()
        .text,
        "mine"
    );
    let own = served.post(
        "/api/s/default/e/plan/write",
        &serde_json::json!({ "text": "from the view", "if_version": 1 }),
    );
    assert_eq!(own.status, 200, "{}", own.text());
}

#[test]
fn read_only_refuses_every_change_and_offers_none() {
    let (dir, pad) = sqlite_pad();
    note(&pad, "plan", "mine");
    let mut options = UiOptions::new("127.0.0.1:0".parse().unwrap());
    options.read_only = true;
    let served = serve_with(pad.clone(), Some(dir), options);
    for (path, body) in [
        (
            "/api/s/default/e/plan/write",
            serde_json::json!({ "text": "x" }),
        ),
        (
            "/api/s/default/e/plan/pin",
            serde_json::json!({ "pinned": true }),
        ),
        ("/api/s/default/e/plan/delete", serde_json::json!({})),
        (
            "/api/s/default/notes",
            serde_json::json!({ "name": "new", "text": "x" }),
        ),
    ] {
        let reply = served.post(path, &body);
        assert_eq!(reply.status, 403, "{path}");
        assert!(reply.text().contains("--read-only"), "{}", reply.text());
    }
    let page = served.get("/s/default/e/plan").text();
    assert!(page.contains("read-only"));
    assert!(!page.contains("data-action=\"edit\""));
    assert!(!page.contains("data-action=\"delete\""));
    assert_eq!(pad.get("plan").unwrap().version, 1);
}

#[test]
fn every_answer_carries_a_strict_content_security_policy() {
    let (dir, pad) = sqlite_pad();
    note(&pad, "plan", "x");
    let served = serve(pad, Some(dir));
    for path in [
        "/",
        "/s/default/e/plan",
        "/api/sessions",
        "/nowhere",
        "/api/nowhere",
    ] {
        let reply = served.get(path);
        let csp = reply.header("content-security-policy").unwrap_or("");
        assert!(csp.contains("default-src 'none'"), "{path}: {csp}");
        assert!(csp.contains("script-src 'self'"), "{path}: {csp}");
        assert!(!csp.contains("unsafe-inline"), "{path}: {csp}");
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
        assert!(
            reply
                .header("server-timing")
                .is_some_and(|t| t.starts_with("app;dur="))
        );
    }
    let unauthorized = serve_with_check();
    assert!(unauthorized.contains("default-src 'none'"));
}

/// Even a refusal carries the policy.
fn serve_with_check() -> String {
    let (dir, pad) = sqlite_pad();
    let served = serve(pad, Some(dir));
    served
        .raw("GET", "/", &[], b"")
        .header("content-security-policy")
        .unwrap_or("")
        .to_owned()
}

#[test]
fn a_public_address_needs_a_token_of_sixteen_characters() {
    let (_dir, pad) = sqlite_pad();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let public = UiOptions::new("0.0.0.0:0".parse().unwrap());
    let err = runtime
        .block_on(UiServer::bind(pad.clone(), public))
        .unwrap_err();
    assert!(err.to_string().contains("--token"), "{err}");
    let mut short = UiOptions::new("127.0.0.1:0".parse().unwrap());
    short.token = Some("short".into());
    let err = runtime.block_on(UiServer::bind(pad, short)).unwrap_err();
    assert!(err.to_string().contains("16 characters"), "{err}");
}
