-- Pull mirrors (Gitea's `mirror` table, models/repo/mirror.go; the remote and its credentials, which Gitea keeps in
-- the repository's git config, are kept here and never answered or logged) and push mirrors (Gitea's
-- `push_mirror`, models/repo/pushmirror.go). Both are synced by whichever replica claims them: `claimed_until` is
-- the lease (a crashed replica's claim lapses), `attempts` counts claims and fences a stale holder's writes.
-- A sync is due when asked for (`requested_at`: mirror-sync, push_mirrors-sync, a push with sync_on_commit) or when
-- `next_update` has come; `next_update` NULL is no periodic sync (interval 0).
CREATE TABLE pull_mirrors (
  -- repos' id of the mirror repository.
  repo_id bigint PRIMARY KEY,
  remote_address text NOT NULL,
  auth_username text NOT NULL DEFAULT '',
  auth_password text NOT NULL DEFAULT '',
  auth_token text NOT NULL DEFAULT '',
  interval_ms bigint NOT NULL,
  next_update timestamptz,
  requested_at timestamptz,
  -- The last sync (Gitea's updated_unix: also moved by a failed sync) and its error ('' when it succeeded).
  updated_at timestamptz,
  last_error text NOT NULL DEFAULT '',
  attempts integer NOT NULL DEFAULT 0,
  claimed_until timestamptz,
  claimed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pull_mirrors_due ON pull_mirrors (next_update) WHERE next_update IS NOT NULL;
CREATE INDEX pull_mirrors_requested ON pull_mirrors (requested_at) WHERE requested_at IS NOT NULL;

CREATE TABLE push_mirrors (
  id bigserial PRIMARY KEY,
  repo_id bigint NOT NULL,
  -- "remote_mirror_<random>": the name the API knows it by.
  remote_name text NOT NULL,
  -- The address without credentials (answered), and the credentials (never answered, never logged).
  remote_address text NOT NULL,
  auth_username text NOT NULL DEFAULT '',
  auth_password text NOT NULL DEFAULT '',
  interval_ms bigint NOT NULL,
  sync_on_commit boolean NOT NULL DEFAULT false,
  next_update timestamptz,
  requested_at timestamptz,
  last_update timestamptz,
  last_error text NOT NULL DEFAULT '',
  attempts integer NOT NULL DEFAULT 0,
  claimed_until timestamptz,
  claimed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (repo_id, remote_name)
);
CREATE INDEX push_mirrors_due ON push_mirrors (next_update) WHERE next_update IS NOT NULL;
CREATE INDEX push_mirrors_requested ON push_mirrors (requested_at) WHERE requested_at IS NOT NULL;
