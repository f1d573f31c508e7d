/**
 * repository, fork, release and status payloads from repos' events, as Gitea's services/webhook/notifier.go builds
 * them (CreateRepository, DeleteRepository, ForkRepository, sendReleaseHook, CreateCommitStatus).
 */
import type { CommitStatusPayload, DeletedRepository, ForkPayload, ReleasePayload, RepositoryPayload } from '@cairn/events';
import { goTime } from '@cairn/http';
import { gitRepositoryOf, repoApiUrl, repoHtmlUrl, repoLinks, toApiRelease } from '@cairn/gitea-json';
import type { CommitStatusCreated, ReleaseDeleted, ReleasePublished, ReleaseUpdated, RepoCreated, RepoDeleted, RepoForked } from '@cairn/proto/cairn/repos/v1/events';
import type { EventPlan } from './plan';
import { payloadCommits } from './push';
import { type PayloadServices, apiRepository, apiUsers, loadRepositories, loadRepository, repositoryOf } from './services';

const OWNER_IS_ORGANIZATION = 1;

/**
 * cairn.repo.created: `repository` `created` to the new repository's hooks (default hooks are copied into it first,
 * Gitea's CopyDefaultWebhooksToRepo in services/repository/create.go), the owner's and system hooks.
 */
export function repoCreatedPlan(services: PayloadServices, event: RepoCreated, eventId: string): EventPlan[] {
  const created = event.repository;
  if (created === undefined) return [];
  const senderId = event.meta?.actorId ?? 0;
  return [
    {
      repoId: created.id,
      ownerId: created.ownerId,
      withRepoHooks: true,
      copyDefaultHooks: true,
      payloads: [
        {
          key: eventId,
          eventType: 'repository',
          build: async () => {
            const item = await loadRepository(services, created.id);
            if (item === undefined) return undefined;
            const [repository, user] = await Promise.all([apiRepository(services, item), apiUsers(services, [created.ownerId, senderId])]);
            return { payload: { action: 'created', repository, organization: user(created.ownerId), sender: user(senderId) } satisfies RepositoryPayload };
          },
        },
      ],
    },
  ];
}

/**
 * cairn.repo.deleted: `repository` `deleted` to the owner's and system hooks (the repository's own hooks and their
 * tasks go with it in Gitea). The repository is gone from repos by now: its object is what the event still says.
 */
export function repoDeletedPlan(services: PayloadServices, event: RepoDeleted, eventId: string): EventPlan[] {
  const senderId = event.meta?.actorId ?? 0;
  const { rootUrl } = services.config.server;
  return [
    {
      repoId: event.repoId,
      ownerId: event.ownerId,
      withRepoHooks: false,
      goneRepository: { private: event.private },
      payloads: [
        {
          key: eventId,
          eventType: 'repository',
          build: async () => {
            const user = await apiUsers(services, [event.ownerId, senderId]);
            const names = { ownerName: event.ownerName, name: event.name };
            const repository: DeletedRepository = {
              id: event.repoId,
              owner: user(event.ownerId),
              name: event.name,
              full_name: `${event.ownerName}/${event.name}`,
              private: event.private,
              html_url: repoHtmlUrl(rootUrl, names),
              url: repoApiUrl(rootUrl, names),
            };
            return { payload: { action: 'deleted', repository, organization: user(event.ownerId), sender: user(senderId) } satisfies RepositoryPayload };
          },
        },
      ],
    },
  ];
}

/**
 * cairn.repo.forked: `fork` to the ORIGINAL repository's hooks (forkee = the original, repository = the fork), and
 * when an organization owns the fork, `repository` `created` to the fork's hooks (Gitea's ForkRepository notifier).
 */
