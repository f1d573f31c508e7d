/** The part of autocannon 9's API the harness uses (the package ships no type declarations). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      connections?: number;
      pipelining?: number;
      /** Seconds. */
      duration?: number;
      /** Responses whose body differs are counted in `mismatches`. */
      expectBody?: string;
    }

    interface Result {
      /** Seconds, rounded to 10 ms. */
      duration: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter {
      stop(): void;
      /** Every response: the connection, its status, its size in bytes, its latency in milliseconds. */
      on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, latencyMs: number) => void): this;
      on(event: 'done', listener: (result: Result) => void): this;
      on(event: string, listener: (...args: unknown[]) => void): this;
    }
  }

  function autocannon(options: autocannon.Options, callback?: (error: Error | null, result: autocannon.Result) => void): autocannon.Instance;
  export = autocannon;
}
