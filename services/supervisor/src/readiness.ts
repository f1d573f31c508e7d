/** Waiting for the system to serve: `GET /api/v1/version` answering 200 is the readiness signal (RUN-CONTRACT.md). */

export class StartAbortedError extends Error {
  override name = 'StartAbortedError';
  constructor() {
    super('start-up was interrupted by a stop request');
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new StartAbortedError();
}

/** Settles with `promise`, or rejects with StartAbortedError as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  throwIfAborted(signal);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new StartAbortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Status of one GET, or undefined when nothing answered. */
async function probe(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  }
}

/** Polls `url` until it answers 200; rejects after `timeoutMs` naming the last answer, or on abort. */
export async function waitForHttpOk(url: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
  const giveUpAt = Date.now() + options.timeoutMs;
  let last: number | undefined;
  for (;;) {
    throwIfAborted(options.signal);
    last = await probe(url);
    if (last === 200) return;
    if (Date.now() >= giveUpAt) break;
    await sleep(100);
  }
  const answer = last === undefined ? 'no answer' : `last answer ${last}`;
  throw new Error(`${url} did not answer 200 within ${options.timeoutMs} ms (${answer})`);
}

/** The URL to reach an HTTP server bound to `host:port` from this machine. */
export function localHttpUrl(host: string, port: number): string {
  const wildcard = ['', '0.0.0.0', '::', '[::]', '*', 'localhost'];
  if (wildcard.includes(host)) return `http://127.0.0.1:${port}`;
  return host.includes(':') && !host.startsWith('[') ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}
