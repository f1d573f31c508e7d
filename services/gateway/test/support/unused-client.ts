/**
 * A client for a service a gateway test does not exercise: every method but those `answers` gives rejects with
 * UNAVAILABLE (what a dead service answers), so a route that reaches it by mistake fails loudly as a 503.
 */
import { CairnError } from '@cairn/rpc';

export function unusedClient<T extends object>(service: string, answers: Partial<T> = {}): T {
  return new Proxy(answers as T, {
    get: (target, method) =>
      method === 'then'
        ? undefined
        : ((target as Record<PropertyKey, unknown>)[method] ??
          (() => Promise.reject(CairnError.unavailable(`${service} is not part of this test (${String(method)})`)))),
  });
}
