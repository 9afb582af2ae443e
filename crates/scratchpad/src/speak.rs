//! How the command line spells the engine's calls: `scratchpad --session cfg read log --lines 1-100`,
//! with the global options that chose the store and session, so a printed continuation reads the
//! same entry when run as it is.

use scratchpad_core::diff::DiffCall;
use scratchpad_core::{Arg, ArgName, ArgValue, Call, ReadMode, Speak};

/// The shell spelling of calls and arguments.
#[derive(Debug, Clone)]
pub struct Shell {
    /// `scratchpad` plus the global options that select the store and session.
    command: String,
}

impl Shell {
    /// The command as a shell user types it, repeating `--store` and `--session` when they were
    /// given as flags (a value that came from the environment is still there when the
    /// continuation runs). Store URLs that could carry a password are left out.
    pub fn new(store: Option<&str>, session: Option<&str>) -> Self {
        let from_flag = |value: &str, var: &str| std::env::var(var).ok().as_deref() != Some(value);
        let mut command = "scratchpad".to_owned();
        if let Some(store) = store
            .filter(|s| from_flag(s, "SCRATCHPAD_STORE"))
            .filter(|s| !s.contains("://") || s.starts_with("sqlite://"))
        {
            command.push_str(&format!(" --store {}", shell_word(store)));
        }
        if let Some(session) = session.filter(|s| from_flag(s, "SCRATCHPAD_SESSION")) {
            command.push_str(&format!(" --session {}", shell_word(session)));
        }
        Self { command }
    }

    /// `scratchpad` plus the global options, to which a subcommand is added.
    pub fn command(&self) -> &str {
        &self.command
    }
}

impl Speak for Shell {
    fn call(&self, call: &Call) -> String {
        match call {
            Call::Read { name, mode } => {
                format!(
                    "{} read {} {}",
                    self.command,
                    shell_word(name),
                    read_flags(mode)
                )
            }
            Call::ReadVersion {
                name,
                version,
                mode,
            } => format!(
                "{} read {} --version {version} {}",
                self.command,
                shell_word(name),
                read_flags(mode)
            ),
            Call::List => format!("{} ls", self.command),
            Call::History { name } => format!("{} history {}", self.command, shell_word(name)),
            Call::Lease { name } => format!("{} lease show {}", self.command, shell_word(name)),
            Call::AcquireLease { name } => {
                format!("{} lease acquire {}", self.command, shell_word(name))
            }
            Call::Diff(diff) => format!("{} diff {}", self.command, diff_args(diff)),
            Call::Check => format!("{} check", self.command),
            Call::RestoreRemoved { name, as_name } => {
                let mut call = format!("{} restore {} --removed", self.command, shell_word(name));
                if let Some(as_name) = as_name {
                    call.push_str(&format!(" --as {}", shell_word(as_name)));
                }
                call
            }
            Call::Purge { name } => format!("{} rm {} --purge", self.command, shell_word(name)),
            Call::ListRemoved => format!("{} ls --removed", self.command),
        }
    }

    fn arg(&self, arg: Arg) -> String {
        let flag = match arg.name {
            ArgName::Force => "--force",
            ArgName::ReplaceAll => "--replace-all",
            ArgName::IfVersion => "--if-version",
            ArgName::MaxMatches => "--max",
            ArgName::FromLine => "--from-line",
            ArgName::Lease => "--lease",
        };
        match arg.value {
            ArgValue::On | ArgValue::Bare => flag.to_owned(),
            ArgValue::Number(n) => format!("{flag} {n}"),
        }
    }
}

/// The arguments of `diff` that compare what `diff` says, from where it says.
fn diff_args(diff: &DiffCall) -> String {
    let mut out = shell_word(&diff.a.name);
    if diff.b.name != diff.a.name {
        out.push(' ');
        out.push_str(&shell_word(&diff.b.name));
    }
    if let Some(from) = diff.a.version {
        out.push_str(&format!(" --from {from}"));
    }
    if let Some(to) = diff.b.version {
        out.push_str(&format!(" --to {to}"));
    }
    if let Some(cursor) = diff.cursor {
        out.push_str(&format!(" --cursor {cursor}"));
    }
    if diff.plain {
        out.push_str(" --text");
    }
    out
}

