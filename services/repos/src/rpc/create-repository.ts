/**
 * CreateRepository (Gitea's services/repository/create.go through the API's CreateUserRepo / CreateOrgRepo): who may
 * create where, the name and limit rules, the row with its units, the git repository, and cairn.repo.created — all or
 * nothing: a git failure leaves no row, and git data whose row never committed is removed (createWithGit).
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
import { formatGoDuration, mirrorInterval } from '../domain/durations';
import { assertUsableRepoName } from '../domain/repo-name';
import { newRepoUnits } from '../domain/units';
import { enqueueRepoCreated } from '../events/outbox';
import { purgeNow } from '../maintenance/purge-repositories';
import { upsertCollaboration } from '../store/collaborations';
import { claimReservation, reserveRepositoryId, type GitAddress } from '../store/purges';
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

/** Creating (with auto-init) or copying a repository on disk may take longer than an ordinary call. */
export const GIT_CREATE_DEADLINE_MS = 120_000;

/**
 * How long a creation's reserved id waits before the purger may remove what git-storage made for it: the git call's
 * deadline and a minute to spare (git-storage moves no repository into place after its caller's deadline).
 */
const RESERVATION_MS = GIT_CREATE_DEADLINE_MS + 60_000;

/**
 * Runs `insert`, a transaction that inserts the repository `repository` and has git-storage make its git data, so
 * that nothing stays behind when the transaction does not commit (a failure, the deadline, the caller gone, a crash):
 * the id is reserved first with its git data scheduled for removal (store/purges.ts), and `insert`'s transaction
 * takes the reservation back. `insert` calls `made()` once git-storage has answered: a failure after that removes the
 * git data at once; before it, git-storage may still be at work, so the purger removes it when the reservation is due.
 */
export async function createWithGit<T>(
  context: ReposContext,
  insert: (tx: DatabaseTransactionConnection, repository: GitAddress, made: () => void) => Promise<T>,
): Promise<T> {
  const repository = await guard(() => reserveRepositoryId(context.db.pool, RESERVATION_MS));
  let gitMade = false;
  try {
    return await guard(() =>
      context.db.pool.transaction(async (tx) => {
        if (!(await claimReservation(tx, repository.repoId))) {
          throw CairnError.unavailable('the repository could not be created in time, try again', { reason: 'creation_expired' });
        }
        return insert(tx, repository, () => {
          gitMade = true;
        });
      }),
    );
  } catch (error) {
    if (gitMade) await purgeNow(context, repository.repoId);
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

const OBJECT_FORMATS = ['', 'sha1'];
const TRUST_MODELS = ['default', 'collaborator', 'committer', 'collaboratorcommitter'];

export async function createRepository(context: ReposContext, request: CreateRepositoryRequest): Promise<CreateRepositoryResponse> {
  const viewer = viewerFromActor(request.actor);
  const { config, git } = context;
  const owner = await creationOwner(context, viewer, request.owner.trim());
  if (request.validateOnly) return {};
  const name = request.name.trim();
  assertUsableRepoName(name);
  if (!OBJECT_FORMATS.includes(request.objectFormatName)) {
    throw CairnError.invalid(`unsupported object format: ${request.objectFormatName}`, { reason: 'object_format_invalid' });
  }
  // An import's mirror (Gitea's services/repository/migrate.go: the interval parsed, "" the default).
  const mirror = request.mirror
    ? { interval: request.mirrorInterval === '' ? formatGoDuration(config.mirror.defaultInterval) : mirrorInterval(request.mirrorInterval, config.mirror.minInterval) }
    : undefined;
  await assertWithinLimit(context, viewer, owner);
  const units = newRepoUnits(config.repository);
  const isPrivate = request.private || config.repository.forcePrivate;
  const defaultBranch = request.defaultBranch.trim() || config.repository.defaultBranch;
  const author = request.autoInit ? await authorOf(context, viewer.id) : undefined;

  const repo = await createWithGit(context, async (tx, repository, made): Promise<RepoRow> => {
    if ((await findByOwnerId(tx, owner.facts.ownerId, name)) !== undefined) throw repoExists();
    const id = repository.repoId;
    await insertRepository(tx, {
      id,
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
      mirror,
      originalUrl: request.originalUrl,
    });
    if (creatorNeedsAdmin(viewer, owner, { isPrivate, units })) await upsertCollaboration(tx, id, viewer.id, AccessMode.Admin);
    // The name is taken again: it no longer leads to a renamed or transferred repository.
    await deleteRedirect(tx, owner.facts.ownerId, name);
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
    made();
    if (request.autoInit) await recordGitState(context, tx, id);
    const row = (await findRepository(tx, id))!;
    await enqueueRepoCreated(tx, row, viewer.id);
    return row;
  });
  return { repository: withPermission(repo, await permissionFor(context, viewer, repo)) };
}
