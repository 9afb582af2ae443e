//! What `hooks install` adds for the agents whose shell reads the capture lines through
//! `BASH_ENV`: Gemini CLI takes the variable from a `.env` file beside its settings, Codex from
//! `[shell_environment_policy] set` in its config.toml, which also gets the store's directory in
//! `[sandbox_workspace_write] writable_roots`, so that a sandboxed command can write the store.
//!
//! As with every edit here, uninstall gives the file back byte for byte, and an install is offered
//! only once it is checked to come out again. The capture lines themselves are a file of their
//! own, [`LINES_FILE`], beside the edited one: a `BASH_ENV` naming a file of that name is the
//! scratchpad's.

use super::doc::Doc;
use super::install::{item_range, member_range};
use super::tree::{Edits, Map, MapStyle, Member, Node};
use super::{Client, Outcome, Refusal, Verdict, finish, parse};

/// The file of capture lines install writes beside the agent's file, and `BASH_ENV` names.
pub const LINES_FILE: &str = "scratchpad-bash-env.sh";
/// The variable bash reads the file of a non-interactive shell's first lines from.
const VAR: &str = "BASH_ENV";
/// A bash at shell level 1 whose stdin looks like a network connection reads `~/.bashrc` instead
/// of `BASH_ENV`; in Codex's Linux sandbox, asking whether stdin is a socket is refused, which bash
/// takes for yes. Codex started from a terminal passes `SHLVL` on, started from an IDE or a
/// desktop launcher it may not: set to 1, bash counts itself level 2 and reads `BASH_ENV`.
const LEVEL: &str = "SHLVL";
const LEVEL_VALUE: &str = "1";

/// Whether a `BASH_ENV` value names capture lines install wrote.
pub fn is_ours(value: &str) -> bool {
    value.rsplit('/').next() == Some(LINES_FILE)
}

/// The first line of what install adds to a `.env` file; the block ends with [`DOTENV_END`].
const DOTENV_BEGIN: &str = "# >>> scratchpad: the shell tool's output through the scratchpad \
                            (`scratchpad hooks uninstall` takes these lines out)";
const DOTENV_END: &str = "# <<< scratchpad";

/// Sets `BASH_ENV` to `lines_file` in a `.env` file's `text` (`None`: no file yet). The lines go
/// first in the file, so that its last line, with or without a line break, stays as it is.
pub fn install_dotenv(text: Option<&str>, lines_file: &str) -> Result<Outcome, Refusal> {
    let original = text.unwrap_or("");
    if lines_file.contains(['"', '\n', '\r', '\\', '$']) {
        return Err(Refusal::Unsupported(format!(
            "the path `{lines_file}` cannot be written as a .env value; give another --config"
        )));
    }
    if let Some(value) = dotenv_value(original, VAR) {
        return if value == lines_file {
            Ok(unchanged(
                "BASH_ENV already names the scratchpad's capture lines",
            ))
        } else {
            Err(taken(&value))
        };
    }
    let eol = if original.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let new = format!("{DOTENV_BEGIN}{eol}{VAR}=\"{lines_file}\"{eol}{DOTENV_END}{eol}{original}");
    let mut outcome = checked(original, new, &uninstall_dotenv)?;
    outcome.servers = vec![(
        VAR.to_owned(),
        Verdict::Changed(format!("set        {VAR}={lines_file}")),
    )];
    Ok(outcome)
}

/// Takes what [`install_dotenv`] added out of a `.env` file's `text`.
pub fn uninstall_dotenv(text: &str) -> Result<Outcome, Refusal> {
    let Some(start) = line_start(text, DOTENV_BEGIN) else {
        return Ok(unchanged("there is no scratchpad line"));
    };
    let Some(end_at) = text[start..].find(&format!("\n{DOTENV_END}")) else {
        return Err(Refusal::Unsupported(format!(
            "the scratchpad's lines have no `{DOTENV_END}` line after them; take them out by hand"
        )));
    };
    let end_line = start + end_at + 1;
    let end = text[end_line..]
        .find('\n')
        .map_or(text.len(), |i| end_line + i + 1);
    let mut new = text.to_owned();
    new.replace_range(start..end, "");
    Ok(Outcome {
        servers: vec![(
            VAR.to_owned(),
            Verdict::Changed(format!("removed    {VAR}")),
        )],
        change: Ok(new),
    })
}

