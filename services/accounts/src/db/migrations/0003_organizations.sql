-- Organizations (rows of users with type = 1), their members and teams, as Gitea's org_user, team,
-- team_unit, team_user and team_repo tables.

ALTER TABLE users ADD COLUMN repo_admin_change_team_access boolean NOT NULL DEFAULT false;

-- Membership of an organization; a member is in at least one of its teams.
CREATE TABLE org_users (
  org_id    bigint  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  uid       bigint  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- Whether anyone may see the membership (`/public_members`).
  is_public boolean NOT NULL DEFAULT false,
  PRIMARY KEY (org_id, uid)
);
CREATE INDEX org_users_uid_idx ON org_users (uid);

CREATE TABLE teams (
  id                        bigserial PRIMARY KEY,
  org_id                    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name                      text        NOT NULL,
  lower_name                text        NOT NULL,
  description               text        NOT NULL DEFAULT '',
  -- Gitea's access modes: 0 none, 1 read, 2 write, 3 admin, 4 owner (the Owners team only).
  access_mode               smallint    NOT NULL CONSTRAINT teams_access_mode_check CHECK (access_mode BETWEEN 0 AND 4),
  includes_all_repositories boolean     NOT NULL DEFAULT false,
  can_create_org_repo       boolean     NOT NULL DEFAULT false,
  created_at                timestamptz NOT NULL DEFAULT now(),
  updated_at                timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT teams_lower_name_check CHECK (lower_name = lower(name)),
  CONSTRAINT teams_org_id_lower_name_key UNIQUE (org_id, lower_name),
  -- For team_users and team_repos to name the team's organization with it.
  CONSTRAINT teams_id_org_id_key UNIQUE (id, org_id)
);
-- One Owners team per organization.
CREATE UNIQUE INDEX teams_owner_team_key ON teams (org_id) WHERE access_mode = 4;

-- What a team may do per repository unit (Gitea's unit types 1..10).
CREATE TABLE team_units (
  team_id     bigint   NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  type        smallint NOT NULL,
  access_mode smallint NOT NULL CONSTRAINT team_units_access_mode_check CHECK (access_mode BETWEEN 0 AND 4),
  PRIMARY KEY (team_id, type)
);

CREATE TABLE team_users (
  team_id bigint NOT NULL,
  org_id  bigint NOT NULL,
  uid     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (team_id, uid),
  FOREIGN KEY (team_id, org_id) REFERENCES teams (id, org_id) ON DELETE CASCADE
);
CREATE INDEX team_users_org_id_uid_idx ON team_users (org_id, uid);
CREATE INDEX team_users_uid_idx ON team_users (uid);

-- Repositories a team reaches (repository ids owned by the repos service); empty until repositories exist.
CREATE TABLE team_repos (
  team_id bigint NOT NULL,
  org_id  bigint NOT NULL,
  repo_id bigint NOT NULL,
  PRIMARY KEY (team_id, repo_id),
  FOREIGN KEY (team_id, org_id) REFERENCES teams (id, org_id) ON DELETE CASCADE
);
CREATE INDEX team_repos_repo_id_idx ON team_repos (repo_id);
