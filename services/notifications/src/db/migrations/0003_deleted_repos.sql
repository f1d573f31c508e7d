-- A deleted repository's activity is forgotten with it (Gitea deletes its actions). Its id is kept so that a push
-- event arriving after the deletion (another stream: nothing orders the two) adds none back; ids are never reused.
CREATE TABLE deleted_repos (
  repo_id bigint PRIMARY KEY
);
-- Forgetting a repository finds its buckets without reading every user's.
CREATE INDEX activity_buckets_repo_id ON activity_buckets (repo_id);
