-- A merge under way (rpc/pull-merge.ts): written and committed before git-storage is asked to move the base branch,
-- deleted in the transaction that records the merge. A row left behind means the merge's outcome was never recorded
-- (the record failed, or the process died): the next merge of the pull request, its next mergeability check or the
-- start-up sweep reads the base branch and either finishes the record or drops the row (domain/merge-intent.ts).
CREATE TABLE pull_merge_intents (
  issue_id       bigint      PRIMARY KEY REFERENCES pull_requests (issue_id) ON DELETE CASCADE,
  -- The base branch's tip read just before the merge: its commits after this one are searched for the merge's.
  base_commit_id text        NOT NULL,
  -- The head merged ("fast-forward-only" makes it the base's tip).
  head_commit_id text        NOT NULL,
  merge_style    text        NOT NULL,
  merger_id      bigint      NOT NULL CHECK (merger_id > 0),
  -- The committer git-storage writes the merge's commits with (whole seconds, as git keeps them): the merge's
  -- commits are recognised by it.
  committer_name  text        NOT NULL,
  committer_email text        NOT NULL,
  committed_at    timestamptz NOT NULL,
  -- The issues the merge closes or reopens (rpc/closing-references.ts), as planned before the merge.
  closing        jsonb       NOT NULL DEFAULT '[]',
  created        timestamptz NOT NULL DEFAULT now()
);
