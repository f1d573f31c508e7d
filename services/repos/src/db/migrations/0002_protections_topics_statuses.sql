-- Topics, branch protection rules and commit statuses (Gitea's topic, protected_branch, commit_status and
-- commit_status_index tables).

-- The topic catalogue: one row per name ever given to a repository, for its id and dates. Which repositories
-- have a topic is `repositories.topics`; how many is counted over the repositories a viewer may read when
-- searching, so the count never leaks private repositories and never drifts.
CREATE TABLE topics (
  id      bigserial   PRIMARY KEY,
  name    text        NOT NULL CONSTRAINT topics_name_key UNIQUE,
  created timestamptz NOT NULL DEFAULT now(),
  updated timestamptz NOT NULL DEFAULT now()
);

-- Branch protection rules. `rule_name` is a branch name or a glob. Allow lists hold user and team ids, resolved
-- from names when a rule is written (as Gitea stores them): a renamed user stays on the list and whoever takes
-- the old name is not.
CREATE TABLE branch_protections (
  id                                bigserial   PRIMARY KEY,
  repo_id                           bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  rule_name                         text        NOT NULL,
  -- Lower applies first; ties: plain names before globs, then older rules.
  priority                          bigint      NOT NULL DEFAULT 0,
  enable_push                       boolean     NOT NULL DEFAULT false,
  enable_push_whitelist             boolean     NOT NULL DEFAULT false,
  push_whitelist_user_ids           bigint[]    NOT NULL DEFAULT '{}',
  push_whitelist_team_ids           bigint[]    NOT NULL DEFAULT '{}',
  push_whitelist_deploy_keys        boolean     NOT NULL DEFAULT false,
  enable_force_push                 boolean     NOT NULL DEFAULT false,
  enable_force_push_allowlist       boolean     NOT NULL DEFAULT false,
  force_push_allowlist_user_ids     bigint[]    NOT NULL DEFAULT '{}',
  force_push_allowlist_team_ids     bigint[]    NOT NULL DEFAULT '{}',
  force_push_allowlist_deploy_keys  boolean     NOT NULL DEFAULT false,
  enable_merge_whitelist            boolean     NOT NULL DEFAULT false,
  merge_whitelist_user_ids          bigint[]    NOT NULL DEFAULT '{}',
  merge_whitelist_team_ids          bigint[]    NOT NULL DEFAULT '{}',
  enable_status_check               boolean     NOT NULL DEFAULT false,
  status_check_contexts             text[]      NOT NULL DEFAULT '{}',
  required_approvals                bigint      NOT NULL DEFAULT 0 CONSTRAINT branch_protections_required_approvals_check CHECK (required_approvals >= 0),
  enable_approvals_whitelist        boolean     NOT NULL DEFAULT false,
  approvals_whitelist_user_ids      bigint[]    NOT NULL DEFAULT '{}',
  approvals_whitelist_team_ids      bigint[]    NOT NULL DEFAULT '{}',
  block_on_rejected_reviews         boolean     NOT NULL DEFAULT false,
  block_on_official_review_requests boolean     NOT NULL DEFAULT false,
  block_on_outdated_branch          boolean     NOT NULL DEFAULT false,
  dismiss_stale_approvals           boolean     NOT NULL DEFAULT false,
  ignore_stale_approvals            boolean     NOT NULL DEFAULT false,
  require_signed_commits            boolean     NOT NULL DEFAULT false,
  protected_file_patterns           text        NOT NULL DEFAULT '',
  unprotected_file_patterns         text        NOT NULL DEFAULT '',
  block_admin_merge_override        boolean     NOT NULL DEFAULT false,
  created                           timestamptz NOT NULL DEFAULT now(),
  updated                           timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT branch_protections_repo_id_rule_name_key UNIQUE (repo_id, rule_name)
);

-- Commit statuses. `index` numbers the statuses of one commit of one repository from 1 (Gitea answers it as the
-- status `id`); `context_hash` (SHA-1 of the context) groups them by context.
CREATE TABLE commit_statuses (
  id           bigserial   PRIMARY KEY,
  repo_id      bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  sha          text        NOT NULL,
  index        bigint      NOT NULL,
  state        text        NOT NULL
    CONSTRAINT commit_statuses_state_check CHECK (state IN ('pending', 'success', 'error', 'failure', 'warning', 'skipped')),
  target_url   text        NOT NULL DEFAULT '',
  description  text        NOT NULL DEFAULT '',
  context      text        NOT NULL DEFAULT '',
  context_hash text        NOT NULL,
  creator_id   bigint      NOT NULL,
  created      timestamptz NOT NULL DEFAULT now(),
  updated      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT commit_statuses_repo_id_sha_index_key UNIQUE (repo_id, sha, index)
);
CREATE INDEX commit_statuses_context_idx ON commit_statuses (repo_id, sha, context_hash, index DESC);

-- The last status index given out per repository and commit, bumped in the creating transaction.
CREATE TABLE commit_status_indexes (
  repo_id   bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  sha       text   NOT NULL,
  max_index bigint NOT NULL,
  PRIMARY KEY (repo_id, sha)
);
