-- The SPDX ids of the licences found in the default branch's licence files (Gitea's repo_license table, kept as
-- a column: the API only ever reads a repository's whole list). Filled at creation and on pushes to the default
-- branch from git-storage's DetectLicenses. (Version 4: 0003 is taken by a change in flight on another branch.)
ALTER TABLE repositories ADD COLUMN licenses text[] NOT NULL DEFAULT '{}';
