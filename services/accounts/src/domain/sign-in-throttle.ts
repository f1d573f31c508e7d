/**
 * Throttling of failed password sign-ins (issue 13 §5; Gitea itself has none for basic auth and git). Three
 * counters, each a fixed window of `windowSeconds`, refuse password sign-ins for `blockSeconds` once they reach
 * their limit, and keep refusing after every further failure in the same window:
 * - (account, address), `maxFailures`: failures in a row; a successful sign-in from that address clears it.
 *   This is the one that stops a guesser quickly without touching the owner's other addresses;
 * - account, `maxAccountFailures` (larger): a guesser spread over many addresses. So that such a guesser cannot
 *   lock the owner out, an address that signed in to the account successfully within `knownAddressSeconds`
 *   (`[security] LOGIN_KNOWN_ADDRESS_DAYS`) is exempt from this counter's block (not from the other two);
 * - address, `maxAddressFailures`: one address trying many accounts (IPv6 counted per /64, what one host holds).
 * The counters are read before the password is hashed (a refused attempt costs no scrypt) and written on a
 * failure; a successful sign-in costs one indexed read, and a write only to end a run of failures or (at most
 * daily) to remember its address. A limit of 0 turns its counter off.
 */
import { isIP } from 'node:net';
import { CairnError, Code } from '@cairn/rpc';

export interface SignInThrottleSettings {
  maxFailures: number;
  maxAccountFailures: number;
  maxAddressFailures: number;
  windowSeconds: number;
  blockSeconds: number;
  /** How long a successful sign-in exempts its address from the account's block; 0 = never. */
  knownAddressSeconds: number;
}

export interface ThrottleCounter {
  key: string;
  maxFailures: number;
}

export interface CounterReading {
  key: string;
  failures: number;
  /** Whole seconds the counter still refuses sign-ins; 0 when it does not. */
  blockedForSeconds: number;
  /** Seconds since the last successful sign-in counted here ((account, address) counters); undefined when none. */
  successAgeSeconds: number | undefined;
}

/** Longest login kept in a key: longer ones are no account (names and e-mails are shorter) and would only bloat the table. */
const MAX_LOGIN_IN_KEY = 255;

export const SIGN_IN_THROTTLED_REASON = 'sign_in_throttled';

/** A known address is remembered again after a day, so a daily user costs one write a day, not one per request. */
const KNOWN_ADDRESS_REFRESH_SECONDS = 86_400;

/**
 * Whose counter an attempt uses: the account's id when the login names one (by name or by e-mail alike), else
 * the login itself, so unknown names are throttled the same way and a 429 does not tell which names exist.
 */
export function accountKey(userId: number | undefined, login: string): string {
  return userId !== undefined ? `user:${userId}` : `login:${login.toLowerCase().slice(0, MAX_LOGIN_IN_KEY)}`;
}

/** The eight 16-bit groups of a valid IPv6 address without an embedded IPv4 part. */
function ipv6Groups(address: string): string[] {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const headGroups = head === '' ? [] : head.split(':');
  if (tail === undefined) return headGroups;
  const tailGroups = tail === '' ? [] : tail.split(':');
  return [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
}

/**
 * The address a counter is kept for: IPv4 as is (also when IPv4-mapped, `::ffff:1.2.3.4`), IPv6 by its /64,
 * since one host usually has a whole /64 to pick addresses from. '' when the caller sent no valid address.
 */
export function addressKey(address: string): string {
  const plain = address.split('%')[0].toLowerCase();
  const family = isIP(plain);
  if (family === 4) return plain;
  if (family !== 6) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (mapped !== null) return mapped[1];
  // Other IPv6 spellings with a dotted tail are rare (deprecated IPv4-compatible forms): kept whole.
  if (plain.includes('.')) return plain;
  const prefix = ipv6Groups(plain)
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}

export function pairKey(account: string, address: string): string {
  return `pair:${account}|${address}`;
}

/** The counters a failure counts on (those with a limit), sorted by key: the store's lock order. */
export function throttleCounters(account: string, address: string, settings: SignInThrottleSettings): ThrottleCounter[] {
  const counters: ThrottleCounter[] = [{ key: accountCounterKey(account), maxFailures: settings.maxAccountFailures }];
  // Without an address (a caller inside the cluster that has none) only the account is counted.
  if (address !== '') {
    counters.push({ key: pairKey(account, address), maxFailures: settings.maxFailures });
    counters.push({ key: `address:${address}`, maxFailures: settings.maxAddressFailures });
  }
  return counters.filter((counter) => counter.maxFailures > 0).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function accountCounterKey(account: string): string {
  return `account:${account}`;
}

/** The (account, address) counter, where successes are remembered even when its limit is off; undefined without an address. */
export function pairCounter(account: string, address: string, settings: SignInThrottleSettings): ThrottleCounter | undefined {
  return address === '' ? undefined : { key: pairKey(account, address), maxFailures: settings.maxFailures };
}

/** The keys to read before an attempt: every counter with a limit, and the (account, address) one. */
export function keysToRead(counters: readonly ThrottleCounter[], pair: ThrottleCounter | undefined): string[] {
  const keys = counters.map((counter) => counter.key);
  return pair === undefined || keys.includes(pair.key) ? keys : [...keys, pair.key];
}

function isKnown(reading: CounterReading | undefined, settings: SignInThrottleSettings): boolean {
  const age = reading?.successAgeSeconds;
  return age !== undefined && age < settings.knownAddressSeconds;
}

/**
 * Seconds until the attempt may be made again, or undefined when no counter refuses it. The account's counter
 * does not refuse an address that signed in to the account recently.
 */
export function refusedFor(
  readings: readonly CounterReading[],
  account: string,
  pair: ThrottleCounter | undefined,
  settings: SignInThrottleSettings,
): number | undefined {
  const known = pair !== undefined && isKnown(readings.find((reading) => reading.key === pair.key), settings);
  const accountKeyOf = accountCounterKey(account);
  const refusing = readings.filter((reading) => !(known && reading.key === accountKeyOf));
  const seconds = Math.max(0, ...refusing.map((reading) => reading.blockedForSeconds));
  return seconds > 0 ? seconds : undefined;
}

/** Whether a successful sign-in writes its (account, address) counter: to end a run of failures or to remember the address. */
export function successToRecord(
  readings: readonly CounterReading[],
  pair: ThrottleCounter | undefined,
  settings: SignInThrottleSettings,
): boolean {
  if (pair === undefined) return false;
  const reading = readings.find((r) => r.key === pair.key);
  if (reading !== undefined && reading.failures > 0) return true;
  if (settings.knownAddressSeconds === 0) return false;
  const age = reading?.successAgeSeconds;
  return age === undefined || age >= Math.min(KNOWN_ADDRESS_REFRESH_SECONDS, settings.knownAddressSeconds / 2);
}

/** The refusal: RESOURCE_EXHAUSTED with the seconds to wait, which the gateway answers as 429 with `Retry-After`. */
export function signInThrottled(retryAfterSeconds: number): CairnError {
  return new CairnError(Code.RESOURCE_EXHAUSTED, 'too many failed sign-in attempts, try again later', {
    reason: SIGN_IN_THROTTLED_REASON,
    retryAfterSeconds,
  });
}
