/**
 * How downloaders talk to a source's HTTP API (what Gitea's downloaders get from their SDK clients and
 * base.RetryDownloader): every request through the outbound guard with the `[migrations]` policy, the source's auth
 * headers (never sent on to another host by a redirect), and rate limits waited out — a 403/429 with `Retry-After`,
 * `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` (GitHub's, Gitea's), or `RateLimit-Reset` (GitLab's) — a
 * bounded number of times, and an exhausted quota on a successful answer waited out before the next request (Gitea's
 * github downloader waitAndPickClient). A wait is the client's: requests made at once wait it out once, together. A
 * non-2xx answer is a MigrationSourceError with the source's own message.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { type OutboundPolicy, type Resolver, outboundRequest, outboundStream } from '@cairn/outbound';

/** A source's answer other than 2xx: the status and the source's own message, never the request's credentials. */
export class MigrationSourceError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'MigrationSourceError';
  }
}

/** What `load` answers, or undefined where the source answers 404 (a patch it has not, an endpoint an edition lacks). */
export async function unlessMissing<T>(load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof MigrationSourceError && error.status === 404) return undefined;
    throw error;
  }
}

export interface SourceClientOptions {
  policy: OutboundPolicy;
  /** Sent with every request (auth, accept, API version). */
  headers: Record<string, string>;
  resolver?: Resolver;
  /** One request's whole exchange (default 60 s). */
  timeoutMs?: number;
  /** A stream's whole exchange (assets, patches; default 30 min). */
  streamTimeoutMs?: number;
  /** Tests: how waits are made. */
  sleep?: (ms: number) => Promise<void>;
}

export interface SourceAnswer {
  json: unknown;
  headers: IncomingHttpHeaders;
}

export interface RequestOptions {
  /** Headers of this request on top of the source's (names compared case-insensitively), e.g. GitHub's preview or octet-stream Accept. */
  headers?: Record<string, string>;
}

export interface SourceClient {
  /** GETs `url` (absolute) as JSON; `what` names it in errors (e.g. "GET /repos/a/b/issues"). */
  getJson(url: string, what: string, options?: RequestOptions): Promise<SourceAnswer>;
  /** GETs `url` as a stream (release assets, patches), with the source's headers unless `anonymous`. */
  open(url: string, what: string, options?: RequestOptions & { anonymous?: boolean }): Promise<Readable>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_STREAM_TIMEOUT_MS = 30 * 60_000;
/** Pages of a big repository are large; a cut answer would not parse. */
const MAX_RESPONSE_BYTES = 64 << 20;
/** Rate-limited requests are retried this many times, each wait at most MAX_WAIT_MS. */
const RATE_LIMIT_RETRIES = 5;
const MAX_WAIT_MS = 10 * 60_000;

/** A header's first value. */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** When an exhausted quota resets (ms since the epoch): X-RateLimit-Reset is epoch seconds, GitLab's RateLimit-Reset too. */
function quotaReset(headers: IncomingHttpHeaders): number | undefined {
  const remaining = header(headers, 'x-ratelimit-remaining') ?? header(headers, 'ratelimit-remaining');
  if (remaining !== '0') return undefined;
  const reset = Number(header(headers, 'x-ratelimit-reset') ?? header(headers, 'ratelimit-reset'));
  return Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined;
}

/** How long a rate-limited answer asks to wait (Retry-After seconds or date, or the quota's reset), if it is one. */
export function rateLimitWait(status: number, headers: IncomingHttpHeaders, now: number): number | undefined {
  if (status !== 429 && status !== 403) return undefined;
  const retryAfter = header(headers, 'retry-after');
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - now;
    return Number.isNaN(ms) ? undefined : Math.min(Math.max(ms, 0), MAX_WAIT_MS);
  }
  const reset = quotaReset(headers);
  return reset === undefined ? undefined : Math.min(Math.max(reset - now, 0), MAX_WAIT_MS);
}

/** The source's message from an error body: its JSON `message` (GitHub, Gitea, GitLab's string form), else the text. */
export function sourceMessage(body: Buffer): string {
  const raw = body.toString('utf8');
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null) {
      const message = (parsed as { message?: unknown }).message;
      if (typeof message === 'string') return message;
    }
  } catch {
    // not JSON: the text itself
  }
  return raw.slice(0, 200).trim();
}

