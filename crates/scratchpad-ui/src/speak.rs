//! How the view spells the engine's calls: as the addresses of its own pages, so that an error's
//! suggestion or a reply's continuation is a link a person can follow.

use scratchpad_core::{Arg, ArgName, ArgValue, Call, Speak};

use crate::query::{encode, entry_path, mode_params, session_path};

/// Calls as this view's addresses, for entries of one session.
#[derive(Debug, Clone)]
pub(crate) struct Web {
    session: String,
}

impl Web {
    pub fn new(session: &str) -> Self {
        Self {
            session: session.to_owned(),
        }
    }

    /// `scratchpad`, with the session when it is not the default one. Names and sessions are
    /// letters, digits and `._-`: nothing a shell would read otherwise.
    fn command(&self) -> String {
        if self.session == scratchpad_core::DEFAULT_SESSION {
            "scratchpad".to_owned()
        } else {
            format!("scratchpad --session {}", self.session)
        }
    }

    /// The address of a call, when it has one.
    pub fn href(&self, call: &Call) -> String {
        match call {
            Call::Read { name, mode } => format!(
                "{}?{}",
                entry_path(&self.session, name),
                encode(&mode_params(mode))
            ),
            Call::ReadVersion {
                name,
                version,
                mode,
            } => {
                let mut params = mode_params(mode);
                params.push(("version", version.to_string()));
                format!("{}?{}", entry_path(&self.session, name), encode(&params))
            }
            Call::List => session_path(&self.session),
            // Leases are shown, with their holder, on the history page.
            Call::History { name } | Call::Lease { name } | Call::AcquireLease { name } => {
                format!("{}/history", entry_path(&self.session, name))
            }
            Call::Diff(diff) => {
                let mut params = Vec::new();
                if let Some(version) = diff.a.version {
                    params.push(("from", version.to_string()));
                }
                if let Some(version) = diff.b.version {
                    params.push(("to", version.to_string()));
                }
                if diff.a.name != diff.b.name {
                    params.push(("with", diff.b.name.clone()));
                }
                if let Some(cursor) = diff.cursor {
                    params.push(("cursor", cursor.to_string()));
                }
                format!(
                    "{}/diff?{}",
                    entry_path(&self.session, &diff.a.name),
                    encode(&params)
                )
            }
            Call::Check => "`scratchpad check`".to_owned(),
            // The view has no page for removed notes: the commands that handle them.
            Call::RestoreRemoved { name, as_name } => match as_name {
                Some(as_name) => format!(
                    "`{} restore {name} --removed --as {as_name}`",
                    self.command()
                ),
                None => format!("`{} restore {name} --removed`", self.command()),
            },
            Call::Purge { name } => format!("`{} rm {name} --purge`", self.command()),
            Call::ListRemoved => format!("`{} ls --removed`", self.command()),
        }
    }
}

impl Speak for Web {
    fn call(&self, call: &Call) -> String {
        match call {
            Call::Check | Call::RestoreRemoved { .. } | Call::Purge { .. } | Call::ListRemoved => {
                self.href(call)
            }
            Call::Read { .. }
            | Call::ReadVersion { .. }
            | Call::List
            | Call::History { .. }
            | Call::Lease { .. }
            | Call::AcquireLease { .. }
            | Call::Diff(_) => format!("<{}>", self.href(call)),
        }
    }

    fn arg(&self, arg: Arg) -> String {
        let name = match arg.name {
            ArgName::Force => "force",
            ArgName::ReplaceAll => "replace all",
            ArgName::IfVersion => "if_version",
            ArgName::MaxMatches => "max",
            ArgName::FromLine => "from",
            ArgName::Lease => "a lease token",
        };
        match arg.value {
            ArgValue::On | ArgValue::Bare => name.to_owned(),
            ArgValue::Number(n) => format!("{name}={n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scratchpad_core::error::{foreign_spelling, one_of_each};

    #[test]
    fn every_error_kind_speaks_in_addresses() {
        let web = Web::new("build");
        // What the view has no page for (checking the store, removed notes) it gives as the command
        // to run; everything else is an address.
        let commands: Vec<String> = [
            Call::Check,
            Call::RestoreRemoved {
                name: "plan".to_owned(),
                as_name: Some("plan-old".to_owned()),
            },
            Call::Purge {
                name: "plan".to_owned(),
            },
            Call::ListRemoved,
        ]
        .iter()
        .map(|call| scratchpad_core::advice::code_span(&web.call(call)))
        .collect();
        let allowed: Vec<&str> = commands.iter().map(String::as_str).collect();
        for error in one_of_each() {
            let message = error.render(&web);
            assert_eq!(
                foreign_spelling("web", &message, &allowed),
                None,
                "{message}"
            );
        }
    }
}
