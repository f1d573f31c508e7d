/** One load run with autocannon, every response's latency kept, anything but a 200 counted. */
import autocannon from 'autocannon';
import type { BenchRequest } from './scenarios/types';
import type { CheckedRun } from './stats';

export interface LoadOptions {
  url: string;
  request: BenchRequest;
  connections: number;
  pipelining: number;
  durationSec: number;
  /** Every response body must be exactly this (checked by autocannon, counted in `mismatches`). */
  expectBody: string;
  signal: AbortSignal;
}

export function runLoad(options: LoadOptions): Promise<CheckedRun> {
  options.signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const latenciesMs: number[] = [];
    const statuses: Record<string, number> = {};
    let responses = 0;
    let instance: autocannon.Instance | undefined;
    // Declared before autocannon starts: it may call back at once (bad options).
    const stop = (): void => instance?.stop();
    const startedAt = process.hrtime.bigint();
    instance = autocannon(
      {
        url: `${options.url}${options.request.path}`,
        method: options.request.method,
        headers: { ...options.request.headers },
        body: options.request.body,
        connections: options.connections,
        pipelining: options.pipelining,
        duration: options.durationSec,
        expectBody: options.expectBody,
      },
      (error, result) => {
        options.signal.removeEventListener('abort', stop);
        if (error !== null) return reject(error);
        if (options.signal.aborted) return reject(options.signal.reason);
        const durationSec = Number(process.hrtime.bigint() - startedAt) / 1e9;
        resolve({
          responses,
          durationSec,
          latenciesMs,
          statuses,
          errors: result.errors,
          timeouts: result.timeouts,
          mismatches: result.mismatches,
        });
      },
    );
    options.signal.addEventListener('abort', stop, { once: true });
    instance.on('response', (_client, statusCode, _bytes, latencyMs) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (statusCode === 200) {
        responses++;
        latenciesMs.push(latencyMs);
      }
    });
  });
}
