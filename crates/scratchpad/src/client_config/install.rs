//! Adding the scratchpad server to a client's file, and removing exactly that again.
//!
//! JSON: the entry is added after the last server, laid out like its neighbours; a servers object
//! the file lacks is added after the last top-level key, always spread over lines, so that uninstall
//! can tell it apart from an empty one the user wrote (`{}`), which it keeps. TOML: a
//! `[mcp_servers.NAME]` table is appended at the end of the file.

use std::ops::Range;

use super::Refusal;
use super::doc::{Doc, is_scratchpad};
use super::tree::{self, Edits, MapStyle, Member, Node};

/// The server entry install writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    pub command: String,
    pub args: Vec<String>,
    /// Variables for the server's environment (the store URL, which may hold a password).
    pub env: Env,
    /// Write `"type": "stdio"` first, as the client does itself.
    pub stdio_type: bool,
}

/// What install or uninstall found.
#[derive(Debug)]
pub enum Found {
    Edits(Edits),
    /// Nothing to do, and why.
    Nothing(String),
}

/// The text of a file that install creates from nothing; uninstall removes a file that is left
/// exactly like this with nothing in it.
pub fn created_file(doc_is_toml: bool) -> &'static str {
    if doc_is_toml { "" } else { "{\n}\n" }
}

pub fn install(doc: &Doc, name: &str, entry: &ServerEntry) -> Result<Found, Refusal> {
    if let Some(existing) = doc
        .servers()
        .map_err(Refusal::Unsupported)?
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, node)| node)
    {
        return match served(existing) {
            Some((args, env)) if args == entry.args && env == entry.env => Ok(Found::Nothing(
                format!("`{name}` is already installed with these settings"),
            )),
            Some(_) => Err(Refusal::Unsupported(format!(
                "`{name}` is already installed with other settings; run `scratchpad mcp uninstall` \
                 with the same --client first, or pick another --name"
            ))),
            None => Err(Refusal::Unsupported(format!(
                "there is already a server named `{name}` that is not the scratchpad server; pick \
                 another --name"
            ))),
        };
    }
    let mut edits = Edits::default();
    if doc.is_toml() {
        if doc.servers_member().is_some_and(|m| {
            m.value
                .as_map()
                .is_some_and(|map| map.style == MapStyle::Braced)
        }) {
            return Err(Refusal::Unsupported(format!(
                "`{}` is written as an inline table, which a new [{}.{name}] table cannot extend; \
                 add the server by hand",
                doc.shape.servers_key, doc.shape.servers_key
            )));
        }
        let text = doc.text;
        let sep = if text.is_empty() { "" } else { doc.eol };
        edits.insert(text.len(), format!("{sep}{}", toml_table(doc, name, entry)));
        return Ok(Found::Edits(edits));
    }
    let unit = doc.indent_unit();
    match doc.servers_member() {
        Some(servers) => {
            insert_member(doc, &servers.value, name, &unit, &mut edits, &|indent| {
                json_entry(doc, entry, indent, &unit)
            });
        }
        None => {
            // A servers object of our own: always spread over lines (see the module docs).
            let render = |indent: Option<&str>| {
                let outer = indent.unwrap_or("");
                let inner = format!("{outer}{unit}");
                format!(
                    "{{{eol}{inner}{}: {}{eol}{outer}}}",
                    doc.key(name),
                    json_entry(doc, entry, Some(&inner), &unit),
                    eol = doc.eol
                )
            };
            insert_member(
                doc,
                &doc.root,
                doc.shape.servers_key,
                &unit,
                &mut edits,
                &render,
            );
        }
    }
    Ok(Found::Edits(edits))
}

