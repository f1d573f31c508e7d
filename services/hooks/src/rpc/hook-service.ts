// CONTRACT STUB (helper A replaces): HookService's CRUD RPCs.
import { CairnError } from '@cairn/rpc';
import type { HookServiceService } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import type { HooksContext } from './context';

export function createHookService(_context: HooksContext): Omit<AsyncServiceOf<typeof HookServiceService>, 'testHook'> {
  const no = () => Promise.reject(CairnError.internal('not built yet'));
  return { createHook: no, listHooks: no, getHook: no, editHook: no, deleteHook: no };
}
