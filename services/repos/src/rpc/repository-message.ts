/** A repository row as the proto `Repository` answers it. */
import type { Repository, RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { toPermission, type RepoPermission } from '../domain/access';
import type { RepoRow } from '../store/repositories';

const PULLS = 'repo.pulls';
const ISSUES = 'repo.issues';

/**
 * Pull-request settings show only while the pulls unit is on and tracker settings only while the issues unit is,
 * as Gitea's convert.ToRepo does (the stored values come back when the unit is switched on again).
 */
export function toRepository(repo: RepoRow): Repository {
  const pulls = repo.units.includes(PULLS);
  const issues = repo.units.includes(ISSUES);
  return {
    id: repo.id,
    ownerId: repo.ownerId,
    ownerName: repo.ownerName,
    ownerType: repo.ownerType,
    ownerVisibility: repo.ownerVisibility,
    name: repo.name,
    description: repo.description,
    website: repo.website,
    private: repo.isPrivate,
    template: repo.isTemplate,
    fork: repo.isFork,
    parentId: repo.forkId,
    mirror: repo.isMirror,
    mirrorInterval: repo.mirrorInterval,
    originalUrl: repo.originalUrl,
    mirrorUpdated: repo.mirrorUpdated ?? undefined,
    empty: repo.isEmpty,
    archived: repo.isArchived,
    archivedAt: repo.archivedAt ?? undefined,
    size: repo.size,
    defaultBranch: repo.defaultBranch,
    objectFormatName: repo.objectFormatName,
    forksCount: repo.numForks,
    starsCount: repo.numStars,
    watchersCount: repo.numWatches,
    openIssuesCount: repo.numOpenIssues,
    openPrCounter: repo.numOpenPulls,
    releaseCounter: repo.numReleases,
    created: repo.created,
    updated: repo.updated,
    units: repo.units.map((key) => ({ key })),
    topics: repo.topics,
    allowMergeCommits: pulls && repo.allowMergeCommits,
    allowRebase: pulls && repo.allowRebase,
    allowRebaseExplicit: pulls && repo.allowRebaseExplicit,
    allowSquashMerge: pulls && repo.allowSquashMerge,
    allowFastForwardOnlyMerge: pulls && repo.allowFastForwardOnlyMerge,
    allowRebaseUpdate: pulls && repo.allowRebaseUpdate,
    allowManualMerge: pulls && repo.allowManualMerge,
    autodetectManualMerge: pulls && repo.autodetectManualMerge,
    defaultDeleteBranchAfterMerge: pulls && repo.defaultDeleteBranchAfterMerge,
    defaultMergeStyle: pulls ? repo.defaultMergeStyle : '',
    defaultAllowMaintainerEdit: pulls && repo.defaultAllowMaintainerEdit,
    ignoreWhitespaceConflicts: pulls && repo.ignoreWhitespaceConflicts,
    enableTimeTracker: issues && repo.enableTimeTracker,
    allowOnlyContributorsToTrackTime: issues && repo.allowOnlyContributorsToTrackTime,
    enableIssueDependencies: issues && repo.enableIssueDependencies,
    projectsMode: repo.projectsMode,
    storage: repo.storage,
    pendingTransfer:
      repo.pendingTransfer === null
        ? undefined
        : {
            doerId: repo.pendingTransfer.doerId,
            recipientId: repo.pendingTransfer.recipientId,
            teamIds: repo.pendingTransfer.teamIds,
            created: repo.pendingTransfer.created,
          },
    branchCount: repo.branchCount,
    licenses: repo.licenses,
  };
}

export function withPermission(repo: RepoRow, permission: RepoPermission): RepositoryWithPermission {
  return { repository: toRepository(repo), permission: toPermission(permission) };
}

/** git-storage's address of the repository. */
export function gitRepository(repo: Pick<RepoRow, 'id' | 'storage'>): { storage: string; repoId: number } {
  return { storage: repo.storage, repoId: repo.id };
}
