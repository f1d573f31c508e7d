-- git-storage's own tables (besides the outbox): what it last published of each repository's references, so that
-- a ref change whose cairn.git.pushed was never written (the process died, the call was cut short) is found and
-- published at start-up (src/events/pushed.ts). Runs with search_path = git_storage (set by @cairn/db).

-- One row per repository that has published a change (or had a push accepted); repositories nobody pushed to
-- since have none, and are not compared at start-up.
CREATE TABLE published_repositories (
  repo_id       bigint      PRIMARY KEY CHECK (repo_id > 0),
  -- The repository's storage name ('' is the default storage): where it is on disk.
  storage       text        NOT NULL,
  -- cairn.git.pushed events written for the repository: numbers the next one, whose id is derived from it.
  events        bigint      NOT NULL DEFAULT 0,
  -- As the last push named them, for the event of a change no push explains.
  repo_owner_id bigint      NOT NULL,
  repo_private  boolean     NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- The repository's branches and tags as its last event left them (a row per ref, so an event rewrites only the
-- refs it moved).
CREATE TABLE published_refs (
  repo_id bigint NOT NULL REFERENCES published_repositories ON DELETE CASCADE,
  ref     text   NOT NULL,
  sha     text   NOT NULL,
  PRIMARY KEY (repo_id, ref)
);

-- Pushes the pre-receive check accepted whose event is not written yet: written before git moves a ref, deleted
-- in the transaction that writes the event.
CREATE TABLE pending_pushes (
  -- A UUIDv7: in the order the pushes were accepted.
  id            uuid        PRIMARY KEY,
  repo_id       bigint      NOT NULL REFERENCES published_repositories ON DELETE CASCADE,
  pusher_id     bigint      NOT NULL,
  repo_owner_id bigint      NOT NULL,
  repo_private  boolean     NOT NULL,
  -- [{"ref", "oldSha", "newSha"}] as git gave them to the pre-receive hook.
  ref_updates   jsonb       NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pending_pushes_by_repo ON pending_pushes (repo_id);
