/**
 * Personal access token secrets. A secret is 160 random bits shown to its owner once, as 40 hex characters
 * (the shape of Gitea's `sha1` field); only its SHA-256 is stored. With that much entropy a fast hash is
 * enough, and it makes the lookup a single indexed equality.
 */
import { createHash, randomBytes } from 'node:crypto';

const SECRET_BYTES = 20;
const SECRET_SHAPE = /^[0-9a-f]{40}$/;

export function generateTokenSecret(): string {
  return randomBytes(SECRET_BYTES).toString('hex');
}

/** Whether `value` could be a secret we issued; anything else is rejected without a lookup. */
export function isTokenSecretShape(value: string): boolean {
  return SECRET_SHAPE.test(value);
}

export function hashTokenSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Shown in token lists so owners can recognise a token without the secret. */
export function tokenLastEight(secret: string): string {
  return secret.slice(-8);
}
