//! Putting the proxy in front of one server entry, and taking it away again.
//!
//! A stdio server keeps everything but its command: `"command": "npx", "args": ["-y", "pkg"]` becomes
//! `"command": "scratchpad", "args": ["mcp", "proxy", "--wrapped=args", "--", "npx", "-y", "pkg"]`,
//! the original command token copied as written. A streamable-HTTP server's URL key becomes
//! `command`, its URL moves into `args` after `--upstream-url`, a `"type": "http"` becomes
//! `"stdio"`, and its headers become `env` entries `SCRATCHPAD_UPSTREAM_HEADER_<NAME>: "Name: value"`
//! (the proxy reads them from its environment, so a token never sits on a command line other users
//! can see).
//!
//! `--wrapped=FORM` marks what wrap made, in the one place every client keeps as written and passes
//! on unchanged: the arguments. Unwrap takes apart only entries that carry it, so a proxy the user
//! put in by hand stays theirs, and the mark survives the user editing the entry in between. FORM
//! says what unwrap gives back that the arguments alone cannot tell: `args` (the entry had an args
//! list), `command` (it had none), or the key the URL was under (`url`, `serverUrl`, `httpUrl`).
//!
//! Every edit is to a token, and each has one inverse, so unwrap gives the original text back. A
//! wrap is only kept after checking that unwrap really does give its text back byte for byte.

use std::ops::Range;

use super::client::Transport;
use super::doc::{Doc, is_scratchpad};
use super::tree::{self, Edits, Map, MapStyle, Member, Node};

/// The proxy reads every variable with this prefix as one `Name: value` header for its HTTP upstream.
pub const HEADER_ENV_PREFIX: &str = "SCRATCHPAD_UPSTREAM_HEADER_";

/// The proxy option that marks a proxy wrap put in; its value is the form (module docs).
pub const WRAPPED_FLAG: &str = "--wrapped";
/// The proxy option that keeps the scratchpad tools off its list: wrap gives it to every proxy of a
/// file but one, so a model sees the tools once (unwrap removes it with the proxy's other options).
pub const NO_TOOLS_FLAG: &str = "--no-scratchpad-tools";

/// Whether a server entry already lists the scratchpad tools: the scratchpad server itself, or a
/// proxy without `--no-scratchpad-tools`.
pub fn lists_scratchpad_tools(entry: &Node) -> bool {
    let Some(map) = entry.as_map() else {
        return false;
    };
    let runs_scratchpad = map
        .get("command")
        .and_then(|command| command.value.as_str())
        .is_some_and(is_scratchpad);
    let args = map
        .get("args")
        .and_then(|args| args.value.strings())
        .unwrap_or_default();
    runs_scratchpad
        && (args.contains(&"serve") || (args.contains(&"proxy") && !args.contains(&NO_TOOLS_FLAG)))
}
/// A stdio server had an args list; the upstream's arguments follow its command.
const FORM_ARGS: &str = "args";
/// A stdio server had a command and no args list.
const FORM_COMMAND: &str = "command";

/// What happens to one server.
#[derive(Debug)]
pub enum Plan {
    /// These edits do it; the text says what changed.
    Change(Edits, String),
    /// Left as it is, and why.
    Leave(String),
}

/// Members whose presence means the client itself signs in to the server, which the proxy cannot do.
const CLIENT_AUTH: [&str; 5] = [
    "oauth",
    "authProviderType",
    "bearer_token",
    "bearer_token_env_var",
    "env_http_headers",
];

/// Puts the proxy in front of one server; `with_tools` false adds `--no-scratchpad-tools`.
pub fn wrap(doc: &Doc, entry: &Node, command: &str, with_tools: bool) -> Plan {
    let Some(map) = entry.as_map() else {
        return Plan::Leave("not an object".to_owned());
    };
    let planned = match map.get("command") {
        Some(member) => wrap_stdio(doc, map, member, command, with_tools),
        None => wrap_url(doc, map, command, with_tools),
    };
    match planned {
        Ok((edits, what)) => Plan::Change(edits, what),
        Err(why) => Plan::Leave(why),
    }
}

