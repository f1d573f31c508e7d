/**
 * TransferRepository, AcceptTransfer and RejectTransfer (Gitea's services/repository/transfer.go and
 * routers/api/v1/repo/transfer.go): site admins, a transfer to oneself and a transfer to an organization where the
 * actor may create repositories happen at once; any other waits for the recipient (a user, or whoever may create
 * repositories in the recipient organization), who gets read access meanwhile.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type {
  AcceptTransferRequest,
  AcceptTransferResponse,
  RejectTransferRequest,
  RejectTransferResponse,
  TransferRepositoryRequest,
  TransferRepositoryResponse,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';
import { AccessMode, OWNER_ORG, canRead, viewerFromActor, type Viewer } from '../domain/access';
import { canCreateInOrg, creationLimitReached, withinCreationLimit } from '../domain/create-rights';
import { enqueueRepoTransferRequested, enqueueRepoTransferred } from '../events/outbox';
import { deleteCollaboration, findCollaboration, listCollaborations, upsertCollaboration } from '../store/collaborations';
import { addRedirect, deleteRedirect } from '../store/redirects';
import { countOwnerRepositories, findByOwnerId, findRepository, lockRepository, setOwner, type OwnerFacts, type RepoRow } from '../store/repositories';
import { linkTeam, unlinkAllTeams } from '../store/team-repos';
import { deleteTransfer, insertTransfer } from '../store/transfers';
import { accountById, accountByName, internalActor, ownerFactsOf } from './accounts-lookup';
import type { ReposContext } from './context';
import { guard } from './guard';
import { loadRepoForViewer, permissionFor, repoNotFound, requireAccess } from './repo-access';
import { withPermission } from './repository-message';
import { userTeams } from './viewer-teams';

function ownerNotFound(): CairnError {
  return CairnError.notFound('The new owner does not exist or cannot be found', { reason: 'owner_not_found' });
}

function nameTaken(owner: OwnerFacts, name: string): CairnError {
  return CairnError.invalid(`repository already exists [uname: ${owner.ownerName.toLowerCase()}, name: ${name}]`, { reason: 'repo_exists' });
}

/** The recipient, as the actor may name it (a private organization only to its members and site admins). */
async function recipient(context: ReposContext, viewer: Viewer, name: string): Promise<{ account: User; facts: OwnerFacts }> {
  let account: User;
  try {
    account = await accountByName(context, name, viewer.id);
  } catch (error) {
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) throw ownerNotFound();
    throw error;
  }
  const facts = ownerFactsOf(account);
  if (facts.ownerType === OWNER_ORG && facts.ownerVisibility === 'private' && !viewer.isAdmin) {
    if ((await userTeams(context, viewer.id, account.id)).length === 0) throw ownerNotFound();
  }
  return { account, facts };
}

/** The teams to give the repository in the recipient organization: INVALID_ARGUMENT / PERMISSION_DENIED as Gitea. */
async function checkTeams(context: ReposContext, viewer: Viewer, owner: OwnerFacts, teamIds: readonly number[]): Promise<number[]> {
  const ids = [...new Set(teamIds)];
  if (ids.length === 0) return [];
  if (owner.ownerType !== OWNER_ORG) {
    throw CairnError.invalid('Teams can only be added to organization-owned repositories', { reason: 'teams_not_allowed' });
  }
  const { teams } = await context.accounts.teams.batchGetTeams({ viewer: internalActor(viewer.id), ids });
  for (const id of ids) {
    const team = teams.find((candidate) => candidate.id === id);
    if (team === undefined) throw CairnError.invalid(`team ${id} not found`, { reason: 'team_not_found' });
    if (team.orgId !== owner.ownerId) throw CairnError.denied(`team ${id} belongs not to org ${owner.ownerId}`, { reason: 'team_other_org' });
  }
  return ids;
}

async function assertRecipientLimit(context: ReposContext, viewer: Viewer, account: User): Promise<void> {
  if (viewer.isAdmin) return;
  const owner = { isAdmin: account.isAdmin, maxRepoCreation: account.maxRepoCreation };
  const limit = context.config.repository.maxCreationLimit;
  if (!withinCreationLimit(owner, await countOwnerRepositories(context.db.pool, account.id), limit)) throw creationLimitReached(owner, limit);
}

/**
 * Moves the repository to `owner` in `tx` (Gitea's `TransferOwnership`): the old owner/name redirects, collaborators
 * who now own it (the user, or members of the organization) stop being collaborators, the old organization's team
 * links go and `teamIds` are linked, the pending transfer is done.
 */
async function moveRepository(
  context: ReposContext,
  tx: DatabaseTransactionConnection,
  repo: RepoRow,
  owner: OwnerFacts,
  teamIds: readonly number[],
  actorId: number,
): Promise<RepoRow> {
  if ((await findByOwnerId(tx, owner.ownerId, repo.name)) !== undefined) throw nameTaken(owner, repo.name);
  await setOwner(tx, repo.id, owner);
  await addRedirect(tx, repo.ownerId, repo.name, repo.id);
  await deleteRedirect(tx, owner.ownerId, repo.name);
  for (const { userId } of await listCollaborations(tx, repo.id)) {
    const nowOwner =
      userId === owner.ownerId || (owner.ownerType === OWNER_ORG && (await userTeams(context, userId, owner.ownerId)).length > 0);
    if (nowOwner) await deleteCollaboration(tx, repo.id, userId);
  }
  if (repo.ownerType === OWNER_ORG) await unlinkAllTeams(tx, repo.id);
  for (const teamId of teamIds) await linkTeam(tx, { orgId: owner.ownerId, teamId, repoId: repo.id });
  await deleteTransfer(tx, repo.id);
  const moved = (await findRepository(tx, repo.id))!;
  await enqueueRepoTransferred(tx, moved, { id: repo.ownerId, name: repo.ownerName }, actorId);
  return moved;
}

