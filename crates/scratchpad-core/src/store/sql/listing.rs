//! Listing a session's entries: the filters, the order, the pages and their cursors, and the most
//! recently changed names.

use super::*;

impl<B: Backend> SqlStore<B> {
    pub(super) fn list_entries(
        &self,
        session: &str,
        filter: &ListFilter,
        cursor: Option<&str>,
        limit: usize,
        now: i64,
    ) -> Result<Page> {
        let limit = limit.clamp(1, 1000);
        let cursor = cursor.map(Cursor::parse).transpose()?;
        let prefix = filter
            .prefix
            .as_deref()
            .map(|p| format!("{}%", escape_like(p)));
        let mut sql = concat!(select_entries!(), " WHERE e.session = ?2 AND ", live!()).to_owned();
        let mut params = vec![Param::Int(now), Param::Text(session)];
        /// Appends a condition whose `??` are the next placeholders, bound to `values`.
        fn clause<'a>(
            sql: &mut String,
            params: &mut Vec<Param<'a>>,
            text: &str,
            values: &[Param<'a>],
        ) {
            let mut text = text.to_owned();
            for value in values {
                params.push(*value);
                text = text.replacen("??", &format!("?{}", params.len()), 1);
            }
            sql.push_str(&text);
        }
        match cursor {
            Some(Cursor::After(updated, row)) => clause(
                &mut sql,
                &mut params,
                " AND (e.updated_at, e.rowid) < (??, ??)",
                &[Param::Int(updated), Param::Int(row)],
            ),
            Some(Cursor::Before(updated, row)) => clause(
                &mut sql,
                &mut params,
                " AND (e.updated_at, e.rowid) > (??, ??)",
                &[Param::Int(updated), Param::Int(row)],
            ),
            None => {}
        }
        if let Some(kind) = filter.kind {
            clause(
                &mut sql,
                &mut params,
                " AND e.kind = ??",
                &[Param::Text(kind.as_str())],
            );
        }
        if let Some(prefix) = &prefix {
            clause(
                &mut sql,
                &mut params,
                &format!(" AND e.name {} ?? ESCAPE '\\'", self.dialect().ilike),
                &[Param::Text(prefix)],
            );
        }
        if let Some(tool) = &filter.tool {
            clause(
                &mut sql,
                &mut params,
                " AND e.tool = ??",
                &[Param::Text(tool)],
            );
        }
        if let Some(pinned) = filter.pinned {
            clause(
                &mut sql,
                &mut params,
                " AND e.pinned = ??",
                &[Param::Bool(pinned)],
            );
        }
        if let Some(turn) = &filter.turn {
            clause(
                &mut sql,
                &mut params,
                " AND e.turn = ??",
                &[Param::Text(turn)],
            );
        }
        if let Some(author) = &filter.author {
            clause(
                &mut sql,
                &mut params,
                " AND e.author = ??",
                &[Param::Text(author)],
            );
        }
        // One row more than the page says whether another page follows (or, going back, comes
        // before).
        let before = matches!(cursor, Some(Cursor::Before(..)));
        clause(
            &mut sql,
            &mut params,
            if before {
                " ORDER BY e.updated_at ASC, e.rowid ASC LIMIT ??"
            } else {
                " ORDER BY e.updated_at DESC, e.rowid DESC LIMIT ??"
            },
            &[Param::count(limit as u64 + 1)],
        );
        let rows = self.read(|c| c.rows(&sql, &params, entry_from_row))?;
        if !before {
            return Ok(Page::from_rows(rows, limit, cursor.is_some()));
        }
        if rows.len() <= limit {
            // Back at the top, where fewer rows than a page are left: the first page, whole, so
            // that pages keep their size and their boundaries going forward again.
            return self.list_entries(session, filter, None, limit, now);
        }
        Ok(Page::from_rows_before(rows, limit))
    }

    pub(super) fn recent_entry_names(
        &self,
        session: &str,
        limit: usize,
        now: i64,
    ) -> Result<Vec<String>> {
        self.read(|c| {
            c.rows(
                concat!(
                    "SELECT e.name FROM entries e WHERE e.session = ?2 AND ",
                    live!(),
                    " ORDER BY e.updated_at DESC LIMIT ?3"
                ),
                &[
                    Param::Int(now),
                    Param::Text(session),
                    Param::count(limit as u64),
                ],
                |r| r.text(0),
            )
        })
    }
}
