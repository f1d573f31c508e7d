/**
 * Fan-out's reads and writes: the hooks that may see an event of a repository, its payload row (one per event and
 * event type) and one task per hook that wants it; default hooks copied to a new repository.
 */
import { uuidFromName } from '@cairn/bus';
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { MatchableHook } from '../domain/event-match';
import { type DueTask, taskHookRow, toDueTask } from './tasks';

/** Where an event happened: its repository and that repository's owner. */
export interface EventPlace {
  repoId: number;
  ownerId: number;
  /**
   * Whether the repository's own hooks see it: not for a deleted repository (Gitea deletes its hooks and their
   * tasks with it, so only the owner's and system hooks deliver `repository` `deleted`).
   */
  withRepoHooks: boolean;
}

export interface CandidateHook extends MatchableHook {
  id: number;
}

const candidateRow = z.object({ id: z.number(), type: z.string(), events: z.array(z.string()), branch_filter: z.string() });

/**
 * The active hooks that may see an event of the place (Gitea's PrepareWebhooks: the repository's hooks, the owner's
 * hooks — an organization's or a user's — and system hooks). Nobody else's: a private repository's events reach only
 * hooks its owner or the site administrator set up.
 */
export async function activeHooksAt(db: CommonQueryMethods, place: EventPlace): Promise<CandidateHook[]> {
  const rows = await db.any(sql.type(candidateRow)`
    SELECT id, type, events, branch_filter FROM hooks
    WHERE active AND (
      (scope = 'repository' AND repo_id = ${place.repoId} AND ${place.withRepoHooks})
      OR (scope IN ('organization', 'user') AND owner_id = ${place.ownerId})
      OR scope = 'system')
    ORDER BY id`);
  return rows.map((row) => ({ id: row.id, type: row.type, events: row.events, branchFilter: row.branch_filter }));
}

/**
 * A payload's delivery id, from its event and event type alone: the public stream's ce-id (and Nats-Msg-Id) and the
 * X-Gitea-Delivery of its first delivery to every hook, so a consumer can match the two, and a payload built again
 * after a crash gets the same one.
 */
export function payloadDeliveryId(eventId: string, eventType: string): string {
  return uuidFromName(`hooks.payload:${eventId}:${eventType}`);
}

export interface PayloadRow {
  eventId: string;
  eventType: string;
  event: string;
  repoId: number | undefined;
  payload: unknown;
}

const storedPayload = z.object({ id: z.number(), payload: z.record(z.unknown()), delivery_id: z.string() });

/** A stored payload: its row id, its body as stored (jsonb's key order) and its delivery id. */
export interface StoredPayload {
  id: number;
  body: Record<string, unknown>;
  deliveryId: string;
}

/**
 * Stores the payload once per (event, event type) with its delivery id (payloadDeliveryId) and answers its row, the
 * earlier one when there is one: the body as stored, so a delivery handed over sends what a later claim of it would.
 */
export async function insertPayload(tx: DatabaseTransactionConnection, row: PayloadRow): Promise<StoredPayload> {
  const json = JSON.stringify(row.payload);
  const inserted = await tx.maybeOne(sql.type(storedPayload)`
    INSERT INTO hook_payloads (event_id, event_type, event, repo_id, payload, delivery_id)
    VALUES (${row.eventId}, ${row.eventType}, ${row.event}, ${row.repoId ?? null}, ${json}::jsonb, ${payloadDeliveryId(row.eventId, row.eventType)})
    ON CONFLICT (event_id, event_type) DO NOTHING
    RETURNING id, payload, delivery_id`);
  const stored =
    inserted ??
    (await tx.one(sql.type(storedPayload)`
      SELECT id, payload, delivery_id FROM hook_payloads WHERE event_id = ${row.eventId} AND event_type = ${row.eventType}`));
  return { id: stored.id, body: stored.payload, deliveryId: stored.delivery_id };
}

/** What insertTasks wrote: how many tasks, and those it claimed for the caller to deliver after commit. */
export interface InsertedTasks {
  count: number;
  claimed: DueTask[];
}

/**
 * One first delivery of the payload per hook, each with the payload's delivery id as its uuid (Gitea gives every
 * hook_task a uuid of its own: a departure, docs/webhooks.md); a hook that has one already gets none
 * (hook_tasks_once). The tasks of the first `claim.count` hooks are written claimed for `claim.leaseMs` with their
 * first attempt counted, as claimDueTasks would leave them: the caller hands them to its deliverer after commit (one claim transaction fewer
 * on a delivery's way), and a crash before it did lets them go to any replica once the lease lapses.
 */
export async function insertTasks(
  tx: DatabaseTransactionConnection,
  payload: StoredPayload & { event: string; eventType: string },
  hookIds: readonly number[],
  claim: { count: number; leaseMs: number } = { count: 0, leaseMs: 0 },
): Promise<InsertedTasks> {
  if (hookIds.length === 0) return { count: 0, claimed: [] };
  const rows = hookIds.map((hookId, i) => ({ uuid: payload.deliveryId, hook_id: hookId, claimed: i < claim.count }));
  const inserted = await tx.any(sql.type(taskHookRow.extend({ claimed: z.boolean() }))`
    WITH inserted AS (
      INSERT INTO hook_tasks (uuid, hook_id, payload_id, claimed_until, attempts)
      SELECT r.uuid, r.hook_id, ${payload.id},
        CASE WHEN r.claimed THEN now() + make_interval(secs => ${claim.leaseMs / 1000}) END, CASE WHEN r.claimed THEN 1 ELSE 0 END
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(uuid uuid, hook_id bigint, claimed boolean)
      ON CONFLICT (hook_id, payload_id) WHERE redelivery_of IS NULL DO NOTHING
      RETURNING id, uuid, hook_id, attempts, claimed_until IS NOT NULL AS claimed
    )
    SELECT i.id, i.uuid, i.hook_id, i.attempts, i.claimed, h.scope, h.type, h.url, h.http_method, h.content_type, h.secret,
      h.meta, h.authorization_header
    FROM inserted i JOIN hooks h ON h.id = i.hook_id
    ORDER BY i.id`);
  const claimed = inserted
    .filter((row) => row.claimed)
    .map((row) => toDueTask({ ...row, event: payload.event, event_type: payload.eventType, payload: payload.body }));
  return { count: inserted.length, claimed };
}

/**
 * Copies every default hook into a repository hook of the new repository (Gitea's CopyDefaultWebhooksToRepo, called
 * when a repository is created). Run in processOnce's transaction of cairn.repo.created, so copied once.
 */
export async function copyDefaultHooks(tx: DatabaseTransactionConnection, repoId: number): Promise<number> {
  const result = await tx.query(sql.unsafe`
    INSERT INTO hooks (scope, repo_id, type, name, url, http_method, content_type, secret, meta, events, branch_filter, authorization_header, active)
    SELECT 'repository', ${repoId}, d.type, d.name, d.url, d.http_method, d.content_type, d.secret, d.meta, d.events, d.branch_filter,
           d.authorization_header, d.active
    FROM hooks d WHERE d.scope = 'default' ORDER BY d.id`);
  return result.rowCount;
}
