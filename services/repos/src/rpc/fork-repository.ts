/**
 * ForkRepository (Gitea's services/repository/fork.go through the API's CreateFork): into the actor's account or an
 * organization where they may create repositories; one fork per owner and base; the fork starts with Gitea's fork
 * units, its base's description, default branch and privacy (private also when the base's owner is private).
 */
import type { ForkRepositoryRequest, ForkRepositoryResponse } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';
import { AccessMode, OWNER_ORG, viewerFromActor, type Viewer } from '../domain/access';
import { canCreateInOrg } from '../domain/create-rights';
import { assertUsableRepoName } from '../domain/repo-name';
import { forkUnits } from '../domain/units';
import { enqueueRepoForked } from '../events/outbox';
import { upsertCollaboration } from '../store/collaborations';
import { deleteRedirect } from '../store/redirects';
import { addForkCount, findByOwnerId, findFork, findRepository, insertRepository, type RepoRow } from '../store/repositories';
import { accountById, ownerFactsOf, resolveName } from './accounts-lookup';
import type { ReposContext } from './context';
import {
  GIT_CREATE_DEADLINE_MS,
  ORG_CREATE_DENIED,
  assertWithinLimit,
  createWithGit,
  creationOwner,
  creatorNeedsAdmin,
  recordGitState,
  type CreationOwner,
} from './create-repository';
import { loadRepoForViewer, permissionFor, requireAccess } from './repo-access';
import { gitRepository, withPermission } from './repository-message';
import { userTeams } from './viewer-teams';

function orgNotFound(name: string): CairnError {
  return CairnError.invalid(`org does not exist [id: 0, name: ${name}]`, { reason: 'org_not_found' });
}

/** The organization to fork into: one the actor is a member of and may create repositories in (site admins: any). */
async function forkOrg(context: ReposContext, viewer: Viewer, name: string): Promise<CreationOwner> {
  let orgId: number;
  try {
    const resolved = await resolveName(context, name, viewer);
    if (resolved.type !== OWNER_ORG) throw orgNotFound(name);
    orgId = resolved.id;
  } catch (error) {
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) throw orgNotFound(name);
    throw error;
  }
  const org = await accountById(context, orgId);
  const actorTeams = await userTeams(context, viewer.id, org.id);
  if (!viewer.isAdmin && actorTeams.length === 0) {
    throw CairnError.denied(`User is no Member of Organisation '${org.login}'`, { reason: 'not_org_member' });
  }
  if (!canCreateInOrg(viewer, actorTeams)) throw CairnError.denied(ORG_CREATE_DENIED, { reason: 'org_create_denied' });
  return { facts: ownerFactsOf(org), limit: { isAdmin: org.isAdmin, maxRepoCreation: org.maxRepoCreation }, actorTeams };
}

export async function forkRepository(context: ReposContext, request: ForkRepositoryRequest): Promise<ForkRepositoryResponse> {
  const viewer = viewerFromActor(request.actor);
  const { db, config, git } = context;
  const { repo: base, permission } = await loadRepoForViewer(context, viewer, request.id);
  requireAccess(permission, { unit: 'repo.code', mode: 'read' }, base);
  const organization = request.organization.trim();
  const owner = organization === '' ? await creationOwner(context, viewer, '') : await forkOrg(context, viewer, organization);
  const name = request.name.trim() || base.name;
  assertUsableRepoName(name);
  await assertWithinLimit(context, viewer, owner);
  const ownerName = owner.facts.ownerName;
  const existing = await findFork(db.pool, base.id, owner.facts.ownerId);
  if (existing !== undefined) {
    throw CairnError.exists(
      `repository is already forked by user [uname: ${ownerName}, repo path: ${base.ownerName}/${base.name}, fork path: ${ownerName}/${existing.name}]`,
      { reason: 'fork_exists' },
    );
  }
  const units = forkUnits(config.repository);
  const isPrivate = base.isPrivate || base.ownerVisibility === 'private';

  const fork = await createWithGit(context, async (tx, target, made): Promise<RepoRow> => {
    if ((await findByOwnerId(tx, owner.facts.ownerId, name)) !== undefined) {
      throw CairnError.exists(`repository already exists [uname: ${ownerName}, name: ${name}]`, { reason: 'repo_exists' });
    }
    const id = target.repoId;
    await insertRepository(tx, {
      id,
      ...owner.facts,
      name,
      description: base.description,
      website: '',
      isPrivate,
      isTemplate: false,
      isFork: true,
      forkId: base.id,
      isEmpty: base.isEmpty,
      defaultBranch: base.defaultBranch,
      objectFormatName: base.objectFormatName,
      trustModel: 'default',
      units,
    });
    if (creatorNeedsAdmin(viewer, owner, { isPrivate, units })) await upsertCollaboration(tx, id, viewer.id, AccessMode.Admin);
    // The name is taken again: it no longer leads to a renamed or transferred repository.
    await deleteRedirect(tx, owner.facts.ownerId, name);
    await addForkCount(tx, base.id, 1);
    await git.repositories.forkRepository({ source: gitRepository(base), target, branch: '' }, { deadlineMs: GIT_CREATE_DEADLINE_MS });
    made();
    await recordGitState(context, tx, id);
    const row = (await findRepository(tx, id))!;
    await enqueueRepoForked(tx, row, viewer.id);
    return row;
  });
  return { repository: withPermission(fork, await permissionFor(context, viewer, fork)) };
}
