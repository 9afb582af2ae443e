//! Adding the scratchpad's hooks to an agent's settings file (`hooks` → event → list of matcher
//! groups, as Claude Code and Gemini CLI both write them), and removing exactly those again.
//!
//! Each hook is one group `{"hooks": [{"type": "command", "command": "… hooks run EVENT"}]}`
//! appended to its event's list. What install creates (the `hooks` object, an event's list) is
//! always spread over lines, so that uninstall can tell it from an empty one the user wrote, which
//! it keeps. Every install is checked to come out again byte for byte before it is offered.

use std::path::{Path, PathBuf};

use super::doc::{Doc, is_scratchpad};
use super::install::{insert_member, item_range, member_range};
use super::tree::{self, Edits, Node};
use super::{Client, Outcome, Refusal, Scope, Verdict, finish, parse};

/// The key the agents keep their hooks under, at the top level of a settings file.
const HOOKS_KEY: &str = "hooks";

/// One hook install writes: the event it runs on and the command line it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    /// The agent's name for the event (`SessionStart`).
    pub event: &'static str,
    pub command: String,
}

/// The settings file of `client` (Claude Code or Gemini CLI) for a scope: Claude Code's
/// `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR` moves it) or the project's
/// `.claude/settings.json`, shared through the repository; Gemini CLI keeps its hooks in the file
/// that holds its servers.
pub fn settings_path(client: Client, scope: Scope, project: &Path) -> anyhow::Result<PathBuf> {
    if client != Client::ClaudeCode {
        return client.path(scope, project);
    }
    Ok(match scope {
        Scope::User => match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir).join("settings.json"),
            None => dirs::home_dir()
                .ok_or_else(|| {
                    anyhow::anyhow!("no home directory found; give the file with --config PATH")
                })?
                .join(".claude")
                .join("settings.json"),
        },
        Scope::Project => project.join(".claude").join("settings.json"),
    })
}

/// The text of a settings file install creates from nothing.
pub const CREATED_FILE: &str = "{\n}\n";

/// Adds `hooks` to the settings `text` of `client` (`None`: no file yet).
pub fn install(client: Client, text: Option<&str>, hooks: &[Hook]) -> Result<Outcome, Refusal> {
    let original = text.unwrap_or(CREATED_FILE);
    let mut text = original.to_owned();
    let mut report = Vec::new();
    for hook in hooks {
        let doc = parse(client, &text)?;
        match add(&doc, hook)? {
            Some(edits) => {
                text = finish(&doc, &edits)?;
                report.push((hook.event.to_owned(), Verdict::Changed("added".to_owned())));
            }
            None => report.push((
                hook.event.to_owned(),
                Verdict::Left("already installed with this command".to_owned()),
            )),
        }
    }
    if text == original {
        return Ok(Outcome {
            servers: report,
            change: Err("the hooks are already installed".to_owned()),
        });
    }
    // Offered only if uninstall gives the file back exactly.
    let back = uninstall(client, &text)?.change.ok();
    if back.as_deref() != Some(original) {
        return Err(Refusal::Unsupported(
            "uninstall could not give this file back byte for byte after adding the hooks (an \
             event list written empty over several lines?); add them by hand"
                .to_owned(),
        ));
    }
    Ok(Outcome {
        servers: report,
        change: Ok(text),
    })
}

/// Takes every hook of the scratchpad's out of the settings `text` of `client`.
pub fn uninstall(client: Client, text: &str) -> Result<Outcome, Refusal> {
    let mut text = text.to_owned();
    let mut report = Vec::new();
    // One hook at a time, parsing again after each: removals cascade (group, then an event list
    // left empty, then a `hooks` object left empty) and must not overlap.
    loop {
        let doc = parse(client, &text)?;
        let Some((event, edits)) = remove_one(&doc)? else {
            break;
        };
        text = finish(&doc, &edits)?;
        report.push((event, Verdict::Changed("removed".to_owned())));
    }
    let change = if report.is_empty() {
        Err("there is no scratchpad hook".to_owned())
    } else {
        Ok(text)
    };
    Ok(Outcome {
        servers: report,
        change,
    })
}

