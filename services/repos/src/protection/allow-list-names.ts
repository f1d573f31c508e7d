/**
 * Allow lists travel as user and team names and are stored as ids. Names become ids when a rule is written —
 * users by name, teams among the owning organization's teams (ListTeams), looked up service-internally as Gitea
 * does (any existing account or team counts, whoever the admin is) — and ids become names again when rules are
 * shown (one BatchGetUsers and one ListTeams per answer). Team lists only mean something on organization
 * repositories; elsewhere they are ignored, as in Gitea.
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { BranchProtection } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code, isCairnError } from '@cairn/rpc';
import { OWNER_ORG } from '../domain/access';
import { accountByName, internalActor } from '../rpc/accounts-lookup';
import type { ReposContext } from '../rpc/context';
import type { RepoRow } from '../store/repositories';
import { ALLOW_LIST_FIELDS } from './settings';
import { ALLOW_LIST_KINDS, type AllowList, type AllowListKind, type AllowLists } from './rule';

type RepoOwner = Pick<RepoRow, 'ownerId' | 'ownerName' | 'ownerType'>;

/** The organization's teams by lower-case name; none for a user-owned repository. */
async function orgTeams(context: ReposContext, callerId: number, repo: RepoOwner): Promise<Map<string, { id: number; name: string }>> {
  const teams = new Map<string, { id: number; name: string }>();
  if (repo.ownerType !== OWNER_ORG) return teams;
  const answer = await context.accounts.teams.listTeams({ viewer: internalActor(callerId), org: repo.ownerName });
  for (const team of answer.teams) teams.set(team.name.toLowerCase(), { id: team.id, name: team.name });
  return teams;
}

/** A name on a list that is nobody's: Gitea's 422 with its ErrUserNotExist text. */
function unknownUser(name: string): CairnError {
  return CairnError.invalid(`user does not exist [uid: 0, name: ${name}]`, { reason: 'user_not_found' });
}

async function userId(context: ReposContext, callerId: number, name: string): Promise<number> {
  try {
    return (await accountByName(context, name, callerId)).id;
  } catch (error) {
    if (isCairnError(error) && error.code === Code.NOT_FOUND) throw unknownUser(name);
    throw error;
  }
}

/** The id of the team `name` among the organization's; Gitea's 422 with its ErrTeamNotExist text when none. */
function teamIdIn(teams: ReadonlyMap<string, { id: number }>, repo: RepoOwner, name: string): number {
  const team = teams.get(name.toLowerCase());
  if (team === undefined) throw CairnError.invalid(`team does not exist [org_id ${repo.ownerId}, team_id 0, name: ${name}]`, { reason: 'team_not_found' });
  return team.id;
}

/**
 * One allow list from names (protected tags'): `users` and `teams` as ids, each undefined when the request does
 * not carry it. Teams only count on organization repositories (elsewhere they resolve to none, as in Gitea).
 */
export async function resolveAllowList(
  context: ReposContext,
  callerId: number,
  repo: RepoOwner,
  names: { users?: readonly string[]; teams?: readonly string[] },
): Promise<{ userIds?: number[]; teamIds?: number[] }> {
  const resolved: { userIds?: number[]; teamIds?: number[] } = {};
  if (names.users !== undefined) {
    const userIds: number[] = [];
    for (const name of names.users) userIds.push(await userId(context, callerId, name));
    resolved.userIds = unique(userIds);
  }
  if (names.teams !== undefined) {
    const isOrg = repo.ownerType === OWNER_ORG && names.teams.length > 0;
    const teams = isOrg ? await orgTeams(context, callerId, repo) : new Map<string, { id: number; name: string }>();
    resolved.teamIds = isOrg ? unique(names.teams.map((name) => teamIdIn(teams, repo, name))) : [];
  }
  return resolved;
}

/** Which names a request carries, per list. */
export type ListsInRequest = Record<AllowListKind, { users: boolean; teams: boolean }>;

