/** What renaming an account to `next` amounts to (Gitea's services/user.RenameUser). */
import { assertUsableUsername } from './username';

/**
 * - `unchanged`: the same name, nothing to do (Gitea checks nothing then either);
 * - `case`: only the case changes: the lower-case name, so the namespace entry, stays, and no redirect is left;
 * - `rename`: a new name; the old one is left as a redirect to the account.
 * Throws INVALID_ARGUMENT when `next` is not a usable name (the rules of a new account).
 */
export type RenameKind = 'unchanged' | 'case' | 'rename';

export function planRename(current: string, next: string): RenameKind {
  if (next === current) return 'unchanged';
  assertUsableUsername(next);
  return next.toLowerCase() === current.toLowerCase() ? 'case' : 'rename';
}