/// A `.env` text for a dry run's diff: every value but `BASH_ENV`'s hidden (the file holds API
/// keys), comments and names kept.
pub fn shown_dotenv(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let bare = line.trim_start();
            let bare = bare.strip_prefix("export ").unwrap_or(bare);
            match line.split_once('=') {
                Some((key, value))
                    if !bare.starts_with('#') && key.trim_end().rsplit(' ').next() != Some(VAR) =>
                {
                    let eol = &value[value.trim_end_matches(['\n', '\r']).len()..];
                    format!("{key}={}{eol}", super::HIDDEN)
                }
                _ => line.to_owned(),
            }
        })
        .collect()
}

/// Where a line that is exactly `line` starts.
fn line_start(text: &str, line: &str) -> Option<usize> {
    let mut at = 0;
    for part in text.split_inclusive('\n') {
        if part.trim_end_matches(['\n', '\r']) == line {
            return Some(at);
        }
        at += part.len();
    }
    None
}

/// The value a `.env` text gives `name` (`NAME=value`, `export NAME=value`, quoted or not).
fn dotenv_value(text: &str, name: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let line = line.trim_start();
        let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
        let (key, value) = line.split_once('=')?;
        if key.trim_end() != name {
            return None;
        }
        let value = value.trim();
        let unquoted = ['"', '\'']
            .iter()
            .find_map(|q| value.strip_prefix(*q)?.split(*q).next())
            .unwrap_or_else(|| value.split(" #").next().unwrap_or(value).trim_end());
        Some(unquoted.to_owned())
    })
}

/// What Codex's config.toml gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodexEnv<'a> {
    /// The capture lines' file, for `shell_environment_policy.set.BASH_ENV`.
    pub lines_file: &'a str,
    /// The SQLite store's directory, for `sandbox_workspace_write.writable_roots`; `None` for a
    /// PostgreSQL store.
    pub writable_root: Option<&'a str>,
}

/// Sets `BASH_ENV` and adds the writable root in Codex's config.toml `text` (`None`: no file yet).
pub fn install_codex(text: Option<&str>, wanted: CodexEnv<'_>) -> Result<Outcome, Refusal> {
    let original = text.unwrap_or("");
    let mut text = original.to_owned();
    let mut report = Vec::new();
    let doc = parse(Client::Codex, &text)?;
    match add_bash_env(&doc, wanted.lines_file)? {
        Some(edits) => {
            text = finish(&doc, &edits)?;
            let how = format!("set        {POLICY}.set.{VAR} = {}", wanted.lines_file);
            report.push((VAR.to_owned(), Verdict::Changed(how)));
        }
        None => report.push((
            VAR.to_owned(),
            Verdict::Left(format!(
                "{POLICY}.set.{VAR}: it names the capture lines already"
            )),
        )),
    }
    if let Some(root) = wanted.writable_root {
        let doc = parse(Client::Codex, &text)?;
        match add_root(&doc, root)? {
            Some(edits) => {
                text = finish(&doc, &edits)?;
                let how = format!("added      {root} to {SANDBOX}.{ROOTS}");
                report.push((ROOTS.to_owned(), Verdict::Changed(how)));
            }
            None => report.push((
                ROOTS.to_owned(),
                Verdict::Left(format!("{SANDBOX}.{ROOTS}: it has {root} already")),
            )),
        }
    }
    if text == original {
        return Ok(Outcome {
            servers: report,
            change: Err("the capture is already set up".to_owned()),
        });
    }
    let mut outcome = checked(original, text, &|t| {
        uninstall_codex(t, wanted.writable_root)
    })?;
    outcome.servers = report;
    Ok(outcome)
}

