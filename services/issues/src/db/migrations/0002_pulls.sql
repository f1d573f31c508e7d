-- Pull requests: the issue row (is_pull = true, numbered with the repository's issues) plus this row. The head is
-- `head_branch` of `head_repo_id` (the base repository itself or a fork of it); git-storage keeps a copy of it in the
-- base repository at refs/pull/<index>/head, so checks and merges run in one repository.
CREATE TABLE pull_requests (
  issue_id              bigint      PRIMARY KEY REFERENCES issues (id) ON DELETE CASCADE,
  head_repo_id          bigint      NOT NULL CHECK (head_repo_id > 0),
  head_branch           text        NOT NULL CHECK (head_branch <> ''),
  base_branch           text        NOT NULL CHECK (base_branch <> ''),
  merge_base            text        NOT NULL DEFAULT '',
  head_commit_id        text        NOT NULL DEFAULT '',
  -- Gitea's PullRequestStatus.
  status                text        NOT NULL DEFAULT 'checking'
    CHECK (status IN ('checking', 'conflict', 'mergeable', 'empty', 'ancestor', 'manually_merged', 'error')),
  conflicted_files      text[]      NOT NULL DEFAULT '{}',
  has_merged            boolean     NOT NULL DEFAULT false,
  merged_commit_id      text        NOT NULL DEFAULT '',
  merger_id             bigint      NOT NULL DEFAULT 0 CHECK (merger_id >= 0),
  merged_at             timestamptz,
  allow_maintainer_edit boolean     NOT NULL DEFAULT false,
  -- The style it was merged in ('' until merged).
  merge_style           text        NOT NULL DEFAULT ''
);
-- Pull requests from a head branch (pushes to it re-check them; "already exists for these targets").
CREATE INDEX pull_requests_by_head ON pull_requests (head_repo_id, head_branch);
-- Pull requests into a base branch (pushes to it re-check them; GET …/pulls/{base}/{head}).
CREATE INDEX pull_requests_by_base ON pull_requests (base_branch, issue_id);
