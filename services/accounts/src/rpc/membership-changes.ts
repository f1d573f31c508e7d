/**
 * Joining and leaving teams and organizations, as Gitea's services/org team.go and org.go do it: joining a
 * team makes the user a member of its organization; leaving the last team of an organization, or the
 * organization, ends both; and the Owners team never loses its last member. Callers hold the organization's
 * row lock (`lockOrg`), so concurrent changes cannot both remove "the other" last owner.
 */
import type { CommonQueryMethods, DatabaseTransactionConnection } from '@cairn/db';
import { lastOwner, userHasOrgs } from '../domain/org-errors';
import {
  enqueueOrgDeleted,
  enqueueOrgMemberAdded,
  enqueueOrgMemberRemoved,
  enqueueTeamMemberAdded,
  enqueueTeamMemberRemoved,
} from '../events/org-outbox';
import {
  addOrgUser,
  addTeamUser,
  countOwners,
  countTeamMembers,
  findMembership,
  inAnyTeam,
  orgIdsOf,
  orgStanding,
  removeOrgUser,
  removeTeamUser,
} from '../store/members';
import { deleteOrg, lockOrg } from '../store/orgs';
import { isOwnersTeam, type TeamRecord } from '../store/teams';

type Tx = DatabaseTransactionConnection;

/** Adds `uid` to the team (and the organization, with the instance's default membership visibility). */
export async function joinTeam(tx: Tx, team: TeamRecord, uid: number, publicByDefault: boolean, actorId: number): Promise<void> {
  if (await addOrgUser(tx, team.orgId, uid, publicByDefault)) {
    await enqueueOrgMemberAdded(tx, { orgId: team.orgId, userId: uid, isPublic: publicByDefault }, actorId);
  }
  if (await addTeamUser(tx, team, uid)) {
    await enqueueTeamMemberAdded(tx, { teamId: team.id, orgId: team.orgId, userId: uid }, actorId);
  }
}

/** Removes `uid` from the team; from their last team of the organization, from the organization too. */
export async function leaveTeam(tx: Tx, team: TeamRecord, uid: number, actorId: number): Promise<void> {
  if (isOwnersTeam(team) && (await countTeamMembers(tx, team.id)) === 1 && (await orgStanding(tx, team.orgId, uid)).isOwner) {
    throw lastOwner(uid);
  }
  if (!(await removeTeamUser(tx, team.id, uid))) return;
  await enqueueTeamMemberRemoved(tx, { teamId: team.id, orgId: team.orgId, userId: uid }, actorId);
  if (!(await inAnyTeam(tx, team.orgId, uid))) {
    await removeOrgUser(tx, team.orgId, uid);
    await enqueueOrgMemberRemoved(tx, { orgId: team.orgId, userId: uid }, actorId);
  }
}

/** Removes `uid` from the organization and all its teams; nothing when not a member. */
export async function leaveOrg(tx: Tx, orgId: number, uid: number, actorId: number): Promise<void> {
  if ((await findMembership(tx, orgId, uid)) === null) return;
  if (await isLastOwner(tx, orgId, uid)) throw lastOwner(uid);
  await removeOrgUser(tx, orgId, uid);
  await enqueueOrgMemberRemoved(tx, { orgId, userId: uid }, actorId);
}

/** After a team is gone: its former members in no other team of the organization leave it. */
export async function dropTeamless(tx: Tx, orgId: number, formerMembers: readonly number[], actorId: number): Promise<void> {
  for (const uid of formerMembers) {
    if (await inAnyTeam(tx, orgId, uid)) continue;
    await removeOrgUser(tx, orgId, uid);
    await enqueueOrgMemberRemoved(tx, { orgId, userId: uid }, actorId);
  }
}

async function isLastOwner(db: CommonQueryMethods, orgId: number, uid: number): Promise<boolean> {
  return (await orgStanding(db, orgId, uid)).isOwner && (await countOwners(db, orgId)) === 1;
}

/** The organizations a purge of user `uid` deletes with them: those they are the last owner of. */
export async function lastOwnedOrgIds(db: CommonQueryMethods, uid: number): Promise<number[]> {
  const owned: number[] = [];
  for (const orgId of await orgIdsOf(db, uid)) if (await isLastOwner(db, orgId, uid)) owned.push(orgId);
  return owned;
}

/**
 * Before user `uid` is deleted (Gitea's DeleteUser): without `purge` a member of any organization is refused;
 * with it they leave every organization, and an organization they are the last owner of is deleted.
 */
export async function releaseFromOrgs(tx: Tx, uid: number, purge: boolean, actorId: number): Promise<void> {
  const orgIds = await orgIdsOf(tx, uid);
  if (orgIds.length === 0) return;
  if (!purge) throw userHasOrgs(uid);
  for (const orgId of orgIds) {
    const org = await lockOrg(tx, orgId);
    if (org === null) continue;
    if (await isLastOwner(tx, orgId, uid)) {
      await deleteOrg(tx, orgId);
      await enqueueOrgDeleted(tx, { id: orgId, name: org.name }, actorId);
    } else {
      await leaveOrg(tx, orgId, uid, actorId);
    }
  }
}
