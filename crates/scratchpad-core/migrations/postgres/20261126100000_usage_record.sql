-- What moved between the store and a model's context: each tool output stored (its size, and the
-- size of the preview shown in its place) and each read (the entry's size, and what the read
-- returned). Appended to, never updated; a collection pass keeps the newest lines only. Kept apart
-- from the entries, so that what was saved stays measured after an entry expires.
CREATE TABLE usage (
    id            BIGSERIAL PRIMARY KEY,
    at            BIGINT NOT NULL,
    session       TEXT NOT NULL,
    name          TEXT NOT NULL,
    tool          TEXT,
    kind          TEXT NOT NULL,
    event         TEXT NOT NULL,
    mode          TEXT,
    content_bytes BIGINT NOT NULL,
    shown_bytes   BIGINT NOT NULL
);
CREATE INDEX usage_by_session ON usage(session, at);

-- Whoever watches the store (the web view) hears of every committed change at once: a change to an
-- entry (every change bumps its version), a lease, a line of the usage record. The payload is the
-- schema, so that stores sharing one database in different schemas hear only their own. Reads that
-- only refresh an entry's access time do not notify.
CREATE FUNCTION scratchpad_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('scratchpad_changes', COALESCE(current_schema(), ''));
    RETURN NULL;
END
$$;
CREATE TRIGGER entries_changed AFTER INSERT OR DELETE OR UPDATE OF version ON entries
    FOR EACH STATEMENT EXECUTE FUNCTION scratchpad_notify_change();
CREATE TRIGGER leases_changed AFTER INSERT OR UPDATE OR DELETE ON leases
    FOR EACH STATEMENT EXECUTE FUNCTION scratchpad_notify_change();
CREATE TRIGGER usage_recorded AFTER INSERT ON usage
    FOR EACH STATEMENT EXECUTE FUNCTION scratchpad_notify_change();
