// CONTRACT STUB (helper D replaces): TestHook.
import { CairnError } from '@cairn/rpc';
import type { HookServiceService } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import type { HooksContext } from './context';

export function createTestHook(_context: HooksContext): AsyncServiceOf<typeof HookServiceService>['testHook'] {
  return () => Promise.reject(CairnError.internal('not built yet'));
}
