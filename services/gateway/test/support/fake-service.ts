/**
 * A service client whose answers a test sets per method (`answers.getPull = async (request) => …`) and which records
 * every request; a method without an answer fails with INTERNAL, so a route that calls something unexpected shows
 * up as a 500. For services whose rules are tested in their own service (the gateway tests the HTTP side).
 */
import { CairnError } from '@cairn/rpc';


export class FakeService<T extends object> {
  readonly requests: Record<string, unknown[]> = {};
  /** The call options (deadline, signal) of each request, in the same order. */
  readonly options: Record<string, unknown[]> = {};
  readonly answers: Partial<T> = {};
  readonly client: T;

  constructor(readonly name: string) {
    this.client = new Proxy({} as T, {
      get: (_target, method) => {
        if (typeof method !== 'string' || method === 'then') return undefined;
        // Not async: a streaming method answers an async iterable, not a promise.
        return (request: unknown, options?: unknown) => {
          (this.requests[method] ??= []).push(request);
          (this.options[method] ??= []).push(options);
          const answer = (this.answers as Record<string, ((request: unknown) => unknown) | undefined>)[method];
          if (answer === undefined) return Promise.reject(CairnError.internal(`the fake ${name} has no answer for ${method}`));
          return answer(request);
        };
      },
    });
  }

  /** The requests made to `method`, in order. */
  calls<R = unknown>(method: keyof T & string): R[] {
    return (this.requests[method] ?? []) as R[];
  }

  reset(): void {
    for (const method of Object.keys(this.requests)) delete this.requests[method];
    for (const method of Object.keys(this.options)) delete this.options[method];
    for (const method of Object.keys(this.answers)) delete (this.answers as Record<string, unknown>)[method];
  }
}
