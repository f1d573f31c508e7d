/**
 * What payload builders read: @cairn/gitea-json's converters with hooks' clients, and the repositories and users of
 * events as Gitea's webhook notifier sees them (services/webhook/notifier.go): no doer, so users with their
 * placeholder e-mails (`convert.ToUser(ctx, u, nil)`), and repositories with owner-level permission
 * (`access_model.Permission{AccessMode: perm.AccessModeOwner}`).
 */
import { type ApiRepository, type ApiUser, type ConvertServices, ghostUser, toApiRepositories, toApiUser } from '@cairn/gitea-json';
import type { BatchGetUsersResponse } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Repository, RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { HooksClients } from '../rpc/context';

export interface PayloadServices extends ConvertServices {
  clients: HooksClients;
  /** Repositories already asked for while handling one event (fan-out's owner lookup, then the builders). */
  repositories?: Map<number, Promise<RepositoryWithPermission | undefined>>;
}

/** A site admin's view: repos answers every repository, private ones too; the view decides nothing in a payload. */
export const INTERNAL_VIEWER: Actor = { userId: 1, isAdmin: true, isRestricted: false };

/** Owner-level permission on every unit the repository has, as Gitea's notifier passes it. */
function asOwner(item: RepositoryWithPermission): RepositoryWithPermission {
  const units = Object.fromEntries(Object.keys(item.permission?.units ?? {}).map((unit) => [unit, 'owner']));
  return { repository: item.repository, permission: { accessMode: 'owner', units } };
}

/** The repositories of `ids` that still exist, by id. */
export async function loadRepositories(services: PayloadServices, ids: readonly number[]): Promise<Map<number, RepositoryWithPermission>> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  if (wanted.length === 0) return new Map();
  const { repositories } = await services.clients.repos.batchGetRepositories({ viewer: INTERNAL_VIEWER, ids: wanted });
  const found = new Map<number, RepositoryWithPermission>();
  for (const item of repositories) if (item.repository !== undefined) found.set(item.repository.id, asOwner(item));
  return found;
}

/** One repository, or undefined when it is gone (an event about it is then dropped, as Gitea's LoadRepo fails). */
export function loadRepository(services: PayloadServices, id: number): Promise<RepositoryWithPermission | undefined> {
  const known = services.repositories?.get(id);
  if (known !== undefined) return known;
  const loading = loadRepositories(services, [id]).then((found) => found.get(id));
  services.repositories?.set(id, loading);
  return loading;
}

export function repositoryOf(item: RepositoryWithPermission): Repository {
  if (item.repository === undefined) throw new Error('repos answered a repository without its fields');
  return item.repository;
}

/** Gitea's `repository` object of a payload (no viewer). */
export async function apiRepository(services: PayloadServices, item: RepositoryWithPermission): Promise<ApiRepository> {
  const [converted] = await toApiRepositories(services, undefined, [item]);
  return converted;
}

/** Users as Gitea's notifier shapes them (no doer), by id; a user that is gone is Gitea's Ghost user. */
export async function apiUsers(services: PayloadServices, ids: readonly number[]): Promise<(id: number) => ApiUser> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  const { users } = wanted.length === 0 ? { users: [] } : await services.clients.users.batchGetUsers({ ids: wanted, viewer: undefined });
  const { rootUrl } = services.config.server;
  const byId = new Map(users.map((user) => [user.id, toApiUser(user, { rootUrl })]));
  const ghost = ghostUser(rootUrl, undefined, services.config.service.noReplyAddress);
  return (id) => byId.get(id) ?? ghost;
}

/**
 * The users client of one event's payloads: the converters each ask accounts for their own users (the sender, the
 * poster, the repository's owner…), at about the same time. BatchGetUsers calls made before the event loop's next
 * turn go out as one call per viewer, and each caller gets the users of its own ids, as its own call would answer
 * them: fewer calls on the way to a delivery and less work for accounts.
 */
export function coalescedUsers(users: HooksClients['users']): HooksClients['users'] {
  const batches = new Map<string, { ids: Set<number>; answer: Promise<BatchGetUsersResponse> }>();
  const batchGetUsers: HooksClients['users']['batchGetUsers'] = (request, callOptions) => {
    // A call with its own deadline or signal keeps them.
    if (callOptions !== undefined) return users.batchGetUsers(request, callOptions);
    const key = JSON.stringify(request.viewer ?? null);
    let batch = batches.get(key);
    if (batch === undefined) {
      const ids = new Set<number>();
      const answer = new Promise<BatchGetUsersResponse>((resolve, reject) => {
        setImmediate(() => {
          batches.delete(key);
          users.batchGetUsers({ ids: [...ids], viewer: request.viewer }).then(resolve, reject);
        });
      });
      batch = { ids, answer };
      batches.set(key, batch);
    }
    for (const id of request.ids) batch.ids.add(id);
    const wanted = new Set(request.ids);
    return batch.answer.then((answer) => ({ ...answer, users: answer.users.filter((user) => wanted.has(user.id)) }));
  };
  return { ...users, batchGetUsers };
}
