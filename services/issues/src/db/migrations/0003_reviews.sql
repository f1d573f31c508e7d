-- Pull-request reviews (Gitea's review table). type is Gitea's ReviewType: 0 pending, 1 approve, 2 comment,
-- 3 reject (REQUEST_CHANGES), 4 request (a review request, answered by a later review of the same reviewer).
CREATE TABLE reviews (
  id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  repo_id     bigint      NOT NULL CHECK (repo_id > 0),
  issue_id    bigint      NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  reviewer_id bigint      NOT NULL CHECK (reviewer_id > 0),
  type        smallint    NOT NULL CHECK (type BETWEEN 0 AND 4),
  body        text        NOT NULL DEFAULT '',
  -- The head commit the review was made on; stale when the pull request's head has moved since.
  commit_id   text        NOT NULL DEFAULT '',
  -- Made by someone with write access to the base repository (counts towards required approvals).
  official    boolean     NOT NULL DEFAULT false,
  dismissed   boolean     NOT NULL DEFAULT false,
  created     timestamptz NOT NULL DEFAULT now(),
  updated     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reviews_by_issue ON reviews (issue_id, id);
CREATE INDEX reviews_by_reviewer ON reviews (reviewer_id, issue_id);
-- A reviewer has at most one pending review per pull request (Gitea's GetCurrentReview).
CREATE UNIQUE INDEX reviews_one_pending ON reviews (issue_id, reviewer_id) WHERE type = 0;

-- Review comments are `comments` rows of type 21 (Gitea's CommentTypeCode) belonging to a review; the review's
-- own timeline entry is type 22 (CommentTypeReview). `line` is Gitea's signed line: negative on the old side.
ALTER TABLE comments
  ADD COLUMN review_id    bigint REFERENCES reviews (id) ON DELETE CASCADE,
  ADD COLUMN tree_path    text   NOT NULL DEFAULT '',
  ADD COLUMN line         bigint NOT NULL DEFAULT 0,
  ADD COLUMN commit_sha   text   NOT NULL DEFAULT '',
  ADD COLUMN old_ref      text   NOT NULL DEFAULT '',
  ADD COLUMN patch        text   NOT NULL DEFAULT '';
CREATE INDEX comments_by_review ON comments (review_id, id) WHERE review_id IS NOT NULL;
