/**
 * E-mail addresses as Gitea accepts them (models/user/email_address.go `validateEmailBasic`): a restricted
 * character set, no leading `-` (it would read as a command-line flag to sendmail), and a well-formed
 * `local@domain` address (Go's `mail.ParseAddress` on a bare address: dot-atom local part).
 */
import type { CairnError } from '@cairn/rpc';
import { emailCharNotSupported, emailInvalid } from './errors';

// Gitea's expression verbatim; note `+-/` is a range, so `,` passes here and is rejected by the atom check.
const EMAIL_CHARS =
  /^[a-zA-Z0-9.!#$%&'*+-/=?^_`{|}~]*@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
// RFC 5322 dot-atom: atoms of atext joined by single dots.
const DOT_ATOM_LOCAL_PART = /^[a-zA-Z0-9!#$%&'*+\-/=?^_`{|}~]+(?:\.[a-zA-Z0-9!#$%&'*+\-/=?^_`{|}~]+)*$/;

export function emailError(email: string): CairnError | undefined {
  if (email === '') return emailInvalid(email);
  if (!EMAIL_CHARS.test(email)) return emailCharNotSupported(email);
  if (email.startsWith('-')) return emailInvalid(email);
  const localPart = email.slice(0, email.lastIndexOf('@'));
  if (!DOT_ATOM_LOCAL_PART.test(localPart)) return emailInvalid(email);
  return undefined;
}

export function assertValidEmail(email: string): void {
  const error = emailError(email);
  if (error !== undefined) throw error;
}
