/**
 * The accounts lookups of the notifications service: users as the mail sender needs them, and the candidates for a
 * transfer notification — the recipient when it is a user, for an organization the members of the teams that may
 * accept it (domain/transfer-recipients.ts). Read as the system (an internal site-admin actor): an event, not a
 * user, asks, and nothing read here is shown to anyone but the user it is about.
 */
import type { User, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { AsyncClientOf } from '@cairn/rpc';
import { teamMayAcceptTransfer } from '../domain/transfer-recipients';

export interface AccountsClients {
  users: Pick<AsyncClientOf<typeof UserServiceService>, 'batchGetUsers'>;
  teams: Pick<AsyncClientOf<typeof TeamServiceService>, 'listTeams' | 'listTeamMembers'>;
}

const PAGE = 50;

function systemActor(userId: number): Actor {
  return { userId: Math.max(userId, 1), isAdmin: true, isRestricted: false };
}

/** The accounts among `ids` that exist, with every detail (e-mail, activity, preference). */
export async function usersById(accounts: AccountsClients, ids: readonly number[]): Promise<readonly User[]> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  if (wanted.length === 0) return [];
  const { users } = await accounts.users.batchGetUsers({ ids: wanted, viewer: systemActor(wanted[0]) });
  return users;
}

/** Who may accept a transfer to `recipientId`: the user, or the organization's members who may create repositories. */
export async function transferCandidates(accounts: AccountsClients, recipientId: number): Promise<{ recipient: User | undefined; userIds: number[] }> {
  const [recipient] = await usersById(accounts, [recipientId]);
  if (recipient === undefined) return { recipient, userIds: [] };
  if (recipient.type !== 1) return { recipient, userIds: [recipient.id] };
  const viewer = systemActor(recipientId);
  const teamIds: number[] = [];
  for (let page = 1; ; page++) {
    const { teams } = await accounts.teams.listTeams({ viewer, org: recipient.login, page: { page, limit: PAGE } });
    teamIds.push(...teams.filter(teamMayAcceptTransfer).map((team) => team.id));
    if (teams.length < PAGE) break;
  }
  const userIds: number[] = [];
  for (const teamId of teamIds) {
    for (let page = 1; ; page++) {
      const { users } = await accounts.teams.listTeamMembers({ viewer, teamId, page: { page, limit: PAGE } });
      userIds.push(...users.map((user) => user.id));
      if (users.length < PAGE) break;
    }
  }
  return { recipient, userIds };
}
