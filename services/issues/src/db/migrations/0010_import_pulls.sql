-- Migrated reviews (Gitea's services/migrations gitea_uploader.go CreateReviews): the reviewer kept as an original
-- author when the source's user has no account here (Gitea's review.original_author, original_author_id), and the
-- review's id in the source, so that a resumed import that sends a review again leaves the one taken in alone. The
-- review's code comments are written with it in one transaction, so they come with it or not at all.
ALTER TABLE reviews
  ADD COLUMN original_author    text   NOT NULL DEFAULT '',
  ADD COLUMN original_author_id bigint NOT NULL DEFAULT 0,
  ADD COLUMN source_id          bigint;
CREATE UNIQUE INDEX reviews_imported ON reviews (repo_id, source_id) WHERE source_id IS NOT NULL;
