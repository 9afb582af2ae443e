//! The full-text index: how entries are queued for it and taken in, and how entries still waiting
//! for it are found.

use super::*;

/// Words of a name, for search: `read_file_7` is found by "read" and "file".
pub(super) fn name_words(name: &str) -> String {
    name.replace(['_', '-', '.'], " ")
}

/// Rows waiting in `search_pending` that make the index take them in, whichever is reached first:
/// one batch costs about what indexing a single entry on its own does.
const SEARCH_BATCH_ROWS: i64 = 128;
/// Excerpt bytes waiting that make the index take them in.
const SEARCH_BATCH_BYTES: i64 = 2 * 1024 * 1024;

/// Queues an entry for the full-text index (see [`SEARCH_BATCH_ROWS`]). An entry is in the index
/// or in the queue, never both: a replaced entry leaves the index here. `body` is `None` where
/// it is the whole content, in the entry's only chunk (most small entries): it is not written twice.
pub(super) fn index_search(
    c: &mut dyn Conn,
    dialect: &Dialect,
    key: i64,
    name: &str,
    body: Option<&str>,
    bytes: u64,
    replacing: bool,
) -> Result<(), Fail> {
    if replacing {
        c.execute(dialect.search.unindex, &[Param::Int(key)])?;
    }
    let body = body.map(storable);
    c.execute(
        "INSERT INTO search_pending (entry, name, body, bytes) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (entry) DO UPDATE SET name = excluded.name, body = excluded.body, \
         bytes = excluded.bytes",
        &[
            Param::Int(key),
            Param::Text(&name_words(name)),
            Param::OptText(body.as_deref()),
            Param::count(bytes),
        ],
    )?;
    let (rows, bytes) = c.one(
        "SELECT COUNT(*), CAST(COALESCE(SUM(bytes), 0) AS BIGINT) FROM search_pending",
        &[],
        |r| Ok((r.int(0)?, r.int(1)?)),
    )?;
    if rows >= SEARCH_BATCH_ROWS || bytes >= SEARCH_BATCH_BYTES {
        index_pending(c, dialect)?;
    }
    Ok(())
}

/// Moves what waits in `search_pending` into the index.
pub(super) fn index_pending(c: &mut dyn Conn, dialect: &Dialect) -> Result<(), Fail> {
    for sql in dialect.search.index_pending {
        c.execute(sql, &[])?;
    }
    Ok(())
}

pub(super) fn unindex_search(c: &mut dyn Conn, dialect: &Dialect, key: i64) -> Result<(), Fail> {
    c.execute(dialect.search.unindex, &[Param::Int(key)])?;
    c.execute(
        "DELETE FROM search_pending WHERE entry = ?1",
        &[Param::Int(key)],
    )?;
    Ok(())
}

/// Entries of `session` waiting for the index whose name or excerpt holds every word (ASCII
/// letters in any case), newest first, without a snippet.
pub(super) fn search_pending(
    c: &mut dyn Conn,
    dialect: &Dialect,
    session: Option<&str>,
    words: &[&str],
    limit: Param<'_>,
    now: i64,
) -> Result<Vec<SearchHit>, Fail> {
    let patterns: Vec<String> = words
        .iter()
        .map(|w| format!("%{}%", escape_like(w)))
        .collect();
    let mut sql = concat!(
        "SELECT ",
        entry_columns!(),
        " FROM search_pending p JOIN entries e ON e.rowid = p.entry JOIN blobs b ON b.id = e.blob \
         WHERE (CAST(?2 AS TEXT) IS NULL OR e.session = ?2) AND ",
        live!()
    )
    .to_owned();
    let mut params = vec![Param::Int(now), Param::OptText(session), limit];
    for (i, pattern) in patterns.iter().enumerate() {
        sql += &format!(
            " AND (p.name {0} ?{1} ESCAPE '\\' OR {2} {0} ?{1} ESCAPE '\\')",
            dialect.ilike,
            i + 4,
            dialect.search.pending_body
        );
        params.push(Param::Text(pattern));
    }
    sql += " ORDER BY e.updated_at DESC LIMIT ?3";
    c.rows(&sql, &params, |r| {
        Ok(SearchHit {
            entry: entry_from_row(r)?.1.info,
            snippet: String::new(),
        })
    })
}

/// `"a" "b"`: each word quoted, so a word like `or` or `NEAR` is a word and never query syntax.
pub(super) fn quoted_words(words: &[&str], joiner: &str) -> String {
    words
        .iter()
        .map(|w| format!("\"{}\"", w.replace('"', "")))
        .collect::<Vec<_>>()
        .join(joiner)
}

pub(super) fn escape_like(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_words_are_never_query_syntax() {
        assert_eq!(
            quoted_words(&["a", "OR", "b\"c"], " "),
            "\"a\" \"OR\" \"bc\""
        );
        assert_eq!(quoted_words(&["x", "y"], " OR "), "\"x\" OR \"y\"");
    }
}
