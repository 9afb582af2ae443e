//! Two CLI processes on one PostgreSQL database: a shared session is shared, another is a wall.
//! Needs `SCRATCHPAD_TEST_PG_URL` (./scripts/test starts a throwaway server and sets it).
#![cfg(feature = "postgres")]

use crate::common::Pad;

pub fn pg_pad() -> Pad {
    let url = std::env::var("SCRATCHPAD_TEST_PG_URL").unwrap_or_else(|_| {
        panic!(
            "SCRATCHPAD_TEST_PG_URL is not set; run ./scripts/test, which starts a throwaway PostgreSQL, \
             or set SCRATCHPAD_TEST_PG_URL=postgres://USER:PASSWORD@HOST:PORT/DATABASE"
        )
    });
    Pad {
        dir: tempfile::tempdir().unwrap(),
        store: url,
    }
}

#[test]
fn two_processes_share_a_session_and_not_another() {
    // Sessions of their own, so reruns and other tests on the same database never meet these.
    let tag = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
    );
    let shared = format!("team-{tag}");
    let other = format!("solo-{tag}");
    let agent_a = pg_pad();
    let agent_b = pg_pad();

    // Both agents write at the same time, as two machines would.
    let a = agent_a
        .command(&[
            "--session",
            &shared,
            "write",
            "plan",
            "step 1: profile the parser",
        ])
        .spawn()
        .unwrap();
    let b = agent_b
        .command(&[
            "--session",
            &shared,
            "write",
            "findings",
            "the lexer allocates per token",
        ])
        .spawn()
        .unwrap();
    for mut child in [a, b] {
        assert!(child.wait().unwrap().success());
    }
    assert_eq!(
        agent_b.ok(&["--session", &shared, "read", "plan", "--raw"]),
        "step 1: profile the parser"
    );
    assert_eq!(
        agent_a.ok(&["--session", &shared, "read", "findings", "--raw"]),
        "the lexer allocates per token"
    );
    let listed = agent_a.ok(&["--session", &shared, "ls"]);
    assert!(
        listed.contains("plan") && listed.contains("findings"),
        "{listed}"
    );

    // An update by one is seen by the other; a stale if_version is refused.
    agent_b.ok(&[
        "--session",
        &shared,
        "edit",
        "plan",
        "--old",
        "step 1",
        "--new",
        "step 2",
    ]);
    let run = agent_a
        .run(&[
            "--session",
            &shared,
            "write",
            "plan",
            "stale",
            "--if-version",
            "1",
        ])
        .fails();
    assert!(
        run.stderr.contains("current version is 2"),
        "{}",
        run.stderr
    );
    assert_eq!(
        agent_a.ok(&["--session", &shared, "read", "plan", "--raw"]),
        "step 2: profile the parser"
    );

    // Another session on the same database sees none of it.
    let run = agent_a.run(&["--session", &other, "read", "plan"]).fails();
    assert!(
        run.stderr
            .contains(&format!("no entry named `plan` in session `{other}`")),
        "{}",
        run.stderr
    );
    assert_eq!(
        agent_b.ok(&["--session", &other, "ls"]),
        format!("no entries in session `{other}`\n")
    );
    let hits = agent_b.ok(&["--session", &other, "search", "lexer"]);
    assert!(!hits.contains("findings"), "{hits}");
}

#[test]
fn a_refused_connection_names_the_server_not_the_password() {
    let pad = pg_pad();
    let run = pad
        .run(&["--store", "postgres://u:secret@127.0.0.1:1/x", "ls"])
        .fails();
    assert!(
        run.stderr
            .contains("cannot connect to PostgreSQL at u@127.0.0.1:1/x"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("secret"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

/// The two-agent story on a shared PostgreSQL store, each agent with its own connections, as on
/// two machines: the lease's expiry is the server's.
#[test]
fn two_agents_share_a_plan_on_postgres() {
    use super::shared_notes::{Agent, two_agents_share_a_plan};
    let session = format!(
        "team-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
    );
    let (machine_a, machine_b) = (pg_pad(), pg_pad());
    two_agents_share_a_plan(
        &Agent {
            pad: &machine_a,
            session: &session,
            author: "agent-a",
        },
        &Agent {
            pad: &machine_b,
            session: &session,
            author: "agent-b",
        },
    );
}

/// A managed server's usual URL: the host name checked against the certificate, trusted through
/// the system's CAs (`SSL_CERT_FILE` stands in for the system store here, holding the test CA).
/// Needs the TLS-only server of `scripts/pg-cluster start --tls` (./scripts/test starts one).
#[test]
fn a_tls_server_is_reached_with_the_systems_cas_and_refused_without_them() {
    let var = |name: &str| {
        std::env::var(name).unwrap_or_else(|_| {
            panic!(
                "{name} is not set; run ./scripts/test, or eval \"$(scripts/pg-cluster start --tls)\""
            )
        })
    };
    let url = format!("{}?sslrootcert=system", var("SCRATCHPAD_TEST_PG_TLS_URL"));
    let password = url
        .rsplit_once('@')
        .unwrap()
        .0
        .rsplit_once(':')
        .unwrap()
        .1
        .to_owned();
    let pad = pg_pad();
    let session = format!("tls-{}", std::process::id());
    let mut write = pad.command(&[
        "--store",
        &url,
        "--session",
        &session,
        "write",
        "plan",
        "over TLS",
    ]);
    write.env("SSL_CERT_FILE", var("SCRATCHPAD_TEST_PG_TLS_CA"));
    let out = write.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Without the CA among the trusted ones, the refusal is about TLS and fits on one line.
    let mut other = pad.command(&["--store", &url, "--session", &session, "ls"]);
    other.env("SSL_CERT_FILE", var("SCRATCHPAD_TEST_PG_TLS_OTHER_CA"));
    let out = other.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.starts_with("error: cannot connect to PostgreSQL at postgres@localhost:")
            && stderr.contains("certificate not trusted")
            && stderr.contains("a CA this system trusts"),
        "{stderr}"
    );
    assert!(!stderr.contains(&password), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