export async function transferRepository(context: ReposContext, request: TransferRepositoryRequest): Promise<TransferRepositoryResponse> {
  const viewer = viewerFromActor(request.actor);
  const { repo, permission } = await loadRepoForViewer(context, viewer, request.id);
  requireAccess(permission, { mode: 'owner', archived: 'allow' }, repo);
  const { account, facts } = await recipient(context, viewer, request.newOwner.trim());
  const teamIds = await checkTeams(context, viewer, facts, request.teamIds);
  if (repo.pendingTransfer !== null) {
    throw CairnError.exists(`repository is already being transferred [uname: ${repo.ownerName.toLowerCase()}, name: ${repo.name}]`, {
      reason: 'transfer_in_progress',
    });
  }
  if ((await findByOwnerId(context.db.pool, facts.ownerId, repo.name)) !== undefined) throw nameTaken(facts, repo.name);
  const direct =
    viewer.isAdmin ||
    viewer.id === facts.ownerId ||
    (facts.ownerType === OWNER_ORG && canCreateInOrg(viewer, await userTeams(context, viewer.id, facts.ownerId)));

  if (direct) {
    await assertRecipientLimit(context, viewer, account);
    const moved = await guard(() =>
      context.db.pool.transaction(async (tx) => {
        const locked = await lockRepository(tx, repo.id);
        if (locked === undefined) throw repoNotFound();
        return moveRepository(context, tx, locked, facts, teamIds, viewer.id);
      }),
    );
    return { repository: withPermission(moved, await permissionFor(context, viewer, moved)), pending: false };
  }

  // The recipient may look at what they are offered.
  const recipientViewer: Viewer = { id: account.id, isAdmin: account.isAdmin, isRestricted: account.restricted };
  const giveRead = facts.ownerType !== OWNER_ORG && !canRead(await permissionFor(context, recipientViewer, repo));
  const pending = await guard(() =>
    context.db.pool.transaction(async (tx) => {
      await insertTransfer(tx, { repoId: repo.id, doerId: viewer.id, recipientId: facts.ownerId, teamIds });
      if (giveRead && (await findCollaboration(tx, repo.id, account.id)) === undefined) {
        await upsertCollaboration(tx, repo.id, account.id, AccessMode.Read);
      }
      const row = (await findRepository(tx, repo.id))!;
      await enqueueRepoTransferRequested(tx, row, { doerId: viewer.id, recipientId: facts.ownerId, teamIds });
      return row;
    }),
  );
  return { repository: withPermission(pending, await permissionFor(context, viewer, pending)), pending: true };
}

/** The repository with a transfer the viewer may answer: NOT_FOUND when none is pending (or they may not see it). */
async function answerableTransfer(context: ReposContext, viewer: Viewer, repoId: number): Promise<RepoRow> {
  const repo = repoId > 0 ? await findRepository(context.db.pool, repoId) : undefined;
  if (repo === undefined) throw repoNotFound();
  const transfer = repo.pendingTransfer;
  const recipientId = transfer?.recipientId ?? 0;
  let mayAnswer = viewer.id > 0 && (viewer.isAdmin || viewer.id === recipientId);
  if (!mayAnswer && transfer !== null && viewer.id > 0) {
    const recipientAccount = await accountById(context, recipientId);
    mayAnswer = recipientAccount.type === OWNER_ORG && canCreateInOrg(viewer, await userTeams(context, viewer.id, recipientId));
  }
  if (mayAnswer && transfer !== null) return repo;
  // Whoever may not read the repository learns nothing about it.
  await loadRepoForViewer(context, viewer, repoId);
  if (transfer === null) throw CairnError.notFound('no pending transfer for this repository', { reason: 'transfer_not_found' });
  throw CairnError.denied('permission denied', { reason: 'transfer_denied' });
}

export async function acceptTransfer(context: ReposContext, request: AcceptTransferRequest): Promise<AcceptTransferResponse> {
  const viewer = viewerFromActor(request.actor);
  const repo = await answerableTransfer(context, viewer, request.id);
  const transfer = repo.pendingTransfer!;
  const account = await accountById(context, transfer.recipientId);
  await assertRecipientLimit(context, viewer, account);
  const moved = await guard(() =>
    context.db.pool.transaction(async (tx) => {
      const locked = await lockRepository(tx, repo.id);
      if (locked === undefined || locked.pendingTransfer === null) throw CairnError.notFound('no pending transfer for this repository', { reason: 'transfer_not_found' });
      return moveRepository(context, tx, locked, ownerFactsOf(account), transfer.teamIds, viewer.id);
    }),
  );
  return { repository: withPermission(moved, await permissionFor(context, viewer, moved)) };
}

export async function rejectTransfer(context: ReposContext, request: RejectTransferRequest): Promise<RejectTransferResponse> {
  const viewer = viewerFromActor(request.actor);
  const repo = await answerableTransfer(context, viewer, request.id);
  const kept = await guard(() =>
    context.db.pool.transaction(async (tx) => {
      await deleteTransfer(tx, repo.id);
      return (await findRepository(tx, repo.id))!;
    }),
  );
  return { repository: withPermission(kept, await permissionFor(context, viewer, kept)) };
}
