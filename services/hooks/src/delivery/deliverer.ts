// CONTRACT STUB (helper B replaces): the deliverer loop.
import type { HooksContext } from '../rpc/context';

export interface Deliverer {
  /** Wakes the loop now (new tasks were committed) instead of at its next poll. */
  wake(): void;
  stop(): Promise<void>;
}

export function startDeliverer(_context: HooksContext): Deliverer {
  return { wake() {}, stop: () => Promise.resolve() };
}
