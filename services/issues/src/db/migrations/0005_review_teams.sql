-- Team review requests (Gitea's review.reviewer_team_id): a REQUEST_REVIEW review of a team has the team and no
-- reviewer. It stays until a member of the team approves or requests changes, or the request is cancelled; issue
-- search's review_requested finds it for the team's members.
ALTER TABLE reviews DROP CONSTRAINT reviews_reviewer_id_check;
ALTER TABLE reviews
  ADD COLUMN reviewer_team_id bigint NOT NULL DEFAULT 0 CHECK (reviewer_team_id >= 0),
  ADD CONSTRAINT reviews_reviewer_or_team CHECK (
    (reviewer_id > 0 AND reviewer_team_id = 0) OR (reviewer_id = 0 AND reviewer_team_id > 0 AND type = 4));
CREATE INDEX reviews_by_team ON reviews (reviewer_team_id, issue_id) WHERE reviewer_team_id > 0;

-- Who resolved a review comment's conversation (Gitea's comment.resolve_doer_id); 0 while unresolved.
ALTER TABLE comments ADD COLUMN resolve_doer_id bigint NOT NULL DEFAULT 0;
