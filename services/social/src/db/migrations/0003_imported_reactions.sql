-- Reactions of a migrated repository's users who have no account here (Gitea's reaction.original_author,
-- original_author_id): the row's user is the importing user, and the reaction is shown as Gitea's replacement user
-- "<original_author>(<service>)" (models/issues/reaction.go LoadUsers); '' / 0 / '' for every reaction made here.
ALTER TABLE reactions
  ADD COLUMN original_author text NOT NULL DEFAULT '',
  ADD COLUMN original_author_id bigint NOT NULL DEFAULT 0,
  ADD COLUMN original_service text NOT NULL DEFAULT '';
-- One reaction of a kind per user, or per original author, and target (Gitea's UNIQUE(s) includes original_author).
ALTER TABLE reactions DROP CONSTRAINT reactions_once;
ALTER TABLE reactions ADD CONSTRAINT reactions_once UNIQUE (issue_id, comment_id, user_id, content, original_author_id);
