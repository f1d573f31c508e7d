/** Who may create repositories where (Gitea's `CanCreateOrgRepo`, `CanCreateRepo`, and the creator-admin rule). */
import { CairnError } from '@cairn/rpc';
import { AccessMode, type TeamGrant, type Viewer } from './access';

/** Site admins, and members of a team of the organization that may create repositories (the Owners team may). */
export function canCreateInOrg(viewer: Viewer, orgTeams: readonly TeamGrant[]): boolean {
  return viewer.isAdmin || orgTeams.some((team) => team.canCreateOrgRepo || team.mode >= AccessMode.Owner);
}

/** What the limit rule needs about the owner. */
export interface OwnerLimit {
  isAdmin: boolean;
  /** -1: the instance default. */
  maxRepoCreation: number;
}

/** Gitea's `User.CanCreateRepo`: admins always; else fewer repositories than the owner's or the instance's limit. */
export function withinCreationLimit(owner: OwnerLimit, ownedRepos: number, instanceLimit: number): boolean {
  if (owner.isAdmin) return true;
  const limit = owner.maxRepoCreation <= -1 ? instanceLimit : owner.maxRepoCreation;
  return limit <= -1 || ownedRepos < limit;
}

export function creationLimitReached(owner: OwnerLimit, instanceLimit: number): CairnError {
  const limit = owner.maxRepoCreation <= -1 ? instanceLimit : owner.maxRepoCreation;
  return CairnError.denied(`user has reached maximum limit of repositories [limit: ${limit}]`, { reason: 'repo_limit_reached' });
}
