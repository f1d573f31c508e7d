-- Users' activity, aggregated as it arrives from events so the heatmap never scans raw rows: one row per
-- user, 15-minute bucket and repository, counting the user's contributions there (Gitea's actions).
CREATE TABLE activity_buckets (
  user_id       bigint      NOT NULL,
  -- Start of the bucket (unix time a multiple of 900).
  bucket        timestamptz NOT NULL CHECK (extract(epoch FROM bucket)::bigint % 900 = 0),
  repo_id       bigint      NOT NULL,
  -- The repository was private when (any of) the activity happened (Gitea's action.is_private).
  is_private    boolean     NOT NULL,
  contributions integer     NOT NULL CHECK (contributions > 0),
  -- Bucket before repository: a heatmap is one range scan of the key (user, last 373 days).
  PRIMARY KEY (user_id, bucket, repo_id)
);
