/**
 * Password rules and storage. Hashes are scrypt (node:crypto, memory-hard) with a random 16-byte salt,
 * stored self-describing as `scrypt$N$r$p$<salt hex>$<hash hex>` so the parameters can be raised later
 * without breaking existing hashes.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { passwordTooShort } from './errors';

export const DEFAULT_MIN_PASSWORD_LENGTH = 8;

const SCHEME = 'scrypt';
const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

/** Gitea counts characters, not bytes (`[security] MIN_PASSWORD_LENGTH`). */
export function assertPasswordLength(password: string, minLength: number): void {
  if ([...password].length < minLength) throw passwordTooShort(minLength);
}

function derive(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must cover 128·N·r bytes; raise it with the parameters so stronger stored hashes still verify.
    const maxmem = Math.max(32 * 1024 * 1024, 256 * (options.N ?? PARAMS.N) * (options.r ?? PARAMS.r));
    scrypt(password.normalize('NFC'), salt, keyLength, { ...options, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_BYTES, PARAMS);
  return [SCHEME, PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('hex'), key.toString('hex')].join('$');
}

interface ParsedHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parseHash(encoded: string): ParsedHash | undefined {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== SCHEME) return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'hex');
  const key = Buffer.from(parts[5], 'hex');
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || salt.length === 0 || key.length === 0) return undefined;
  return { N, r, p, salt, key };
}

/**
 * True when `password` matches `encoded`. An empty or unreadable hash (an account without a local password)
 * never matches, but still costs one derivation so the answer takes as long as a real check.
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parseHash(encoded);
  if (parsed === undefined) {
    await derive(password, randomBytes(SALT_BYTES), KEY_BYTES, PARAMS);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed.key.length, { N: parsed.N, r: parsed.r, p: parsed.p });
  return timingSafeEqual(key, parsed.key);
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as checking a real account's password; used when the account does not exist so
 * response times do not reveal which names are registered.
 */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword(randomBytes(SALT_BYTES).toString('hex'));
  await verifyPassword(password, await dummyHash);
}
