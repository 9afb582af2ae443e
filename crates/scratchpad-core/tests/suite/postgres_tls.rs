//! TLS to PostgreSQL: every `sslmode` against a server that takes TLS connections only (its
//! certificate is for `localhost`, signed by a test CA) and against one without TLS. Each mode that
//! should connect connects; each that should refuse says why in TLS terms and what to change.
//!
//! Needs `SCRATCHPAD_TEST_PG_TLS_URL`, `…_TLS_CA` and `…_TLS_OTHER_CA` (`scripts/pg-cluster start
//! --tls`; ./scripts/test starts one) and `SCRATCHPAD_TEST_PG_URL` for the server without TLS.

use scratchpad_core::{ReadMode, Scratchpad};

use crate::common::pg_base_url;

/// The TLS-only server and the CA files that go with it.
struct TlsServer {
    /// `postgres://postgres:PASSWORD@localhost:PORT/scratchpad_test`.
    url: String,
    /// The CA that signed the server's certificate.
    ca: String,
    /// A CA that signed nothing of the server's.
    other_ca: String,
}

const NO_TLS_SERVER: &str = "the TLS tests need a PostgreSQL server that takes TLS connections \
     only: run ./scripts/test, or eval \"$(scripts/pg-cluster start --tls)\", which sets \
     SCRATCHPAD_TEST_PG_TLS_URL, SCRATCHPAD_TEST_PG_TLS_CA and SCRATCHPAD_TEST_PG_TLS_OTHER_CA";

fn tls_server() -> TlsServer {
    let var = |name: &str| match std::env::var(name) {
        Ok(value) if !value.trim().is_empty() => value,
        _ => panic!("{name} is not set; {NO_TLS_SERVER}"),
    };
    TlsServer {
        url: var("SCRATCHPAD_TEST_PG_TLS_URL"),
        ca: var("SCRATCHPAD_TEST_PG_TLS_CA"),
        other_ca: var("SCRATCHPAD_TEST_PG_TLS_OTHER_CA"),
    }
}

impl TlsServer {
    /// The server by the name its certificate holds, with URL parameters.
    fn by_name(&self, params: &str) -> String {
        with_params(&self.url, params)
    }

    /// The same server by an address its certificate does not hold.
    fn by_address(&self, params: &str) -> String {
        with_params(&self.url.replacen("@localhost:", "@127.0.0.1:", 1), params)
    }

    fn password(&self) -> String {
        password_of(&self.url)
    }
}

fn with_params(url: &str, params: &str) -> String {
    match (params.is_empty(), url.contains('?')) {
        (true, _) => url.to_owned(),
        (false, true) => format!("{url}&{params}"),
        (false, false) => format!("{url}?{params}"),
    }
}

fn password_of(url: &str) -> String {
    let (userinfo, _) = url.rsplit_once('@').unwrap();
    userinfo.rsplit_once(':').unwrap().1.to_owned()
}

/// Opens the store, writes a note and reads it back: the connection works for real.
fn connects(url: &str) {
    let pad = Scratchpad::open(url)
        .and_then(|pad| pad.with_session(&format!("tls-{}", std::process::id())))
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let name = "tls-note";
    pad.write(name, "over TLS", Default::default())
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let reply = pad
        .read(name, &ReadMode::Full { force: false }, None)
        .unwrap();
    assert_eq!(reply.text, "over TLS", "{url}");
}

/// The error of a store that cannot be opened, checked for what no message may hold.
fn refused(url: &str, password: &str) -> String {
    let err = match Scratchpad::open(url) {
        Ok(_) => panic!("{url} connected; it should have been refused"),
        Err(err) => err.to_string(),
    };
    assert!(!err.contains(password), "the password is in: {err}");
    assert!(
        !err.contains("password are right"),
        "a TLS failure blames the password: {err}"
    );
    err
}