/// The flags of `read` that perform `mode`.
fn read_flags(mode: &ReadMode) -> String {
    let with_count = |flag: &str, n: &Option<u64>| match n {
        Some(n) => format!("{flag} {n}"),
        None => flag.to_owned(),
    };
    let span = |flag: &str, from: u64, to: Option<u64>| match to {
        Some(to) => format!("{flag} {from}-{to}"),
        None => format!("{flag} {from}-"),
    };
    match mode {
        ReadMode::Head { n } => with_count("--head", n),
        ReadMode::Tail { n } => with_count("--tail", n),
        ReadMode::Range { start, end } => span("--range", *start, *end),
        ReadMode::Lines { from, to } => span("--lines", *from, *to),
        ReadMode::Grep {
            pattern,
            context,
            max_matches,
            ignore_case,
            from,
        } => {
            let mut flags = format!("--grep {}", shell_word(pattern));
            if *context > 0 {
                flags.push_str(&format!(" -C {context}"));
            }
            if *ignore_case {
                flags.push_str(" -i");
            }
            if let Some(max) = max_matches {
                flags.push_str(&format!(" --max {max}"));
            }
            if let Some(from) = from {
                flags.push_str(&format!(" --from-line {from}"));
            }
            flags
        }
        ReadMode::Json { query } => format!("--jq {}", shell_word(query)),
        ReadMode::Bytes { offset, length } => {
            span("--bytes", *offset, length.map(|len| offset + len))
        }
        ReadMode::Full { force: true } => "--full --force".to_owned(),
        ReadMode::Full { force: false } => "--full".to_owned(),
        ReadMode::Summary { from } => with_count("--summary", from),
    }
}

