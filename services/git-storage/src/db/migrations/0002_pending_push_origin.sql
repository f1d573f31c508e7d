-- Where a pending change came from (cairn.git.pushed's `origin`): '' for a push, 'mirror' or 'migration' for a
-- RemoteService fetch, so a change published at start-up after a crash keeps it.
ALTER TABLE pending_pushes ADD COLUMN origin text NOT NULL DEFAULT '';
