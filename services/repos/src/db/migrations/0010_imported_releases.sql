-- A migrated release's publisher with no account here (Gitea's release.original_author, original_author_id): the
-- row's publisher is the importing user. '' / 0 for every release made here.
ALTER TABLE releases
  ADD COLUMN original_author text NOT NULL DEFAULT '',
  ADD COLUMN original_author_id bigint NOT NULL DEFAULT 0;
