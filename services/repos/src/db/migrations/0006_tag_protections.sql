-- Protected tags (Gitea's protected_tag table). `name_pattern` is a glob, or a regular expression between slashes;
-- it is checked to compile when written. Allow lists hold user and team ids, resolved from names when a rule is
-- written, as branch protections' do.
CREATE TABLE tag_protections (
  id                 bigserial   PRIMARY KEY,
  repo_id            bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  name_pattern       text        NOT NULL,
  allowlist_user_ids bigint[]    NOT NULL DEFAULT '{}',
  allowlist_team_ids bigint[]    NOT NULL DEFAULT '{}',
  created            timestamptz NOT NULL DEFAULT now(),
  updated            timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT tag_protections_repo_id_name_pattern_key UNIQUE (repo_id, name_pattern)
);
