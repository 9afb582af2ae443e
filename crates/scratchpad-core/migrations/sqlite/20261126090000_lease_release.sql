-- A released lease keeps who held it and says when it was released: its token then guards no
-- change (a change carrying it is refused), and only the holder may renew or release a lease.
-- Leases released before this have no holder; they were released when they ended.
ALTER TABLE leases ADD COLUMN released_at INTEGER;
UPDATE leases SET released_at = expires_at WHERE holder IS NULL;