pub fn uninstall(doc: &Doc, name: &str) -> Result<Found, Refusal> {
    let Some(servers) = doc.servers_member() else {
        return Ok(Found::Nothing(format!("there is no server named `{name}`")));
    };
    let map = servers.value.as_map().ok_or_else(|| {
        Refusal::Unsupported(format!(
            "`{}` is not an object of servers",
            doc.shape.servers_key
        ))
    })?;
    let Some(index) = map.members.iter().rposition(|m| m.name == name) else {
        return Ok(Found::Nothing(format!("there is no server named `{name}`")));
    };
    let member = &map.members[index];
    if served(&member.value).is_none() {
        return Err(Refusal::Unsupported(format!(
            "the server named `{name}` is not the scratchpad server (`scratchpad mcp serve`); \
             it was left as it is"
        )));
    }
    let mut edits = Edits::default();
    if doc.is_toml() {
        edits.remove(toml_table_range(doc, member)?);
        return Ok(Found::Edits(edits));
    }
    edits.remove(member_range(doc, &servers.value, index));
    if map.members.len() == 1 {
        // Only `{` + whitespace + `}` left: spread over lines means install made it (module docs).
        let left = remaining_inside(doc, &servers.value, index);
        if left.trim().is_empty() && left.contains('\n') {
            let position = doc
                .root_map()
                .members
                .iter()
                .rposition(|m| m.key == servers.key)
                .unwrap_or(0);
            let mut whole = Edits::default();
            whole.remove(member_range(doc, &doc.root, position));
            return Ok(Found::Edits(whole));
        }
    }
    Ok(Found::Edits(edits))
}

/// What is left between the braces once member `index` (the only one) is gone.
fn remaining_inside(doc: &Doc, map: &Node, index: usize) -> String {
    let range = member_range(doc, map, index);
    let inside = map.span.start + 1..map.span.end - 1;
    format!(
        "{}{}",
        doc.slice(inside.start..range.start),
        doc.slice(range.end..inside.end)
    )
}

/// Variables of a server's environment, in file order.
type Env = Vec<(String, String)>;

/// The args and env of an entry that runs `scratchpad … mcp serve`.
fn served(node: &Node) -> Option<(Vec<String>, Env)> {
    let map = node.as_map()?;
    let command = map.get("command")?.value.as_str()?;
    let args: Vec<String> = map
        .get("args")?
        .value
        .strings()?
        .into_iter()
        .map(str::to_owned)
        .collect();
    if !is_scratchpad(command) || !args.windows(2).any(|w| w == ["mcp", "serve"]) {
        return None;
    }
    let env = match map.get("env") {
        Some(env) => env
            .value
            .as_map()?
            .members
            .iter()
            .map(|m| Some((m.name.clone(), m.value.as_str()?.to_owned())))
            .collect::<Option<Vec<_>>>()?,
        None => Vec::new(),
    };
    Some((args, env))
}

/// Adds `"key": value` as the last member of a braced map, laid out like the members before it.
pub(super) fn insert_member(
    doc: &Doc,
    map: &Node,
    key: &str,
    unit: &str,
    edits: &mut Edits,
    render: &dyn Fn(Option<&str>) -> String,
) {
    let members = map.as_map().map_or(&[][..], |m| &m.members[..]);
    let key = doc.key(key);
    match members.last() {
        Some(last) => {
            let space = tree::space_before(doc.text, last.key.start);
            let assign = doc.assign(last);
            let text = match tree::last_line_break(space) {
                Some(line) => {
                    let indent = tree::indent_at(doc.text, last.key.start);
                    format!(",{line}{key}{assign}{}", render(Some(indent)))
                }
                None => format!(",{space}{key}{assign}{}", render(None)),
            };
            edits.insert(last.value.span.end, text);
        }
        None => {
            let open = map.span.start + 1;
            let inside = doc.slice(open..map.span.end - 1);
            let text = if inside.contains('\n') {
                let indent = format!("{}{unit}", tree::indent_at(doc.text, map.span.start));
                format!("{}{indent}{key}: {}", doc.eol, render(Some(&indent)))
            } else {
                format!("{key}: {}", render(None))
            };
            edits.insert(open, text);
        }
    }
}

/// The text that removing member `index` of a braced map takes out: the inverse of
/// `insert_member`, and something sensible for members placed by hand.
pub(super) fn member_range(doc: &Doc, map: &Node, index: usize) -> Range<usize> {
    let members = map.as_map().map_or(&[][..], |m| &m.members[..]);
    let spans: Vec<Range<usize>> = members
        .iter()
        .map(|m| m.key.start..m.value.span.end)
        .collect();
    item_range(doc, &map.span, &spans, index)
}

