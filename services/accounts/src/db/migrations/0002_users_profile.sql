-- Accounts as Gitea's `user` table holds them: individuals and organizations share one table and one
-- namespace (`type`), profile settings, and the redirects renames leave behind.
ALTER TABLE users
  -- 0: individual, 1: organization.
  ADD COLUMN type                  smallint NOT NULL DEFAULT 0 CONSTRAINT users_type_check CHECK (type IN (0, 1)),
  ADD COLUMN keep_email_private    boolean  NOT NULL DEFAULT false,
  ADD COLUMN keep_activity_private boolean  NOT NULL DEFAULT false,
  ADD COLUMN theme                 text     NOT NULL DEFAULT '',
  ADD COLUMN diff_view_style       text     NOT NULL DEFAULT '';

-- Organizations may have no e-mail; every address that is set stays unique, whatever its case.
DROP INDEX users_lower_email_key;
CREATE UNIQUE INDEX users_lower_email_key ON users (lower(email)) WHERE email <> '';

-- Searches and lists filter by type and page in name order.
CREATE INDEX users_type_lower_name_idx ON users (type, lower_name);

-- An old (lower-case) name of a renamed account → the account. A name is in at most one place: an account
-- taking it (creation or rename) removes its redirect.
CREATE TABLE user_redirects (
  lower_name       text   PRIMARY KEY,
  redirect_user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE
);
CREATE INDEX user_redirects_redirect_user_id_idx ON user_redirects (redirect_user_id);