/// Takes what [`install_codex`] added out of Codex's config.toml `text`: a `BASH_ENV` naming the
/// capture lines, and `writable_root` (as install read it from the lines' file) from the writable
/// roots.
pub fn uninstall_codex(text: &str, writable_root: Option<&str>) -> Result<Outcome, Refusal> {
    let mut text = text.to_owned();
    let mut report = Vec::new();
    let doc = parse(Client::Codex, &text)?;
    if let Some(edits) = remove_level(&doc)? {
        text = finish(&doc, &edits)?;
    }
    let doc = parse(Client::Codex, &text)?;
    if let Some(edits) = remove_bash_env(&doc)? {
        text = finish(&doc, &edits)?;
        let how = format!("removed    {POLICY}.set.{VAR}");
        report.push((VAR.to_owned(), Verdict::Changed(how)));
    }
    if let Some(root) = writable_root {
        let doc = parse(Client::Codex, &text)?;
        if let Some(edits) = remove_root(&doc, root)? {
            text = finish(&doc, &edits)?;
            let how = format!("removed    {root} from {SANDBOX}.{ROOTS}");
            report.push((ROOTS.to_owned(), Verdict::Changed(how)));
        }
    }
    let change = if report.is_empty() {
        Err("there is no scratchpad setting".to_owned())
    } else {
        Ok(text)
    };
    Ok(Outcome {
        servers: report,
        change,
    })
}

const POLICY: &str = "shell_environment_policy";
const SANDBOX: &str = "sandbox_workspace_write";
const ROOTS: &str = "writable_roots";

fn add_bash_env(doc: &Doc, lines_file: &str) -> Result<Option<Edits>, Refusal> {
    let mut lines = vec![format!("{VAR} = {}", doc.string(lines_file))];
    let level = format!("{LEVEL} = {}", doc.string(LEVEL_VALUE));
    let by_hand = |lines: &[String]| {
        Refusal::Unsupported(format!(
            "`{POLICY}` is written in a form the scratchpad does not edit; add `{}` to its `set` \
             table by hand",
            lines.join("` and `")
        ))
    };
    let Some(policy) = doc.root_map().get(POLICY) else {
        lines.push(level);
        return Ok(Some(new_table(doc, &format!("{POLICY}.set"), &lines)));
    };
    let policy_map = policy.value.as_map().ok_or_else(|| by_hand(&lines))?;
    let Some(set) = policy_map.get("set") else {
        lines.push(level);
        return match policy_map.style {
            MapStyle::Block | MapStyle::Implied => {
                Ok(Some(new_table(doc, &format!("{POLICY}.set"), &lines)))
            }
            MapStyle::Braced => Err(by_hand(&lines)),
        };
    };
    let set_map = set.value.as_map().ok_or_else(|| by_hand(&lines))?;
    if let Some(existing) = set_map.get(VAR) {
        let value = existing.value.as_str().unwrap_or("");
        return if value == lines_file {
            Ok(None)
        } else {
            Err(taken(value))
        };
    }
    if set_map.get(LEVEL).is_none() {
        lines.push(level);
    }
    add_member(doc, &set.value, &lines)
        .map(Some)
        .ok_or_else(|| by_hand(&lines))
}

/// The `SHLVL` install set beside the scratchpad's `BASH_ENV`, taken out before it.
fn remove_level(doc: &Doc) -> Result<Option<Edits>, Refusal> {
    remove_from_set(doc, |set, member| {
        member.name == LEVEL
            && member.value.as_str() == Some(LEVEL_VALUE)
            && set.get(VAR).is_some_and(is_our_bash_env)
    })
}

fn remove_bash_env(doc: &Doc) -> Result<Option<Edits>, Refusal> {
    remove_from_set(doc, |_, member| is_our_bash_env(member))
}

fn is_our_bash_env(member: &Member) -> bool {
    member.name == VAR && member.value.as_str().is_some_and(is_ours)
}

