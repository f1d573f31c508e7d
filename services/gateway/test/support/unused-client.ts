/**
 * A client for a service a gateway test does not exercise: every method rejects with UNAVAILABLE (what a dead
 * service answers), so a route that reaches it by mistake fails loudly as a 503.
 */
import { CairnError } from '@cairn/rpc';

export function unusedClient<T extends object>(service: string): T {
  return new Proxy({} as T, {
    get: (_target, method) =>
      method === 'then' ? undefined : () => Promise.reject(CairnError.unavailable(`${service} is not part of this test (${String(method)})`)),
  });
}
