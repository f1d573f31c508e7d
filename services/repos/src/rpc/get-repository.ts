/** GetRepository, BatchGetRepositories and FilterReadable: repositories as a viewer may read them. */
import type {
  BatchGetRepositoriesRequest,
  BatchGetRepositoriesResponse,
  FilterReadableRequest,
  FilterReadableResponse,
  GetRepositoryRequest,
  GetRepositoryResponse,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';
import { canRead, isPublicObject, viewerFromActor, type Viewer } from '../domain/access';
import { findRedirect } from '../store/redirects';
import { findByOwnerId, findByOwnerName, findRepositories, findRepository, renameOwner, type RepoRow } from '../store/repositories';
import { resolveName } from './accounts-lookup';
import type { ReposContext } from './context';
import { permissionFor, permissionsFor, repoNotFound } from './repo-access';
import { withPermission } from './repository-message';

async function readable(context: ReposContext, viewer: Viewer, repo: RepoRow | undefined): Promise<GetRepositoryResponse | undefined> {
  if (repo === undefined) return undefined;
  const permission = await permissionFor(context, viewer, repo);
  return canRead(permission) ? { repository: withPermission(repo, permission) } : undefined;
}

/** accounts' answer for the owner name; undefined when it names nobody the viewer may see. */
async function resolveOwner(context: ReposContext, owner: string, viewer: Viewer): Promise<{ id: number; name: string } | undefined> {
  try {
    return await resolveName(context, owner, viewer);
  } catch (error) {
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) return undefined;
    throw error;
  }
}

/**
 * By owner and name, case-insensitive. The owner name recorded on the rows answers first; otherwise accounts says
 * whom the name stands for (a row whose owner name is stale is healed on the way), and a former owner or repository
 * name answers a redirect to the current one — when the viewer may read the repository.
 */
async function byName(context: ReposContext, viewer: Viewer, ownerName: string, name: string): Promise<GetRepositoryResponse> {
  const { db } = context;
  const direct = await findByOwnerName(db.pool, ownerName, name);
  if (direct !== undefined) return (await readable(context, viewer, direct)) ?? notFound();
  const owner = await resolveOwner(context, ownerName, viewer);
  if (owner === undefined) return notFound();
  const current = await findByOwnerId(db.pool, owner.id, name);
  if (current !== undefined && current.ownerName !== owner.name) {
    await renameOwner(db.pool, owner.id, owner.name);
    return (await readable(context, viewer, { ...current, ownerName: owner.name })) ?? notFound();
  }
  const target = current ?? (await findRedirectTarget(context, owner.id, name));
  if (target === undefined || !canRead(await permissionFor(context, viewer, target))) return notFound();
  return { redirect: { owner: target.ownerName, name: target.name } };
}

async function findRedirectTarget(context: ReposContext, ownerId: number, name: string): Promise<RepoRow | undefined> {
  const repoId = await findRedirect(context.db.pool, ownerId, name);
  return repoId === undefined ? undefined : findRepository(context.db.pool, repoId);
}

function notFound(): never {
  throw repoNotFound();
}

export async function getRepository(context: ReposContext, request: GetRepositoryRequest): Promise<GetRepositoryResponse> {
  const viewer = viewerFromActor(request.viewer);
  if (request.id > 0) return (await readable(context, viewer, await findRepository(context.db.pool, request.id))) ?? notFound();
  if (request.owner === '' || request.name === '') throw CairnError.invalid('either id or owner and name are required');
  return byName(context, viewer, request.owner, request.name);
}

/** The readable repositories among `ids` (each id once, in the order asked), with the viewer's permission. */
async function readableAmong(context: ReposContext, viewer: Viewer, ids: readonly number[]) {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  const repos = await findRepositories(context.db.pool, wanted);
  const permissions = await permissionsFor(context, viewer, repos);
  const byId = new Map(repos.map((repo) => [repo.id, repo]));
  return wanted.flatMap((id) => {
    const repo = byId.get(id);
    const permission = permissions.get(id);
    return repo !== undefined && permission !== undefined && canRead(permission) ? [{ repo, permission }] : [];
  });
}

export async function batchGetRepositories(context: ReposContext, request: BatchGetRepositoriesRequest): Promise<BatchGetRepositoriesResponse> {
  const found = await readableAmong(context, viewerFromActor(request.viewer), request.ids);
  return { repositories: found.map(({ repo, permission }) => withPermission(repo, permission)) };
}

export async function filterReadable(context: ReposContext, request: FilterReadableRequest): Promise<FilterReadableResponse> {
  const found = await readableAmong(context, viewerFromActor(request.viewer), request.repoIds);
  const shown = found.filter(({ repo }) => (request.publicOnly !== true || isPublicObject(repo)) && (request.excludePrivate !== true || !repo.isPrivate));
  return { repoIds: shown.map(({ repo }) => repo.id) };
}
