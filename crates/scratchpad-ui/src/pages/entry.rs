//! `/s/{session}/e/{name}`: one entry. Its metadata, the preview exactly as the model saw it (each
//! line of it that shows a line of the entry leads there), a read in place with the CLI's modes as
//! query parameters, and the whole content in a viewer that fetches what is on screen.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use scratchpad_core::{EntryInfo, History, Kind, LeaseState, ReadMode, ReadReply, now_ms};

use super::entries::kind_name;
use super::{Page, linkify, respond};
use crate::App;
use crate::api::{EntryView, PAGE_BUDGET_CHARS, budget, in_session, read_entry};
use crate::failure::Failure;
use crate::html::{bytes, count, esc, line_count, time};
use crate::query::{Query, encode, entry_path, mode_params, session_path};

/// Largest JSON document the page shows as a tree (bytes): the browser parses it whole.
pub(crate) const JSON_TREE_MAX_BYTES: u64 = 2 * 1024 * 1024;

pub(crate) async fn page(
    State(app): State<Arc<App>>,
    Path((session, name)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> Response {
    let result = render(&app, session, name, raw).await;
    respond(&app, result)
}

/// What the page loads in one engine call.
struct Loaded {
    view: EntryView,
    /// The versions, when an older one is shown.
    history: Option<History>,
    /// The read asked for in the address, or why it failed.
    reply: Option<Result<ReadReply, Failure>>,
}

async fn render(
    app: &App,
    session: String,
    name: String,
    raw: Option<String>,
) -> Result<String, Failure> {
    let query = Query::parse(raw.as_deref());
    let mode = query.read_mode()?;
    let version = query.number("version")?;
    let budget = budget(&query, PAGE_BUDGET_CHARS)?;
    let (in_this, key) = (session.clone(), name.clone());
    let read_mode = mode.clone();
    let loaded = app
        .engine
        .read(move |pad, stop| {
            let pad = in_session(pad, &in_this)?;
            let view = EntryView::load(&pad, &key)?;
            let history = match version {
                Some(v) if v != view.entry.version => Some(pad.history(&view.entry.name)?),
                _ => None,
            };
            let reply = read_mode.map(|mode| {
                read_entry(&pad, &view.entry.name, version, &mode, budget, stop)
                    .map_err(|err| Failure::from_engine(&err, pad.session()))
            });
            Ok(Loaded {
                view,
                history,
                reply,
            })
        })
        .await?;
    let entry = &loaded.view.entry;
    let now = now_ms();
    let shown_version = version.filter(|v| *v != entry.version);
    if let (Some(v), Some(history)) = (shown_version, &loaded.history)
        && !history.versions.iter().any(|kept| kept.version == v)
    {
        return Err(Failure::new(
            http::StatusCode::NOT_FOUND,
            format!(
                "version {v} of `{}` is not kept (current: {}); its history lists the versions it keeps: <{}/history>",
                entry.name,
                entry.version,
                entry_path(&session, &entry.name)
            ),
        ));
    }
    let mut body = String::new();
    body.push_str(&head(&session, &loaded.view, now));
    if let (Some(v), Some(history)) = (shown_version, &loaded.history) {
        body.push_str(&older_version_banner(
            &session,
            entry,
            history,
            v,
            app.read_only,
        ));
    } else if !app.read_only {
        body.push_str(&actions(&session, &loaded.view, loaded.history.as_ref()));
    }
    body.push_str("<div class=\"columns\"><div class=\"main-column\">");
    if shown_version.is_none() {
        body.push_str(&preview_box(&loaded.view));
    }
    body.push_str(&read_box(
        &session,
        entry,
        &query,
        shown_version,
        loaded.reply.as_ref(),
    ));
    body.push_str(&content_box(&session, entry, shown_version, &loaded));
    if shown_version.is_none() && !app.read_only && loaded.view.editable() {
        body.push_str(&editor_box(entry));
    }
    body.push_str("</div>");
    body.push_str(&meta_box(&loaded.view, now));
    body.push_str("</div>");
    if shown_version.is_none() && !app.read_only {
        body.push_str(&dialogs(entry));
    }
    let mut page = Page::new(format!("{} · {session}", entry.name), "entry")
        .crumb("Sessions", Some("/".to_owned()))
        .crumb(session.clone(), Some(session_path(&session)))
        .crumb(entry.name.clone(), None)
        .data("session", session.clone())
        .data("name", entry.name.clone())
        .data("version", entry.version.to_string())
        .data("kind", kind_name(entry.kind));
    if let Some(v) = shown_version {
        page = page.data("shown-version", v.to_string());
    }
    Ok(page.render(app, &body))
}

fn head(session: &str, view: &EntryView, now: i64) -> String {
    let entry = &view.entry;
    let mut badges = vec![
        format!("<span class=\"kind {0}\">{0}</span>", kind_name(entry.kind)),
        format!("<span class=\"badge\">version {}</span>", entry.version),
    ];
    if entry.pinned {
        badges.push("<span class=\"badge pin\">pinned</span>".to_owned());
    } else if let Some(at) = entry.expires_at {
        badges.push(format!(
            "<span class=\"badge\">expires {}</span>",
            time(at, now)
        ));
    }
    if let Some(lease) = view.lease.as_ref().filter(|lease| lease.is_held()) {
        badges.push(format!(
            "<span class=\"badge lease\" title=\"fencing token {}\">leased to {} until {}</span>",
            lease.token,
            esc(lease.holder.as_deref().unwrap_or("?")),
            time(lease.expires_at, lease.now)
        ));
    }
    let tool = entry
        .source
        .tool
        .as_deref()
        .map(|tool| format!(" · output of <code>{}</code>", esc(tool)))
        .unwrap_or_default();
    let author = entry
        .author
        .as_deref()
        .map(|author| format!(" by <strong>{}</strong>", esc(author)))
        .unwrap_or_default();
    format!(
        "<div class=\"page-head entry-head\" id=\"entry-head\"><h1>{name}</h1><div class=\"badges\">{badges}</div>\
         <p class=\"sub\">{size}{lines} · written{author} {updated}{tool} · <a href=\"{history}\">history</a></p></div>",
        name = esc(&entry.name),
        badges = badges.join(""),
        size = bytes(entry.bytes),
        lines = if entry.kind == Kind::Binary {
            String::new()
        } else {
            format!(" · {}", line_count(entry.lines))
        },
        updated = time(entry.updated_at, now),
        history = esc(&format!("{}/history", entry_path(session, &entry.name))),
    )
}

fn actions(session: &str, view: &EntryView, _history: Option<&History>) -> String {
    let entry = &view.entry;
    let mut buttons = Vec::new();
    if view.editable() {
        buttons.push(
            "<button type=\"button\" data-action=\"edit\" class=\"primary\">Edit</button>"
                .to_owned(),
        );
    }
    buttons.push("<button type=\"button\" data-action=\"rename\">Rename</button>".to_owned());
    buttons.push(if entry.pinned {
        "<button type=\"button\" data-action=\"unpin\">Unpin</button>".to_owned()
    } else {
        "<button type=\"button\" data-action=\"pin\">Pin</button>".to_owned()
    });
    buttons.push("<button type=\"button\" data-action=\"ttl\">Lifetime</button>".to_owned());
    buttons.push(
        "<button type=\"button\" data-action=\"delete\" class=\"danger\">Delete</button>"
            .to_owned(),
    );
    format!(
        "<div class=\"actions\" id=\"actions\" data-version=\"{}\" data-session=\"{}\">{}</div>",
        entry.version,
        esc(session),
        buttons.join("")
    )
}

fn older_version_banner(
    session: &str,
    entry: &EntryInfo,
    history: &History,
    version: u64,
    read_only: bool,
) -> String {
    let kept = history.versions.iter().find(|v| v.version == version);
    let (author, when, change) = match kept {
        Some(v) => (
            v.author
                .clone()
                .unwrap_or_else(|| "an unknown author".to_owned()),
            v.written_at,
            v.change
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
        ),
        None => (String::new(), entry.updated_at, String::new()),
    };
    let diff = format!(
        "{}/diff?{}",
        entry_path(session, &entry.name),
        encode(&[("from", version.to_string())])
    );
    let restore = if read_only {
        String::new()
    } else {
        format!(
            " <button type=\"button\" class=\"primary\" data-action=\"restore\" data-restore=\"{version}\" data-current=\"{}\">Restore this version</button>",
            entry.version
        )
    };
    format!(
        "<div class=\"banner\" id=\"version-banner\">You are looking at <strong>version {version}</strong> of \
         <code>{name}</code> (current: version {current}), written by {author} {when}{change}. \
         <a href=\"{diff}\">What changed since</a> · <a href=\"{current_href}\">Current version</a>{restore}</div>",
        name = esc(&entry.name),
        current = entry.version,
        author = esc(&author),
        when = time(when, now_ms()),
        change = if change.is_empty() {
            String::new()
        } else {
            format!(" ({})", esc(&change))
        },
        diff = esc(&diff),
        current_href = esc(&entry_path(session, &entry.name)),
    )
}

/// The preview, exactly as stored: each line that shows a line of the entry gets that line's
/// number in a gutter (outside the text, not copied with it), which opens it in the viewer.
fn preview_box(view: &EntryView) -> String {
    let entry = &view.entry;
    let mut pre = String::from("<pre class=\"preview\" id=\"preview\">");
    let text = entry.preview.strip_suffix('\n').unwrap_or(&entry.preview);
    for (i, line) in text.split('\n').enumerate() {
        let shows = view.preview_lines.get(i).copied().flatten();
        let remark = shows.is_none() && line.starts_with('[');
        let notable = shows.is_some() && is_numbered(line);
        let class = match (remark, notable) {
            (true, _) => "pl rem",
            (_, true) => "pl notable",
            _ => "pl",
        };
        match shows {
            Some(n) => pre.push_str(&format!(
                "<span class=\"{class}\" data-line=\"{n}\"><a class=\"g\" href=\"#L{n}\" title=\"Line {} in the viewer\">{n}</a>{}\n</span>",
                count(n),
                esc(line)
            )),
            None => pre.push_str(&format!(
                "<span class=\"{class}\"><span class=\"g\"></span>{}\n</span>",
                esc(line)
            )),
        }
    }
    pre.push_str("</pre>");
    let hint = entry
        .profile
        .as_ref()
        .and_then(|profile| profile.grep.as_ref())
        .map(|grep| {
            let mut params = vec![("grep", grep.pattern.clone()), ("context", "2".to_owned())];
            if grep.ignore_case {
                params.push(("i", "1".to_owned()));
            }
            format!(
                "<p class=\"hint\">Suggested search: <a href=\"?{}\"><code>{}</code></a> — {}</p>",
                esc(&encode(&params)),
                esc(&grep.pattern),
                esc(&grep.finds)
            )
        })
        .unwrap_or_default();
    format!(
        "<section class=\"box\" id=\"preview-box\"><div class=\"box-head\"><h2>Preview</h2>\
         <span class=\"quiet\">exactly what the model was shown instead of the {} ({} characters)</span></div>{pre}{hint}</section>",
        bytes(entry.bytes),
        count(entry.preview.chars().count() as u64),
    )
}

/// `   150000: text`: a notable line as previews number them.
fn is_numbered(line: &str) -> bool {
    line.split_once(": ").is_some_and(|(number, _)| {
        let digits = number.trim_start();
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    })
}

fn read_box(
    session: &str,
    entry: &EntryInfo,
    query: &Query,
    version: Option<u64>,
    reply: Option<&Result<ReadReply, Failure>>,
) -> String {
    let hidden_version = version
        .map(|v| format!("<input type=\"hidden\" name=\"version\" value=\"{v}\">"))
        .unwrap_or_default();
    let value = |key: &str| esc(query.get(key).unwrap_or(""));
    let mut forms = Vec::new();
    if entry.kind != Kind::Binary {
        forms.push(format!(
            "<form method=\"get\" class=\"rf\">{hidden_version}<label>Lines <input type=\"text\" name=\"lines\" \
             placeholder=\"1-100\" value=\"{}\" size=\"14\"></label><button type=\"submit\">Read</button></form>",
            value("lines")
        ));
        forms.push(format!(
            "<form method=\"get\" class=\"rf\">{hidden_version}<label>Grep <input type=\"text\" name=\"grep\" \
             placeholder=\"ERROR|panic\" value=\"{}\" size=\"22\"></label><label>context \
             <input type=\"number\" name=\"context\" min=\"0\" max=\"100\" value=\"{}\" class=\"narrow\"></label>\
             <label class=\"inline\"><input type=\"checkbox\" name=\"i\" value=\"1\"{}> ignore case</label>\
             <button type=\"submit\">Search</button></form>",
            value("grep"),
            esc(query.get("context").unwrap_or("2")),
            if query.flag("i") { " checked" } else { "" }
        ));
        forms.push(format!(
            "<form method=\"get\" class=\"rf\">{hidden_version}<label>Characters <input type=\"text\" name=\"range\" \
             placeholder=\"0-2000\" value=\"{}\" size=\"14\"></label><button type=\"submit\">Read</button></form>",
            value("range")
        ));
    }
    if entry.kind == Kind::Json {
        forms.push(format!(
            "<form method=\"get\" class=\"rf\">{hidden_version}<label>jq <input type=\"text\" name=\"jq\" \
             placeholder=\".items[0]\" value=\"{}\" size=\"22\"></label><button type=\"submit\">Run</button></form>",
            value("jq")
        ));
    }
    if entry.kind == Kind::Text {
        forms.push(format!(
            "<form method=\"get\" class=\"rf\">{hidden_version}<input type=\"hidden\" name=\"summary\" value=\"\">\
             <button type=\"submit\" title=\"The forms its lines take, with counts, most severe first\">Summary of line forms</button></form>"
        ));
    }
    if entry.kind == Kind::Binary {
        forms.push(format!(
            "<form method=\"get\" class=\"rf\">{hidden_version}<label>Bytes <input type=\"text\" name=\"bytes\" \
             placeholder=\"0-3000\" value=\"{}\" size=\"14\"></label><button type=\"submit\">Read as base64</button></form>",
            value("bytes")
        ));
    }
    let result = match reply {
        None => String::new(),
        Some(Ok(reply)) => reply_html(session, reply),
        Some(Err(failure)) => format!(
            "<div class=\"reply failed\" id=\"reply\"><p class=\"message\">{}</p></div>",
            linkify(&failure.message)
        ),
    };
    format!(
        "<section class=\"box\" id=\"read-box\"><div class=\"box-head\"><h2>Read</h2>\
         <span class=\"quiet\">the same reads a model makes, as addresses you can share</span></div>\
         <div class=\"read-forms\">{}</div>{result}</section>",
        forms.join("")
    )
}

/// A read's reply: where it is in the entry, its notes, its lines (numbered, each leading to the
/// viewer) and the address that continues it.
pub(crate) fn reply_html(session: &str, reply: &ReadReply) -> String {
    let mut out = format!(
        "<div class=\"reply\" id=\"reply\"><div class=\"loc\">{}{}</div>",
        esc(&reply.location),
        reply
            .version
            .map(|v| format!(" <span class=\"badge\">version {v}</span>"))
            .unwrap_or_default()
    );
    for note in &reply.notes {
        out.push_str(&format!("<p class=\"note\">{}</p>", esc(note)));
    }
    if matches!(reply.total_matches, Some(0)) {
        out.push_str("<p class=\"quiet\">No line matches.</p>");
    }
    if !reply.grep_lines.is_empty() {
        out.push_str("<div class=\"lines grep\">");
        let mut previous: Option<u64> = None;
        for line in &reply.grep_lines {
            if previous.is_some_and(|p| line.number > p + 1) {
                out.push_str("<div class=\"sep\">⋯</div>");
            }
            previous = Some(line.number);
            out.push_str(&format!(
                "<div class=\"ln-row{}\"><a class=\"g\" href=\"#L{n}\">{n}</a><span class=\"t\">{}</span></div>",
                if line.matched { " match" } else { "" },
                esc(&line.text),
                n = line.number,
            ));
        }
        out.push_str("</div>");
    } else if let Some(first) = reply.first_line {
        out.push_str("<div class=\"lines\">");
        for (i, text) in reply.text.split_terminator('\n').enumerate() {
            let n = first + i as u64;
            out.push_str(&format!(
                "<div class=\"ln-row\"><a class=\"g\" href=\"#L{n}\">{n}</a><span class=\"t\">{}</span></div>",
                esc(text)
            ));
        }
        out.push_str("</div>");
    } else if !reply.text.is_empty() {
        out.push_str(&format!(
            "<pre class=\"reply-text\">{}</pre>",
            esc(&reply.text)
        ));
    }
    if let Some(mode) = &reply.continuation {
        let mut params = mode_params(mode);
        if let Some(version) = reply.version {
            params.push(("version", version.to_string()));
        }
        let why = match (reply.total_matches, reply.shown_matches) {
            (Some(total), Some(shown)) => {
                format!("{} more matching lines", count(total.saturating_sub(shown)))
            }
            _ => match mode {
                ReadMode::Lines { from, .. } => format!(
                    "cut at the reply budget; continue from line {}",
                    count(*from)
                ),
                _ => "cut at the reply budget".to_owned(),
            },
        };
        out.push_str(&format!(
            "<p class=\"more\">{} — <a href=\"{}?{}\" rel=\"next\">continue →</a></p>",
            esc(&why),
            esc(&entry_path(session, &reply.name)),
            esc(&encode(&params))
        ));
    }
    out.push_str("</div>");
    out
}

fn content_box(session: &str, entry: &EntryInfo, version: Option<u64>, loaded: &Loaded) -> String {
    // An older version's size is that version's.
    let (lines, size, kind) = match (version, &loaded.history) {
        (Some(v), Some(history)) => history
            .versions
            .iter()
            .find(|kept| kept.version == v)
            .map_or((entry.lines, entry.bytes, entry.kind), |kept| {
                (kept.lines, kept.bytes, kept.kind)
            }),
        _ => (entry.lines, entry.bytes, entry.kind),
    };
    let api = format!("/api{}", entry_path(session, &entry.name));
    let version_attr = version.map(|v| v.to_string()).unwrap_or_default();
    let mut tabs = Vec::new();
    let binary = kind == Kind::Binary;
    if binary {
        tabs.push("<button type=\"button\" class=\"tab on\" data-view=\"hex\">Hex</button>");
    } else {
        tabs.push("<button type=\"button\" class=\"tab on\" data-view=\"lines\">Lines</button>");
        if kind == Kind::Json && size <= JSON_TREE_MAX_BYTES {
            tabs.push("<button type=\"button\" class=\"tab\" data-view=\"tree\">Tree</button>");
        }
    }
    let jump = if binary {
        "<form class=\"jump\" id=\"jump\"><label>Offset <input type=\"text\" name=\"offset\" placeholder=\"0x1f0 or 496\" size=\"12\"></label><button type=\"submit\">Go</button></form>"
            .to_owned()
    } else {
        format!(
            "<form class=\"jump\" id=\"jump\"><label>Line <input type=\"number\" name=\"line\" min=\"1\" max=\"{}\" size=\"10\"></label><button type=\"submit\">Go</button></form>",
            lines.max(1)
        )
    };
    let download = if version.is_none() {
        format!(
            "<a class=\"button\" href=\"{}/raw\" download>Download</a>",
            esc(&api)
        )
    } else {
        String::new()
    };
    format!(
        "<section class=\"box\" id=\"content-box\"><div class=\"box-head\"><h2>Content</h2>\
         <div class=\"tabs\">{tabs}</div>{jump}{download}</div>\
         <div class=\"viewer\" id=\"viewer\" data-mode=\"{mode}\" data-lines=\"{lines}\" data-bytes=\"{size}\" \
         data-api=\"{api}\" data-version=\"{version_attr}\" tabindex=\"0\" aria-label=\"Content of {name}\">\
         <div class=\"viewer-status\" id=\"viewer-status\">{status}</div>\
         <div class=\"viewer-scroll\" id=\"viewer-scroll\"><div class=\"viewer-spacer\"></div><div class=\"viewer-rows\"></div></div></div>\
         <div class=\"tree\" id=\"tree\" hidden></div></section>",
        tabs = tabs.join(""),
        mode = if binary { "hex" } else { "lines" },
        api = esc(&api),
        name = esc(&entry.name),
        status = if binary {
            format!("{} bytes", count(size))
        } else {
            line_count(lines)
        },
    )
}

fn editor_box(entry: &EntryInfo) -> String {
    format!(
        "<section class=\"box editor\" id=\"editor\" hidden><div class=\"box-head\"><h2>Editing <code>{name}</code></h2>\
         <span class=\"quiet\" id=\"editor-base\">from version {version}</span></div>\
         <textarea id=\"editor-text\" spellcheck=\"false\" aria-label=\"Text of {name}\"></textarea>\
         <div class=\"conflict\" id=\"conflict\" hidden></div>\
         <p class=\"form-error\" id=\"editor-error\" hidden></p>\
         <div class=\"buttons\"><button type=\"button\" class=\"primary\" data-action=\"save\">Save</button> \
         <button type=\"button\" data-action=\"cancel-edit\">Cancel</button></div></section>",
        name = esc(&entry.name),
        version = entry.version
    )
}

fn meta_box(view: &EntryView, now: i64) -> String {
    let entry = &view.entry;
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |label: &str, value: String| rows.push((label.to_owned(), value));
    row(
        "Kind",
        match &entry.mime {
            Some(mime) => format!(
                "{} <span class=\"quiet\">({})</span>",
                kind_name(entry.kind),
                esc(mime)
            ),
            None => kind_name(entry.kind).to_owned(),
        },
    );
    row(
        "Size",
        format!(
            "{} <span class=\"quiet\">({} bytes)</span>",
            bytes(entry.bytes),
            count(entry.bytes)
        ),
    );
    if entry.kind != Kind::Binary {
        row("Characters", count(entry.chars));
        row("Lines", count(entry.lines));
        row(
            "Tokens",
            format!(
                "≈ {} <span class=\"quiet\">(preview ≈ {})</span>",
                count(entry.tokens_est()),
                count(scratchpad_core::estimate_tokens(
                    Kind::Text,
                    entry.preview.len() as u64
                ))
            ),
        );
    }
    row("Version", entry.version.to_string());
    row("Author", esc(entry.author.as_deref().unwrap_or("unknown")));
    row("Created", time(entry.created_at, now));
    row("Updated", time(entry.updated_at, now));
    row("Last read", time(entry.accessed_at, now));
    row(
        "Lifetime",
        if entry.pinned {
            "pinned: never expires, never evicted".to_owned()
        } else {
            match entry.expires_at {
                Some(at) => format!("expires {}", time(at, now)),
                None => "kept until deleted".to_owned(),
            }
        },
    );
    if let Some(lease) = &view.lease {
        let state = match lease.state() {
            LeaseState::Held => format!(
                "held by <strong>{}</strong> until {} (token {})",
                esc(lease.holder.as_deref().unwrap_or("?")),
                time(lease.expires_at, lease.now),
                lease.token
            ),
            LeaseState::Expired => format!(
                "lapsed: last held by {} (token {})",
                esc(lease.holder.as_deref().unwrap_or("?")),
                lease.token
            ),
            LeaseState::Released => format!("released (last token {})", lease.token),
        };
        row("Lease", state);
    }
    if let Some(tool) = &entry.source.tool {
        row("Tool", format!("<code>{}</code>", esc(tool)));
    }
    if let Some(server) = &entry.source.server {
        row("Server", format!("<code>{}</code>", esc(server)));
    }
    if let Some(digest) = &entry.source.args_digest {
        row("Arguments", format!("<code>{}</code>", esc(digest)));
    }
    if let Some(turn) = &entry.turn {
        row("Turn", format!("<code>{}</code>", esc(turn)));
    }
    if let Some(profile) = &entry.profile {
        let levels = profile.levels.render();
        if !levels.is_empty() {
            row("Levels", esc(&levels));
        }
        if let Some(summary) = &profile.summary {
            row(
                "Result",
                format!(
                    "<a href=\"#L{}\">line {}</a>: {}",
                    summary.line,
                    count(summary.line),
                    esc(&summary.text)
                ),
            );
        }
        if let Some(note) = profile.decoding_note() {
            row("Encoding", esc(&note));
        }
    }
    row("Id", format!("<code>{}</code>", esc(&entry.id)));
    row(
        "Hash",
        format!(
            "<code class=\"hash\" title=\"blake3\">{}</code>",
            esc(&entry.hash)
        ),
    );
    if !entry.meta.is_null() {
        let meta = serde_json::to_string_pretty(&entry.meta).unwrap_or_default();
        row(
            "Metadata",
            format!("<pre class=\"meta-json\">{}</pre>", esc(&meta)),
        );
    }
    let mut out = String::from("<aside class=\"box meta\" id=\"meta\"><h2>Details</h2><dl>");
    for (label, value) in rows {
        out.push_str(&format!("<dt>{}</dt><dd>{value}</dd>", esc(&label)));
    }
    out.push_str("</dl></aside>");
    out
}

fn dialogs(entry: &EntryInfo) -> String {
    format!(
        "<dialog id=\"dlg-rename\"><form method=\"dialog\"><h3>Rename <code>{name}</code></h3>\
         <label>New name <input type=\"text\" name=\"to\" value=\"{name}\" required autocomplete=\"off\"></label>\
         <p class=\"quiet\">A renamed output becomes a note: it no longer expires.</p>\
         <p class=\"form-error\" hidden></p><div class=\"buttons\"><button value=\"cancel\" formnovalidate>Cancel</button>\
         <button value=\"ok\" class=\"primary\">Rename</button></div></form></dialog>\
         <dialog id=\"dlg-ttl\"><form method=\"dialog\"><h3>Lifetime of <code>{name}</code></h3>\
         <label>Expires after <select name=\"preset\"><option value=\"1h\">1 hour</option><option value=\"24h\" selected>24 hours</option>\
         <option value=\"7d\">7 days</option><option value=\"30d\">30 days</option><option value=\"never\">never</option>\
         <option value=\"custom\">other…</option></select></label>\
         <label class=\"custom-ttl\">Other <input type=\"text\" name=\"custom\" placeholder=\"90m, 3d\"></label>\
         <p class=\"form-error\" hidden></p><div class=\"buttons\"><button value=\"cancel\" formnovalidate>Cancel</button>\
         <button value=\"ok\" class=\"primary\">Set</button></div></form></dialog>\
         <dialog id=\"dlg-delete\"><form method=\"dialog\"><h3>Delete <code>{name}</code>?</h3>\
         <p>Version {version}, {size}. Agents that read it next will find it gone. {kept}</p>\
         <label><input type=\"checkbox\" name=\"purge\"> Delete at once, with every version</label>\
         <p class=\"form-error\" hidden></p><div class=\"buttons\"><button value=\"cancel\" formnovalidate>Cancel</button>\
         <button value=\"ok\" class=\"danger\">Delete</button></div></form></dialog>",
        name = esc(&entry.name),
        version = entry.version,
        size = bytes(entry.bytes),
        kept = if entry.source.tool.is_some() {
            "An output of a tool keeps no history: it is deleted at once."
        } else {
            "Its versions stay restorable for a while (<code>scratchpad ls --removed</code>)."
        },
    )
}