/// The edits taking out the first member of `shell_environment_policy.set` that `pick` (given
/// the table and the member) picks.
fn remove_from_set(
    doc: &Doc,
    pick: impl Fn(&Map, &Member) -> bool,
) -> Result<Option<Edits>, Refusal> {
    let Some(set) = doc
        .root_map()
        .get(POLICY)
        .and_then(|policy| policy.value.as_map()?.get("set"))
    else {
        return Ok(None);
    };
    let Some(set_map) = set.value.as_map() else {
        return Ok(None);
    };
    let Some(index) = set_map.members.iter().position(|m| pick(set_map, m)) else {
        return Ok(None);
    };
    remove_member(doc, &set.value, &[POLICY, "set"], index).map(Some)
}

fn add_root(doc: &Doc, root: &str) -> Result<Option<Edits>, Refusal> {
    let line = [format!("{ROOTS} = [{}]", doc.string(root))];
    let by_hand = || {
        Refusal::Unsupported(format!(
            "`{SANDBOX}` is written in a form the scratchpad does not edit; add {root} to its \
             `{ROOTS}` by hand"
        ))
    };
    let Some(sandbox) = doc.root_map().get(SANDBOX) else {
        return Ok(Some(new_table(doc, SANDBOX, &line)));
    };
    let sandbox_map = sandbox.value.as_map().ok_or_else(by_hand)?;
    let Some(roots) = sandbox_map.get(ROOTS) else {
        return add_member(doc, &sandbox.value, &line)
            .map(Some)
            .ok_or_else(by_hand);
    };
    let strings = roots.value.strings().ok_or_else(by_hand)?;
    if strings.contains(&root) {
        return Ok(None);
    }
    let items = roots.value.as_list().unwrap_or_default();
    let mut edits = Edits::default();
    let item = doc.string(root);
    match items.last() {
        Some(last) => edits.insert(last.span.end, format!(", {item}")),
        None => edits.insert(roots.value.span.start + 1, item),
    }
    Ok(Some(edits))
}

fn remove_root(doc: &Doc, root: &str) -> Result<Option<Edits>, Refusal> {
    let Some(sandbox) = doc.root_map().get(SANDBOX) else {
        return Ok(None);
    };
    let Some(map) = sandbox.value.as_map() else {
        return Ok(None);
    };
    let Some(index) = map.members.iter().position(|m| m.name == ROOTS) else {
        return Ok(None);
    };
    let roots = &map.members[index].value;
    let Some(items) = roots.as_list() else {
        return Ok(None);
    };
    let Some(at) = items.iter().position(|item| item.as_str() == Some(root)) else {
        return Ok(None);
    };
    if items.len() > 1 {
        let spans: Vec<_> = items.iter().map(|item| item.span.clone()).collect();
        let mut edits = Edits::default();
        edits.remove(item_range(doc, &roots.span, &spans, at));
        return Ok(Some(edits));
    }
    remove_member(doc, &sandbox.value, &[SANDBOX], index).map(Some)
}

/// `[path]` and `lines` as a table of their own at the end of the file, after a line break (two
/// when the file ends with one, leaving a blank line).
fn new_table(doc: &Doc, path: &str, lines: &[String]) -> Edits {
    let eol = doc.eol;
    let lead = if doc.text.is_empty() { "" } else { eol };
    let body: String = lines.iter().map(|line| format!("{line}{eol}")).collect();
    let mut edits = Edits::default();
    edits.insert(doc.text.len(), format!("{lead}[{path}]{eol}{body}"));
    edits
}

/// `lines` (`key = value`) added to a table: on the lines after a `[table]`'s header, or as the
/// last members of an inline one. `None` for a table implied by dotted keys.
fn add_member(doc: &Doc, table: &Node, lines: &[String]) -> Option<Edits> {
    let map = table.as_map()?;
    let mut edits = Edits::default();
    match map.style {
        MapStyle::Block => {
            let header_end = doc.text[table.span.end..]
                .find('\n')
                .map(|i| table.span.end + i + 1)?;
            let body: String = lines.iter().map(|l| format!("{l}{}", doc.eol)).collect();
            edits.insert(header_end, body);
        }
        MapStyle::Braced => match map.members.last() {
            Some(last) => edits.insert(last.value.span.end, format!(", {}", lines.join(", "))),
            None => edits.insert(table.span.start + 1, lines.join(", ")),
        },
        MapStyle::Implied => return None,
    }
    Some(edits)
}