fn wrap_stdio(
    doc: &Doc,
    map: &Map,
    member: &Member,
    command: &str,
    with_tools: bool,
) -> Result<(Edits, String), String> {
    let program = member.value.as_str().ok_or("its command is not a string")?;
    if is_scratchpad(program) {
        let args = map
            .get("args")
            .and_then(|a| a.value.strings())
            .unwrap_or_default();
        return Err(if args.contains(&"serve") {
            "the scratchpad server itself".to_owned()
        } else if args.iter().any(|a| a.starts_with(WRAPPED_FLAG)) {
            "already wrapped".to_owned()
        } else {
            "it already runs scratchpad".to_owned()
        });
    }
    let original = doc.slice(member.value.span.clone());
    let prefix = |form: &str| -> Vec<String> {
        let mut prefix = vec![
            doc.string("mcp"),
            doc.string("proxy"),
            doc.string(&format!("{WRAPPED_FLAG}={form}")),
        ];
        if !with_tools {
            prefix.push(doc.string(NO_TOOLS_FLAG));
        }
        prefix.extend([doc.string("--"), original.to_owned()]);
        prefix
    };
    let mut edits = Edits::default();
    edits.replace(member.value.span.clone(), doc.string(command));
    match map.get("args") {
        None => insert_after(
            doc,
            map,
            member,
            "args",
            &format!("[{}]", prefix(FORM_COMMAND).join(", ")),
            &mut edits,
        )?,
        Some(args) => {
            let items = args.value.as_list().ok_or("its args are not a list")?;
            if args.value.strings().is_none() {
                return Err("its args are not all strings".to_owned());
            }
            let prefix = prefix(FORM_ARGS);
            match items {
                [] => edits.insert(args.value.span.start + 1, prefix.join(", ")),
                [first, rest @ ..] => {
                    // Laid out like the items already there: one a line when they are, else on
                    // the line of the first.
                    let space =
                        tree::space_before(doc.text, rest.first().unwrap_or(first).span.start);
                    let sep = match tree::last_line_break(space) {
                        Some(line) => format!(",{line}"),
                        None => ", ".to_owned(),
                    };
                    edits.insert(first.span.start, format!("{}{sep}", prefix.join(&sep)));
                }
            }
        }
    }
    Ok((edits, "stdio".to_owned()))
}

fn wrap_url(
    doc: &Doc,
    map: &Map,
    command: &str,
    with_tools: bool,
) -> Result<(Edits, String), String> {
    let shape = doc.shape;
    let (url_member, transport) = shape
        .url_keys
        .iter()
        .find_map(|(key, transport)| map.get(key).map(|m| (m, *transport)))
        .ok_or("neither a command nor a URL")?;
    let url = url_member.value.as_str().ok_or("its URL is not a string")?;
    if let Some(auth) = CLIENT_AUTH.iter().find(|key| map.get(key).is_some()) {
        return Err(format!(
            "it signs in through the client (`{auth}`), which the proxy cannot do for it"
        ));
    }
    let kind = map.get("type");
    let declared = kind.map(|k| k.value.as_str().unwrap_or(""));
    match (transport, declared) {
        (Transport::Sse, _) | (_, Some("sse")) => {
            return Err("SSE transport; the proxy reaches streamable-HTTP servers only".to_owned());
        }
        (Transport::Http, None) if url_path(url).ends_with("/sse") => {
            return Err(
                "its URL ends in /sse (the older SSE transport; the proxy reaches streamable-HTTP \
                 servers only)"
                    .to_owned(),
            );
        }
        (Transport::Http, None | Some("http")) => {}
        (Transport::Http, Some(other)) => {
            return Err(format!(
                "its type `{other}` is not one the proxy stands in front of"
            ));
        }
    }
    if map.get("env").is_some() {
        return Err("it has both a URL and env; wrap it by hand".to_owned());
    }
    let mut edits = Edits::default();
    if let Some(kind) = kind {
        edits.replace(kind.value.span.clone(), doc.string("stdio"));
    }
    let mut what = "streamable HTTP".to_owned();
    if let Some(headers) = map.get(shape.headers_key) {
        let list = headers
            .value
            .as_map()
            .ok_or("its headers are not an object")?;
        if headers.value.span.is_empty() || headers.key.is_empty() {
            return Err("its headers are written in a way this edit cannot follow".to_owned());
        }
        edits.replace(
            headers.key.clone(),
            restyle_key(doc, doc.slice(headers.key.clone()), "env"),
        );
        let mut seen = Vec::new();
        for header in &list.members {
            let env_name = header_env_name(&header.name);
            if seen.contains(&env_name) {
                return Err(format!("two headers share the variable name {env_name}"));
            }
            seen.push(env_name.clone());
            let merged = merge_header(doc, header)
                .ok_or("a header is written in a way this edit cannot follow")?;
            edits.replace(
                header.key.clone(),
                restyle_key(doc, doc.slice(header.key.clone()), &env_name),
            );
            edits.replace(header.value.span.clone(), merged);
        }
        let count = list.members.len();
        what = format!(
            "streamable HTTP; {count} header{} moved to env",
            if count == 1 { "" } else { "s" }
        );
    }
    edits.replace(
        url_member.key.clone(),
        restyle_key(doc, doc.slice(url_member.key.clone()), "command"),
    );
    edits.replace(url_member.value.span.clone(), doc.string(command));
    let form = url_member.name.as_str();
    let mut args = vec![
        doc.string("mcp"),
        doc.string("proxy"),
        doc.string(&format!("{WRAPPED_FLAG}={form}")),
    ];
    if !with_tools {
        args.push(doc.string(NO_TOOLS_FLAG));
    }
    args.extend([
        doc.string("--upstream-url"),
        doc.slice(url_member.value.span.clone()).to_owned(),
    ]);
    insert_after(
        doc,
        map,
        url_member,
        "args",
        &format!("[{}]", args.join(", ")),
        &mut edits,
    )?;
    Ok((edits, what))
}

