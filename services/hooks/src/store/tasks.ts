/**
 * The `hook_tasks` table (0001_hooks.sql, 0002_delivery_ids.sql): claiming due deliveries, recording each attempt,
 * the history a hook's owner reads, redelivery and cancelling. A task keeps its uuid (X-Gitea-Delivery) over every
 * attempt; a first delivery's is its payload's delivery id, the same for every hook, so a task is found by its hook
 * and uuid. A claim is a lease (`claimed_until`), so a replica that dies mid-attempt lets the task go to another once
 * the lease lapses.
 */
import { randomUUID } from 'node:crypto';
import { sql, z, type CommonQueryMethods } from '@cairn/db';
import type { HookScopeName } from '../domain/hook-places';

/** Gitea's HookRequest (models/webhook/hooktask.go). */
export type HookRequestInfo = {
  url: string;
  http_method: string;
  headers: Record<string, string>;
};

/** Gitea's HookResponse (models/webhook/hooktask.go); status 0 when no answer came (refused, unreachable, timeout). */
export type HookResponseInfo = {
  status: number;
  headers: Record<string, string>;
  body: string;
};


const dueRow = z.object({
  id: z.number(),
  uuid: z.string(),
  hook_id: z.number(),
  attempts: z.number(),
  scope: z.enum(['repository', 'organization', 'user', 'system', 'default']),
  type: z.string(),
  url: z.string(),
  http_method: z.string(),
  content_type: z.enum(['json', 'form']),
  secret: z.string(),
  meta: z.record(z.string()),
  authorization_header: z.string(),
  event: z.string(),
  event_type: z.string(),
  payload: z.record(z.unknown()),
});
/** A claimed task's row: the task, its hook and its payload. */
export type DueRow = z.infer<typeof dueRow>;
/** The same without the payload's columns, for tasks whose payload the caller holds (fan-out hands them over). */
export const taskHookRow = dueRow.omit({ event: true, event_type: true, payload: true });

/** A claimed task with what its attempt needs; `attempts` already counts this attempt. */
export interface DueTask {
  id: number;
  uuid: string;
  hookId: number;
  attempts: number;
  hook: {
    scope: HookScopeName;
    type: string;
    url: string;
    httpMethod: string;
    contentType: 'json' | 'form';
    secret: string;
    meta: Record<string, string>;
    authorizationHeader: string;
  };
  event: string;
  eventType: string;
  payload: Record<string, unknown>;
}

export function toDueTask(row: DueRow): DueTask {
  return {
    id: row.id,
    uuid: row.uuid,
    hookId: row.hook_id,
    attempts: row.attempts,
    hook: {
      scope: row.scope,
      type: row.type,
      url: row.url,
      httpMethod: row.http_method,
      contentType: row.content_type,
      secret: row.secret,
      meta: row.meta,
      authorizationHeader: row.authorization_header,
    },
    event: row.event,
    eventType: row.event_type,
    payload: row.payload,
  };
}

/**
 * Claims up to `limit` due tasks for `leaseMs`: pending, due, and not held by a live claim. SKIP LOCKED lets replicas
 * claim side by side without waiting on each other's rows.
 */
export async function claimDueTasks(db: CommonQueryMethods, limit: number, leaseMs: number): Promise<DueTask[]> {
  const rows = await db.any(sql.type(dueRow)`
    WITH due AS (
      SELECT id FROM hook_tasks
      WHERE state = 'pending' AND next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
      ORDER BY next_attempt_at, id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE hook_tasks t
      SET claimed_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = t.attempts + 1
      FROM due WHERE t.id = due.id
      RETURNING t.id, t.uuid, t.hook_id, t.payload_id, t.attempts
    )
    SELECT c.id, c.uuid, c.hook_id, c.attempts, h.scope, h.type, h.url, h.http_method, h.content_type, h.secret, h.meta,
      h.authorization_header, p.event, p.event_type, p.payload
    FROM claimed c JOIN hooks h ON h.id = c.hook_id JOIN hook_payloads p ON p.id = c.payload_id
    ORDER BY c.id`);
  return rows.map(toDueTask);
}

/** How an attempt ended. */
export type AttemptOutcome =
  | { kind: 'delivered' }
  /** Tried again after `retryInMs`. */
  | { kind: 'retry'; retryInMs: number }
  /** No attempt left (or none would help). */
  | { kind: 'failed' };

/**
 * Records the attempt `task.attempts` of a task. The attempt count is the claim's fencing token: if the lease lapsed
 * and another replica claimed the task meanwhile, this (stale) outcome changes nothing. `delivered_at` is the time of
 * the last attempt, as Gitea's HookTask.Delivered. Returns whether the outcome was recorded.
 */
