-- Repositories and who reaches them, as Gitea's repository, repo_unit, collaboration, team_repo, repo_redirect
-- and repo_transfer tables. Owners (users and organizations) live in accounts; each row keeps the owner's name,
-- type and visibility as accounts' events last told, so lookups by name and access filters stay in this schema.

CREATE TABLE repositories (
  id                                    bigserial   PRIMARY KEY,
  owner_id                              bigint      NOT NULL,
  owner_name                            text        NOT NULL,
  lower_owner_name                      text        NOT NULL,
  -- 0: a user, 1: an organization.
  owner_type                            smallint    NOT NULL CONSTRAINT repositories_owner_type_check CHECK (owner_type IN (0, 1)),
  owner_visibility                      text        NOT NULL
    CONSTRAINT repositories_owner_visibility_check CHECK (owner_visibility IN ('public', 'limited', 'private')),
  name                                  text        NOT NULL,
  lower_name                            text        NOT NULL,
  description                           text        NOT NULL DEFAULT '',
  website                               text        NOT NULL DEFAULT '',
  is_private                            boolean     NOT NULL DEFAULT false,
  is_template                           boolean     NOT NULL DEFAULT false,
  is_fork                               boolean     NOT NULL DEFAULT false,
  -- The fork's base repository; 0 when not a fork (or when the base was deleted).
  fork_id                               bigint      NOT NULL DEFAULT 0,
  is_mirror                             boolean     NOT NULL DEFAULT false,
  -- Go duration syntax ("8h0m0s"); '' unless a mirror.
  mirror_interval                       text        NOT NULL DEFAULT '',
  is_empty                              boolean     NOT NULL DEFAULT true,
  is_archived                           boolean     NOT NULL DEFAULT false,
  archived_at                           timestamptz,
  -- KiB.
  size                                  bigint      NOT NULL DEFAULT 0,
  default_branch                        text        NOT NULL,
  object_format_name                    text        NOT NULL DEFAULT 'sha1',
  trust_model                           text        NOT NULL DEFAULT 'default',
  num_forks                             integer     NOT NULL DEFAULT 0,
  -- Counters other services own, as their events last told.
  num_stars                             integer     NOT NULL DEFAULT 0,
  num_watches                           integer     NOT NULL DEFAULT 0,
  num_open_issues                       integer     NOT NULL DEFAULT 0,
  num_open_pulls                        integer     NOT NULL DEFAULT 0,
  num_releases                          integer     NOT NULL DEFAULT 0,
  branch_count                          integer     NOT NULL DEFAULT 0,
  -- Maintained by TopicService (the `topics` table is the catalogue).
  topics                                text[]      NOT NULL DEFAULT '{}',
  -- git-storage shard; '' is the default storage.
  storage                               text        NOT NULL DEFAULT '',
  -- Pull-request settings (Gitea's PullRequestsConfig of the repo.pulls unit).
  allow_merge_commits                   boolean     NOT NULL DEFAULT true,
  allow_rebase                          boolean     NOT NULL DEFAULT true,
  allow_rebase_explicit                 boolean     NOT NULL DEFAULT true,
  allow_squash_merge                    boolean     NOT NULL DEFAULT true,
  allow_fast_forward_only_merge         boolean     NOT NULL DEFAULT true,
  allow_rebase_update                   boolean     NOT NULL DEFAULT true,
  allow_manual_merge                    boolean     NOT NULL DEFAULT false,
  autodetect_manual_merge               boolean     NOT NULL DEFAULT false,
  default_delete_branch_after_merge     boolean     NOT NULL DEFAULT false,
  default_merge_style                   text        NOT NULL DEFAULT 'merge',
  default_allow_maintainer_edit         boolean     NOT NULL DEFAULT false,
  ignore_whitespace_conflicts           boolean     NOT NULL DEFAULT false,
  -- Issue-tracker settings (Gitea's IssuesConfig of the repo.issues unit).
  enable_time_tracker                   boolean     NOT NULL DEFAULT true,
  allow_only_contributors_to_track_time boolean     NOT NULL DEFAULT true,
  enable_issue_dependencies             boolean     NOT NULL DEFAULT true,
  -- Projects unit mode: all, repo, owner.
  projects_mode                         text        NOT NULL DEFAULT 'all',
  created                               timestamptz NOT NULL DEFAULT now(),
  updated                               timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT repositories_lower_name_check CHECK (lower_name = lower(name)),
  CONSTRAINT repositories_lower_owner_name_check CHECK (lower_owner_name = lower(owner_name)),
  CONSTRAINT repositories_owner_id_lower_name_key UNIQUE (owner_id, lower_name)
);
CREATE INDEX repositories_lower_owner_name_lower_name_idx ON repositories (lower_owner_name, lower_name);
CREATE INDEX repositories_owner_id_lower_name_idx ON repositories (owner_id, lower_name, id);
CREATE INDEX repositories_fork_id_idx ON repositories (fork_id) WHERE fork_id <> 0;
CREATE INDEX repositories_updated_idx ON repositories (updated DESC, id DESC);
CREATE INDEX repositories_public_idx ON repositories (updated DESC, id DESC) WHERE NOT is_private AND owner_visibility = 'public';
CREATE INDEX repositories_topics_idx ON repositories USING gin (topics);

-- The units a repository has enabled (Gitea's repo_unit); `config` holds a unit's own settings.
CREATE TABLE repo_units (
  repo_id  bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  unit_key text        NOT NULL,
  config   jsonb       NOT NULL DEFAULT '{}',
  created  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (repo_id, unit_key)
);

-- Collaborators: 1 read, 2 write, 3 admin (Gitea's access modes).
CREATE TABLE collaborations (
  repo_id bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  user_id bigint      NOT NULL,
  mode    smallint    NOT NULL CONSTRAINT collaborations_mode_check CHECK (mode BETWEEN 1 AND 3),
  created timestamptz NOT NULL DEFAULT now(),
  updated timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (repo_id, user_id)
);
CREATE INDEX collaborations_user_id_idx ON collaborations (user_id, repo_id);

-- Organization teams linked to a repository (teams and their members live in accounts; a team that includes all
-- repositories, or the Owners team, reaches every repository of its organization without a row here).
CREATE TABLE team_repos (
  org_id  bigint NOT NULL,
  team_id bigint NOT NULL,
  repo_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  PRIMARY KEY (team_id, repo_id)
);
CREATE INDEX team_repos_repo_id_idx ON team_repos (repo_id);

-- Former owner/name pairs of repositories (renames and transfers), answered with a redirect.
CREATE TABLE repo_redirects (
  owner_id         bigint NOT NULL,
  lower_name       text   NOT NULL,
  redirect_repo_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  PRIMARY KEY (owner_id, lower_name)
);
CREATE INDEX repo_redirects_redirect_repo_id_idx ON repo_redirects (redirect_repo_id);

-- A transfer waiting for its recipient (at most one per repository).
CREATE TABLE repo_transfers (
  repo_id      bigint      PRIMARY KEY REFERENCES repositories (id) ON DELETE CASCADE,
  doer_id      bigint      NOT NULL,
  recipient_id bigint      NOT NULL,
  team_ids     bigint[]    NOT NULL DEFAULT '{}',
  created      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX repo_transfers_recipient_id_idx ON repo_transfers (recipient_id);