pub fn unwrap(doc: &Doc, entry: &Node) -> Plan {
    match unwrap_entry(doc, entry) {
        Ok(Some((edits, what))) => Plan::Change(edits, what),
        Ok(None) => Plan::Leave("not wrapped".to_owned()),
        Err(why) => Plan::Leave(why),
    }
}

fn unwrap_entry(doc: &Doc, entry: &Node) -> Result<Option<(Edits, String)>, String> {
    let Some(map) = entry.as_map() else {
        return Ok(None);
    };
    let Some(command) = map.get("command") else {
        return Ok(None);
    };
    if !command.value.as_str().is_some_and(is_scratchpad) {
        return Ok(None);
    }
    let Some(args_member) = map.get("args") else {
        return Ok(None);
    };
    let (Some(args), Some(items)) = (args_member.value.strings(), args_member.value.as_list())
    else {
        return Ok(None);
    };
    let Some(proxy) = args
        .windows(2)
        .position(|w| w == ["mcp", "proxy"])
        .map(|i| i + 1)
    else {
        return Ok(None);
    };
    // The proxy's own options end at `--` (a command follows) or with `--upstream-url URL`.
    let end = args[proxy + 1..]
        .iter()
        .position(|a| *a == "--")
        .map_or(args.len(), |i| proxy + 1 + i);
    let marked = args[proxy + 1..end]
        .iter()
        .find_map(|a| a.strip_prefix(WRAPPED_FLAG)?.strip_prefix('='));
    let Some(form) = marked else {
        return Err(format!(
            "it runs the proxy, but not as `scratchpad mcp wrap` put it in (no {WRAPPED_FLAG}); \
             unwrap it by hand"
        ));
    };
    let mut edits = Edits::default();
    if form == FORM_ARGS || form == FORM_COMMAND {
        let upstream = end + 1;
        if upstream >= items.len() {
            return Err(
                "its args no longer hold a command after `--`; unwrap it by hand".to_owned(),
            );
        }
        edits.replace(
            command.value.span.clone(),
            doc.slice(items[upstream].span.clone()),
        );
        if form == FORM_COMMAND {
            if upstream + 1 < items.len() {
                return Err(
                    "arguments were added after it was wrapped, and it had no args list; unwrap \
                     it by hand"
                        .to_owned(),
                );
            }
            edits.remove(remove_member(doc, entry, command, args_member)?);
        } else {
            match items.get(upstream + 1) {
                Some(next) => edits.remove(items[0].span.start..next.span.start),
                None => {
                    // A trailing comma after the command goes with it: `[,]` is not a list.
                    let after = doc.slice(items[upstream].span.end..args_member.value.span.end - 1);
                    let end = match after.trim_start().strip_prefix(',') {
                        Some(_) => items[upstream].span.end + after.find(',').map_or(0, |i| i + 1),
                        None => items[upstream].span.end,
                    };
                    edits.remove(items[0].span.start..end);
                }
            }
        }
        return Ok(Some((edits, "stdio".to_owned())));
    }
    let url_key = doc
        .shape
        .url_keys
        .iter()
        .find(|(key, transport)| *key == form && *transport == Transport::Http)
        .map(|(key, _)| *key)
        .ok_or_else(|| {
            format!("its {WRAPPED_FLAG}={form} is not a form this client knows; unwrap it by hand")
        })?;
    // `--upstream-url URL` ends the args, and no `--` starts a command.
    let url = args
        .iter()
        .rposition(|a| *a == "--upstream-url")
        .map(|i| i + 1)
        .filter(|&i| i > proxy && i + 1 == args.len() && end == args.len())
        .ok_or("its args no longer end with `--upstream-url URL`; unwrap it by hand")?;
    edits.replace(
        command.key.clone(),
        restyle_key(doc, doc.slice(command.key.clone()), url_key),
    );
    edits.replace(
        command.value.span.clone(),
        doc.slice(items[url].span.clone()),
    );
    edits.remove(remove_member(doc, entry, command, args_member)?);
    if let Some(kind) = map.get("type")
        && kind.value.as_str() == Some("stdio")
    {
        edits.replace(kind.value.span.clone(), doc.string("http"));
    }
    if let Some(env) = map.get("env") {
        let list = env.value.as_map().ok_or("its env is not an object")?;
        if !list
            .members
            .iter()
            .all(|m| m.name.starts_with(HEADER_ENV_PREFIX))
        {
            return Err("its env holds more than the moved headers; unwrap it by hand".to_owned());
        }
        edits.replace(
            env.key.clone(),
            restyle_key(doc, doc.slice(env.key.clone()), doc.shape.headers_key),
        );
        for variable in &list.members {
            let (name, value) = split_header(doc, variable)
                .ok_or("a moved header no longer reads `Name: value`; unwrap it by hand")?;
            edits.replace(variable.key.clone(), name);
            edits.replace(variable.value.span.clone(), value);
        }
    }
    Ok(Some((edits, "streamable HTTP".to_owned())))
}

