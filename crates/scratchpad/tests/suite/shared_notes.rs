//! Two agents with shell tools sharing a plan: one holds the lease, the other is told who and until
//! when, takes over once it lapses, and the first one's late write is refused; the history names
//! both, and diff and restore work. Runs on SQLite here and on PostgreSQL in `postgres.rs`.

use std::time::{Duration, Instant};

use crate::common::{Pad, Run};

/// One agent: the binary on `pad`, in `session`, writing as `author`.
pub struct Agent<'a> {
    pub pad: &'a Pad,
    pub session: &'a str,
    pub author: &'a str,
}

impl Agent<'_> {
    pub fn run(&self, args: &[&str]) -> Run {
        let mut all = vec!["--session", self.session, "--author", self.author];
        all.extend_from_slice(args);
        self.pad.run(&all)
    }

    pub fn ok(&self, args: &[&str]) -> String {
        self.run(args).ok().stdout
    }
}

pub fn two_agents_share_a_plan(a: &Agent<'_>, b: &Agent<'_>) {
    let taken = a.run(&["lease", "acquire", "plan", "--ttl", "2s"]).ok();
    assert_eq!(taken.stdout, "1\n", "the token alone, for token=$(…)");
    assert!(
        taken
            .stderr
            .contains("leased `plan` for agent-a: token 1, until"),
        "{}",
        taken.stderr
    );
    a.ok(&["write", "plan", "1. profile the parser\n", "--lease", "1"]);

    let refused = b.run(&["lease", "acquire", "plan"]).fails();
    assert!(
        refused
            .stderr
            .contains("`plan` is leased to `agent-a` until")
            && refused.stderr.contains("by the store's clock")
            && refused.stderr.contains("lease show plan"),
        "{}",
        refused.stderr
    );
    let shown = b.ok(&["lease", "show", "plan"]);
    assert!(
        shown.contains("state:    held") && shown.contains("holder:   agent-a"),
        "{shown}"
    );

    // A pauses; its lease lapses by the store's clock.
    let started = Instant::now();
    while !b
        .ok(&["lease", "show", "plan"])
        .contains("state:    expired")
    {
        assert!(started.elapsed() < Duration::from_secs(20), "never expired");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(b.ok(&["lease", "acquire", "plan", "--ttl", "60s"]), "2\n");
    b.ok(&["append", "plan", "2. cache tokens\n", "--lease", "2"]);

    let late = a
        .run(&["write", "plan", "A's late plan\n", "--lease", "1"])
        .fails();
    assert!(
        late.stderr.contains(
            "lease token 1 on `plan` is stale, token 2 was issued since (held by `agent-b`"
        ) && late.stderr.contains("history plan"),
        "{}",
        late.stderr
    );
    assert_eq!(
        a.ok(&["read", "plan", "--raw"]),
        "1. profile the parser\n2. cache tokens\n"
    );

    let history = b.ok(&["history", "plan"]);
    let lines: Vec<&str> = history.lines().collect();
    assert!(
        lines[0].starts_with("`plan`: version 2, 1 older version kept"),
        "{history}"
    );
    assert!(
        lines[2].contains("agent-b") && lines[2].contains("appended 16 bytes (1 line)"),
        "{history}"
    );
    assert!(
        lines[3].contains("agent-a") && lines[3].contains("created"),
        "{history}"
    );

    let diff = a.ok(&["diff", "plan", "--from", "1"]);
    assert!(
        diff.contains("--- plan (version 1, agent-a,")
            && diff.contains("+++ plan (version 2, current, agent-b,")
            && diff.contains("@@ -1,1 +1,2 @@\n 1. profile the parser\n+2. cache tokens\n"),
        "{diff}"
    );

    b.ok(&["restore", "plan", "--version", "1", "--lease", "2"]);
    assert_eq!(a.ok(&["read", "plan", "--raw"]), "1. profile the parser\n");
    let long = a.ok(&["ls", "--long"]);
    assert!(
        long.contains("AUTHOR") && long.contains("agent-b"),
        "{long}"
    );
    assert!(
        a.ok(&["ls", "--author", "agent-a"])
            .contains("no matching entries")
    );
    assert!(a.ok(&["history", "plan"]).contains("restored version 1"));
}

#[test]
fn two_agents_share_a_plan_on_sqlite() {
    let pad = Pad::new();
    two_agents_share_a_plan(
        &Agent {
            pad: &pad,
            session: "team",
            author: "agent-a",
        },
        &Agent {
            pad: &pad,
            session: "team",
            author: "agent-b",
        },
    );
}

/// Regression: anyone could renew or release another agent's lease with the token `lease show`
/// prints, and a write carrying a released lease's token still landed.
#[test]
fn only_the_holder_renews_or_releases_and_a_released_token_fences() {
    let pad = Pad::new();
    let a = Agent {
        pad: &pad,
        session: "team",
        author: "agent-a",
    };
    let b = Agent {
        pad: &pad,
        session: "team",
        author: "agent-b",
    };
    assert_eq!(a.ok(&["lease", "acquire", "plan", "--ttl", "60s"]), "1\n");
    a.ok(&["write", "plan", "1. profile the parser\n", "--lease", "1"]);
    assert!(b.ok(&["lease", "show", "plan"]).contains("token:    1"));
    for command in [
        &["lease", "renew", "plan", "--token", "1", "--ttl", "1h"][..],
        &["lease", "release", "plan", "--token", "1"],
    ] {
        let refused = b.run(command).fails();
        assert!(
            refused.stderr.contains("is held by `agent-a` until")
                && refused.stderr.contains("this call came from `agent-b`")
                && refused.stderr.contains("lease show plan"),
            "{command:?}: {}",
            refused.stderr
        );
    }
    assert!(b.ok(&["lease", "show", "plan"]).contains("state:    held"));

    let released = a.ok(&["lease", "release", "plan", "--token", "1"]);
    assert!(
        released.contains("released the lease on `plan` (token 1)")
            && released.contains("writes carrying token 1 are refused"),
        "{released}"
    );
    let shown = b.ok(&["lease", "show", "plan"]);
    assert!(
        shown.contains("state:    released") && shown.contains("holder:   agent-a"),
        "{shown}"
    );
    let late = a
        .run(&["write", "plan", "a late change\n", "--lease", "1"])
        .fails();
    assert!(
        late.stderr
            .contains("lease token 1 on `plan` was released at")
            && late.stderr.contains("by `agent-a`")
            && late.stderr.contains("lease acquire plan"),
        "{}",
        late.stderr
    );
    assert_eq!(a.ok(&["read", "plan", "--raw"]), "1. profile the parser\n");
    // Without a name to check, renewing or releasing is refused with what to pass.
    let anonymous = pad
        .command(&[
            "--session",
            "team",
            "lease",
            "release",
            "plan",
            "--token",
            "1",
        ])
        .env_remove("SCRATCHPAD_AUTHOR")
        .output()
        .unwrap();
    assert!(!anonymous.status.success());
    assert!(
        String::from_utf8_lossy(&anonymous.stderr).contains("--holder NAME"),
        "{}",
        String::from_utf8_lossy(&anonymous.stderr)
    );
}

#[test]
fn every_new_command_has_help_with_examples() {
    let pad = Pad::new();
    for command in [
        &["history", "--help"][..],
        &["restore", "--help"],
        &["diff", "--help"],
        &["lease", "--help"],
        &["lease", "acquire", "--help"],
        &["lease", "renew", "--help"],
        &["lease", "release", "--help"],
        &["lease", "show", "--help"],
    ] {
        let help = pad.ok(command);
        assert!(
            help.contains("Example") && help.contains("scratchpad "),
            "{command:?}: {help}"
        );
    }
}

/// Regression: `--author` before `ls` (who you are) was taken as `ls --author` (whose entries to
/// show), so an agent with an author saw only its own entries.
#[test]
fn your_own_author_never_filters_the_listing() {
    let pad = Pad::new();
    pad.ok(&["write", "plan", "by someone", "--author", "agent-b"]);
    let run = pad
        .command(&["--author", "agent-a", "ls"])
        .env("SCRATCHPAD_AUTHOR", "agent-a")
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&run.stdout);
    assert!(listed.contains("plan"), "{listed}");
    let mine = pad.ok(&["ls", "--author", "agent-a"]);
    assert!(mine.contains("no matching entries"), "{mine}");
    let theirs = pad.ok(&["ls", "--author", "agent-b", "--long"]);
    assert!(
        theirs.contains("plan") && theirs.contains("agent-b"),
        "{theirs}"
    );
}

