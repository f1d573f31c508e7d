-- Social: stars and watches. Runs with search_path = social (set by @cairn/db). Users and repositories are
-- named by the ids accounts and repos gave them; no foreign keys cross into their schemas.

CREATE TABLE stars (
  user_id bigint      NOT NULL CHECK (user_id > 0),
  repo_id bigint      NOT NULL CHECK (repo_id > 0),
  created timestamptz NOT NULL DEFAULT now(),
  -- Repository first: stargazers are listed and a deleted repository's stars removed by repository.
  PRIMARY KEY (repo_id, user_id)
);
-- Stargazers oldest first, one page at a time.
CREATE INDEX stars_by_repo_created ON stars (repo_id, created, user_id);
-- A user's starred repositories newest first; a deleted user's stars.
CREATE INDEX stars_by_user_created ON stars (user_id, created DESC, repo_id DESC);

CREATE TABLE watches (
  user_id bigint      NOT NULL CHECK (user_id > 0),
  repo_id bigint      NOT NULL CHECK (repo_id > 0),
  -- Gitea's watch modes that count as watching: 'normal' (the user chose to watch) and 'auto' (watched for the
  -- user when they created the repository, [service] AUTO_WATCH_NEW_REPOS). Choosing to watch turns 'auto' into
  -- 'normal'; unwatching removes the row either way.
  mode    text        NOT NULL CHECK (mode IN ('normal', 'auto')),
  created timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (repo_id, user_id)
);
CREATE INDEX watches_by_repo_created ON watches (repo_id, created, user_id);
CREATE INDEX watches_by_user_created ON watches (user_id, created DESC, repo_id DESC);

-- Per-repository totals, changed in the transaction that adds or removes a star or watch, so counts and
-- X-Total-Count never count rows. A repository nobody starred or watched has no row (zero).
CREATE TABLE repo_counters (
  repo_id  bigint PRIMARY KEY CHECK (repo_id > 0),
  stars    bigint NOT NULL DEFAULT 0 CHECK (stars >= 0),
  watchers bigint NOT NULL DEFAULT 0 CHECK (watchers >= 0)
);