/// The text removing `member` takes out: exactly what `insert_after(anchor, member)` added when it
/// is still where that put it, else the member with its separator, wherever the user moved it.
fn remove_member(
    doc: &Doc,
    entry: &Node,
    anchor: &Member,
    member: &Member,
) -> Result<Range<usize>, String> {
    let map = entry.as_map().ok_or("it is not an object")?;
    if let Some(range) = inserted_after(doc, map, anchor, member) {
        return Ok(range);
    }
    match map.style {
        MapStyle::Braced => {
            let index = map
                .members
                .iter()
                .rposition(|m| m.key == member.key)
                .ok_or("its args moved; unwrap it by hand")?;
            Ok(super::install::member_range(doc, entry, index))
        }
        MapStyle::Block => {
            let start = tree::line_start(doc.text, member.key.start);
            let before = &doc.text[start..member.key.start];
            if !before.trim().is_empty() {
                return Err("its args share a line with another key; unwrap it by hand".to_owned());
            }
            Ok(start..tree::next_line(doc.text, member.value.span.end))
        }
        MapStyle::Implied => Err("it is written with dotted keys; unwrap it by hand".to_owned()),
    }
}

/// Adds `key = value` right after `anchor`: on the same line in braces (`, "args": […]`), on the
/// next line in a TOML table.
fn insert_after(
    doc: &Doc,
    map: &Map,
    anchor: &Member,
    key: &str,
    value: &str,
    edits: &mut Edits,
) -> Result<(), String> {
    let assign = doc.assign(anchor);
    match map.style {
        MapStyle::Braced => edits.insert(
            anchor.value.span.end,
            format!(", {}{assign}{value}", doc.key(key)),
        ),
        MapStyle::Block => {
            let at = tree::next_line(doc.text, anchor.value.span.end);
            let before = if doc.text[..at].ends_with('\n') {
                ""
            } else {
                doc.eol
            };
            edits.insert(
                at,
                format!("{before}{}{assign}{value}{}", doc.key(key), doc.eol),
            );
        }
        MapStyle::Implied => {
            return Err("it is written with dotted keys; wrap it by hand".to_owned());
        }
    }
    Ok(())
}

