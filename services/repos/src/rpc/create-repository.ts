/**
 * CreateRepository (Gitea's services/repository/create.go through the API's CreateUserRepo / CreateOrgRepo): who may
 * create where, the name and limit rules, the row with its units, the git repository, and cairn.repo.created — all or
 * nothing: a git failure leaves no row, a failed commit removes the git repository.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { CreateRepositoryRequest, CreateRepositoryResponse } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError } from '@cairn/rpc';
import {
  AccessMode,
  NO_RELATION,
  OWNER_ORG,
  decidePermission,
  isSignedIn,
  teamsReaching,
  viewerFromActor,
  type TeamGrant,
  type Viewer,
} from '../domain/access';
import { canCreateInOrg, creationLimitReached, withinCreationLimit, type OwnerLimit } from '../domain/create-rights';
import { assertUsableRepoName } from '../domain/repo-name';
import { newRepoUnits } from '../domain/units';
import { enqueueRepoCreated } from '../events/outbox';
import { upsertCollaboration } from '../store/collaborations';
import { deleteRedirect } from '../store/redirects';
import {
  countOwnerRepositories,
  findByOwnerId,
  findRepository,
  insertRepository,
  updateRepository,
  type OwnerFacts,
  type RepoRow,
} from '../store/repositories';
import { accountById, ownerFactsOf, resolveName } from './accounts-lookup';
import type { ReposContext } from './context';
import { guard, repoExists } from './guard';
import { withPermission } from './repository-message';
import { permissionFor } from './repo-access';
import { userTeams } from './viewer-teams';

/** Where a new repository goes, and what deciding about it needs. */
export interface CreationOwner {
  facts: OwnerFacts;
  limit: OwnerLimit;
  /** The actor's teams in the owning organization ([] for a user owner). */
  actorTeams: TeamGrant[];
}

export const ORG_CREATE_DENIED = 'User is not allowed to create repositories in this organization.';

function limitOf(user: User): OwnerLimit {
  return { isAdmin: user.isAdmin, maxRepoCreation: user.maxRepoCreation };
}

/**
 * The owner a repository would be created for: the actor (empty name), an organization where they may create
 * repositories, or — for site admins — any user. NOT_FOUND when the viewer may not see the owner,
 * PERMISSION_DENIED when they may not create there.
 */
export async function creationOwner(context: ReposContext, viewer: Viewer, ownerName: string): Promise<CreationOwner> {
  if (!isSignedIn(viewer)) throw CairnError.denied('only signed-in users may create repositories');
  const ownerId = ownerName === '' ? viewer.id : (await resolveName(context, ownerName, viewer)).id;
  const owner = await accountById(context, ownerId);
  const facts = ownerFactsOf(owner);
  if (facts.ownerType === OWNER_ORG) {
    const actorTeams = await userTeams(context, viewer.id, owner.id);
    if (!canCreateInOrg(viewer, actorTeams)) throw CairnError.denied(ORG_CREATE_DENIED, { reason: 'org_create_denied' });
    return { facts, limit: limitOf(owner), actorTeams };
  }
  if (owner.id !== viewer.id && !viewer.isAdmin) throw CairnError.denied('Given user is not an organization.', { reason: 'owner_not_org' });
  return { facts, limit: limitOf(owner), actorTeams: [] };
}

/** PERMISSION_DENIED when the owner has reached its repository limit (site admins create anyway). */
export async function assertWithinLimit(context: ReposContext, viewer: Viewer, owner: CreationOwner): Promise<void> {
  if (viewer.isAdmin) return;
  const limit = context.config.repository.maxCreationLimit;
  if (!withinCreationLimit(owner.limit, await countOwnerRepositories(context.db.pool, owner.facts.ownerId), limit)) {
    throw creationLimitReached(owner.limit, limit);
  }
}

/**
 * Gitea's creator rule: in an organization, a creator who is not already a repository admin through their teams
 * (or as site admin) becomes an admin collaborator.
 */
export function creatorNeedsAdmin(viewer: Viewer, owner: CreationOwner, repo: { isPrivate: boolean; units: readonly string[] }): boolean {
  if (owner.facts.ownerType !== OWNER_ORG) return false;
  const facts = { ...owner.facts, isPrivate: repo.isPrivate, units: repo.units };
  const teams = teamsReaching(owner.actorTeams, owner.facts.ownerId, new Set());
  return decidePermission(viewer, facts, { ...NO_RELATION, orgMember: owner.actorTeams.length > 0, teams }).mode < AccessMode.Admin;
}

