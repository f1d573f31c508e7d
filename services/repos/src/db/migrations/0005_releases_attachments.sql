-- Releases and attachments (Gitea's release and attachment tables). A plain git tag has no row here: tags are
-- git-storage's, and a release is only what someone created as one (Gitea's tag-only `is_tag` rows are not kept).

CREATE TABLE releases (
  id            bigserial   PRIMARY KEY,
  repo_id       bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  tag_name      text        NOT NULL,
  -- The branch or commit the tag was (or will be, for a draft) created on: Gitea's `target`.
  target        text        NOT NULL DEFAULT '',
  title         text        NOT NULL DEFAULT '',
  note          text        NOT NULL DEFAULT '',
  publisher_id  bigint      NOT NULL,
  is_draft      boolean     NOT NULL DEFAULT false,
  is_prerelease boolean     NOT NULL DEFAULT false,
  -- The commit the tag points at; '' for a draft (no tag until published).
  sha           text        NOT NULL DEFAULT '',
  -- Gitea's created_unix: creation, or publication of a draft.
  created       timestamptz NOT NULL DEFAULT now(),
  updated       timestamptz NOT NULL DEFAULT now()
);
-- One release per tag, compared without case as Gitea's lower_tag_name.
CREATE UNIQUE INDEX releases_repo_tag_key ON releases (repo_id, lower(tag_name));
CREATE INDEX releases_repo_created_idx ON releases (repo_id, created DESC, id DESC);

-- Attachments' metadata; the bytes are in the object store under `uuid`. A release attachment goes with its
-- release and its repository (cascades); an issue or comment attachment names the issues service's ids (no foreign
-- key across schemas).
CREATE TABLE attachments (
  id             bigserial   PRIMARY KEY,
  uuid           uuid        NOT NULL CONSTRAINT attachments_uuid_key UNIQUE,
  repo_id        bigint      NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  release_id     bigint      REFERENCES releases (id) ON DELETE CASCADE,
  issue_id       bigint,
  comment_id     bigint,
  uploader_id    bigint      NOT NULL,
  name           text        NOT NULL,
  size           bigint      NOT NULL,
  download_count bigint      NOT NULL DEFAULT 0,
  created        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT attachments_one_parent CHECK ((release_id IS NULL) <> (issue_id IS NULL)),
  CONSTRAINT attachments_comment_of_issue CHECK (comment_id IS NULL OR issue_id IS NOT NULL)
);
CREATE INDEX attachments_release_idx ON attachments (release_id, id) WHERE release_id IS NOT NULL;
CREATE INDEX attachments_issue_idx ON attachments (repo_id, issue_id, comment_id, id) WHERE issue_id IS NOT NULL;

-- Bytes waiting to be removed from the object store. Every way an attachment row goes (its own deletion, its
-- release's, its repository's, cascades included) records its uuid here in the same transaction (the trigger below),
-- and the purger removes the object after commit and then the row, retrying with back-off: a rolled-back deletion
-- never loses bytes and a committed one never leaves them behind.
CREATE TABLE attachment_purges (
  uuid       uuid        PRIMARY KEY,
  not_before timestamptz NOT NULL DEFAULT now(),
  attempts   integer     NOT NULL DEFAULT 0,
  created    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX attachment_purges_not_before_idx ON attachment_purges (not_before);

CREATE FUNCTION attachments_purge_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Qualified by the table's own schema: the service's schema name is configured, not fixed.
  EXECUTE format('INSERT INTO %I.attachment_purges (uuid) VALUES ($1) ON CONFLICT DO NOTHING', TG_TABLE_SCHEMA) USING OLD.uuid;
  RETURN OLD;
END
$$;
CREATE TRIGGER attachments_purge_bytes AFTER DELETE ON attachments FOR EACH ROW EXECUTE FUNCTION attachments_purge_bytes();
