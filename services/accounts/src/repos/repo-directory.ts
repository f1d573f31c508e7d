/**
 * Where accounts learns which repositories an organization has, for the team repository endpoints.
 * Repositories belong to the repos service; until it exists no organization has any, so `NO_REPOSITORIES`
 * finds none: team repository lists are empty and adding, removing or reading one answers NOT_FOUND. The
 * repos service plugs in here (a client call, or a projection of its events).
 */
import type { Viewer } from '../domain/visibility-rules';

export interface OrgRepository {
  id: number;
  /** Whether the viewer has admin access to the repository (Gitea's `AccessLevel >= admin`). */
  viewerIsAdmin: boolean;
}

export interface RepoDirectory {
  /** The organization's repository of that name (case-insensitive) as the viewer reaches it, if any. */
  findOrgRepo(orgId: number, name: string, viewer: Viewer): Promise<OrgRepository | undefined>;
}

export const NO_REPOSITORIES: RepoDirectory = Object.freeze({
  findOrgRepo: async () => undefined,
});
