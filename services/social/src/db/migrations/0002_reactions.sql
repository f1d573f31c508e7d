-- Reactions on issues and comments. Runs with search_path = social. Repositories, issues, comments and users are
-- named by the ids repos, issues and accounts gave them; no foreign keys cross into their schemas. Issue and comment
-- ids are unique across repositories (the issues service numbers them globally), so a target is (issue_id,
-- comment_id); repo_id is kept so that a deleted repository's reactions can be forgotten.

CREATE TABLE reactions (
  id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  repo_id    bigint      NOT NULL CHECK (repo_id > 0),
  issue_id   bigint      NOT NULL CHECK (issue_id > 0),
  -- 0: a reaction on the issue itself.
  comment_id bigint      NOT NULL DEFAULT 0 CHECK (comment_id >= 0),
  user_id    bigint      NOT NULL CHECK (user_id > 0),
  -- The user's name when they reacted, kept current on cairn.user.renamed (dumps name reactions' users).
  user_name  text        NOT NULL CHECK (user_name <> ''),
  content    text        NOT NULL,
  created    timestamptz NOT NULL DEFAULT now(),
  -- One reaction of a kind per user and target (Gitea's ErrReactionAlreadyExist). Also serves deleting an
  -- issue's reactions (issue_id first).
  CONSTRAINT reactions_once UNIQUE (issue_id, comment_id, user_id, content)
);
-- A target's reactions oldest first (Gitea orders by created, id); a deleted comment's reactions.
CREATE INDEX reactions_by_target ON reactions (issue_id, comment_id, created, id);
-- A deleted repository's reactions.
CREATE INDEX reactions_by_repo ON reactions (repo_id);
-- A deleted or renamed user's reactions.
CREATE INDEX reactions_by_user ON reactions (user_id);