/// The edits adding `hook`, or `None` when it is there already.
fn add(doc: &Doc, hook: &Hook) -> Result<Option<Edits>, Refusal> {
    let unit = doc.indent_unit();
    let group = group_text(doc, &hook.command);
    let mut edits = Edits::default();
    let Some(hooks) = doc.root_map().get(HOOKS_KEY) else {
        let render = |indent: Option<&str>| {
            let outer = indent.unwrap_or("");
            let inner = format!("{outer}{unit}");
            format!(
                "{{{eol}{inner}{}: {}{eol}{outer}}}",
                doc.key(hook.event),
                spread_list(doc, &group, &inner, &unit),
                eol = doc.eol
            )
        };
        insert_member(doc, &doc.root, HOOKS_KEY, &unit, &mut edits, &render);
        return Ok(Some(edits));
    };
    let map = hooks.value.as_map().ok_or_else(|| {
        Refusal::Unsupported(format!("`{HOOKS_KEY}` is not an object of hook events"))
    })?;
    let Some(event) = map.get(hook.event) else {
        let render = |indent: Option<&str>| {
            let indent = indent.unwrap_or("");
            spread_list(doc, &group, indent, &unit)
        };
        insert_member(doc, &hooks.value, hook.event, &unit, &mut edits, &render);
        return Ok(Some(edits));
    };
    let groups = event.value.as_list().ok_or_else(|| {
        Refusal::Unsupported(format!(
            "`{HOOKS_KEY}.{}` is not a list of hook groups",
            hook.event
        ))
    })?;
    if let Some(existing) = groups.iter().find_map(|g| ours(g, hook.event)) {
        if existing == hook.command {
            return Ok(None);
        }
        return Err(Refusal::Unsupported(format!(
            "the scratchpad's {} hook is already installed with another command (`{existing}`); \
             run `scratchpad hooks uninstall` with the same --client first",
            hook.event
        )));
    }
    append_item(doc, &event.value, groups, &group, &unit, &mut edits);
    Ok(Some(edits))
}

/// The edits taking out the first scratchpad hook found, with its event's name.
fn remove_one(doc: &Doc) -> Result<Option<(String, Edits)>, Refusal> {
    let root = doc.root_map();
    let Some(hooks_at) = root.members.iter().rposition(|m| m.name == HOOKS_KEY) else {
        return Ok(None);
    };
    let hooks = &root.members[hooks_at];
    let Some(map) = hooks.value.as_map() else {
        return Ok(None);
    };
    for (event_at, event) in map.members.iter().enumerate() {
        let Some(groups) = event.value.as_list() else {
            continue;
        };
        let Some(index) = groups.iter().position(|g| ours(g, &event.name).is_some()) else {
            continue;
        };
        let spans: Vec<_> = groups.iter().map(|g| g.span.clone()).collect();
        let mut edits = Edits::default();
        let range = item_range(doc, &event.value.span, &spans, index);
        // Left with only `[` + line breaks + `]`: install made the list (module docs), so it goes.
        let inside = event.value.span.start + 1..event.value.span.end - 1;
        let left = format!(
            "{}{}",
            doc.slice(inside.start..range.start),
            doc.slice(range.end..inside.end)
        );
        if groups.len() > 1 || !(left.trim().is_empty() && left.contains('\n')) {
            edits.remove(range);
            return Ok(Some((event.name.clone(), edits)));
        }
        let range = member_range(doc, &hooks.value, event_at);
        let inside = hooks.value.span.start + 1..hooks.value.span.end - 1;
        let left = format!(
            "{}{}",
            doc.slice(inside.start..range.start),
            doc.slice(range.end..inside.end)
        );
        if map.members.len() > 1 || !(left.trim().is_empty() && left.contains('\n')) {
            edits.remove(range);
        } else {
            edits.remove(member_range(doc, &doc.root, hooks_at));
        }
        return Ok(Some((event.name.clone(), edits)));
    }
    Ok(None)
}

/// The command of a group that is one scratchpad hook for `event`, as install writes it.
fn ours<'n>(group: &'n Node, event: &str) -> Option<&'n str> {
    let hooks = group.as_map()?.get(HOOKS_KEY)?.value.as_list()?;
    let [hook] = hooks else { return None };
    let command = hook.as_map()?.get("command")?.value.as_str()?;
    let program = match command.strip_prefix('\'') {
        Some(quoted) => quoted.split('\'').next()?,
        None => command.split_whitespace().next()?,
    };
    let suffix = format!(" hooks run {}", event_flag(event));
    (is_scratchpad(program) && command.contains(&suffix)).then_some(command)
}

/// The name `scratchpad hooks run` takes for an agent's event: `SessionStart` → `session-start`.
pub fn event_flag(event: &str) -> String {
    let mut flag = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                flag.push('-');
            }
            flag.push(c.to_ascii_lowercase());
        } else {
            flag.push(c);
        }
    }
    flag
}

/// One group, on one line: `{"hooks": [{"type": "command", "command": "…"}]}`.
fn group_text(doc: &Doc, command: &str) -> String {
    format!(
        "{{{}: [{{{}: {}, {}: {}}}]}}",
        doc.key(HOOKS_KEY),
        doc.key("type"),
        doc.string("command"),
        doc.key("command"),
        doc.string(command)
    )
}

