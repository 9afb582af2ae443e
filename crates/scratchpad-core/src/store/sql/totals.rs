//! What the store holds and how it was used: totals per kind (of a session, of every session) and
//! the usage record read back in time buckets.

use super::*;

/// Per-kind totals from `kind, COUNT(*), pinned, bytes, preview bytes` at `first`.
fn kind_totals(row: &dyn Row, first: usize) -> Result<KindTotals, Fail> {
    Ok(KindTotals {
        kind: kind_column(row, first)?,
        entries: row.count(first + 1)?,
        pinned: row.count(first + 2)?,
        bytes: row.count(first + 3)?,
        preview_bytes: row.count(first + 4)?,
    })
}

/// The columns [`kind_totals`] reads, for `FROM entries e`.
macro_rules! kind_totals_columns {
    () => {
        "e.kind, COUNT(*), SUM(CASE WHEN e.pinned THEN 1 ELSE 0 END), \
         CAST(COALESCE(SUM(e.bytes), 0) AS BIGINT), CAST(COALESCE(SUM(length(e.preview)), 0) AS BIGINT)"
    };
}

impl<B: Backend> SqlStore<B> {
    pub(super) fn kind_totals_of(&self, session: &str, now: i64) -> Result<Vec<KindTotals>> {
        self.read(|c| {
            c.rows(
                concat!(
                    "SELECT ",
                    kind_totals_columns!(),
                    " FROM entries e WHERE e.session = ?2 AND ",
                    live!(),
                    " GROUP BY e.kind"
                ),
                &[Param::Int(now), Param::Text(session)],
                |r| kind_totals(r, 0),
            )
        })
    }

    pub(super) fn session_kind_totals(&self, now: i64) -> Result<Vec<SessionKindTotals>> {
        self.read(|c| {
            c.rows(
                concat!(
                    "SELECT e.session, MAX(e.updated_at), ",
                    kind_totals_columns!(),
                    " FROM entries e WHERE ",
                    live!(),
                    " GROUP BY e.session, e.kind ORDER BY e.session"
                ),
                &[Param::Int(now)],
                |r| {
                    Ok(SessionKindTotals {
                        session: r.text(0)?,
                        last_changed: r.int(1)?,
                        totals: kind_totals(r, 2)?,
                    })
                },
            )
        })
    }

    pub(super) fn usage_buckets(
        &self,
        session: Option<&str>,
        bucket_ms: i64,
    ) -> Result<Vec<UsageBucket>> {
        let bucket_ms = bucket_ms.max(1);
        self.read(|c| {
            c.rows(
                "SELECT (at / ?2) * ?2 AS bucket, tool, kind, event, COUNT(*), \
                 CAST(SUM(content_bytes) AS BIGINT), CAST(SUM(shown_bytes) AS BIGINT) FROM usage \
                 WHERE CAST(?1 AS TEXT) IS NULL OR session = ?1 \
                 GROUP BY bucket, tool, kind, event ORDER BY bucket, tool, kind, event",
                &[Param::OptText(session), Param::Int(bucket_ms)],
                |r| {
                    let event = r.text(3)?;
                    Ok(UsageBucket {
                        start: r.int(0)?,
                        tool: r.opt_text(1)?,
                        kind: kind_column(r, 2)?,
                        event: UsageKind::parse(&event).ok_or_else(|| {
                            Fail::App(Error::Storage(format!(
                                "a usage line of an unknown event `{event}`; the store is damaged"
                            )))
                        })?,
                        count: r.count(4)?,
                        content_bytes: r.count(5)?,
                        shown_bytes: r.count(6)?,
                    })
                },
            )
        })
    }

    pub(super) fn usage_time_span(&self, session: Option<&str>) -> Result<Option<(i64, i64)>> {
        self.read(|c| {
            c.one(
                "SELECT MIN(at), MAX(at) FROM usage WHERE CAST(?1 AS TEXT) IS NULL OR session = ?1",
                &[Param::OptText(session)],
                |r| Ok(r.opt_int(0)?.zip(r.opt_int(1)?)),
            )
        })
    }
}