export async function recordAttempt(
  db: CommonQueryMethods,
  task: Pick<DueTask, 'id' | 'attempts'>,
  outcome: AttemptOutcome,
  request: HookRequestInfo | null,
  response: HookResponseInfo,
): Promise<boolean> {
  const state = outcome.kind === 'retry' ? 'pending' : outcome.kind;
  const nextAttempt = outcome.kind === 'retry' ? sql.fragment`now() + make_interval(secs => ${outcome.retryInMs / 1000})` : sql.fragment`next_attempt_at`;
  const result = await db.query(sql.unsafe`
    UPDATE hook_tasks
    SET state = ${state}, is_succeed = ${outcome.kind === 'delivered'}, claimed_until = NULL, next_attempt_at = ${nextAttempt},
      request_info = ${request === null ? null : sql.jsonb(request)},
      response_info = ${sql.jsonb(response)}, delivered_at = now()
    WHERE id = ${task.id} AND attempts = ${task.attempts} AND state = 'pending'`);
  return result.rowCount === 1;
}

/**
 * Gives a claimed task back without counting the attempt (its host's circuit is open): due again after `delayMs`.
 */
export async function postponeTask(db: CommonQueryMethods, task: Pick<DueTask, 'id' | 'attempts'>, delayMs: number): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE hook_tasks
    SET attempts = attempts - 1, claimed_until = NULL, next_attempt_at = now() + make_interval(secs => ${delayMs / 1000})
    WHERE id = ${task.id} AND attempts = ${task.attempts} AND state = 'pending'`);
}

/** Cancels every pending task (`[security] DISABLE_WEB_HOOKS`); returns how many. */
export async function cancelPendingTasks(db: CommonQueryMethods): Promise<number> {
  const result = await db.query(sql.unsafe`UPDATE hook_tasks SET state = 'cancelled', claimed_until = NULL WHERE state = 'pending'`);
  return result.rowCount;
}

const deliveryRow = z.object({
  id: z.number(),
  uuid: z.string(),
  hook_id: z.number(),
  event: z.string(),
  event_type: z.string(),
  state: z.enum(['pending', 'delivered', 'failed', 'cancelled']),
  is_succeed: z.boolean(),
  attempts: z.number(),
  request_info: z.custom<HookRequestInfo>().nullable(),
  response_info: z.custom<HookResponseInfo>().nullable(),
  payload: z.record(z.unknown()),
  created_at: z.date(),
  delivered_at: z.date().nullable(),
  redelivery_of: z.string().nullable(),
});

export interface StoredDelivery {
  id: number;
  uuid: string;
  hookId: number;
  event: string;
  eventType: string;
  state: 'pending' | 'delivered' | 'failed' | 'cancelled';
  isSucceed: boolean;
  attempts: number;
  request: HookRequestInfo | null;
  response: HookResponseInfo | null;
  payload: Record<string, unknown>;
  created: Date;
  delivered: Date | null;
  redeliveryOf: string | null;
}

function toDelivery(row: z.infer<typeof deliveryRow>): StoredDelivery {
  return {
    id: row.id,
    uuid: row.uuid,
    hookId: row.hook_id,
    event: row.event,
    eventType: row.event_type,
    state: row.state,
    isSucceed: row.is_succeed,
    attempts: row.attempts,
    request: row.request_info,
    response: row.response_info,
    payload: row.payload,
    created: row.created_at,
    delivered: row.delivered_at,
    redeliveryOf: row.redelivery_of,
  };
}

const DELIVERY_COLUMNS = sql.fragment`t.id, t.uuid, t.hook_id, p.event, p.event_type, t.state, t.is_succeed, t.attempts, t.request_info,
  t.response_info, p.payload, t.created_at, t.delivered_at, t.redelivery_of`;

/** A hook's deliveries, newest first (index hook_tasks_history), and how many it has. */
export async function listDeliveries(db: CommonQueryMethods, hookId: number, window: { offset: number; limit: number }): Promise<{ deliveries: StoredDelivery[]; total: number }> {
  const rows = await db.any(sql.type(deliveryRow)`
    SELECT ${DELIVERY_COLUMNS} FROM hook_tasks t JOIN hook_payloads p ON p.id = t.payload_id
    WHERE t.hook_id = ${hookId} ORDER BY t.id DESC LIMIT ${window.limit} OFFSET ${window.offset}`);
  const total = await db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM hook_tasks WHERE hook_id = ${hookId}`);
  return { deliveries: rows.map(toDelivery), total };
}

/**
 * Delivers `uuid` of `hookId` again: a new task (new uuid, due now) with the same payload, pointing at the one it
 * repeats. undefined when the hook has no such delivery.
 */
export async function redeliver(db: CommonQueryMethods, hookId: number, uuid: string): Promise<StoredDelivery | undefined> {
  const row = await db.maybeOne(sql.type(deliveryRow)`
    WITH created AS (
      INSERT INTO hook_tasks (uuid, hook_id, payload_id, redelivery_of)
      SELECT ${randomUUID()}, hook_id, payload_id, uuid FROM hook_tasks WHERE hook_id = ${hookId} AND uuid = ${uuid}
      RETURNING *
    )
    SELECT ${DELIVERY_COLUMNS} FROM created t JOIN hook_payloads p ON p.id = t.payload_id`);
  return row === null ? undefined : toDelivery(row);
}
