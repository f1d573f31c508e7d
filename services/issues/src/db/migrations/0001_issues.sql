-- Issues: issues (and later pull requests' issue half), labels, milestones, assignees, mentions, comments,
-- subscriptions, tracked times and stopwatches. Runs with search_path = issues (set by @cairn/db). Users and
-- repositories are named by the ids accounts and repos gave them; no foreign keys cross into their schemas.
--
-- Counters (per-repository totals, per-block counts for the issue list, milestone and comment counts) are kept by
-- the triggers at the end of this file, in the transaction of the change, so no list or count ever counts rows.

-- The next number per repository, shared by issues and pull requests (Gitea's issue_index).
CREATE TABLE repo_issue_index (
  repo_id   bigint PRIMARY KEY CHECK (repo_id > 0),
  max_index bigint NOT NULL CHECK (max_index >= 0)
);

CREATE TABLE milestones (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  repo_id           bigint      NOT NULL CHECK (repo_id > 0),
  title             text        NOT NULL CHECK (title <> ''),
  description       text        NOT NULL DEFAULT '',
  is_closed         boolean     NOT NULL DEFAULT false,
  num_issues        integer     NOT NULL DEFAULT 0 CHECK (num_issues >= 0),
  num_closed_issues integer     NOT NULL DEFAULT 0 CHECK (num_closed_issues >= 0),
  created           timestamptz NOT NULL DEFAULT now(),
  updated           timestamptz NOT NULL DEFAULT now(),
  closed_at         timestamptz,
  due_on            timestamptz
);
CREATE INDEX milestones_by_repo ON milestones (repo_id, is_closed, id);

CREATE TABLE issues (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  repo_id            bigint      NOT NULL CHECK (repo_id > 0),
  index              bigint      NOT NULL CHECK (index > 0),
  -- The poster's user id, kept when the user is deleted (the gateway shows Gitea's ghost user): never -1.
  poster_id          bigint      NOT NULL CHECK (poster_id > 0),
  original_author    text        NOT NULL DEFAULT '',
  original_author_id bigint      NOT NULL DEFAULT 0,
  title              text        NOT NULL CHECK (title <> ''),
  body               text        NOT NULL DEFAULT '',
  ref                text        NOT NULL DEFAULT '',
  is_closed          boolean     NOT NULL DEFAULT false,
  is_pull            boolean     NOT NULL DEFAULT false,
  is_locked          boolean     NOT NULL DEFAULT false,
  milestone_id       bigint      REFERENCES milestones (id) ON DELETE SET NULL,
  -- Plain comments (trigger-kept).
  num_comments       integer     NOT NULL DEFAULT 0 CHECK (num_comments >= 0),
  content_version    integer     NOT NULL DEFAULT 0,
  time_estimate      bigint      NOT NULL DEFAULT 0 CHECK (time_estimate >= 0),
  pin_order          integer     NOT NULL DEFAULT 0,
  deadline           timestamptz,
  created            timestamptz NOT NULL DEFAULT now(),
  updated            timestamptz NOT NULL DEFAULT now(),
  closed_at          timestamptz,
  UNIQUE (repo_id, index)
);
-- The plain list: one repository's issues or pulls in one state, newest (highest index) first.
CREATE INDEX issues_by_repo_state ON issues (repo_id, is_pull, is_closed, index DESC);
CREATE INDEX issues_by_repo_updated ON issues (repo_id, updated);
CREATE INDEX issues_by_poster ON issues (poster_id, repo_id);
CREATE INDEX issues_by_milestone ON issues (milestone_id) WHERE milestone_id IS NOT NULL;

-- Issues per (repository, kind, state): X-Total-Count of the plain list, open issue counts.
CREATE TABLE issue_counts (
  repo_id   bigint  NOT NULL,
  is_pull   boolean NOT NULL,
  is_closed boolean NOT NULL,
  n         bigint  NOT NULL CHECK (n >= 0),
  PRIMARY KEY (repo_id, is_pull, is_closed)
);

-- Issues per (repository, kind, state, block of 1,024 indexes): the plain list finds page p by summing blocks from
-- the top instead of skipping rows with OFFSET, then reads at most one block's rows.
CREATE TABLE issue_blocks (
  repo_id   bigint  NOT NULL,
  is_pull   boolean NOT NULL,
  is_closed boolean NOT NULL,
  block     bigint  NOT NULL,
  n         integer NOT NULL CHECK (n >= 0),
  PRIMARY KEY (repo_id, is_pull, is_closed, block)
);

CREATE TABLE labels (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- A repository label (org_id 0) or an organization label (repo_id 0).
  repo_id     bigint      NOT NULL DEFAULT 0 CHECK (repo_id >= 0),
  org_id      bigint      NOT NULL DEFAULT 0 CHECK (org_id >= 0),
  name        text        NOT NULL CHECK (name <> ''),
  -- Six lower-case hex digits, no '#'.
  color       text        NOT NULL CHECK (color ~ '^[0-9a-f]{6}$'),
  description text        NOT NULL DEFAULT '',
  exclusive   boolean     NOT NULL DEFAULT false,
  archived_at timestamptz,
  created     timestamptz NOT NULL DEFAULT now(),
  updated     timestamptz NOT NULL DEFAULT now(),
  CHECK ((repo_id > 0) <> (org_id > 0))
);
CREATE INDEX labels_by_repo ON labels (repo_id, lower(name), id) WHERE repo_id > 0;
CREATE INDEX labels_by_org ON labels (org_id, lower(name), id) WHERE org_id > 0;

CREATE TABLE issue_labels (
  issue_id bigint NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  label_id bigint NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
  PRIMARY KEY (issue_id, label_id)
);
CREATE INDEX issue_labels_by_label ON issue_labels (label_id, issue_id);

CREATE TABLE issue_assignees (
  issue_id    bigint NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  assignee_id bigint NOT NULL CHECK (assignee_id > 0),
  PRIMARY KEY (issue_id, assignee_id)
);
CREATE INDEX issue_assignees_by_user ON issue_assignees (assignee_id, issue_id);

-- Users mentioned (@name) in an issue's body or its comments.
CREATE TABLE issue_mentions (
  issue_id bigint NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  user_id  bigint NOT NULL CHECK (user_id > 0),
  PRIMARY KEY (issue_id, user_id)
);
CREATE INDEX issue_mentions_by_user ON issue_mentions (user_id, issue_id);

-- Reviewers asked to review a pull request (written by pull-request reviews; read by review_requested search).
CREATE TABLE review_requests (
  issue_id    bigint NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  reviewer_id bigint NOT NULL CHECK (reviewer_id > 0),
  PRIMARY KEY (issue_id, reviewer_id)
);
CREATE INDEX review_requests_by_reviewer ON review_requests (reviewer_id, issue_id);

CREATE TABLE comments (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  repo_id            bigint      NOT NULL CHECK (repo_id > 0),
  issue_id           bigint      NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  -- Gitea's CommentType: 0 is a plain comment (the only kind the comment API lists and counts).
  type               smallint    NOT NULL DEFAULT 0,
  poster_id          bigint      NOT NULL CHECK (poster_id > 0),
  original_author    text        NOT NULL DEFAULT '',
  original_author_id bigint      NOT NULL DEFAULT 0,
  body               text        NOT NULL DEFAULT '',
  content_version    integer     NOT NULL DEFAULT 0,
  created            timestamptz NOT NULL DEFAULT now(),
  updated            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comments_by_issue ON comments (issue_id, created, id);
CREATE INDEX comments_by_repo_updated ON comments (repo_id, updated, id);
CREATE INDEX comments_by_poster ON comments (poster_id, created);

-- Issue subscriptions (Gitea's issue_watch): is_watching false remembers an explicit unsubscribe, which wins
-- over being the poster, an assignee, a commenter or mentioned.
CREATE TABLE issue_watches (
  issue_id    bigint      NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  user_id     bigint      NOT NULL CHECK (user_id > 0),
  is_watching boolean     NOT NULL,
  created     timestamptz NOT NULL DEFAULT now(),
  updated     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issue_id, user_id)
);
CREATE INDEX issue_watches_by_user ON issue_watches (user_id, issue_id);

CREATE TABLE tracked_times (
  id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  issue_id bigint      NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  repo_id  bigint      NOT NULL CHECK (repo_id > 0),
  user_id  bigint      NOT NULL CHECK (user_id > 0),
  -- Seconds.
  time     bigint      NOT NULL CHECK (time > 0),
  created  timestamptz NOT NULL DEFAULT now(),
  -- Gitea keeps deleted times (and answers "tracked time was already deleted").
  deleted  boolean     NOT NULL DEFAULT false
);
CREATE INDEX tracked_times_by_issue ON tracked_times (issue_id, created, id);
CREATE INDEX tracked_times_by_repo ON tracked_times (repo_id, created, id);
CREATE INDEX tracked_times_by_user ON tracked_times (user_id, created, id);

CREATE TABLE stopwatches (
  user_id  bigint      NOT NULL CHECK (user_id > 0),
  issue_id bigint      NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  repo_id  bigint      NOT NULL CHECK (repo_id > 0),
  created  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, issue_id)
);
CREATE INDEX stopwatches_by_issue ON stopwatches (issue_id);

-- Counters. One row-level trigger on issues keeps issue_counts, issue_blocks and milestone counts; one on comments
-- keeps issues.num_comments. Bulk loads (the bench seeding script) may switch them off and rebuild the counters
-- with GROUP BY instead.
CREATE FUNCTION bump_issue_counters(r issues, delta integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- A removal only ever meets an existing row (and an INSERT of a negative count would fail its CHECK).
  IF delta < 0 THEN
    UPDATE issue_counts SET n = n + delta WHERE repo_id = r.repo_id AND is_pull = r.is_pull AND is_closed = r.is_closed;
    UPDATE issue_blocks SET n = n + delta
      WHERE repo_id = r.repo_id AND is_pull = r.is_pull AND is_closed = r.is_closed AND block = r.index >> 10;
  ELSE
    INSERT INTO issue_counts AS c (repo_id, is_pull, is_closed, n) VALUES (r.repo_id, r.is_pull, r.is_closed, delta)
      ON CONFLICT (repo_id, is_pull, is_closed) DO UPDATE SET n = c.n + delta;
    INSERT INTO issue_blocks AS b (repo_id, is_pull, is_closed, block, n) VALUES (r.repo_id, r.is_pull, r.is_closed, r.index >> 10, delta)
      ON CONFLICT (repo_id, is_pull, is_closed, block) DO UPDATE SET n = b.n + delta;
  END IF;
  IF r.milestone_id IS NOT NULL THEN
    UPDATE milestones SET num_issues = num_issues + delta,
                          num_closed_issues = num_closed_issues + CASE WHEN r.is_closed THEN delta ELSE 0 END
      WHERE id = r.milestone_id;
  END IF;
END $$;

CREATE FUNCTION issues_counters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM bump_issue_counters(OLD, -1); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM bump_issue_counters(NEW, 1); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER issues_counters_insert_delete AFTER INSERT OR DELETE ON issues FOR EACH ROW EXECUTE FUNCTION issues_counters();
CREATE TRIGGER issues_counters_update AFTER UPDATE OF is_closed, is_pull, milestone_id, repo_id, index ON issues
  FOR EACH ROW WHEN (OLD.is_closed IS DISTINCT FROM NEW.is_closed OR OLD.is_pull IS DISTINCT FROM NEW.is_pull
                     OR OLD.milestone_id IS DISTINCT FROM NEW.milestone_id OR OLD.repo_id <> NEW.repo_id OR OLD.index <> NEW.index)
  EXECUTE FUNCTION issues_counters();

CREATE FUNCTION comments_counter() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' AND NEW.type = 0 THEN
    UPDATE issues SET num_comments = num_comments + 1 WHERE id = NEW.issue_id;
  ELSIF TG_OP = 'DELETE' AND OLD.type = 0 THEN
    UPDATE issues SET num_comments = num_comments - 1 WHERE id = OLD.issue_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER comments_counter AFTER INSERT OR DELETE ON comments FOR EACH ROW EXECUTE FUNCTION comments_counter();
