/**
 * CommitStatusService: statuses CI systems report on commits (Gitea's routers/api/v1/repo/status.go). Readers of
 * the code unit list them; its writers create them (archived repositories included, as in Gitea), each publishing
 * cairn.commit_status.created in the same transaction. The gateway resolves refs to the full commit id before calling.
 *
 * A status's `id` in answers is its index among the commit's statuses (1, 2, …): that is what Gitea answers as
 * the status id.
 */
import type { CommitStatus, CommitStatusServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { assertFullSha, combineStates, newStatusFields, stateFilter, statusOrder } from '../domain/commit-status';
import { pageWindow } from '../domain/paging';
import { enqueueCommitStatusCreated } from '../events/outbox';
import { insertStatus, latestStatuses, listStatuses, type StoredStatus } from '../store/commit-statuses';
import type { ReposContext } from './context';
import { guard } from './guard';
import { loadRepoForViewer, requireAccess, type AccessRequirement } from './repo-access';

const CODE = 'repo.code';

function toCommitStatus(status: StoredStatus): CommitStatus {
  return {
    id: status.index,
    sha: status.sha,
    state: status.state,
    targetUrl: status.targetUrl,
    description: status.description,
    context: status.context,
    creatorId: status.creatorId,
    created: status.created,
    updated: status.updated,
  };
}

export function createCommitStatusService(context: ReposContext): AsyncServiceOf<typeof CommitStatusServiceService> {
  const { db } = context;

  /** The repository id, once the caller is allowed and the sha is a full commit id. */
  async function repoFor(caller: Actor | undefined, repoId: number, requirement: AccessRequirement, sha: string): Promise<number> {
    const { repo, permission } = await loadRepoForViewer(context, caller, repoId);
    requireAccess(permission, requirement, repo);
    assertFullSha(sha);
    return repo.id;
  }

  return {
    async createCommitStatus(request) {
      const repoId = await repoFor(request.actor, request.repoId, { unit: CODE, mode: 'write', archived: 'allow' }, request.sha);
      const fields = newStatusFields(request);
      const status = await guard(() =>
        db.pool.transaction(async (tx) => {
          const created = await insertStatus(tx, { ...fields, repoId, sha: request.sha, creatorId: request.actor?.userId ?? 0 });
          await enqueueCommitStatusCreated(tx, created);
          return created;
        }),
      );
      return { status: toCommitStatus(status) };
    },

    async listCommitStatuses(request) {
      const repoId = await repoFor(request.viewer, request.repoId, { unit: CODE, mode: 'read' }, request.sha);
      const { statuses, total } = await guard(() =>
        listStatuses(db.pool, {
          repoId,
          sha: request.sha,
          state: stateFilter(request.state),
          order: statusOrder(request.sort),
          window: pageWindow(request.page),
        }),
      );
      return { statuses: statuses.map(toCommitStatus), total };
    },

    async getCombinedStatus(request) {
      const repoId = await repoFor(request.viewer, request.repoId, { unit: CODE, mode: 'read' }, request.sha);
      const latest = await guard(() => latestStatuses(db.pool, repoId, request.sha));
      const window = pageWindow(request.page);
      const page = window === undefined ? latest : latest.slice(window.offset, window.offset + window.limit);
      return { state: combineStates(latest.map((status) => status.state)), statuses: page.map(toCommitStatus), totalCount: latest.length };
    },
  };
}
