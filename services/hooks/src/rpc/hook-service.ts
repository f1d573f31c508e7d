/**
 * HookService's definitions RPCs (Gitea's routers/api/v1/utils/hook.go ListOwnerHooks … DeleteOwnerHook): a hook is
 * found only in the scope named (another repository's hook id is NOT_FOUND); the checks are domain/hook-options.ts's.
 */
import { toCairnError } from '@cairn/db';
import type { Hook, HookServiceService } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { hookAfterEdit, hookFromCreate } from '../domain/hook-options';
import { listPlacesOf, lookupPlacesOf, ownerOf, placeOf } from '../domain/hook-places';
import { type StoredHook, deleteHook, findHook, insertHook, listHooks, updateHook } from '../store/hooks';
import type { HooksContext } from './context';

function hookNotFound(): CairnError {
  return CairnError.notFound('hook does not exist', { reason: 'hook_not_found' });
}

/** The API's hook: everything but the secret. */
export function toHookMessage(hook: StoredHook): Hook {
  return {
    id: hook.id,
    owner: ownerOf(hook),
    type: hook.type,
    name: hook.name,
    url: hook.url,
    httpMethod: hook.httpMethod,
    contentType: hook.contentType,
    meta: hook.meta,
    events: hook.events,
    branchFilter: hook.branchFilter,
    authorizationHeader: hook.authorizationHeader,
    active: hook.active,
    created: hook.created,
    updated: hook.updated,
  };
}

async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toCairnError(error);
  }
}

export function createHookService(context: HooksContext): Omit<AsyncServiceOf<typeof HookServiceService>, 'testHook'> {
  const { db } = context;

  return {
    createHook: (request) =>
      guard(async () => {
        const place = placeOf(request.owner);
        const definition = hookFromCreate({
          type: request.type,
          config: request.config,
          events: request.eventsSet ? request.events : undefined,
          branchFilter: request.branchFilter,
          authorizationHeader: request.authorizationHeader,
          active: request.active,
          name: request.name,
        });
        return { hook: toHookMessage(await insertHook(db.pool, place, definition)) };
      }),

    listHooks: (request) =>
      guard(async () => {
        const places = listPlacesOf(request.owner, request.scopes);
        // No limit: the scope's every hook (a handful).
        const window = request.limit > 0 ? { limit: request.limit, offset: (Math.max(request.page, 1) - 1) * request.limit } : undefined;
        const { hooks, total } = await listHooks(db.pool, places, window);
        return { hooks: hooks.map(toHookMessage), total };
      }),

    getHook: (request) =>
      guard(async () => {
        const hook = await findHook(db.pool, lookupPlacesOf(request.owner), request.id);
        if (hook === undefined) throw hookNotFound();
        return { hook: toHookMessage(hook) };
      }),

    editHook: (request) =>
      guard(async () => {
        const places = lookupPlacesOf(request.owner);
        // Read, checked and rewritten in one transaction, so two edits of different keys both stay.
        const edited = await db.pool.transaction(async (tx) => {
          const stored = await findHook(tx, places, request.id, { forUpdate: true });
          if (stored === undefined) throw hookNotFound();
          const definition = hookAfterEdit(stored, {
            config: request.config,
            events: request.eventsSet ? request.events : undefined,
            branchFilter: request.branchFilter,
            authorizationHeader: request.authorizationHeader,
            active: request.active,
            name: request.name,
          });
          return updateHook(tx, places, request.id, definition);
        });
        if (edited === undefined) throw hookNotFound();
        return { hook: toHookMessage(edited) };
      }),

    deleteHook: (request) =>
      guard(async () => {
        if (!(await deleteHook(db.pool, lookupPlacesOf(request.owner), request.id))) throw hookNotFound();
        return {};
      }),
  };
}
