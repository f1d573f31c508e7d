-- Scheduled merges ("merge when checks succeed"; Gitea's pull_auto_merge): at most one per pull request, merged as
-- `doer_id` in `merge_style` with the message decided when it was scheduled once the head's checks pass. The table
-- stays small (open, scheduled pull requests only): the consumer of commit statuses reads it joined to its pulls.
CREATE TABLE pull_auto_merges (
  issue_id                  bigint      PRIMARY KEY REFERENCES pull_requests (issue_id) ON DELETE CASCADE,
  doer_id                   bigint      NOT NULL CHECK (doer_id > 0),
  merge_style               text        NOT NULL
    CHECK (merge_style IN ('merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only')),
  -- The merge commit's message, decided when scheduled (the request's title and body, or Gitea's default).
  message                   text        NOT NULL,
  delete_branch_after_merge boolean     NOT NULL DEFAULT false,
  created                   timestamptz NOT NULL DEFAULT now(),
  -- Set while one try merges (rpc/auto-merge.ts claims it), so statuses arriving together merge once; a claim older
  -- than a few minutes is a crashed try's and is taken over.
  trying_since              timestamptz
);
-- Gitea indexes the doer too (schedules by user).
CREATE INDEX pull_auto_merges_by_doer ON pull_auto_merges (doer_id);

-- A pull request that is closed (merging closes it too) loses its schedule, as Gitea's SetMerged deletes it.
CREATE FUNCTION pull_auto_merges_drop_on_close() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM pull_auto_merges WHERE issue_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER pull_auto_merges_drop_on_close AFTER UPDATE OF is_closed ON issues
  FOR EACH ROW WHEN (NEW.is_closed AND NOT OLD.is_closed) EXECUTE FUNCTION pull_auto_merges_drop_on_close();