/// Quotes a word for a POSIX shell when it needs it.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-/:=@%+,".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;
    use crate::cli::{Cli, Command};

    /// Splits a command line as a POSIX shell would, for the quoting `shell_word` produces.
    fn split(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let mut word = String::new();
        let mut in_word = false;
        let mut quoted = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\'' => {
                    quoted = !quoted;
                    in_word = true;
                }
                '\\' if !quoted => {
                    if let Some(next) = chars.next() {
                        word.push(next);
                    }
                    in_word = true;
                }
                ' ' if !quoted => {
                    if in_word {
                        words.push(std::mem::take(&mut word));
                        in_word = false;
                    }
                }
                other => {
                    word.push(other);
                    in_word = true;
                }
            }
        }
        if in_word {
            words.push(word);
        }
        words
    }

    /// Every read a continuation or hint can name, with awkward values.
    fn modes() -> Vec<ReadMode> {
        vec![
            ReadMode::Head { n: None },
            ReadMode::Head { n: Some(5) },
            ReadMode::Tail { n: Some(2_000) },
            ReadMode::Range {
                start: 10,
                end: Some(20),
            },
            ReadMode::Range {
                start: 7,
                end: None,
            },
            ReadMode::Lines {
                from: 1,
                to: Some(100),
            },
            ReadMode::Lines { from: 9, to: None },
            ReadMode::Grep {
                pattern: "it's -C 'ERROR|FATAL' [a-z]+ $HOME".into(),
                context: 3,
                max_matches: Some(7),
                ignore_case: true,
                from: Some(42),
            },
            ReadMode::grep("-starts-with-a-dash", 0),
            ReadMode::Json {
                query: ".items[] | select(.ok == \"yes\")".into(),
            },
            ReadMode::Bytes {
                offset: 3,
                length: Some(300),
            },
            ReadMode::Bytes {
                offset: 0,
                length: None,
            },
            ReadMode::Full { force: false },
            ReadMode::Full { force: true },
            ReadMode::Summary { from: None },
            ReadMode::Summary { from: Some(31) },
        ]
    }

    /// Every continuation the CLI prints is a command line that clap accepts and that performs
    /// exactly that read, on the same store and session.
    #[test]
    fn printed_calls_parse_back_to_the_same_read() {
        let shell = Shell {
            command: format!(
                "scratchpad --store {} --session {}",
                shell_word("/tmp/my pads/p.db"),
                shell_word("team-1")
            ),
        };
        for mode in modes() {
            let call = Call::read("log_7", mode.clone());
            let line = shell.call(&call);
            let cli = Cli::try_parse_from(split(&line))
                .unwrap_or_else(|e| panic!("`{line}` does not parse: {e}"));
            assert_eq!(cli.global.store(), Some("/tmp/my pads/p.db"));
            assert_eq!(cli.global.session.as_deref(), Some("team-1"));
            let Command::Read(args) = cli.command else {
                panic!("`{line}` is not a read");
            };
            assert_eq!(args.reference, "log_7");
            let parsed = crate::commands::read::mode(&args).unwrap();
            // `--bytes 0-` and an open length are the same read.
            assert_eq!(parsed, mode, "{line}");
        }
        let list = Cli::try_parse_from(split(&shell.call(&Call::List))).unwrap();
        assert!(matches!(list.command, Command::Ls(_)));
    }

    /// Continuations of version reads and diffs parse back to the same call.
    #[test]
    fn version_reads_and_diffs_parse_back() {
        use scratchpad_core::{DiffCursor, Target};
        let shell = Shell {
            command: "scratchpad".to_owned(),
        };
        let call = Call::ReadVersion {
            name: "plan".into(),
            version: 3,
            mode: ReadMode::Lines {
                from: 5,
                to: Some(9),
            },
        };
        let cli = Cli::try_parse_from(split(&shell.call(&call))).unwrap();
        let Command::Read(args) = cli.command else {
            panic!("not a read");
        };
        assert_eq!(args.version, Some(3));
        assert_eq!(
            crate::commands::read::mode(&args).unwrap(),
            ReadMode::Lines {
                from: 5,
                to: Some(9)
            }
        );
        let cursor = DiffCursor {
            a_line: 120,
            b_line: 118,
        };
        for (a, b) in [
            (Target::at("plan", 2), Target::at("plan", 5)),
            (Target::at("run_1", 1), Target::at("run 2", 4)),
        ] {
            let call = Call::Diff(DiffCall {
                a: a.clone(),
                b: b.clone(),
                cursor: Some(cursor),
                plain: true,
            });
            let line = shell.call(&call);
            let cli = Cli::try_parse_from(split(&line)).unwrap();
            let Command::Diff(args) = cli.command else {
                panic!("`{line}` is not a diff");
            };
            assert_eq!(args.a, a.name, "{line}");
            assert_eq!(args.b.as_deref().unwrap_or(&args.a), b.name, "{line}");
            assert_eq!((args.from, args.to), (a.version, b.version), "{line}");
            assert_eq!(args.cursor.as_deref(), Some("120:118"), "{line}");
            assert!(args.text, "{line}");
        }
        assert_eq!(
            shell.call(&Call::Lease {
                name: "plan".into()
            }),
            "scratchpad lease show plan"
        );
        assert_eq!(
            shell.call(&Call::History {
                name: "plan".into()
            }),
            "scratchpad history plan"
        );
    }

    #[test]
    fn arguments_are_the_flags_of_the_command() {
        let shell = Shell::new(None, None);
        assert_eq!(shell.arg(Arg::on(ArgName::Force)), "--force");
        assert_eq!(
            shell.arg(Arg::number(ArgName::IfVersion, 3)),
            "--if-version 3"
        );
        assert_eq!(shell.arg(Arg::bare(ArgName::IfVersion)), "--if-version");
        assert_eq!(shell.arg(Arg::number(ArgName::MaxMatches, 0)), "--max 0");
    }

    #[test]
    fn every_error_kind_speaks_in_commands() {
        let shell = Shell::new(None, Some("build"));
        for error in scratchpad_core::error::one_of_each() {
            let message = error.render(&shell);
            assert_eq!(
                scratchpad_core::error::foreign_spelling("cli", &message, &[]),
                None,
                "{message}"
            );
        }
    }
}
