/**
 * Who may read and change an attachment (Gitea's routers/api/v1/repo/release_attachment.go, issue_attachment.go,
 * issue_comment_attachment.go). Release attachments go with the releases unit: readers see them (a draft's only
 * writers), writers change them. Issue and comment attachments go with the issues unit, or the pulls unit for a pull
 * request: readers see them. An issue's are changed by its poster or a writer of the unit (Gitea's
 * canUserWriteIssueAttachment: poster, repository admin, site admin, or CanWriteIssuesOrPulls); a comment's by a
 * writer of the unit who posted it or administers the repository (canUserWriteIssueCommentAttachment: poster,
 * repository admin or site admin, and CanWriteIssuesOrPulls).
 */
import type { AttachmentParent } from '@cairn/proto/cairn/repos/v1/releases_service';
import { CairnError } from '@cairn/rpc';
import { AccessMode, isSignedIn, unitMode, type RepoPermission, type Viewer } from './access';
import { UNIT_RELEASES } from './releases';

/** An attachment's parent, as stored. */
export type AttachmentOwner =
  | { kind: 'release'; releaseId: number }
  | { kind: 'issue'; issueId: number; isPull: boolean }
  | { kind: 'comment'; issueId: number; commentId: number; isPull: boolean };

/** The parent a request names; INVALID_ARGUMENT unless it names exactly one release, issue or comment of an issue. */
export function ownerOfParent(parent: AttachmentParent | undefined): AttachmentOwner {
  const releaseId = parent?.releaseId ?? 0;
  const issueId = parent?.issueId ?? 0;
  const commentId = parent?.commentId ?? 0;
  if (releaseId > 0 && issueId === 0 && commentId === 0) return { kind: 'release', releaseId };
  if (releaseId === 0 && issueId > 0) {
    const isPull = parent?.isPull ?? false;
    return commentId > 0 ? { kind: 'comment', issueId, commentId, isPull } : { kind: 'issue', issueId, isPull };
  }
  throw CairnError.invalid('an attachment parent is a release, an issue, or a comment with its issue', { reason: 'invalid_attachment_parent' });
}

/** The unit that decides who may see the parent's attachments. */
export function attachmentUnit(owner: AttachmentOwner): string {
  if (owner.kind === 'release') return UNIT_RELEASES;
  return owner.isPull ? 'repo.pulls' : 'repo.issues';
}

/** May write the unit: its writers and repository admins (requireAccess's rule). */
export function writesUnit(permission: RepoPermission, unit: string): boolean {
  return unitMode(permission, unit) >= AccessMode.Write || permission.mode >= AccessMode.Admin;
}

/** Gitea's canUserWriteIssueAttachment and canUserWriteIssueCommentAttachment (site admins have `owner` here). */
export function mayChangeIssueAttachments(viewer: Viewer, owner: AttachmentOwner, posterId: number, permission: RepoPermission): boolean {
  if (!isSignedIn(viewer) || owner.kind === 'release') return false;
  const unit = attachmentUnit(owner);
  const isPoster = viewer.id === posterId;
  if (owner.kind === 'issue') return isPoster || writesUnit(permission, unit);
  return (isPoster || permission.mode >= AccessMode.Admin) && writesUnit(permission, unit);
}

/** Gitea's messages for a refused change (routers/api/v1/repo/issue_attachment.go, issue_comment_attachment.go). */
export function attachmentChangeDenied(owner: AttachmentOwner): CairnError {
  return CairnError.denied(owner.kind === 'comment' ? 'user should have permission to edit comment' : 'user should have permission to write issue');
}

/** A name an attachment may have: not empty, no path. */
export function checkAttachmentName(name: string): string {
  if (name.trim() === '') throw CairnError.invalid('attachment name is empty', { reason: 'invalid_attachment_name' });
  if (name.length > 255) throw CairnError.invalid('attachment name is longer than 255 characters', { reason: 'invalid_attachment_name' });
  return name;
}

/** The most issues and comments one BatchListAttachments names (a page holds at most `[api] MAX_RESPONSE_ITEMS`). */
export const MAX_BATCH_PARENTS = 1000;

export function checkBatchSize(parents: number): void {
  if (parents > MAX_BATCH_PARENTS) throw CairnError.invalid(`at most ${MAX_BATCH_PARENTS} issues and comments at once`, { reason: 'too_many_parents' });
}
