-- A pull mirror's last sync (Gitea's mirror.updated_unix, the API's mirror_updated), recorded by migrations; NULL
-- before the first sync and for repositories that are not mirrors.
ALTER TABLE repositories ADD COLUMN mirror_updated timestamptz;
