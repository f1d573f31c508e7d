/**
 * Who may see which of a user's activity: THE place for it (Gitea's `ActivityReadable` and the repository
 * filter of `getUserHeatmapData`). Pure functions over facts the caller brings: the owner's
 * `keep_activity_private` as accounts (which owns the setting) answers it, and the repositories the viewer may
 * read as the repos service answers them (repos/repo-access.ts).
 */
import { isSignedIn, isSiteAdmin, type Viewer } from './viewer';

/** The user whose activity is shown. */
export interface ActivityOwner {
  id: number;
  /** Gitea's KeepActivityPrivate (`hide_activity`). */
  keepActivityPrivate: boolean;
}

/**
 * Gitea's `ActivityReadable`: a user who keeps their activity private shows it only to themself and to site
 * admins; everyone else gets an empty heatmap (not an error).
 */
export function canSeeActivity(viewer: Viewer, owner: ActivityOwner): boolean {
  return !owner.keepActivityPrivate || (isSignedIn(viewer) && (viewer.isAdmin || viewer.id === owner.id));
}

/**
 * The repositories whose activity a viewer is shown, as a scope the store turns into SQL: `all`, or the
 * repositories `repoIds`. Whether a repository was private when the activity happened does not matter (Gitea's
 * heatmap passes `IncludePrivate`): only whether the viewer may read it now.
 */
export type RepoScope = { kind: 'all' } | { kind: 'repos'; repoIds: readonly number[] };

export const ALL_REPOS: RepoScope = Object.freeze({ kind: 'all' });

/**
 * Site admins see activity in every repository: Gitea does not filter by repository access for them. Everyone
 * else, the user themself included, sees the activity in repositories they can still read (Gitea's
 * `AccessibleRepoIDsQuery`): a repository made private, or one they lost access to, drops out. A public-only
 * token (`publicOnly`) sees public repositories only, so even an admin's goes through the filter.
 */
export function seesEveryRepository(viewer: Viewer, publicOnly: boolean): boolean {
  return isSiteAdmin(viewer) && !publicOnly;
}

/** Whether a scope can match nothing at all, so there is no need to ask the store. */
export function isEmptyScope(scope: RepoScope): boolean {
  return scope.kind === 'repos' && scope.repoIds.length === 0;
}