/// Member `index` of `table` (at `path`) taken out: the whole table when it is a `[table]` with
/// nothing else in it (as [`new_table`] makes it), its line when it has more, the member of an
/// inline table.
fn remove_member(doc: &Doc, table: &Node, path: &[&str], index: usize) -> Result<Edits, Refusal> {
    let by_hand = || {
        Refusal::Unsupported(format!(
            "the scratchpad's setting in `{}` is not where install writes it; take it out by hand",
            path.join(".")
        ))
    };
    let map = table.as_map().ok_or_else(by_hand)?;
    let member: &Member = &map.members[index];
    // To the end of the member's line: what follows (a blank line, the next table) is not ours.
    let line_end = doc.text[member.value.span.end..]
        .find('\n')
        .map_or(doc.text.len(), |i| member.value.span.end + i + 1);
    let mut edits = Edits::default();
    match map.style {
        MapStyle::Block if map.members.len() == 1 => {
            let start = table.span.start;
            let start = if doc.text[..start].ends_with(doc.eol) {
                start - doc.eol.len()
            } else {
                start
            };
            edits.remove(start..line_end);
        }
        MapStyle::Block => {
            let start = doc.text[..member.key.start]
                .rfind('\n')
                .map_or(0, |i| i + 1);
            edits.remove(start..line_end);
        }
        MapStyle::Braced => edits.remove(member_range(doc, table, index)),
        MapStyle::Implied => return Err(by_hand()),
    }
    Ok(edits)
}

/// Refused: the variable is set to something else, which the capture would replace.
fn taken(value: &str) -> Refusal {
    if is_ours(value) {
        Refusal::Unsupported(format!(
            "BASH_ENV already names capture lines of another scratchpad (`{value}`); run `scratchpad \
             hooks uninstall` with the same --client first"
        ))
    } else {
        Refusal::Unsupported(format!(
            "BASH_ENV is set already (to `{value}`), and the capture needs it; source that file \
             from your shell's startup instead, or take it out, and run again"
        ))
    }
}

fn unchanged(why: &str) -> Outcome {
    Outcome {
        servers: Vec::new(),
        change: Err(why.to_owned()),
    }
}