/// Regression: `lease acquire --ttl 0s` suggested `never`, which a lease refuses; every message
/// about a lease's length now suggests only what the same command takes, and that runs.
#[test]
fn lease_length_messages_suggest_only_lengths_a_lease_takes() {
    let pad = Pad::new();
    for ttl in ["0s", "0", "-5m", "never", "none", "soon", "1.5h"] {
        let flag = format!("--ttl={ttl}");
        for args in [
            vec!["lease", "acquire", "plan", "--holder", "a", flag.as_str()],
            vec![
                "lease",
                "renew",
                "plan",
                "--token",
                "1",
                "--holder",
                "a",
                flag.as_str(),
            ],
        ] {
            let refused = pad.run(&args).fails();
            assert!(
                !refused.stderr.contains("never")
                    || ttl == "never" && !refused.stderr.contains("`never`"),
                "{args:?}: {}",
                refused.stderr
            );
            assert!(
                refused.stderr.contains("60s"),
                "{args:?}: {}",
                refused.stderr
            );
        }
    }
    // The length it suggests is one it takes.
    pad.ok(&["lease", "acquire", "plan", "--holder", "a", "--ttl", "60s"]);
}

/// Regression: `pin`, `unpin` and `ttl` took no `--lease` (nor `--if-version`) while every other
/// change did, so an agent holding a lease could not fence them.
#[test]
fn pin_unpin_and_ttl_carry_a_lease_and_a_version() {
    let pad = Pad::new();
    pad.ok(&["write", "plan", "1. profile"]);
    let first = pad
        .ok(&[
            "--author", "agent-a", "lease", "acquire", "plan", "--ttl", "60s",
        ])
        .trim()
        .to_owned();
    pad.ok(&["pin", "plan", "--lease", &first]);
    pad.ok(&["ttl", "plan", "7d", "--lease", &first, "--if-version", "2"]);
    pad.ok(&["unpin", "plan", "--lease", &first, "--if-version", "3"]);
    let stale = pad.run(&["ttl", "plan", "7d", "--if-version", "1"]).fails();
    assert!(stale.stderr.contains("version"), "{}", stale.stderr);
    // Once someone else holds a newer token, the old one no longer changes anything.
    pad.ok(&[
        "--author", "agent-a", "lease", "release", "plan", "--token", &first,
    ]);
    pad.ok(&[
        "--author", "agent-b", "lease", "acquire", "plan", "--ttl", "60s",
    ]);
    for args in [
        vec!["pin", "plan", "--lease", first.as_str()],
        vec!["unpin", "plan", "--lease", first.as_str()],
        vec!["ttl", "plan", "1d", "--lease", first.as_str()],
    ] {
        let fenced = pad.run(&args).fails();
        assert!(
            fenced.stderr.contains("stale"),
            "{args:?}: {}",
            fenced.stderr
        );
    }
}
