/**
 * User names as Gitea accepts them: `validation.IsValidUsername` (modules/validation/helpers.go), the
 * binding's MaxSize(40), and `reservedUsernames` / `reservedUserPatterns` (models/user/user.go), which keep
 * names free for the routes that share the URL space with `/{owner}`.
 */
import type { CairnError } from '@cairn/rpc';
import { nameCharsNotAllowed, nameEmpty, namePatternNotAllowed, nameReserved, nameTooLong } from './errors';

export const MAX_USERNAME_LENGTH = 40;

// Go's `\w` is ASCII-only, as here: a letter or digit first, then letters, digits, `-`, `_`, `.`.
const VALID_USERNAME = /^[0-9A-Za-z][-.\w]*$/;
// No run of two special characters and no special character at the end.
const INVALID_USERNAME = /[-._]{2,}|[-._]$/;

export const RESERVED_USERNAMES: ReadonlySet<string> = new Set([
  '.',
  '..',
  '.well-known',
  'admin',
  'api',
  'assets',
  'attachments',
  'avatar',
  'avatars',
  'captcha',
  'commits',
  'debug',
  'error',
  'explore',
  'favicon.ico',
  'ghost',
  'issues',
  'login',
  'manifest.json',
  'metrics',
  'milestones',
  'new',
  'notifications',
  'org',
  'pulls',
  'raw',
  'repo',
  'repo-avatars',
  'robots.txt',
  'search',
  'serviceworker.js',
  'ssh_info',
  'swagger.v1.json',
  'user',
  'v2',
  'gitea-actions',
]);

/** `*` stands for any prefix: the user's key, feed and avatar files live at `/{user}.keys` etc. */
export const RESERVED_USERNAME_PATTERNS: readonly string[] = ['*.keys', '*.gpg', '*.rss', '*.atom', '*.png'];

export function isValidUsername(name: string): boolean {
  return VALID_USERNAME.test(name) && !INVALID_USERNAME.test(name);
}

/** The error that makes `name` unusable for a new or renamed account, or undefined when it is usable. */
export function usernameError(name: string): CairnError | undefined {
  if (name.trim() === '') return nameEmpty();
  if (!isValidUsername(name)) return nameCharsNotAllowed(name);
  if (name.length > MAX_USERNAME_LENGTH) return nameTooLong(name, MAX_USERNAME_LENGTH);
  const lower = name.toLowerCase();
  if (RESERVED_USERNAMES.has(lower)) return nameReserved(lower);
  for (const pattern of RESERVED_USERNAME_PATTERNS) {
    if (lower.endsWith(pattern.slice(1))) return namePatternNotAllowed(pattern);
  }
  return undefined;
}

export function assertUsableUsername(name: string): void {
  const error = usernameError(name);
  if (error !== undefined) throw error;
}
