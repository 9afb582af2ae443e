//! What a reader can do next, kept as data. The engine never spells a call: a continuation, a
//! hint or an error's "what to do next" names a [`Call`] or an [`Arg`], and each face renders it
//! in its own syntax through [`Speak`] (command-line flags, MCP tool arguments, Rust calls).

use std::fmt;

use crate::diff::target::DiffCall;
use crate::read::mode::ReadMode;

/// A call a message suggests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// Read part of an entry: continuations, hints and suggestions.
    Read { name: String, mode: ReadMode },
    /// Read part of an older version of an entry.
    ReadVersion {
        name: String,
        version: u64,
        mode: ReadMode,
    },
    /// List the session's entries.
    List,
    /// List an entry's versions.
    History { name: String },
    /// Show who holds the lease on a name, and until when.
    Lease { name: String },
    /// Claim the lease on a name (a new token).
    AcquireLease { name: String },
    /// Compare two entries or versions (a cut diff's continuation).
    Diff(DiffCall),
    /// Verify every stored chunk of the store against its checksum.
    Check,
    /// Bring back a removed entry, under its name or under `as_name`.
    RestoreRemoved {
        name: String,
        as_name: Option<String>,
    },
    /// Delete an entry, or a removed one's kept versions, for good.
    Purge { name: String },
    /// List the session's removed entries.
    ListRemoved,
}

impl Call {
    pub fn read(name: &str, mode: ReadMode) -> Self {
        Self::Read {
            name: name.to_owned(),
            mode,
        }
    }
}

/// An argument of the call being answered, named the way the caller's face spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arg {
    pub name: ArgName,
    pub value: ArgValue,
}

/// The arguments messages refer to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgName {
    /// Read a whole entry above the size guard.
    Force,
    /// Replace every occurrence in an edit.
    ReplaceAll,
    /// Write only if the entry is at this version.
    IfVersion,
    /// Matching lines a grep lists at most.
    MaxMatches,
    /// The line a grep starts searching at.
    FromLine,
    /// The fencing token a change carries.
    Lease,
}

/// What an argument is given, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgValue {
    /// A switch turned on.
    On,
    Number(u64),
    /// The argument itself, without a value ("write it without if_version").
    Bare,
}

impl Arg {
    pub fn on(name: ArgName) -> Self {
        Self {
            name,
            value: ArgValue::On,
        }
    }

    pub fn number(name: ArgName, value: u64) -> Self {
        Self {
            name,
            value: ArgValue::Number(value),
        }
    }

    pub fn bare(name: ArgName) -> Self {
        Self {
            name,
            value: ArgValue::Bare,
        }
    }
}

/// How a face spells calls and arguments.
pub trait Speak {
    fn call(&self, call: &Call) -> String;
    fn arg(&self, arg: Arg) -> String;
}

/// `call` as a Markdown code span, so that the sentence around it (a period, a comma) is not
/// copied with it: the span runs exactly as printed. A call with backticks in it gets a longer
/// fence; one a face already spelled as a span is left as it is.
pub fn code_span(call: &str) -> String {
    if call.starts_with('`') && call.ends_with('`') && call.len() > 1 {
        return call.to_owned();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in call.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if longest == 0 {
        return format!("`{call}`");
    }
    let fence = "`".repeat(longest + 1);
    format!("{fence} {call} {fence}")
}

/// A message for a person or a model, whose calls and arguments stay data until a face renders it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Advice(Vec<Piece>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Call(Call),
    Arg(Arg),
}

impl Advice {
    /// Plain text, no calls.
    pub fn text(text: impl Into<String>) -> Self {
        Self(vec![Piece::Text(text.into())])
    }

    /// Appends text.
    #[must_use]
    pub fn and(mut self, text: impl Into<String>) -> Self {
        self.0.push(Piece::Text(text.into()));
        self
    }

