-- The heatmap now shows activity in the repositories the viewer may read now, as the repos service answers
-- (Gitea's heatmap ignores action.is_private too), so whether a repository was private at the time is no
-- longer kept.
ALTER TABLE activity_buckets DROP COLUMN is_private;
