/**
 * Authors, committers and taggers from requests, as the environment git reads them from (GIT_AUTHOR_NAME, …,
 * GIT_COMMITTER_DATE), so git itself writes the identity lines (and strips what may not appear in them).
 */
import type { Signature } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';

const TIMEZONE = /^[+-](?:[01]\d|2[0-3])[0-5]\d$/;

function invalidSignature(message: string): CairnError {
  return CairnError.invalid(message, { reason: 'invalid_signature' });
}

/**
 * GIT_<role>_NAME/EMAIL/DATE for `signature`; the date is `signature.when` (now when unset) in the signature's
 * time zone. INVALID_ARGUMENT (reason `invalid_signature`) without a name or e-mail, or for a bad time zone.
 */
export function identityEnvironment(role: 'AUTHOR' | 'COMMITTER', signature: Signature | undefined, now: Date): NodeJS.ProcessEnv {
  const label = role.toLowerCase();
  if (signature === undefined || signature.name.trim() === '') throw invalidSignature(`${label} name is required`);
  if (signature.email.trim() === '') throw invalidSignature(`${label} email is required`);
  if (/[\u0000\n<>]/.test(signature.name + signature.email)) throw invalidSignature(`${label} name or email contains a forbidden character`);
  const timezone = signature.timezone === '' ? '+0000' : signature.timezone;
  if (!TIMEZONE.test(timezone)) throw invalidSignature(`invalid ${label} time zone "${signature.timezone}"`);
  const when = signature.when ?? now;
  if (Number.isNaN(when.getTime())) throw invalidSignature(`invalid ${label} date`);
  return {
    [`GIT_${role}_NAME`]: signature.name,
    [`GIT_${role}_EMAIL`]: signature.email,
    // git's internal date format: seconds since the epoch and the offset to show them in.
    [`GIT_${role}_DATE`]: `@${Math.floor(when.getTime() / 1000)} ${timezone}`,
  };
}
