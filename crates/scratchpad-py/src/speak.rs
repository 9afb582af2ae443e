//! How the Python face spells the engine's calls, in messages and rendered replies:
//! `pad.read("log", lines=(1, 100))`, `pad.list()`, `if_version=3`.

use scratchpad_core::{Arg, ArgName, ArgValue, Call, Speak};

use crate::kwargs::{Kw, mode_kwargs, python_literal};

/// The Python spelling of calls and arguments.
#[derive(Debug, Clone, Copy, Default)]
pub struct Python;

impl Speak for Python {
    fn call(&self, call: &Call) -> String {
        match call {
            Call::Read { name, mode } => {
                let mut args = vec![python_literal(&Kw::Str(name.clone()))];
                args.extend(
                    mode_kwargs(mode)
                        .iter()
                        .map(|(key, value)| format!("{key}={}", python_literal(value))),
                );
                format!("`pad.read({})`", args.join(", "))
            }
            Call::ReadVersion {
                name,
                version,
                mode,
            } => {
                let mut args = vec![
                    python_literal(&Kw::Str(name.clone())),
                    format!("version={version}"),
                ];
                args.extend(
                    mode_kwargs(mode)
                        .iter()
                        .map(|(key, value)| format!("{key}={}", python_literal(value))),
                );
                format!("`pad.read({})`", args.join(", "))
            }
            Call::List => "`pad.list()`".to_owned(),
            Call::History { name } => format!("`pad.history({name:?})`"),
            Call::Lease { name } => format!("`pad.lease({name:?})`"),
            // The handle's author as the holder, for a minute: a call that runs as it is printed.
            Call::AcquireLease { name } => {
                format!("`pad.acquire_lease({name:?}, pad.author, 60)`")
            }
            Call::Diff(diff) => {
                let side = |target: &scratchpad_core::diff::Target| match target.version {
                    Some(version) => format!("({:?}, {version})", target.name),
                    None => format!("{:?}", target.name),
                };
                let mut args = vec![side(&diff.a), side(&diff.b)];
                if let Some(cursor) = &diff.cursor {
                    args.push(format!("cursor={:?}", cursor.to_string()));
                }
                if diff.plain {
                    args.push("plain=True".to_owned());
                }
                format!("`pad.diff({})`", args.join(", "))
            }
            Call::Check => "`pad.check()`".to_owned(),
            Call::RestoreRemoved { name, as_name } => match as_name {
                Some(as_name) => format!("`pad.restore_removed({name:?}, new_name={as_name:?})`"),
                None => format!("`pad.restore_removed({name:?})`"),
            },
            Call::Purge { name } => format!("`pad.delete({name:?}, purge=True)`"),
            Call::ListRemoved => "`pad.removed()`".to_owned(),
        }
    }

    fn arg(&self, arg: Arg) -> String {
        let name = match arg.name {
            ArgName::Force => "force",
            ArgName::ReplaceAll => "replace_all",
            ArgName::IfVersion => "if_version",
            ArgName::MaxMatches => "max_matches",
            ArgName::FromLine => "from_line",
            ArgName::Lease => "lease",
        };
        match arg.value {
            ArgValue::On => format!("`{name}=True`"),
            ArgValue::Number(n) => format!("`{name}={n}`"),
            ArgValue::Bare => format!("`{name}`"),
        }
    }
}
