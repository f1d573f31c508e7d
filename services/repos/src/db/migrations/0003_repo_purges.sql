-- Git data waiting to be removed from git-storage. A repository's directory is removed only after the transaction
-- that decided so has committed, so a rolled-back deletion never loses data: the deleting transaction writes a row
-- here next to its DELETE, and the purger (maintenance/purge-repositories.ts) removes the directory and then the row,
-- retrying until git-storage answers. A creation writes a row before it makes the directory and deletes it in the
-- transaction that inserts the repository, so a directory whose creation never committed is removed as well.
CREATE TABLE repo_purges (
  repo_id    bigint      PRIMARY KEY,
  -- git-storage shard; '' is the default storage.
  storage    text        NOT NULL,
  -- Not removed before this time: a creation's row waits out the creation's deadline; a failed removal backs off.
  not_before timestamptz NOT NULL,
  -- Failed removals so far (the back-off grows with them; operators see a stuck removal here).
  attempts   integer     NOT NULL DEFAULT 0,
  created    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX repo_purges_not_before_idx ON repo_purges (not_before);
