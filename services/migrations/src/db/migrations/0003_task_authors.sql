-- The source authors an item import has matched to local users by e-mail (source name → {id, login}): comment
-- posters and reactions show no e-mail and are mapped through these names, so a resumed import (another claim, a new
-- process) starts from what the first claim learned and maps authors as an import without a crash does.
ALTER TABLE migration_tasks ADD COLUMN authors jsonb NOT NULL DEFAULT '{}';