export function repoForkedPlans(services: PayloadServices, event: RepoForked, eventId: string): EventPlan[] {
  const fork = event.repository;
  if (fork === undefined) return [];
  const senderId = event.meta?.actorId ?? 0;
  const both = async () => {
    const found = await loadRepositories(services, [event.baseRepoId, fork.id]);
    const original = found.get(event.baseRepoId);
    const forked = found.get(fork.id);
    if (original === undefined || forked === undefined) return undefined;
    const [forkee, repository, user] = await Promise.all([
      apiRepository(services, original),
      apiRepository(services, forked),
      apiUsers(services, [senderId, fork.ownerId]),
    ]);
    return { forkee, repository, user };
  };
  const plans: EventPlan[] = [
    {
      repoId: event.baseRepoId,
      withRepoHooks: true,
      payloads: [
        {
          key: eventId,
          eventType: 'fork',
          build: async () => {
            const loaded = await both();
            return loaded === undefined ? undefined : { payload: { forkee: loaded.forkee, repository: loaded.repository, sender: loaded.user(senderId) } satisfies ForkPayload };
          },
        },
      ],
    },
  ];
  if (fork.ownerType === OWNER_IS_ORGANIZATION) {
    plans.push({
      repoId: fork.id,
      ownerId: fork.ownerId,
      withRepoHooks: true,
      payloads: [
        {
          key: eventId,
          eventType: 'repository',
          build: async () => {
            const loaded = await both();
            return loaded === undefined
              ? undefined
              : { payload: { action: 'created', repository: loaded.repository, organization: loaded.user(fork.ownerId), sender: loaded.user(senderId) } satisfies RepositoryPayload };
          },
        },
      ],
    });
  }
  return plans;
}

/** cairn.release.published / .updated / .deleted: `release` (Gitea's sendReleaseHook). */
export function releasePlan(
  services: PayloadServices,
  action: 'published' | 'updated' | 'deleted',
  event: ReleasePublished | ReleaseUpdated | ReleaseDeleted,
  eventId: string,
): EventPlan[] {
  const release = event.release;
  if (release === undefined) return [];
  const senderId = event.meta?.actorId ?? 0;
  return [
    {
      repoId: release.repoId,
      withRepoHooks: true,
      payloads: [
        {
          key: eventId,
          eventType: 'release',
          build: async () => {
            const item = await loadRepository(services, release.repoId);
            if (item === undefined) return undefined;
            const repository = repositoryOf(item);
            const [apiRelease, apiRepo, user] = await Promise.all([
              toApiRelease(services, release, repoLinks(services.config.server.rootUrl, repository)),
              apiRepository(services, item),
              apiUsers(services, [senderId]),
            ]);
            return { payload: { action, release: apiRelease, repository: apiRepo, sender: user(senderId) } satisfies ReleasePayload };
          },
        },
      ],
    },
  ];
}

/**
 * cairn.commit_status.created: `status` (Gitea's CreateCommitStatus notifier). The event carries no status id or
 * times: `id` is the status's index and both times the event's.
 */
export function statusPlan(services: PayloadServices, event: CommitStatusCreated, eventId: string): EventPlan[] {
  const senderId = event.meta?.actorId ?? 0;
  return [
    {
      repoId: event.repoId,
      withRepoHooks: true,
      payloads: [
        {
          key: eventId,
          eventType: 'status',
          build: async () => {
            const item = await loadRepository(services, event.repoId);
            if (item === undefined) return undefined;
            const repository = repositoryOf(item);
            const { commit } = await services.clients.commits.getCommit({ repository: gitRepositoryOf(repository), revision: event.sha, withStats: true, withVerification: false });
            const [apiRepo, user, commits] = await Promise.all([
              apiRepository(services, item),
              apiUsers(services, [senderId]),
              commit === undefined ? [] : payloadCommits(services, repository, [commit]),
            ]);
            // Go's time.Time in UTC with Gitea's whole seconds (CreatedUnix).
            const at = goTime(event.meta?.occurredAt);
            return {
              payload: {
                commit: commits[0] ?? null,
                context: event.context,
                created_at: at,
                description: event.description,
                id: event.index,
                repository: apiRepo,
                sender: user(senderId),
                sha: event.sha,
                state: event.state,
                target_url: event.targetUrl,
                updated_at: at,
              } satisfies CommitStatusPayload,
            };
          },
        },
      ],
    },
  ];
}
