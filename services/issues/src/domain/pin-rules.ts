/**
 * Gitea's pinning rules (models/issues/issue_pin.go, routers/api/v1/repo/issue_pin.go): repository admins pin,
 * unpin and move (reqAdmin); at most `[repository.issue] MAX_PINNED` issues and as many pull requests per
 * repository; positions start at 1.
 */
import { CairnError } from '@cairn/rpc';
import { type Access, isRepoAdmin, requireNotArchived, requireSignedIn } from './permissions';

/** Gitea's ErrIssueMaxPinReached text (its spelling). */
export const MAX_PIN_REACHED_MESSAGE = 'the max number of pinned issues has been readched';
/** Gitea's MovePin refusal of a position below 1. */
export const INVALID_POSITION_MESSAGE = "The Position can't be lower than 1";
/** Gitea's reqAdmin message. */
const REPO_ADMIN_MESSAGE = 'user should be an owner or a collaborator with admin write of a repository';

/** Gitea's reqToken then reqAdmin, before the issue is looked up; archived repositories take no change either. */
export function requirePinManager(access: Access): void {
  requireSignedIn(access);
  if (!isRepoAdmin(access)) throw CairnError.denied(REPO_ADMIN_MESSAGE);
  requireNotArchived(access);
}

/** Gitea's IsNewPinAllowed: fewer pinned than MAX_PINNED. */
export function isNewPinAllowed(pinned: number, maxPinned: number): boolean {
  return pinned < maxPinned;
}

/** A new pin's position is after every other of its kind; past MAX_PINNED pins it is INVALID_ARGUMENT. */
export function nextPinOrder(stats: { pinned: number; highest: number }, maxPinned: number): number {
  if (!isNewPinAllowed(stats.pinned, maxPinned)) throw CairnError.invalid(MAX_PIN_REACHED_MESSAGE, { reason: 'max_pinned' });
  return stats.highest + 1;
}

/** A move's target position: a whole number from 1. */
export function requirePinPosition(position: number): number {
  if (!Number.isSafeInteger(position) || position < 1) throw CairnError.invalid(INVALID_POSITION_MESSAGE, { reason: 'invalid_position' });
  return position;
}