/// `new`, offered only when `uninstall` gives `original` back from it exactly.
fn checked(
    original: &str,
    new: String,
    uninstall: &dyn Fn(&str) -> Result<Outcome, Refusal>,
) -> Result<Outcome, Refusal> {
    let back = uninstall(&new)?.change.ok();
    if back.as_deref() != Some(original) {
        return Err(Refusal::Unsupported(
            "uninstall could not give this file back byte for byte after the change; add the \
             setting by hand"
                .to_owned(),
        ));
    }
    Ok(Outcome {
        servers: Vec::new(),
        change: Ok(new),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: &str = "/home/u/.codex/scratchpad-bash-env.sh";
    const ROOT: &str = "/home/u/.local/share/scratchpad";

    fn wanted() -> CodexEnv<'static> {
        CodexEnv {
            lines_file: LINES,
            writable_root: Some(ROOT),
        }
    }

    fn installed(text: Option<&str>) -> String {
        match install_codex(text, wanted()) {
            Ok(Outcome {
                change: Ok(new), ..
            }) => new,
            other => panic!("install of {text:?}: {other:?}"),
        }
    }

    fn removed(text: &str) -> String {
        match uninstall_codex(text, Some(ROOT)) {
            Ok(Outcome {
                change: Ok(new), ..
            }) => new,
            other => panic!("uninstall: {other:?}"),
        }
    }

    fn read(text: &str) -> toml_edit::DocumentMut {
        text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn codex_tables_are_added_at_the_end_and_taken_out_exactly() {
        for original in [
            "",
            "model = \"o3\"\n",
            "model = \"o3\"",
            "# mine\n[mcp_servers.docs]\ncommand = \"npx\"\n",
            "[shell_environment_policy]\ninherit = \"core\"\n",
            "[shell_environment_policy.set]\nPATH_EXTRA = \"/x\"\n\n[other]\na = 1\n",
            "[shell_environment_policy]\nset = { A = \"1\" }\n[sandbox_workspace_write]\nnetwork_access = true\n",
            "[shell_environment_policy]\nset = {}\n[sandbox_workspace_write]\nwritable_roots = [\"/data\"]\n",
            "[shell_environment_policy]\r\ninherit = \"all\"\r\n",
        ] {
            let new = installed(Some(original));
            let table = read(&new);
            assert_eq!(
                table[POLICY]["set"][VAR].as_str(),
                Some(LINES),
                "{original:?} → {new}"
            );
            assert!(table[POLICY]["set"][LEVEL].is_str(), "{original:?} → {new}");
            let roots = table[SANDBOX][ROOTS].as_array().unwrap();
            let roots: Vec<_> = roots.iter().collect();
            assert!(
                roots.iter().any(|r| r.as_str() == Some(ROOT)),
                "{original:?} → {new}"
            );
            assert_eq!(removed(&new), original, "{new}");
            // Twice is once.
            assert!(matches!(
                install_codex(Some(&new), wanted()),
                Ok(Outcome { change: Err(_), .. })
            ));
        }
        assert!(!installed(None).starts_with('\n'));
        // What uninstall could not tell from its own is refused, not mangled.
        let empty = "[sandbox_workspace_write]\nwritable_roots = []\n";
        assert!(install_codex(Some(empty), wanted()).is_err());
        let dotted = "shell_environment_policy.set.A = \"1\"\n";
        assert!(install_codex(Some(dotted), wanted()).is_err());
    }

    #[test]
    fn a_bash_env_of_the_user_is_never_replaced() {
        let text = "[shell_environment_policy]\nset = { BASH_ENV = \"/home/u/.bashenv\" }\n";
        let err = install_codex(Some(text), wanted()).unwrap_err();
        assert!(
            err.message("config.toml").contains("/home/u/.bashenv"),
            "{err:?}"
        );
        let err = install_dotenv(Some("BASH_ENV=/etc/mine\n"), LINES).unwrap_err();
        assert!(err.message(".env").contains("/etc/mine"), "{err:?}");
        // Nor taken out.
        assert!(matches!(
            uninstall_codex(text, Some(ROOT)),
            Ok(Outcome { change: Err(_), .. })
        ));
    }

    #[test]
    fn a_postgres_store_adds_no_writable_root() {
        let new = match install_codex(
            Some("model = \"o3\"\n"),
            CodexEnv {
                lines_file: LINES,
                writable_root: None,
            },
        ) {
            Ok(Outcome {
                change: Ok(new), ..
            }) => new,
            other => panic!("{other:?}"),
        };
        assert!(!new.contains(SANDBOX), "{new}");
        assert_eq!(
            uninstall_codex(&new, None).unwrap().change.unwrap(),
            "model = \"o3\"\n"
        );
    }

    #[test]
    fn dotenv_lines_go_first_and_come_out_exactly() {
        for original in ["", "GEMINI_API_KEY=abc\n", "A=1", "A=1\r\nB=2\r\n"] {
            let new = install_dotenv(Some(original), LINES)
                .unwrap()
                .change
                .unwrap();
            assert_eq!(dotenv_value(&new, VAR).as_deref(), Some(LINES), "{new}");
            assert!(new.ends_with(original));
            assert_eq!(
                uninstall_dotenv(&new).unwrap().change.unwrap(),
                original,
                "{new}"
            );
            assert!(
                install_dotenv(Some(&new), LINES).unwrap().change.is_err(),
                "twice is once"
            );
        }
        assert!(uninstall_dotenv("A=1\n").unwrap().change.is_err());
        let shown = shown_dotenv("# keys\nGEMINI_API_KEY=abc123\r\nexport BASH_ENV=/x\n");
        assert!(
            !shown.contains("abc123") && shown.contains("BASH_ENV=/x\n"),
            "{shown}"
        );
        assert!(shown.starts_with("# keys\nGEMINI_API_KEY="), "{shown}");
        assert_eq!(
            dotenv_value("export BASH_ENV='/x y' # c\n", VAR).as_deref(),
            Some("/x y")
        );
    }
}
