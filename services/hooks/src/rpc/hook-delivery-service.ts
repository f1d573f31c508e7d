// CONTRACT STUB (helper B replaces): HookDeliveryService.
import { CairnError } from '@cairn/rpc';
import type { HookDeliveryServiceService } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import type { HooksContext } from './context';

export function createHookDeliveryService(_context: HooksContext): AsyncServiceOf<typeof HookDeliveryServiceService> {
  const no = () => Promise.reject(CairnError.internal('not built yet'));
  return { listHookDeliveries: no, redeliverHookDelivery: no };
}
