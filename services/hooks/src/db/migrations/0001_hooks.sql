-- Webhook definitions (Gitea's models/webhook webhook table), one row per hook of any scope.
CREATE TABLE hooks (
  id bigserial PRIMARY KEY,
  scope text NOT NULL CHECK (scope IN ('repository', 'organization', 'user', 'system', 'default')),
  -- The repository of a repository hook.
  repo_id bigint,
  -- The organization or user of an organization or user hook.
  owner_id bigint,
  type text NOT NULL,
  name text NOT NULL DEFAULT '',
  url text NOT NULL,
  http_method text NOT NULL DEFAULT 'POST',
  content_type text NOT NULL DEFAULT 'json' CHECK (content_type IN ('json', 'form')),
  -- Never answered by the API; signs deliveries.
  secret text NOT NULL DEFAULT '',
  -- The type's own settings (slack channel, matrix room, …), as the API's config keys.
  meta jsonb NOT NULL DEFAULT '{}',
  -- Event names as the API takes them (push, create, issues, issue_comment, pull_request, …).
  events text[] NOT NULL DEFAULT '{push}',
  branch_filter text NOT NULL DEFAULT '',
  authorization_header text NOT NULL DEFAULT '',
  active boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((scope = 'repository') = (repo_id IS NOT NULL)),
  CHECK ((scope IN ('organization', 'user')) = (owner_id IS NOT NULL))
);
CREATE INDEX hooks_repo ON hooks (repo_id) WHERE repo_id IS NOT NULL;
CREATE INDEX hooks_owner ON hooks (owner_id) WHERE owner_id IS NOT NULL;
CREATE INDEX hooks_instance ON hooks (scope) WHERE scope IN ('system', 'default');

-- Each event's payload, built once and shared by every hook that wants it (Gitea's payloads are per task; one row
-- here serves them all). One event may give several payloads (a push: push, create, delete).
CREATE TABLE hook_payloads (
  id bigserial PRIMARY KEY,
  -- The internal event it was built from (its meta.event_id) and the fine event type (X-Gitea-Event-Type).
  event_id text NOT NULL,
  event_type text NOT NULL,
  -- The coarse event name (X-Gitea-Event).
  event text NOT NULL,
  repo_id bigint,
  -- Gitea's payload (the gitea/gogs format); other hook types' bodies are rendered from it when delivered.
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, event_type)
);

-- One delivery of a payload to a hook (Gitea's hook_task). The uuid is X-Gitea-Delivery and stays the same over
-- every attempt; a redelivery is a new task pointing at the one it repeats.
CREATE TABLE hook_tasks (
  id bigserial PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  hook_id bigint NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
  payload_id bigint NOT NULL REFERENCES hook_payloads (id),
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0,
  -- When a replica may next try it; a replica trying it holds it until claimed_until (a crash lets it go).
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  claimed_until timestamptz,
  is_succeed boolean NOT NULL DEFAULT false,
  -- The last attempt (Gitea's HookRequest / HookResponse).
  request_info jsonb,
  response_info jsonb,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  redelivery_of uuid
);
-- One first delivery per hook and payload: fanning an event out again (a redelivered event) adds nothing.
CREATE UNIQUE INDEX hook_tasks_once ON hook_tasks (hook_id, payload_id) WHERE redelivery_of IS NULL;
CREATE INDEX hook_tasks_due ON hook_tasks (next_attempt_at) WHERE state = 'pending';
CREATE INDEX hook_tasks_history ON hook_tasks (hook_id, id DESC);
