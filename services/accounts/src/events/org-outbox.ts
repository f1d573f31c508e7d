/** The organization and team events, written to the outbox in the transaction of the change they report. */
import type { DatabaseTransactionConnection } from '@cairn/db';
import {
  OrgCreated,
  OrgDeleted,
  OrgMemberAdded,
  OrgMemberRemoved,
  OrgMemberUpdated,
  OrgRenamed,
  OrgUpdated,
  TeamCreated,
  TeamDeleted,
  TeamMemberAdded,
  TeamMemberRemoved,
  TeamUpdated,
} from '@cairn/proto/cairn/accounts/v1/events';
import type { Organization, Team } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { enqueue } from './outbox';
import { Subject } from './subjects';

type Tx = DatabaseTransactionConnection;

export function enqueueOrgCreated(tx: Tx, org: Organization, ownerId: number, ownersTeamId: number, actorId: number): Promise<string> {
  return enqueue(tx, Subject.orgCreated, OrgCreated, actorId, (meta) => ({ meta, org, ownerId, ownersTeamId }));
}

/** `version` is the row's after the change (store/orgs.ts `version`), as for the rename. */
export function enqueueOrgUpdated(tx: Tx, org: Organization, changed: readonly string[], version: number, actorId: number): Promise<string> {
  return enqueue(tx, Subject.orgUpdated, OrgUpdated, actorId, (meta) => ({ meta, org, changed: [...changed], version }));
}

export function enqueueOrgRenamed(tx: Tx, org: { id: number; oldName: string; newName: string; version: number }, actorId: number): Promise<string> {
  return enqueue(tx, Subject.orgRenamed, OrgRenamed, actorId, (meta) => ({
    meta,
    orgId: org.id,
    oldName: org.oldName,
    newName: org.newName,
    version: org.version,
  }));
}

export function enqueueOrgDeleted(tx: Tx, org: { id: number; name: string }, actorId: number): Promise<string> {
  return enqueue(tx, Subject.orgDeleted, OrgDeleted, actorId, (meta) => ({ meta, orgId: org.id, name: org.name }));
}

export function enqueueOrgMemberAdded(tx: Tx, member: { orgId: number; userId: number; isPublic: boolean }, actorId: number): Promise<string> {
  return enqueue(tx, Subject.orgMemberAdded, OrgMemberAdded, actorId, (meta) => ({ meta, ...member }));
}

export function enqueueOrgMemberUpdated(tx: Tx, member: { orgId: number; userId: number; isPublic: boolean }, actorId: number): Promise<string> {
  return enqueue(tx, Subject.orgMemberUpdated, OrgMemberUpdated, actorId, (meta) => ({ meta, ...member }));
}

export function enqueueOrgMemberRemoved(tx: Tx, member: { orgId: number; userId: number }, actorId: number): Promise<string> {
  return enqueue(tx, Subject.orgMemberRemoved, OrgMemberRemoved, actorId, (meta) => ({ meta, ...member }));
}

export function enqueueTeamCreated(tx: Tx, team: Team, actorId: number): Promise<string> {
  return enqueue(tx, Subject.teamCreated, TeamCreated, actorId, (meta) => ({ meta, team }));
}

export function enqueueTeamUpdated(tx: Tx, team: Team, changed: readonly string[], actorId: number): Promise<string> {
  return enqueue(tx, Subject.teamUpdated, TeamUpdated, actorId, (meta) => ({ meta, team, changed: [...changed] }));
}

export function enqueueTeamDeleted(tx: Tx, team: { teamId: number; orgId: number; name: string }, actorId: number): Promise<string> {
  return enqueue(tx, Subject.teamDeleted, TeamDeleted, actorId, (meta) => ({ meta, ...team }));
}

export function enqueueTeamMemberAdded(tx: Tx, member: { teamId: number; orgId: number; userId: number }, actorId: number): Promise<string> {
  return enqueue(tx, Subject.teamMemberAdded, TeamMemberAdded, actorId, (meta) => ({ meta, ...member }));
}

export function enqueueTeamMemberRemoved(tx: Tx, member: { teamId: number; orgId: number; userId: number }, actorId: number): Promise<string> {
  return enqueue(tx, Subject.teamMemberRemoved, TeamMemberRemoved, actorId, (meta) => ({ meta, ...member }));
}
