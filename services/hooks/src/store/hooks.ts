/**
 * The `hooks` table: webhook definitions of every scope. Every read and write names the scope and its owner, so a
 * hook id of another repository, organization or user is not found (Gitea's GetWebhookByRepoID/ByOwnerID).
 */
import { sql, z, type CommonQueryMethods } from '@cairn/db';
import type { HookDefinition } from '../domain/hook-options';
import type { HookPlace, HookScopeName } from '../domain/hook-places';

export interface StoredHook extends HookDefinition {
  id: number;
  scope: HookScopeName;
  repoId: number | null;
  ownerId: number | null;
  created: Date;
  updated: Date;
}

const hookRow = z.object({
  id: z.number(),
  scope: z.enum(['repository', 'organization', 'user', 'system', 'default']),
  repo_id: z.number().nullable(),
  owner_id: z.number().nullable(),
  type: z.string(),
  name: z.string(),
  url: z.string(),
  http_method: z.string(),
  content_type: z.string(),
  secret: z.string(),
  meta: z.record(z.string()),
  events: z.array(z.string()),
  branch_filter: z.string(),
  authorization_header: z.string(),
  active: z.boolean(),
  created_at: z.date(),
  updated_at: z.date(),
});
type HookColumns = z.infer<typeof hookRow>;

const COLUMNS = sql.fragment`id, scope, repo_id, owner_id, type, name, url, http_method, content_type, secret, meta, events,
  branch_filter, authorization_header, active, created_at, updated_at`;

function toHook(row: HookColumns): StoredHook {
  return {
    id: row.id,
    scope: row.scope,
    repoId: row.repo_id,
    ownerId: row.owner_id,
    type: row.type,
    name: row.name,
    url: row.url,
    httpMethod: row.http_method,
    contentType: row.content_type,
    secret: row.secret,
    meta: row.meta,
    events: row.events,
    branchFilter: row.branch_filter,
    authorizationHeader: row.authorization_header,
    active: row.active,
    created: row.created_at,
    updated: row.updated_at,
  };
}

/** The condition selecting the hooks of one place (`IS NOT DISTINCT FROM`: system and default hooks have no ids). */
function placeCondition(place: HookPlace) {
  return sql.fragment`scope = ${place.scope} AND repo_id IS NOT DISTINCT FROM ${place.repoId ?? null}::int8
    AND owner_id IS NOT DISTINCT FROM ${place.ownerId ?? null}::int8`;
}

/** Several places at once (the admin list of system and default hooks). */
function placesCondition(places: readonly HookPlace[]) {
  return sql.join(
    places.map((place) => sql.fragment`(${placeCondition(place)})`),
    sql.fragment` OR `,
  );
}

/** One page of the places' hooks (all of them without a window), oldest first, and how many they have. */
export async function listHooks(
  db: CommonQueryMethods,
  places: readonly HookPlace[],
  window: { offset: number; limit: number } | undefined,
): Promise<{ hooks: StoredHook[]; total: number }> {
  const where = placesCondition(places);
  const page = window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
  const rows = await db.any(sql.type(hookRow)`SELECT ${COLUMNS} FROM hooks WHERE ${where} ORDER BY id ${page}`);
  // A scope holds a handful of hooks: counting them is bounded.
  const total = await db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM hooks WHERE ${where}`);
  return { hooks: rows.map(toHook), total };
}

/** Hook `id` if it is one of the places' hooks; `forUpdate` locks its row until the transaction ends. */
export async function findHook(db: CommonQueryMethods, places: readonly HookPlace[], id: number, options: { forUpdate?: boolean } = {}): Promise<StoredHook | undefined> {
  const lock = options.forUpdate === true ? sql.fragment`FOR UPDATE` : sql.fragment``;
  const row = await db.maybeOne(sql.type(hookRow)`SELECT ${COLUMNS} FROM hooks WHERE id = ${id} AND (${placesCondition(places)}) ${lock}`);
  return row === null ? undefined : toHook(row);
}

export async function insertHook(db: CommonQueryMethods, place: HookPlace, hook: HookDefinition): Promise<StoredHook> {
  const row = await db.one(sql.type(hookRow)`
    INSERT INTO hooks (scope, repo_id, owner_id, type, name, url, http_method, content_type, secret, meta, events, branch_filter,
      authorization_header, active)
    VALUES (${place.scope}, ${place.repoId ?? null}, ${place.ownerId ?? null}, ${hook.type}, ${hook.name}, ${hook.url},
      ${hook.httpMethod}, ${hook.contentType}, ${hook.secret}, ${sql.jsonb(hook.meta)}, ${sql.array(hook.events, 'text')},
      ${hook.branchFilter}, ${hook.authorizationHeader}, ${hook.active})
    RETURNING ${COLUMNS}
  `);
  return toHook(row);
}

/** Rewrites hook `id` of the places; undefined when they have no such hook. */
export async function updateHook(db: CommonQueryMethods, places: readonly HookPlace[], id: number, hook: HookDefinition): Promise<StoredHook | undefined> {
  const row = await db.maybeOne(sql.type(hookRow)`
    UPDATE hooks
    SET name = ${hook.name}, url = ${hook.url}, http_method = ${hook.httpMethod},
        content_type = ${hook.contentType}, secret = ${hook.secret}, meta = ${sql.jsonb(hook.meta)},
        events = ${sql.array(hook.events, 'text')}, branch_filter = ${hook.branchFilter},
        authorization_header = ${hook.authorizationHeader}, active = ${hook.active}, updated_at = now()
    WHERE id = ${id} AND (${placesCondition(places)})
    RETURNING ${COLUMNS}
  `);
  return row === null ? undefined : toHook(row);
}

/** Deletes hook `id` of the places (its tasks go with it); false when they have none. */
export async function deleteHook(db: CommonQueryMethods, places: readonly HookPlace[], id: number): Promise<boolean> {
  const result = await db.query(sql.unsafe`DELETE FROM hooks WHERE id = ${id} AND (${placesCondition(places)})`);
  return result.rowCount > 0;
}
