-- Timeline entries (Gitea's comment types other than 0: close, reopen, label, milestone, assignees, change_title,
-- deadlines, target branch, review requests, merge, pushes, branch deletion, scheduled merges, tracked time) are
-- `comments` rows as in Gitea's one comment table; the columns below carry what each type references. The
-- num_comments trigger (0001) counts type 0 only, and the comment API lists type 0 only, so none of them is a comment.
-- `body` keeps Gitea's content: "1" for an added label, deadlines as "2006-01-02" ("new|old" when modified),
-- "|<seconds>" for tracked time, the pushed commit ids as JSON. `old_ref` (0003) holds the old branch or ref.
ALTER TABLE comments
  ADD COLUMN old_title          text    NOT NULL DEFAULT '',
  ADD COLUMN new_title          text    NOT NULL DEFAULT '',
  ADD COLUMN new_ref            text    NOT NULL DEFAULT '',
  -- 0 where an entry references nothing of the kind (Gitea's int64 zero).
  ADD COLUMN label_id           bigint  NOT NULL DEFAULT 0 CHECK (label_id >= 0),
  ADD COLUMN old_milestone_id   bigint  NOT NULL DEFAULT 0 CHECK (old_milestone_id >= 0),
  ADD COLUMN milestone_id       bigint  NOT NULL DEFAULT 0 CHECK (milestone_id >= 0),
  ADD COLUMN assignee_id        bigint  NOT NULL DEFAULT 0 CHECK (assignee_id >= 0),
  ADD COLUMN assignee_team_id   bigint  NOT NULL DEFAULT 0 CHECK (assignee_team_id >= 0),
  ADD COLUMN removed_assignee   boolean NOT NULL DEFAULT false,
  ADD COLUMN time_id            bigint  NOT NULL DEFAULT 0 CHECK (time_id >= 0),
  ADD COLUMN dependent_issue_id bigint  NOT NULL DEFAULT 0 CHECK (dependent_issue_id >= 0);
