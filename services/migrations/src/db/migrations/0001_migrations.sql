-- Imports of repositories (Gitea's `task` rows of type migrate, models/admin/task.go), one per imported repository.
-- A task is run by whichever replica claims it: `claimed_until` is the lease, so a replica that dies mid-import lets
-- another take the task over once the lease lapses, and the import resumes from `step` (git data is fetched again:
-- a fetch is idempotent).
CREATE TABLE migration_tasks (
  id bigserial PRIMARY KEY,
  -- repos' id of the repository being imported into.
  repo_id bigint NOT NULL UNIQUE,
  owner_id bigint NOT NULL,
  doer_id bigint NOT NULL,
  -- The MigrationService TaskStatus numbers: 1 queued, 2 running, 3 stopped, 4 failed, 5 finished.
  status smallint NOT NULL DEFAULT 1 CHECK (status BETWEEN 1 AND 5),
  -- Where the import is ("git", …, "done") and how many items of that step are done.
  step text NOT NULL DEFAULT '',
  items_done bigint NOT NULL DEFAULT 0,
  -- The progress or failure message shown to readers of the repository (never a credential).
  message text NOT NULL DEFAULT '',
  -- The failure's reason for Migrate's caller ("auth_failed", "fetch_failed", …); '' unless failed.
  failure_reason text NOT NULL DEFAULT '',
  -- The source without credentials (Gitea's original_url) and its Gitea service type name.
  clone_addr text NOT NULL,
  service text NOT NULL DEFAULT 'git',
  -- MigrateRequest's other options (mirror, mirror_interval, wiki, issues, …), never a credential.
  options jsonb NOT NULL DEFAULT '{}',
  -- The source's credentials: needed to resume after a restart; never answered, never logged. Cleared when the
  -- task ends, but for a pull mirror, which goes on fetching from the source with them.
  auth_username text NOT NULL DEFAULT '',
  auth_password text NOT NULL DEFAULT '',
  auth_token text NOT NULL DEFAULT '',
  attempts integer NOT NULL DEFAULT 0,
  claimed_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  ended_at timestamptz
);
-- Claims look at tasks not ended yet only.
CREATE INDEX migration_tasks_open ON migration_tasks (claimed_until NULLS FIRST, id) WHERE status IN (1, 2);
