/** RepoService: repositories and the access to them; each RPC's rules live in its own module. */
import type { RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, type AsyncServiceOf } from '@cairn/rpc';
import { viewerFromActor } from '../domain/access';
import { loadPushRules } from '../protection/push-rules';
import { loadPushTagRules } from '../protection/tag-rules';
import { countOwnerRepositories, recordMirrorSync } from '../store/repositories';
import type { ReposContext } from './context';
import { createRepository } from './create-repository';
import { deleteRepositoryHandler } from './delete-repository';
import { forkRepository } from './fork-repository';
import { batchGetRepositories, filterReadable, getRepository } from './get-repository';
import { guard } from './guard';
import { listAccessibleRepositories, listForks, listOwnerRepositories, listReadableRepositoryIds, searchRepositories } from './list-repositories';
import { loadRepoForViewer, requireAccess } from './repo-access';
import { toRepository } from './repository-message';
import { acceptTransfer, rejectTransfer, transferRepository } from './transfer-repository';
import { updateRepositoryHandler } from './update-repository';

export function createRepoService(context: ReposContext): AsyncServiceOf<typeof RepoServiceService> {
  return {
    createRepository: (request) => guard(() => createRepository(context, request)),
    getRepository: (request) => guard(() => getRepository(context, request)),
    batchGetRepositories: (request) => guard(() => batchGetRepositories(context, request)),
    updateRepository: (request) => guard(() => updateRepositoryHandler(context, request)),
    deleteRepository: (request) => guard(() => deleteRepositoryHandler(context, request)),
    searchRepositories: (request) => guard(() => searchRepositories(context, request)),
    listOwnerRepositories: (request) => guard(() => listOwnerRepositories(context, request)),
    countOwnerRepositories: (request) => guard(async () => ({ total: await countOwnerRepositories(context.db.pool, request.ownerId) })),
    listAccessibleRepositories: (request) => guard(() => listAccessibleRepositories(context, request)),
    filterReadable: (request) => guard(() => filterReadable(context, request)),
    listReadableRepositoryIds: (request) => guard(() => listReadableRepositoryIds(context, request)),
    forkRepository: (request) => guard(() => forkRepository(context, request)),
    listForks: (request) => guard(() => listForks(context, request)),
    transferRepository: (request) => guard(() => transferRepository(context, request)),
    acceptTransfer: (request) => guard(() => acceptTransfer(context, request)),
    rejectTransfer: (request) => guard(() => rejectTransfer(context, request)),

    getPushPolicy: (request) =>
      guard(async () => {
        const pusher = viewerFromActor(request.pusher);
        const { repo, permission } = await loadRepoForViewer(context, pusher, request.id);
        requireAccess(permission, { unit: 'repo.code', mode: 'write' }, repo);
        // Gitea refuses pushes to a mirror: it is fed from its remote only.
        if (repo.isMirror) throw CairnError.denied('mirror repository is read-only', { reason: 'repo_is_mirror' });
        return {
          repository: toRepository(repo),
          rules: await loadPushRules(context, repo, pusher),
          tagRules: await loadPushTagRules(context, repo, pusher.id),
        };
      }),
    recordMirrorSync: (request) =>
      guard(async () => {
        const outcome = await recordMirrorSync(context.db.pool, request.repoId, request.syncedAt ?? new Date());
        if (outcome === 'missing') throw CairnError.notFound('repository does not exist', { reason: 'repo_not_found' });
        if (outcome === 'not_mirror') throw CairnError.precondition('Repository is not a mirror', { reason: 'not_mirror' });
        return {};
      }),
  };
}
