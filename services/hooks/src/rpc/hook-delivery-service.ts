/**
 * HookDeliveryService: a hook's delivery history and redelivery (a Cairn departure with GitHub's shape: Gitea shows
 * the history only in its web UI, routers/web/repo/setting/webhook.go ReplayWebhook). The hook must belong to the
 * owner named, as in GetHook; otherwise NOT_FOUND.
 */
import type { HookDelivery, HookDeliveryServiceService, HookOwner } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { lookupPlacesOf } from '../domain/hook-places';
import { findHook } from '../store/hooks';
import { type StoredDelivery, listDeliveries, redeliver } from '../store/tasks';
import type { HooksContext } from './context';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 50;

function hookNotFound(): CairnError {
  return CairnError.notFound('hook does not exist', { reason: 'hook_not_found' });
}

async function requireHook(context: HooksContext, owner: HookOwner | undefined, hookId: number): Promise<void> {
  if ((await findHook(context.db.pool, lookupPlacesOf(owner), hookId)) === undefined) throw hookNotFound();
}

export function toHookDelivery(delivery: StoredDelivery): HookDelivery {
  return {
    id: delivery.id,
    uuid: delivery.uuid,
    hookId: delivery.hookId,
    event: delivery.event,
    eventType: delivery.eventType,
    state: delivery.state,
    isSucceed: delivery.isSucceed,
    attempts: delivery.attempts,
    requestJson: delivery.request === null ? '' : JSON.stringify(delivery.request),
    responseJson: delivery.response === null ? '' : JSON.stringify(delivery.response),
    payloadJson: JSON.stringify(delivery.payload),
    created: delivery.created,
    delivered: delivery.delivered ?? undefined,
    redeliveryOf: delivery.redeliveryOf ?? '',
  };
}

export function createHookDeliveryService(context: HooksContext): AsyncServiceOf<typeof HookDeliveryServiceService> {
  return {
    async listHookDeliveries(request) {
      await requireHook(context, request.owner, request.hookId);
      const limit = request.limit > 0 ? Math.min(request.limit, MAX_LIMIT) : DEFAULT_LIMIT;
      const offset = (Math.max(request.page, 1) - 1) * limit;
      const { deliveries, total } = await listDeliveries(context.db.pool, request.hookId, { limit, offset });
      return { deliveries: deliveries.map(toHookDelivery), total };
    },
    async redeliverHookDelivery(request) {
      await requireHook(context, request.owner, request.hookId);
      const created = UUID.test(request.uuid) ? await redeliver(context.db.pool, request.hookId, request.uuid) : undefined;
      if (created === undefined) throw CairnError.notFound('hook delivery does not exist', { reason: 'hook_delivery_not_found' });
      context.deliverer?.wake();
      return { delivery: toHookDelivery(created) };
    },
  };
}
