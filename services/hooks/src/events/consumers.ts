// CONTRACT STUB (helper D replaces): the durable consumers that turn events into payloads and tasks.
import type { Bus, Subscription } from '@cairn/bus';
import type { Deliverer } from '../delivery/deliverer';
import type { HooksContext } from '../rpc/context';

export function startEventConsumers(_context: HooksContext, _bus: Bus, _deliverer: Deliverer): Promise<Subscription[]> {
  return Promise.resolve([]);
}
