/**
 * Database errors → CairnError. Everything goes through @cairn/db's `toCairnError`; a unique violation
 * that slipped past a pre-check (two requests racing) is then given the same message the pre-check gives,
 * by the constraint that fired.
 */
import { toCairnError } from '@cairn/db';
import type { CairnError } from '@cairn/rpc';
import { emailUsed, tokenNameUsed, userExists } from '../domain/errors';
import { gpgKeyExists } from '../domain/gpg-key-errors';

/** The values the messages name; whatever the failing request was writing. */
export interface ConflictSubject {
  name?: string;
  email?: string;
}

export function toAccountsError(error: unknown, subject: ConflictSubject = {}): CairnError {
  const mapped = toCairnError(error);
  switch (mapped.reason) {
    case 'users_lower_name_key':
      return userExists(subject.name ?? '');
    case 'users_lower_email_key':
      return emailUsed(subject.email ?? '');
    case 'access_tokens_user_id_name_key':
      return tokenNameUsed();
    case 'gpg_keys_key_id_key':
      return gpgKeyExists();
    default:
      return mapped;
  }
}
