-- An imported repository's source without credentials (Gitea's repository.original_url); '' for others.
ALTER TABLE repositories ADD COLUMN original_url text NOT NULL DEFAULT '';