/// `[`, the item on a line of its own one step in from `indent`, `]` at `indent`.
fn spread_list(doc: &Doc, item: &str, indent: &str, unit: &str) -> String {
    format!("[{eol}{indent}{unit}{item}{eol}{indent}]", eol = doc.eol)
}

/// Adds `item` after the last item of `list`, laid out like it.
fn append_item(doc: &Doc, list: &Node, items: &[Node], item: &str, unit: &str, edits: &mut Edits) {
    match items.last() {
        Some(last) => {
            let space = tree::space_before(doc.text, last.span.start);
            let text = match tree::last_line_break(space) {
                Some(line) => format!(",{line}{item}"),
                None => format!(",{space}{item}"),
            };
            edits.insert(last.span.end, text);
        }
        None => {
            let open = list.span.start + 1;
            let inside = doc.slice(open..list.span.end - 1);
            let text = if inside.contains('\n') {
                let indent = format!("{}{unit}", tree::indent_at(doc.text, list.span.start));
                format!("{}{indent}{item}", doc.eol)
            } else {
                item.to_owned()
            };
            edits.insert(open, text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(command: &str) -> Vec<Hook> {
        vec![Hook {
            event: "SessionStart",
            command: command.to_owned(),
        }]
    }

    fn installed(text: Option<&str>) -> String {
        match install(
            Client::ClaudeCode,
            text,
            &start("scratchpad hooks run session-start"),
        ) {
            Ok(Outcome {
                change: Ok(new), ..
            }) => new,
            other => panic!("install: {other:?}"),
        }
    }

    fn removed(text: &str) -> String {
        match uninstall(Client::ClaudeCode, text) {
            Ok(Outcome {
                change: Ok(new), ..
            }) => new,
            other => panic!("uninstall: {other:?}"),
        }
    }

    #[test]
    fn a_new_file_gets_the_hooks_spread_over_lines() {
        let new = installed(None);
        assert_eq!(
            new,
            "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\"hooks\": [{\"type\": \"command\", \
             \"command\": \"scratchpad hooks run session-start\"}]}\n    ]\n  }\n}\n"
        );
        assert_eq!(removed(&new), CREATED_FILE);
    }

    #[test]
    fn hooks_of_the_user_stay_where_they_are() {
        let text = "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"SessionStart\": [\n            \
                    {\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}\n        ],\n        \
                    \"Stop\": []\n    }\n}\n";
        let new = installed(Some(text));
        assert!(new.contains("\"echo hi\"}]},\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"scratchpad hooks run session-start\"}]}\n        ],"), "{new}");
        assert_eq!(removed(&new), text);
        // Installed twice, it is there once.
        assert!(matches!(
            install(
                Client::ClaudeCode,
                Some(&new),
                &start("scratchpad hooks run session-start")
            ),
            Ok(Outcome { change: Err(_), .. })
        ));
        // The same hook with another command is not installed over it.
        assert!(
            install(
                Client::ClaudeCode,
                Some(&new),
                &start("/opt/scratchpad hooks run session-start")
            )
            .is_err()
        );
    }

    #[test]
    fn an_event_list_is_added_to_a_hooks_object_of_the_user() {
        let text = "{\"hooks\": {\"Stop\": []}, \"x\": 1}";
        let new = installed(Some(text));
        assert_eq!(removed(&new), text);
        let text = "{\"hooks\": {}}";
        assert_eq!(removed(&installed(Some(text))), text);
        let text = "{\"hooks\": {\"SessionStart\": []}}";
        let new = installed(Some(text));
        assert!(new.contains("\"SessionStart\": [{\"hooks\""), "{new}");
        assert_eq!(removed(&new), text);
    }

    #[test]
    fn what_is_not_a_hooks_object_is_refused() {
        assert!(
            install(
                Client::ClaudeCode,
                Some("{\"hooks\": []}"),
                &start("scratchpad hooks run session-start")
            )
            .is_err()
        );
        assert!(
            install(
                Client::ClaudeCode,
                Some("{\"hooks\": {\"SessionStart\": {}}}"),
                &start("scratchpad hooks run session-start")
            )
            .is_err()
        );
        assert!(
            install(
                Client::ClaudeCode,
                Some("{"),
                &start("scratchpad hooks run session-start")
            )
            .is_err()
        );
    }

    #[test]
    fn a_hook_of_another_program_is_not_taken_out() {
        let text = "{\"hooks\": {\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"other hooks run session-start\"}]}]}}";
        assert!(matches!(
            uninstall(Client::ClaudeCode, text),
            Ok(Outcome { change: Err(_), .. })
        ));
        assert_eq!(event_flag("SessionStart"), "session-start");
        assert_eq!(event_flag("PreToolUse"), "pre-tool-use");
    }
}
