-- The public event stream (issue 19): each payload has one delivery id, deterministic from its event and event type
-- (hooks.payload:<event_id>:<event_type>, @cairn/bus uuidFromName). It is the stream message's ce-id and the uuid
-- (X-Gitea-Delivery) of the payload's first delivery to EVERY hook, so a task's uuid is unique per hook only.
-- Payloads stored before this had their tasks' own uuids: they get a random delivery id of their own.
ALTER TABLE hook_payloads ADD COLUMN delivery_id uuid;
UPDATE hook_payloads SET delivery_id = gen_random_uuid();
ALTER TABLE hook_payloads ALTER COLUMN delivery_id SET NOT NULL;

ALTER TABLE hook_tasks DROP CONSTRAINT hook_tasks_uuid_key;
CREATE UNIQUE INDEX hook_tasks_hook_uuid ON hook_tasks (hook_id, uuid);