/** The author of an auto-initialised first commit (Gitea's `NewGitSig`: full name or login, private e-mail hidden). */
async function authorOf(context: ReposContext, userId: number): Promise<{ name: string; email: string }> {
  const user = await accountById(context, userId);
  const email = user.keepEmailPrivate ? `${user.login.toLowerCase()}@${context.config.service.noReplyAddress}` : user.email;
  return { name: user.fullName.trim() || user.login, email };
}

export interface GitAddress {
  storage: string;
  repoId: number;
}

/**
 * Runs `work`, which creates a git repository inside a transaction and reports it through `created`; when `work`
 * fails after that (the transaction rolled back), the git repository is removed again, so nothing remains.
 */
export async function undoGitOnFailure<T>(context: ReposContext, work: (created: (repository: GitAddress) => void) => Promise<T>): Promise<T> {
  let made: GitAddress | undefined;
  try {
    return await work((repository) => {
      made = repository;
    });
  } catch (error) {
    const repository = made;
    if (repository !== undefined) {
      await context.git.repositories.deleteRepository({ repository }).catch((cause: unknown) => {
        context.logger.error({ err: cause, repo_id: repository.repoId }, 'could not remove the git repository of a failed creation');
      });
    }
    throw error;
  }
}

/** Copies git-storage's view (empty, size, branches, licences) of a new repository into its row. */
export async function recordGitState(context: ReposContext, tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  const repository = { storage: '', repoId };
  const info = await context.git.repositories.getRepositoryInfo({ repository });
  const { licenses } = await context.git.analysis.detectLicenses({ repository, revision: '' });
  await updateRepository(tx, repoId, { isEmpty: info.empty, size: info.sizeKib, branchCount: info.branchCount, licenses });
}

/** Creating (with auto-init) or copying a repository on disk may take longer than an ordinary call. */
export const GIT_CREATE_DEADLINE_MS = 120_000;

const OBJECT_FORMATS = ['', 'sha1'];
const TRUST_MODELS = ['default', 'collaborator', 'committer', 'collaboratorcommitter'];

export async function createRepository(context: ReposContext, request: CreateRepositoryRequest): Promise<CreateRepositoryResponse> {
  const viewer = viewerFromActor(request.actor);
  const { db, config, git } = context;
  const owner = await creationOwner(context, viewer, request.owner.trim());
  const name = request.name.trim();
  assertUsableRepoName(name);
  if (!OBJECT_FORMATS.includes(request.objectFormatName)) {
    throw CairnError.invalid(`unsupported object format: ${request.objectFormatName}`, { reason: 'object_format_invalid' });
  }
  await assertWithinLimit(context, viewer, owner);
  const units = newRepoUnits(config.repository);
  const isPrivate = request.private || config.repository.forcePrivate;
  const defaultBranch = request.defaultBranch.trim() || config.repository.defaultBranch;
  const author = request.autoInit ? await authorOf(context, viewer.id) : undefined;

  const repo = await undoGitOnFailure(context, (created) =>
    guard(() =>
      db.pool.transaction(async (tx): Promise<RepoRow> => {
        if ((await findByOwnerId(tx, owner.facts.ownerId, name)) !== undefined) throw repoExists();
        const id = await insertRepository(tx, {
          ...owner.facts,
          name,
          description: request.description,
          website: '',
          isPrivate,
          isTemplate: request.template,
          isFork: false,
          forkId: 0,
          isEmpty: true,
          defaultBranch,
          objectFormatName: 'sha1',
          trustModel: TRUST_MODELS.includes(request.trustModel) ? request.trustModel : 'default',
          units,
        });
        if (creatorNeedsAdmin(viewer, owner, { isPrivate, units })) await upsertCollaboration(tx, id, viewer.id, AccessMode.Admin);
        // The name is taken again: it no longer leads to a renamed or transferred repository.
        await deleteRedirect(tx, owner.facts.ownerId, name);
        const repository = { storage: '', repoId: id };
        await git.repositories.createRepository(
          {
            repository,
            defaultBranch,
            autoInit: request.autoInit,
            readme: request.autoInit && request.readme === '' ? 'Default' : request.readme,
            gitignores: request.gitignores,
            license: request.license,
            repoName: name,
            description: request.description,
            ownerName: owner.facts.ownerName,
            author: author === undefined ? undefined : { ...author, when: new Date(), timezone: '' },
          },
          { deadlineMs: GIT_CREATE_DEADLINE_MS },
        );
        created(repository);
        if (request.autoInit) await recordGitState(context, tx, id);
        const row = (await findRepository(tx, id))!;
        await enqueueRepoCreated(tx, row, viewer.id);
        return row;
      }),
    ),
  );
  return { repository: withPermission(repo, await permissionFor(context, viewer, repo)) };
}