    /// Appends a call.
    #[must_use]
    pub fn call(mut self, call: Call) -> Self {
        self.0.push(Piece::Call(call));
        self
    }

    /// Appends an argument.
    #[must_use]
    pub fn arg(mut self, arg: Arg) -> Self {
        self.0.push(Piece::Arg(arg));
        self
    }

    /// The same message with every suggested read made a read of `version` (for an error met in
    /// that version: reading the current one instead would read other content).
    #[must_use]
    pub fn at_version(self, version: u64) -> Self {
        Self(
            self.0
                .into_iter()
                .map(|piece| match piece {
                    Piece::Call(Call::Read { name, mode }) => Piece::Call(Call::ReadVersion {
                        name,
                        version,
                        mode,
                    }),
                    other => other,
                })
                .collect(),
        )
    }

    /// The calls this message suggests, in order.
    pub fn calls(&self) -> impl Iterator<Item = &Call> {
        self.0.iter().filter_map(|piece| match piece {
            Piece::Call(call) => Some(call),
            Piece::Text(_) | Piece::Arg(_) => None,
        })
    }

    /// The message in a face's syntax.
    pub fn render(&self, speak: &dyn Speak) -> String {
        let mut out = String::new();
        for piece in &self.0 {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Call(call) => out.push_str(&code_span(&speak.call(call))),
                Piece::Arg(arg) => out.push_str(&code_span(&speak.arg(*arg))),
            }
        }
        out
    }
}

impl From<String> for Advice {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<&str> for Advice {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

/// Rendered for a library user: calls as this crate's own API.
impl fmt::Display for Advice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(&Library))
    }
}

/// The library's own spelling: `pad.read("x", ReadMode::Lines { from: 1, to: Some(100) })`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Library;

impl Speak for Library {
    fn call(&self, call: &Call) -> String {
        match call {
            Call::Read { name, mode } => format!("`pad.read({name:?}, ReadMode::{mode:?})`"),
            Call::ReadVersion {
                name,
                version,
                mode,
            } => format!("`pad.read_version({name:?}, {version}, ReadMode::{mode:?})`"),
            Call::List => "`pad.list(..)`".to_owned(),
            Call::History { name } => format!("`pad.history({name:?})`"),
            Call::Lease { name } => format!("`pad.lease({name:?})`"),
            Call::AcquireLease { name } => format!("`pad.acquire_lease({name:?}, holder, ttl)`"),
            Call::Diff(diff) => format!(
                "`pad.diff(&{:?}, &{:?}, {:?})`",
                diff.a, diff.b, diff.cursor
            ),
            Call::Check => "`pad.check()`".to_owned(),
            Call::RestoreRemoved { name, as_name } => {
                format!("`pad.restore_removed({name:?}, None, {as_name:?})`")
            }
            Call::Purge { name } => format!("`pad.purge({name:?})`"),
            Call::ListRemoved => "`pad.removed()`".to_owned(),
        }
    }

    fn arg(&self, arg: Arg) -> String {
        let name = match arg.name {
            ArgName::Force => "force",
            ArgName::ReplaceAll => "replace_all",
            ArgName::IfVersion => "if_version",
            ArgName::MaxMatches => "max_matches",
            ArgName::FromLine => "from",
            ArgName::Lease => "lease",
        };
        match arg.value {
            ArgValue::On => format!("`{name}: true`"),
            ArgValue::Number(n) => format!("`{name}: Some({n})`"),
            ArgValue::Bare => format!("`{name}`"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_render_in_order_in_the_face_syntax() {
        let advice = Advice::text("read it with ")
            .call(Call::read("log", ReadMode::Tail { n: Some(10) }))
            .and(" or pass ")
            .arg(Arg::on(ArgName::Force));
        assert_eq!(
            advice.to_string(),
            "read it with `pad.read(\"log\", ReadMode::Tail { n: Some(10) })` or pass `force: true`"
        );
        assert_eq!(advice.calls().count(), 1);
    }
}