/** `base` with `extra` laid over it, header names lower-cased so an override replaces rather than doubles. */
function mergeHeaders(base: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [name, value] of [...Object.entries(base), ...Object.entries(extra)]) merged[name.toLowerCase()] = value;
  return merged;
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function createSourceClient(options: SourceClientOptions): SourceClient {
  const sleep = options.sleep ?? realSleep;
  /** Set by an answer that used up the quota or asked to wait: every request waits until then. */
  let blockedUntil = 0;
  /**
   * The wait in progress, which every request coming to it joins: requests made at once (a page's reactions) wait
   * once, together, and none goes out meanwhile to be refused again.
   */
  let pause: Promise<void> | undefined;

  /** A later answer never shortens a wait an earlier one asked for. */
  function blockUntil(at: number): void {
    blockedUntil = Math.max(blockedUntil, at);
  }

  async function waitForQuota(): Promise<void> {
    for (;;) {
      if (pause !== undefined) {
        await pause;
        continue;
      }
      const until = blockedUntil;
      const wait = Math.min(until - Date.now(), MAX_WAIT_MS);
      if (wait <= 0) return;
      pause = sleep(wait).finally(() => {
        pause = undefined;
        // Waited out (also when a test's sleep returns at once), unless an answer meanwhile asked for longer.
        if (blockedUntil <= until) blockedUntil = 0;
      });
    }
  }

  return {
    async getJson(url: string, what: string, requestOptions: RequestOptions = {}): Promise<SourceAnswer> {
      const headers = mergeHeaders(options.headers, requestOptions.headers);
      for (let attempt = 0; ; attempt++) {
        await waitForQuota();
        const response = await outboundRequest(options.policy, url, {
          headers,
          timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          maxResponseBytes: MAX_RESPONSE_BYTES,
          resolver: options.resolver,
        });
        if (response.status >= 200 && response.status < 300) {
          const reset = quotaReset(response.headers);
          if (reset !== undefined) blockUntil(reset);
          if (response.body.length >= MAX_RESPONSE_BYTES) throw new MigrationSourceError(response.status, `${what}: the answer is larger than ${MAX_RESPONSE_BYTES} bytes`);
          try {
            return { json: JSON.parse(response.body.toString('utf8')) as unknown, headers: response.headers };
          } catch {
            throw new MigrationSourceError(response.status, `${what}: the source answered something other than JSON`);
          }
        }
        const wait = rateLimitWait(response.status, response.headers, Date.now());
        if (wait !== undefined && attempt < RATE_LIMIT_RETRIES) {
          blockUntil(Date.now() + wait);
          continue;
        }
        throw new MigrationSourceError(response.status, `${what}: the source answered ${response.status}: ${sourceMessage(response.body)}`);
      }
    },

    async open(url: string, what: string, openOptions: RequestOptions & { anonymous?: boolean } = {}): Promise<Readable> {
      const headers = mergeHeaders(openOptions.anonymous === true ? {} : options.headers, openOptions.headers);
      for (let attempt = 0; ; attempt++) {
        await waitForQuota();
        const response = await outboundStream(options.policy, url, {
          headers,
          timeoutMs: options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS,
          resolver: options.resolver,
        });
        if (response.status >= 200 && response.status < 300) return response.body;
        const chunks: Buffer[] = [];
        for await (const chunk of response.body) if (chunks.length < 16) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks);
        const wait = rateLimitWait(response.status, response.headers, Date.now());
        if (wait !== undefined && attempt < RATE_LIMIT_RETRIES) {
          blockUntil(Date.now() + wait);
          continue;
        }
        throw new MigrationSourceError(response.status, `${what}: the source answered ${response.status}: ${sourceMessage(body)}`);
      }
    },
  };
}

/** Reads a stream whole, refusing more than `limit` bytes (a patch, a small file). */
export async function readLimited(stream: Readable, limit: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    length += (chunk as Buffer).length;
    if (length > limit) {
      stream.destroy();
      throw new MigrationSourceError(200, `${what}: larger than ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