/** The lists to take from a request: all of them for a new rule, those named in `fields` for an edit. */
export function listsInRequest(fields?: ReadonlySet<string>): ListsInRequest {
  const carried = (kind: AllowListKind) => ({
    users: fields === undefined || fields.has(ALLOW_LIST_FIELDS[kind].usersJson),
    teams: fields === undefined || fields.has(ALLOW_LIST_FIELDS[kind].teamsJson),
  });
  return { push: carried('push'), forcePush: carried('forcePush'), merge: carried('merge'), approvals: carried('approvals') };
}

/**
 * The allow lists `wanted` from `input`, as ids (the others empty: `withLists` puts them over a rule's lists).
 * INVALID_ARGUMENT (reason user_not_found / team_not_found, Gitea's 422) for a name that is not there.
 */
export async function resolveAllowLists(
  context: ReposContext,
  callerId: number,
  repo: RepoOwner,
  input: BranchProtection,
  wanted: ListsInRequest,
): Promise<AllowLists> {
  const isOrg = repo.ownerType === OWNER_ORG;
  const userIds = new Map<string, number>();
  for (const kind of ALLOW_LIST_KINDS) {
    if (!wanted[kind].users) continue;
    for (const name of input[ALLOW_LIST_FIELDS[kind].users]) {
      if (!userIds.has(name)) userIds.set(name, await userId(context, callerId, name));
    }
  }
  const needsTeams = isOrg && ALLOW_LIST_KINDS.some((kind) => wanted[kind].teams && input[ALLOW_LIST_FIELDS[kind].teams].length > 0);
  const teams = needsTeams ? await orgTeams(context, callerId, repo) : new Map<string, { id: number; name: string }>();
  const teamId = (name: string): number => teamIdIn(teams, repo, name);
  const resolvedUser = (name: string): number => {
    const id = userIds.get(name);
    if (id === undefined) throw unknownUser(name);
    return id;
  };
  const list = (kind: AllowListKind): AllowList => {
    const fields = ALLOW_LIST_FIELDS[kind];
    return {
      userIds: wanted[kind].users ? unique(input[fields.users].map(resolvedUser)) : [],
      teamIds: wanted[kind].teams && isOrg ? unique(input[fields.teams].map(teamId)) : [],
    };
  };
  return { push: list('push'), forcePush: list('forcePush'), merge: list('merge'), approvals: list('approvals') };
}

/** `current` with the lists `wanted` replaced by `resolved`'s. */
export function withLists(current: AllowLists, resolved: AllowLists, wanted: ListsInRequest): AllowLists {
  const list = (kind: AllowListKind): AllowList => ({
    userIds: wanted[kind].users ? resolved[kind].userIds : current[kind].userIds,
    teamIds: wanted[kind].teams ? resolved[kind].teamIds : current[kind].teamIds,
  });
  return { push: list('push'), forcePush: list('forcePush'), merge: list('merge'), approvals: list('approvals') };
}

function unique(values: readonly number[]): number[] {
  return [...new Set(values)];
}

/** Names for the ids of some allow lists, as the caller may see them. */
export interface AllowListNames {
  users: ReadonlyMap<number, string>;
  teams: ReadonlyMap<number, string>;
}

export async function allowListNames(
  context: ReposContext,
  caller: Actor | undefined,
  repo: RepoOwner,
  all: readonly AllowList[],
): Promise<AllowListNames> {
  const userIds = unique(all.flatMap((list) => list.userIds));
  const hasTeams = all.some((list) => list.teamIds.length > 0);
  const users = new Map<number, string>();
  if (userIds.length > 0) {
    const answer = await context.accounts.users.batchGetUsers({ ids: userIds, viewer: caller });
    for (const user of answer.users) users.set(user.id, user.login);
  }
  const teams = new Map<number, string>();
  if (hasTeams) for (const team of (await orgTeams(context, caller?.userId ?? 0, repo)).values()) teams.set(team.id, team.name);
  return { users, teams };
}

/** The names of a list's ids; ids of accounts or teams that no longer exist are left out. */
export function namesOf(ids: readonly number[], names: ReadonlyMap<number, string>): string[] {
  return ids.flatMap((id) => {
    const name = names.get(id);
    return name === undefined ? [] : [name];
  });
}
