-- Migrated comments (Gitea's services/migrations gitea_uploader.go CreateComments): the comment's id in the source,
-- so that a resumed import that sends a comment again leaves the one already taken in alone. NULL for every comment
-- made here.
ALTER TABLE comments ADD COLUMN source_id bigint;
CREATE UNIQUE INDEX comments_imported ON comments (repo_id, source_id) WHERE source_id IS NOT NULL;
