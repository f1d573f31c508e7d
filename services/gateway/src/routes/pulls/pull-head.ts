/**
 * The head of a new pull request as Gitea's API names it (routers/api/v1/repo/pull.go `parseCompareInfo`): `branch`
 * in this repository, or `owner:branch` (also `owner/repo:branch`) in that owner's fork of this repository, or in
 * this repository's own base when it is itself a fork. A head that names no such repository, or one whose code the
 * caller may not read, is 404.
 */
import { HttpError } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Repository, RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code, isCairnError } from '@cairn/rpc';
import { UNIT_CODE, accessAtLeast } from '@cairn/gitea-json';
import type { GatewayServices } from '../../api/types';

/** What `head` says: the branch, and the repository's owner (and name) when it is not this repository. */
export interface HeadSpec {
  owner: string | undefined;
  name: string | undefined;
  branch: string;
}

/** `branch`, `owner:branch` or `owner/repo:branch`; undefined for anything else (Gitea's 404). */
export function parseHead(head: string): HeadSpec | undefined {
  const parts = head.split(':');
  if (parts.length === 1) return { owner: undefined, name: undefined, branch: head };
  if (parts.length !== 2) return undefined;
  const [where, branch] = parts;
  const slash = where.indexOf('/');
  if (slash < 0) return { owner: where, name: undefined, branch };
  const name = where.slice(slash + 1);
  if (name.includes('/') || name === '' || slash === 0) return undefined;
  return { owner: where.slice(0, slash), name, branch };
}

/** Forks listed per page while looking for an owner's fork. */
const FORK_PAGE = 50;
/** Pages of forks looked through at most (an owner has at most one fork of a repository). */
const MAX_FORK_PAGES = 20;

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export async function repositoryNamed(services: GatewayServices, viewer: Actor | undefined, owner: string, name: string): Promise<RepositoryWithPermission | undefined> {
  try {
    const { repository } = await services.clients.repos.getRepository({ viewer, id: 0, owner, name });
    return repository;
  } catch (error) {
    if (isCairnError(error) && (error.code === Code.NOT_FOUND || error.code === Code.INVALID_ARGUMENT)) return undefined;
    throw error;
  }
}

async function repositoryById(services: GatewayServices, viewer: Actor | undefined, id: number): Promise<RepositoryWithPermission | undefined> {
  const { repositories } = await services.clients.repos.batchGetRepositories({ viewer, ids: [id] });
  return repositories[0];
}

/** Whether `candidate` may be the head repository of a pull request into `base`: a fork of it, or its own base. */
function related(candidate: Repository, base: Repository): boolean {
  return (candidate.fork && candidate.parentId === base.id) || (base.fork && base.parentId === candidate.id);
}

async function forkOwnedBy(services: GatewayServices, viewer: Actor | undefined, base: Repository, owner: string): Promise<RepositoryWithPermission | undefined> {
  // Forks usually keep the name: one lookup then; otherwise the forks are listed.
  const named = await repositoryNamed(services, viewer, owner, base.name);
  if (named?.repository !== undefined && related(named.repository, base)) return named;
  for (let page = 1; page <= MAX_FORK_PAGES; page += 1) {
    const { repositories, total } = await services.clients.repos.listForks({ viewer, id: base.id, page: { page, limit: FORK_PAGE } });
    const found = repositories.find((item) => item.repository !== undefined && sameName(item.repository.ownerName, owner));
    if (found !== undefined) return found;
    if (repositories.length < FORK_PAGE || page * FORK_PAGE >= total) break;
  }
  if (base.fork && base.parentId > 0) {
    const parent = await repositoryById(services, viewer, base.parentId);
    if (parent?.repository !== undefined && sameName(parent.repository.ownerName, owner)) return parent;
  }
  return undefined;
}

/**
 * The head repository `spec` names, with the viewer's permission; undefined when it is the base repository itself.
 * 404 when there is none the viewer may read the code of.
 */
export async function resolveHeadRepository(
  services: GatewayServices,
  viewer: Actor | undefined,
  base: Repository,
  spec: HeadSpec,
): Promise<RepositoryWithPermission | undefined> {
  if (spec.owner === undefined) return undefined;
  if (sameName(spec.owner, base.ownerName) && (spec.name === undefined || sameName(spec.name, base.name))) return undefined;
  let found: RepositoryWithPermission | undefined;
  if (spec.name !== undefined) {
    const named = await repositoryNamed(services, viewer, spec.owner, spec.name);
    found = named?.repository !== undefined && related(named.repository, base) ? named : undefined;
  } else {
    found = await forkOwnedBy(services, viewer, base, spec.owner);
  }
  const repository = found?.repository;
  if (found === undefined || repository === undefined || found.permission === undefined) throw HttpError.notFound();
  const codeReadable = repository.units.some((unit) => unit.key === UNIT_CODE) && accessAtLeast(found.permission.units[UNIT_CODE], 'read');
  if (!codeReadable) throw HttpError.notFound();
  return found;
}
