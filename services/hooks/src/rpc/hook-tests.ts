/**
 * TestHook (`POST /repos/{o}/{r}/hooks/{id}/tests`), as Gitea's routers/api/v1/repo/hook.go TestHook: a push
 * payload of one commit — the last of `ref`, the default branch when empty — with before = after = that commit,
 * the repository with no permission and the doer as pusher and sender, handed to this hook only through Gitea's
 * PrepareWebhook. That checks the hook's events and branch filter but not whether it is active (an inactive hook is
 * tested too); a hook that does not take push events gets nothing, and the call still succeeds.
 */
import { randomUUID } from 'node:crypto';
import { gitRepositoryOf } from '@cairn/gitea-json';
import { HookScope, type HookServiceService } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import { CairnError, type AsyncServiceOf } from '@cairn/rpc';
import { coarseEvent, hookWantsPayload } from '../domain/event-match';
import { type PayloadServices, apiRepository, apiUsers, loadRepository, repositoryOf } from '../payloads/services';
import { BRANCH_PREFIX, compareUrl, payloadCommits } from '../payloads/push';
import { lookupPlacesOf } from '../domain/hook-places';
import { insertPayload, insertTasks } from '../store/fan-out';
import { findHook } from '../store/hooks';
import type { HooksContext } from './context';

export function createTestHook(context: HooksContext): AsyncServiceOf<typeof HookServiceService>['testHook'] {
  const services: PayloadServices = { config: context.config, logger: context.logger, clients: context.clients };
  return async (request) => {
    const owner = request.owner;
    if (owner?.scope !== HookScope.HOOK_SCOPE_REPOSITORY) throw CairnError.notFound('hook not found');
    const hook = await findHook(context.db.pool, lookupPlacesOf(owner), request.id);
    if (hook === undefined) throw CairnError.notFound('hook not found');
    if (context.config.security.disableWebhooks) return {};
    const item = await loadRepository(services, owner.repoId);
    if (item === undefined) throw CairnError.notFound('repository not found');
    const repository = repositoryOf(item);
    // `?ref=` names a branch, tag or commit as Gitea's RepoRefForAPI reads it, and is the payload's ref as given.
    const revision = request.ref === '' ? repository.defaultBranch : request.ref;
    const ref = request.ref === '' ? `${BRANCH_PREFIX}${repository.defaultBranch}` : request.ref;
    const { commit } = await context.clients.commits.getCommit({ repository: gitRepositoryOf(repository), revision, withStats: true, withVerification: false });
    if (commit === undefined) throw CairnError.notFound(`ref ${ref} not found`);
    const branch = ref.startsWith(BRANCH_PREFIX) ? ref.slice(BRANCH_PREFIX.length) : ref;
    if (!hookWantsPayload(hook, { eventType: 'push', branch, pushCommits: 1 })) return {};
    // AccessModeNone: Gitea's TestHook shows the repository as to nobody.
    const [apiRepo, user, [apiCommit]] = await Promise.all([
      apiRepository(services, { repository, permission: { accessMode: 'none', units: {} } }),
      apiUsers(services, [request.doerId]),
      payloadCommits(services, repository, [commit]),
    ]);
    const payload = {
      ref,
      before: commit.sha,
      after: commit.sha,
      compare_url: compareUrl(context.config.server.rootUrl, repository, commit.sha, commit.sha),
      commits: [apiCommit],
      total_commits: 1,
      head_commit: apiCommit,
      repository: apiRepo,
      pusher: user(request.doerId),
      sender: user(request.doerId),
    };
    await context.db.pool.transaction(async (tx) => {
      // Its own event id: every test is a delivery of its own.
      const stored = await insertPayload(tx, { eventId: `test:${randomUUID()}`, eventType: 'push', event: coarseEvent('push'), repoId: repository.id, payload });
      await insertTasks(tx, { ...stored, event: coarseEvent('push'), eventType: 'push' }, [hook.id]);
    });
    context.deliverer?.wake();
    return {};
  };
}
