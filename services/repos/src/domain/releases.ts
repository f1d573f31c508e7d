/**
 * Release rules (Gitea's routers/api/v1/repo/release.go, services/release/release.go, models/repo/release.go): who
 * sees drafts, what an edit changes, when a release's tag must exist, when `created` moves and which event a change
 * publishes. Pure; the handlers in rpc/release-service.ts gather the facts and do the git and database work.
 */
import { CairnError } from '@cairn/rpc';
import { AccessMode, type RepoPermission, unitMode } from './access';

export const UNIT_RELEASES = 'repo.releases';

/** Who may see drafts (Gitea's ListReleases IncludeDrafts): repository writers or writers of the releases unit. */
export function canSeeDrafts(permission: RepoPermission): boolean {
  return permission.mode >= AccessMode.Write || unitMode(permission, UNIT_RELEASES) >= AccessMode.Write;
}

/** What a list shows: drafts only to those who may see them, then the caller's optional filters. */
export interface ReleaseFilter {
  includeDrafts: boolean;
  draft?: boolean;
  prerelease?: boolean;
}

export function releaseFilter(permission: RepoPermission, requested: { draft?: boolean; prerelease?: boolean }): ReleaseFilter {
  return { includeDrafts: canSeeDrafts(permission), draft: requested.draft, prerelease: requested.prerelease };
}

/** A draft the viewer may not see does not exist for them. */
export function isVisible(release: { isDraft: boolean }, permission: RepoPermission): boolean {
  return !release.isDraft || canSeeDrafts(permission);
}

export function releaseNotFound(): CairnError {
  return CairnError.notFound('not found', { reason: 'release_not_found' });
}

/**
 * A tag that already has a release: Gitea's CreateRelease answers 409 with this very text when GetRelease finds a
 * release row that is not a tag-only one (here every row is a release).
 */
export function releaseExists(): CairnError {
  return CairnError.exists('Release is has no Tag', { reason: 'release_exists' });
}

/** Another release has the tag an edit names (Gitea's ErrReleaseAlreadyExist). */
export function tagReleased(tagName: string): CairnError {
  return CairnError.exists(`release tag already exist [tag_name: ${tagName}]`, { reason: 'release_exists' });
}

/** Gitea's `target "<target>" not found: <git's object does not exist error>` (404). */
export function targetNotFound(target: string): CairnError {
  return CairnError.notFound(`target "${target}" not found: object does not exist [id: ${target}, rel_path: ]`, { reason: 'target_not_found' });
}

/** models.ErrProtectedTagName (422). */
export function protectedTag(tagName: string): CairnError {
  return CairnError.precondition(`release tag name is protected [tag_name: ${tagName}]`, { reason: 'protected_tag' });
}

/** Gitea refuses releases in a repository without commits (422 `repo is empty`). */
export function repoIsEmpty(): CairnError {
  return CairnError.precondition('repo is empty', { reason: 'repo_empty' });
}

/** Fields an edit may change (UpdateReleaseRequest.fields). */
export const EDITABLE_FIELDS = ['tag_name', 'target_commitish', 'name', 'body', 'draft', 'prerelease'] as const;
export type EditableField = (typeof EDITABLE_FIELDS)[number];

export interface ReleaseState {
  tagName: string;
  target: string;
  title: string;
  note: string;
  isDraft: boolean;
  isPrerelease: boolean;
}

export interface ReleaseEdit {
  tagName: string;
  targetCommitish: string;
  name: string;
  body: string;
  draft: boolean;
  prerelease: boolean;
  fields: readonly string[];
}

/** What an update writes: any of the state's fields, the tag's commit, the publisher and `created`. */
export interface ReleaseChanges extends Partial<ReleaseState> {
  sha?: string;
  publisherId?: number;
  created?: Date;
}

export interface EditPlan {
  /** The release as the edit leaves it. */
  next: ReleaseState;
  /** Its tag must exist afterwards (created on `next.target` when missing): it is published, and newly or on another tag. */
  needsTag: boolean;
  /** Gitea sets CreatedUnix again for a draft and on publication. */
  resetCreated: boolean;
  /** The event the edit publishes: none for a draft. */
  event: 'published' | 'updated' | undefined;
}

/**
 * Applies an edit (Gitea's EditRelease, which changes a string field only when the new value is not empty and a
 * flag only when given — the gateway sends only those in `fields`).
 */
export function planEdit(current: ReleaseState, edit: ReleaseEdit): EditPlan {
  const unknown = edit.fields.filter((field) => !(EDITABLE_FIELDS as readonly string[]).includes(field));
  if (unknown.length > 0) throw CairnError.invalid(`unknown release fields: ${unknown.join(', ')}`);
  const has = (field: EditableField): boolean => edit.fields.includes(field);
  const next: ReleaseState = {
    tagName: has('tag_name') && edit.tagName !== '' ? edit.tagName : current.tagName,
    target: has('target_commitish') && edit.targetCommitish !== '' ? edit.targetCommitish : current.target,
    title: has('name') && edit.name !== '' ? edit.name : current.title,
    note: has('body') && edit.body !== '' ? edit.body : current.note,
    isDraft: has('draft') ? edit.draft : current.isDraft,
    isPrerelease: has('prerelease') ? edit.prerelease : current.isPrerelease,
  };
  const publishing = current.isDraft && !next.isDraft;
  const retagged = next.tagName !== current.tagName;
  return {
    next,
    needsTag: !next.isDraft && (publishing || retagged),
    resetCreated: next.isDraft || publishing,
    event: next.isDraft ? undefined : publishing ? 'published' : 'updated',
  };
}

/** The fields of `next` that differ from `current`. */
export function changedFields(current: ReleaseState, next: ReleaseState): Partial<ReleaseState> {
  const changes: Partial<ReleaseState> = {};
  for (const key of Object.keys(next) as (keyof ReleaseState)[]) {
    if (next[key] !== current[key]) Object.assign(changes, { [key]: next[key] });
  }
  return changes;
}