/// The text `insert_after(anchor, next)` added, when `next` sits exactly where it puts it.
fn inserted_after(doc: &Doc, map: &Map, anchor: &Member, next: &Member) -> Option<Range<usize>> {
    let text = doc.text;
    match map.style {
        MapStyle::Braced => (anchor.value.span.end <= next.key.start
            && &text[anchor.value.span.end..next.key.start] == ", ")
            .then_some(anchor.value.span.end..next.value.span.end),
        MapStyle::Block => {
            let line = tree::next_line(text, anchor.value.span.end);
            let end = next.value.span.end;
            (next.key.start == line && text[end..].starts_with(doc.eol))
                .then(|| line..end + doc.eol.len())
        }
        MapStyle::Implied => None,
    }
}

/// `name` as a key token quoted the way `token` is.
fn restyle_key(doc: &Doc, token: &str, name: &str) -> String {
    match token.as_bytes().first() {
        Some(b'"') => doc.string(name),
        Some(b'\'') if !name.contains('\'') => format!("'{name}'"),
        _ => doc.key(name),
    }
}

/// `X-Api-Key` → `SCRATCHPAD_UPSTREAM_HEADER_X_API_KEY`.
pub fn header_env_name(header: &str) -> String {
    let mut name = HEADER_ENV_PREFIX.to_owned();
    name.extend(header.chars().map(|c| {
        if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        }
    }));
    name
}

/// The header's key and value tokens as one string token `"Name: value"`, built from the raw text
/// so any escapes stay as written.
fn merge_header(doc: &Doc, header: &Member) -> Option<String> {
    let key = doc.slice(header.key.clone());
    let value = doc.slice(header.value.span.clone());
    let (quote, value_inner) = quoted(value)?;
    let name_inner = match quoted(key) {
        Some((_, inner)) => inner,
        None => key,
    };
    let clash = if quote == '\'' {
        ['\'', '\\']
    } else {
        ['"', '\\']
    };
    if quoted(key).is_some_and(|(q, _)| q != quote) && name_inner.contains(clash) {
        return None;
    }
    if name_inner.contains(": ") {
        return None;
    }
    Some(format!("{quote}{name_inner}: {value_inner}{quote}"))
}

/// The inverse of `merge_header`: the key token (quoted like the variable's) and the value token.
fn split_header(doc: &Doc, variable: &Member) -> Option<(String, String)> {
    let (quote, inner) = quoted(doc.slice(variable.value.span.clone()))?;
    let (name, value) = inner.split_once(": ")?;
    let key = match quoted(doc.slice(variable.key.clone())) {
        Some((q, _)) => format!("{q}{name}{q}"),
        None => name.to_owned(),
    };
    Some((key, format!("{quote}{value}{quote}")))
}

/// A one-line string token's quote and inside (`None` for anything else, multi-line TOML strings
/// included).
fn quoted(token: &str) -> Option<(char, &str)> {
    let quote = token.chars().next().filter(|q| *q == '"' || *q == '\'')?;
    if token.len() < 2
        || !token.ends_with(quote)
        || token.starts_with("\"\"\"")
        || token.starts_with("'''")
    {
        return None;
    }
    Some((quote, &token[1..token.len() - 1]))
}

/// The URL's path, without query or fragment.
fn url_path(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    let end = path.find(['?', '#']).unwrap_or(path.len());
    path[..end].trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_become_variable_names() {
        assert_eq!(
            header_env_name("X-Api-Key"),
            "SCRATCHPAD_UPSTREAM_HEADER_X_API_KEY"
        );
        assert_eq!(
            header_env_name("authorization"),
            "SCRATCHPAD_UPSTREAM_HEADER_AUTHORIZATION"
        );
    }

    #[test]
    fn url_paths() {
        assert_eq!(url_path("https://mcp.example.com/sse?x=1"), "/sse");
        assert_eq!(url_path("https://mcp.example.com/mcp/"), "/mcp");
        assert_eq!(url_path("http://localhost:3000"), "");
    }
}
