/**
 * Which repositories a viewer may read, for filtering a user's activity (Gitea's `AccessibleRepoIDsQuery`).
 * Repositories and their permissions belong to the repos service; until it exists, `INTERIM_REPO_ACCESS`
 * answers from what the events recorded (each row's repository privacy at the time):
 * - the user themself: every repository (Gitea: the repositories they can still read, which already covers
 *   everything they pushed to until repositories can be left or made private);
 * - a restricted viewer: none (Gitea shows them only repositories they were given, and none can be yet);
 * - anyone else, anonymous included: repositories that were public at the time.
 * Not yet applied: the owner's visibility (a public repository of a limited or private owner) and grants
 * (collaborations, teams) to private repositories. The repos service plugs in here, as a batch RPC answering
 * the viewer's readable repositories among the user's, or as a projection of its events.
 * Site admins never reach this: they see every repository (domain/activity-visibility.ts).
 */
import { ALL_REPOS, NO_REPOS, type RepoScope } from '../domain/activity-visibility';
import type { Viewer } from '../domain/viewer';

export interface RepoAccess {
  /** The repositories of `userId`'s activity that `viewer` may read. */
  readableRepos(viewer: Viewer, userId: number): Promise<RepoScope>;
}

const PUBLIC_REPOS: RepoScope = Object.freeze({ kind: 'repos', publicRepos: true, repoIds: Object.freeze([]) });

export const INTERIM_REPO_ACCESS: RepoAccess = Object.freeze({
  readableRepos: async (viewer: Viewer, userId: number): Promise<RepoScope> => {
    if (viewer.id > 0 && viewer.id === userId) return ALL_REPOS;
    if (viewer.isRestricted) return NO_REPOS;
    return PUBLIC_REPOS;
  },
});
