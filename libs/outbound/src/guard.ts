/**
 * The one outbound guard (Gitea's hostmatcher.NewDialContext): every request Cairn makes to an address a user chose
 * (webhooks, migrations, mirrors) goes through `outboundRequest`, which checks the address it is about to connect to
 * — after DNS, inside the connection's own lookup, so a name that resolves differently a moment later (DNS
 * rebinding) is checked as it is used — and every redirect's target the same way. A refused address is never
 * connected to.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { canonicalAddress } from './ip-classes';
import type { HostMatchList } from './host-match';

/** What may be reached: the allow list (Gitea's default for webhooks is `external`), and a block list that wins. */
export interface OutboundPolicy {
  /** Names the feature in refusals: `webhook`, `migrations`. */
  usage: string;
  allow: HostMatchList;
  block?: HostMatchList;
}

export class OutboundRefusedError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    policy: OutboundPolicy,
  ) {
    // Gitea's hostmatcher.NewDialContext message.
    super(`${policy.usage} can only call allowed HTTP servers (check your ${policy.allow.setting} setting), deny '${host}(${address})'`);
    this.name = 'OutboundRefusedError';
  }
}

/** Whether `policy` lets a request for `host` connect to `address`. */
export function isAllowed(policy: OutboundPolicy, host: string, address: string): boolean {
  if (policy.block?.matchHostOrAddress(host, address) === true) return false;
  return policy.allow.matchHostOrAddress(host, address);
}

/** Resolves a name to every address (the system resolver unless a test gives another). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** A connection's lookup that answers only addresses `policy` allows for `host`, or fails with OutboundRefusedError. */
export function guardedLookup(policy: OutboundPolicy, host: string, resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname).then(
      (found) => {
        const allowed = found.filter((entry) => isAllowed(policy, host, entry.address));
        if (allowed.length === 0) {
          callback(new OutboundRefusedError(host, found.map((entry) => entry.address).join(',') || 'no address', policy), '', 0);
          return;
        }
        const wanted = options.family === 4 || options.family === 6 ? allowed.filter((entry) => entry.family === options.family) : allowed;
        const usable = wanted.length > 0 ? wanted : allowed;
        if (options.all === true) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The whole exchange, redirects included. */
  timeoutMs: number;
  /** Go's http.Client follows 10. */
  maxRedirects?: number;
  /** The response body is cut after this many bytes (kept for delivery history). */
  maxResponseBytes?: number;
  resolver?: Resolver;
  /** https only: false accepts any certificate (Gitea's `[webhook] SKIP_TLS_VERIFY`). Default true. */
  rejectUnauthorized?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** One exchange's answer before its body is read: what a redirect needs, and the body to read or drain. */
interface Answered {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: http.IncomingMessage;
}

function once(policy: OutboundPolicy, url: URL, request: OutboundRequest, method: string, body: string | Uint8Array | undefined, signal: AbortSignal): Promise<Answered> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${policy.usage}: only http and https URLs are called, not ${url.protocol}`);
  const host = url.hostname;
  const literal = canonicalAddress(host);
  // An address literal needs no lookup, so the connection would not ask the guard: ask it here.
  if (literal !== undefined && !isAllowed(policy, host, literal.address)) throw new OutboundRefusedError(host, literal.address, policy);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(
      url,
      { method, headers: request.headers, signal, agent: false, lookup: guardedLookup(policy, host, request.resolver), rejectUnauthorized: request.rejectUnauthorized ?? true },
      (response) => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: response }),
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Reads a body, keeping its first `limit` bytes (the rest is read and dropped, so the exchange ends cleanly). */
function readBody(body: http.IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    body.on('data', (chunk: Buffer) => {
      if (kept >= limit) return;
      chunks.push(chunk.subarray(0, limit - kept));
      kept += Math.min(chunk.length, limit - kept);
    });
    body.on('end', () => resolve(Buffer.concat(chunks)));
    body.on('error', reject);
  });
}

/** Go's http.Client's sensitive headers, and GitLab's token header (Go would forward it; a token is a credential). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'www-authenticate', 'cookie', 'cookie2', 'private-token']);

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())));
}

/** Follows redirects (each target checked again by `once`); answers the last exchange with its body unread. */
async function exchange(policy: OutboundPolicy, target: string, request: OutboundRequest, signal: AbortSignal): Promise<Answered & { url: string }> {
  let url = new URL(target);
  let method = (request.method ?? 'GET').toUpperCase();
  let body = request.body;
  let current = request;
  for (let redirects = 0; ; redirects++) {
    const response = await once(policy, url, current, method, body, signal);
    const location = response.headers.location;
    if (!REDIRECTS.has(response.status) || location === undefined) return { ...response, url: url.toString() };
    response.body.resume();
    if (redirects >= (request.maxRedirects ?? 10)) throw new Error(`${policy.usage}: stopped after ${redirects} redirects`);
    const next = new URL(location, url);
    // As Go's http.Client: credentials go to the host they were given for, not to where it redirects.
    if (next.host !== url.host && current.headers !== undefined) current = { ...current, headers: withoutCredentials(current.headers) };
    url = next;
    // As Go's http.Client: 301/302 turn a POST into a GET, 303 anything but HEAD; 307/308 keep method and body.
    if (response.status === 303 ? method !== 'HEAD' : (response.status === 301 || response.status === 302) && method === 'POST') {
      method = 'GET';
      body = undefined;
    }
  }
}

/** Makes the request through the guard, following redirects (each target checked again). */
export async function outboundRequest(policy: OutboundPolicy, target: string, request: OutboundRequest): Promise<OutboundResponse> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  const { status, headers, body, url } = await exchange(policy, target, request, signal);
  return { status, headers, body: await readBody(body, request.maxResponseBytes ?? 1 << 20), url };
}

export interface OutboundStreamResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body, unread: the caller reads it (or destroys it); `timeoutMs` still bounds the whole exchange. */
  body: Readable;
  url: string;
}

/**
 * `outboundRequest` for large bodies (release assets, patches): the same guard and redirects, the body handed over as
 * a stream instead of buffered; `maxResponseBytes` does not apply (the reader limits what it takes).
 */
export async function outboundStream(policy: OutboundPolicy, target: string, request: OutboundRequest): Promise<OutboundStreamResponse> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  const { status, headers, body, url } = await exchange(policy, target, request, signal);
  return { status, headers, body, url };
}