/// What removing item `index` (from its start to its end, as `items` gives them) of a bracketed
/// container spanning `container` takes out: its own separator and the layout around it.
pub(super) fn item_range(
    doc: &Doc,
    container: &Range<usize>,
    items: &[Range<usize>],
    index: usize,
) -> Range<usize> {
    let item = &items[index];
    let end = item.end;
    if index > 0 {
        let previous = items[index - 1].end;
        let between = doc.slice(previous..item.start);
        let comma = between.find(',').map_or(previous, |i| previous + i);
        let plain =
            between.trim_start().starts_with(',') && between.trim_start()[1..].trim().is_empty();
        return if plain { previous..end } else { comma..end };
    }
    if let Some(next) = items.get(1) {
        return item.start..next.start;
    }
    let open = container.start + 1;
    let before = doc.slice(open..item.start);
    // A trailing comma after the only item goes with it.
    let after = doc.slice(end..container.end - 1);
    let end = match after.trim_start().strip_prefix(',') {
        Some(_) => end + after.find(',').map_or(0, |i| i + 1),
        None => end,
    };
    if before.chars().all(char::is_whitespace) && before.contains('\n') {
        open..end
    } else {
        item.start..end
    }
}

/// From a `[servers.NAME]` header to the next table that is not one of its own sub-tables, with the
/// line break install put before it.
fn toml_table_range(doc: &Doc, member: &Member) -> Result<Range<usize>, Refusal> {
    let block = member
        .value
        .as_map()
        .is_some_and(|m| m.style == MapStyle::Block);
    if !block {
        return Err(Refusal::Unsupported(format!(
            "the server `{}` is not written as its own [{}.{}] table; remove it by hand",
            member.name, doc.shape.servers_key, member.name
        )));
    }
    let start = member.value.span.start;
    let path = [doc.shape.servers_key.to_owned(), member.name.clone()];
    let end = doc
        .headers
        .iter()
        .find(|(at, p)| *at > start && !p.starts_with(&path))
        .map_or(doc.text.len(), |(at, _)| *at);
    let start = if doc.text[..start].ends_with(doc.eol) {
        start - doc.eol.len()
    } else {
        start
    };
    Ok(start..end)
}

/// The entry as a JSON object: one member a line at `indent`, or on one line when `None`.
fn json_entry(doc: &Doc, entry: &ServerEntry, indent: Option<&str>, unit: &str) -> String {
    let mut members = Vec::new();
    if entry.stdio_type {
        members.push(format!("{}: {}", doc.key("type"), doc.string("stdio")));
    }
    members.push(format!(
        "{}: {}",
        doc.key("command"),
        doc.string(&entry.command)
    ));
    let args: Vec<String> = entry.args.iter().map(|a| doc.string(a)).collect();
    members.push(format!("{}: [{}]", doc.key("args"), args.join(", ")));
    if !entry.env.is_empty() {
        let env: Vec<String> = entry
            .env
            .iter()
            .map(|(k, v)| format!("{}: {}", doc.key(k), doc.string(v)))
            .collect();
        members.push(format!("{}: {{{}}}", doc.key("env"), env.join(", ")));
    }
    match indent {
        Some(indent) => {
            let inner = format!("{}{indent}{unit}", doc.eol);
            format!(
                "{{{inner}{}{}{indent}}}",
                members.join(&format!(",{inner}")),
                doc.eol
            )
        }
        None => format!("{{{}}}", members.join(", ")),
    }
}

fn toml_table(doc: &Doc, name: &str, entry: &ServerEntry) -> String {
    let eol = doc.eol;
    let args: Vec<String> = entry.args.iter().map(|a| doc.string(a)).collect();
    let mut table = format!(
        "[{}.{}]{eol}command = {}{eol}args = [{}]{eol}",
        doc.shape.servers_key,
        doc.key(name),
        doc.string(&entry.command),
        args.join(", ")
    );
    if !entry.env.is_empty() {
        let env: Vec<String> = entry
            .env
            .iter()
            .map(|(k, v)| format!("{} = {}", doc.key(k), doc.string(v)))
            .collect();
        table.push_str(&format!("env = {{ {} }}{eol}", env.join(", ")));
    }
    table
}
