/**
 * Pure parsers for the value kinds app.ini uses. Each returns undefined for text it does not accept, so the
 * caller can name the setting in its error.
 */
import { isIP } from 'node:net';

// go-ini's Key.Bool() spellings (Gitea reads booleans through it), matched case-insensitively.
const TRUE_WORDS = new Set(['1', 't', 'true', 'y', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'f', 'false', 'n', 'no', 'off']);

export function parseBoolean(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** A decimal integer (optional sign), safe in a JS number. */
export function parseInteger(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^[+-]?\d+$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isSafeInteger(value) ? value : undefined;
}

const DURATION_UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3, // U+00B5 micro sign
  'μs': 1e-3, // U+03BC Greek mu, both accepted by Go
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A non-negative Go duration (`time.ParseDuration`: `90s`, `10m`, `1h30m`, `1.5h`, `0`) in whole milliseconds.
 * With `bareSeconds`, a plain integer counts as seconds, as Gitea's `MustDuration` reads it.
 */
export function parseDuration(text: string, options: { bareSeconds?: boolean } = {}): number | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) {
    if (options.bareSeconds) return Number(trimmed) * 1000;
    // Go accepts a bare number only when it is zero.
    return Number(trimmed) === 0 ? 0 : undefined;
  }
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let position = 0;
  while (position < trimmed.length) {
    part.lastIndex = position;
    const match = part.exec(trimmed);
    if (!match) return undefined;
    total += Number(match[1]) * DURATION_UNIT_MS[match[2]];
    position = part.lastIndex;
  }
  return position === 0 ? undefined : Math.round(total);
}

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const SECOND_MS = 1_000;

/** Go's `Duration.String` (Gitea prints intervals so) for a whole number of milliseconds: "8h0m0s", "10m0s", "1.5s", "500ms", "0s". */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < SECOND_MS) return `${sign}${rest}ms`;
  const hours = Math.floor(rest / HOUR_MS);
  rest -= hours * HOUR_MS;
  const minutes = Math.floor(rest / MINUTE_MS);
  rest -= minutes * MINUTE_MS;
  const seconds = (rest / SECOND_MS).toString();
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** Comma-separated items, trimmed, empty items dropped. */
export function parseList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export interface HostPort {
  /** Host name, IPv4 address or bracketed IPv6 address (`[::1]`). */
  host: string;
  port: number;
}

// A host name, an IPv4 address or a bracketed IPv6 address.
const HOST = String.raw`\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?`;
const HOST_ONLY = new RegExp(`^(?:${HOST})$`);
const HOST_AND_PORT = new RegExp(`^(${HOST}):(\\d{1,5})$`);

/** A host name or IP address, as it goes into a URL (IPv6 bracketed: `::1` → `[::1]`). */
export function parseHost(text: string): string | undefined {
  const trimmed = text.trim();
  if (HOST_ONLY.test(trimmed)) return trimmed;
  return /^[0-9A-Fa-f:.]+$/.test(trimmed) && trimmed.includes(':') ? `[${trimmed}]` : undefined;
}

/** `host:port` with a port from 0 to 65535; IPv6 hosts in brackets. */
export function parseHostPort(text: string): HostPort | undefined {
  const match = HOST_AND_PORT.exec(text.trim());
  if (!match) return undefined;
  const port = Number(match[2]);
  return port <= 65535 ? { host: match[1], port } : undefined;
}

export function formatHostPort(address: HostPort): string {
  return `${address.host}:${address.port}`;
}

/** A URL whose scheme is one of `protocols` (with the colon, e.g. `nats:`), or undefined. */
export function parseUrl(text: string, protocols: readonly string[]): URL | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  return protocols.includes(url.protocol) ? url : undefined;
}

/**
 * `[security] REVERSE_PROXY_TRUSTED_PROXIES`: IP addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`), or `*` for
 * any peer, as Gitea reads it. Entries come back as written (a bare address as itself); undefined for an empty
 * list or a bad entry.
 */
export function parseTrustedProxies(text: string): string[] | undefined {
  const entries = parseList(text);
  const valid = entries.every((entry) => {
    if (entry === '*') return true;
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return false;
    if (prefix === undefined) return true;
    if (!/^\d{1,3}$/.test(prefix)) return false;
    return Number(prefix) <= (family === 4 ? 32 : 128);
  });
  return entries.length > 0 && valid ? entries : undefined;
}