#[test]
fn every_mode_that_should_connect_connects() {
    let server = tls_server();
    let ca = &server.ca;
    let cases = [
        // libpq's default, prefer: TLS when the server offers it, certificate unchecked.
        server.by_name(""),
        server.by_name("sslmode=prefer"),
        // allow: without TLS first, refused by this server, then with TLS.
        server.by_name("sslmode=allow"),
        server.by_address("sslmode=require"),
        // require with a CA checks the CA (as verify-ca), not the name.
        server.by_address(&format!("sslmode=require&sslrootcert={ca}")),
        server.by_address(&format!("sslmode=verify-ca&sslrootcert={ca}")),
        server.by_name(&format!("sslmode=verify-full&sslrootcert={ca}")),
        // The login is bound to the TLS session (SCRAM-SHA-256-PLUS): the certificate hash sent
        // is the one the server computes.
        server.by_name(&format!(
            "sslmode=verify-full&sslrootcert={ca}&channel_binding=require"
        )),
    ];
    for url in &cases {
        connects(url);
    }
}

#[test]
fn disable_is_refused_by_a_server_that_takes_only_tls() {
    let server = tls_server();
    let err = refused(&server.by_name("sslmode=disable"), &server.password());
    assert!(err.contains("no encryption"), "{err}");
    assert!(
        err.contains("this server takes only TLS connections from here")
            && err.contains("remove sslmode=disable"),
        "{err}"
    );
}

#[test]
fn a_wrong_ca_is_refused_clearly() {
    let server = tls_server();
    let other = &server.other_ca;
    for params in [
        format!("sslmode=verify-full&sslrootcert={other}"),
        format!("sslmode=verify-ca&sslrootcert={other}"),
        format!("sslmode=require&sslrootcert={other}"),
    ] {
        let err = refused(&server.by_name(&params), &server.password());
        assert!(
            err.contains(&format!(
                "TLS failed: certificate not trusted: the server's certificate is not signed by \
                 the CA in {other}"
            )),
            "{params}: {err}"
        );
        assert!(
            err.contains("give the CA that signed the server's certificate in sslrootcert"),
            "{params}: {err}"
        );
    }
    // prefer checks a CA it is given too, then goes without TLS, which this server refuses: the
    // message tells both, and the fix is the CA.
    let err = refused(
        &server.by_name(&format!("sslmode=prefer&sslrootcert={other}")),
        &server.password(),
    );
    assert!(
        err.contains("certificate not trusted")
            && err.contains("then without TLS (sslmode=prefer tries that next)")
            && err.contains("no encryption")
            && err.contains("give the CA that signed"),
        "{err}"
    );
}

#[test]
fn a_host_name_mismatch_under_verify_full_is_refused() {
    let server = tls_server();
    let err = refused(
        &server.by_address(&format!("sslmode=verify-full&sslrootcert={}", server.ca)),
        &server.password(),
    );
    assert!(
        err.contains(
            "TLS failed: host name mismatch: the server's certificate is for localhost, not 127.0.0.1"
        ),
        "{err}"
    );
    assert!(err.contains("use sslmode=verify-ca"), "{err}");
}

#[test]
fn the_systems_cas_do_not_vouch_for_a_private_ca() {
    let server = tls_server();
    let err = refused(&server.by_name("sslrootcert=system"), &server.password());
    assert!(
        err.contains("is not signed by a CA this system trusts (sslrootcert=system)"),
        "{err}"
    );
    assert!(err.contains("sslrootcert=/path/to/ca.pem"), "{err}");
    let weak = refused(
        &server.by_name("sslrootcert=system&sslmode=require"),
        &server.password(),
    );
    assert!(
        weak.contains("sslrootcert=system needs sslmode=verify-full"),
        "{weak}"
    );
}

#[test]
fn a_server_without_tls_is_named_as_such() {
    let plain = pg_base_url();
    let ca = tls_server().ca;
    let password = password_of(&plain);
    for params in [
        "sslmode=require".to_owned(),
        format!("sslmode=verify-full&sslrootcert={ca}"),
    ] {
        let err = refused(&with_params(&plain, &params), &password);
        assert!(
            err.contains("the server does not support TLS"),
            "{params}: {err}"
        );
        assert!(
            err.contains("turn on ssl in the server's configuration"),
            "{params}: {err}"
        );
    }
    // Modes that may go without TLS do.
    for params in ["sslmode=prefer", "sslmode=allow", "sslmode=disable"] {
        connects(&with_params(&plain, params));
    }
}
