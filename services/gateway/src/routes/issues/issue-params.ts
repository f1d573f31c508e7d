/**
 * Request parts the issue routes (list, search, create, edit) read as Gitea reads them: user names in filters and
 * assignee lists resolved to ids through accounts, comma-separated lists, and `due_date` kept with the offset it was
 * written in (Gitea's edit moves a deadline to 23:59:59 of that day in that offset).
 */
import { HttpError, type GoField, type GoValues, goFormString } from '@cairn/http';
import type { Actor, PageRequest } from '@cairn/proto/cairn/common/v1/common';
import { Code, isCairnError } from '@cairn/rpc';
import type { GatewayServices } from '../../api/types';

/** accounts' ResolveName type of an individual user. */
const INDIVIDUAL = 0;

/** Gitea's ErrUserNotExist text for a name. */
export function userNotExist(name: string): string {
  return `user does not exist [uid: 0, name: ${name}]`;
}

/**
 * The account a name stands for now (Gitea's GetUserByName: no redirects from old names), as the viewer may see it;
 * undefined when there is none.
 */
export async function accountIdByName(services: GatewayServices, viewer: Actor | undefined, name: string): Promise<{ id: number; type: number } | undefined> {
  if (name === '') return undefined;
  try {
    const resolved = await services.clients.users.resolveName({ name, viewer });
    return resolved.redirect || resolved.id <= 0 ? undefined : { id: resolved.id, type: resolved.type };
  } catch (error) {
    if (isCairnError(error) && (error.code === Code.NOT_FOUND || error.code === Code.INVALID_ARGUMENT)) return undefined;
    throw error;
  }
}

/** Gitea's getUserIDForFilter: 0 when the parameter is empty, 404 `{errors: [user does not exist …]}` for an unknown name. */
export async function userIdForFilter(services: GatewayServices, viewer: Actor | undefined, query: GoValues, param: string): Promise<number> {
  const name = goFormString(query, param);
  if (name === '') return 0;
  const account = await accountIdByName(services, viewer, name);
  if (account === undefined) throw HttpError.notFound('not found', [userNotExist(name)]);
  return account.id;
}

/** At most this many distinct assignees per request (each is one lookup). */
export const MAX_ASSIGNEES = 50;

/** Assignee names as user ids; an unknown name (or an organization) is 422 with `message(name)`. */
export async function assigneeIds(
  services: GatewayServices,
  viewer: Actor | undefined,
  names: readonly string[],
  message: (name: string) => string,
): Promise<number[]> {
  const distinct = [...new Set(names)];
  if (distinct.length > MAX_ASSIGNEES) throw HttpError.unprocessable(`too many assignees: at most ${MAX_ASSIGNEES}`);
  const accounts = await Promise.all(distinct.map(async (name) => ({ name, account: await accountIdByName(services, viewer, name) })));
  const unknown = accounts.find(({ account }) => account === undefined || account.type !== INDIVIDUAL);
  if (unknown !== undefined) throw HttpError.unprocessable(message(unknown.name));
  return [...new Set(accounts.flatMap(({ account }) => (account === undefined ? [] : [account.id])))];
}

/**
 * Gitea's parseReviewersByNames (requested reviewers, and reviewers at pull-request creation): user names, or e-mail
 * addresses (with `@`); 404 `User 'x' not exist` for one that names nobody.
 */
export async function reviewerIdsByName(services: GatewayServices, viewer: Actor | undefined, reviewers: readonly string[]): Promise<number[]> {
  const names = [...new Set(reviewers)];
  if (names.length > MAX_ASSIGNEES) throw HttpError.unprocessable(`too many reviewers: at most ${MAX_ASSIGNEES}`);
  const emails = names.filter((name) => name.includes('@'));
  const byEmail = new Map<string, number>();
  if (emails.length > 0) {
    const { users } = await services.clients.users.batchGetUsersByEmail({ emails, viewer });
    for (const { email, user } of users) if (user !== undefined) byEmail.set(email.toLowerCase(), user.id);
  }
  const ids = await Promise.all(
    names.map(async (name) => ({ name, id: name.includes('@') ? byEmail.get(name.toLowerCase()) : (await accountIdByName(services, viewer, name))?.id })),
  );
  const unknown = ids.find(({ id }) => id === undefined);
  if (unknown !== undefined) throw HttpError.notFound(`User '${unknown.name}' not exist`);
  return [...new Set(ids.flatMap(({ id }) => (id === undefined ? [] : [id])))];
}

/** PageRequest's page is an int32: a larger page (past any list anyway) is sent as the largest one. */
const MAX_PAGE = 2 ** 31 - 1;

export function pageRequest(page: number, limit: number): PageRequest {
  return { page: Math.min(Math.max(page, 1), MAX_PAGE), limit };
}

/** A comma-separated query parameter (Gitea's strings.Split of the value); none when empty. */
export function commaList(query: GoValues, param: string, trim = false): string[] {
  const text = trim ? goFormString(query, param).trim() : goFormString(query, param);
  return text === '' ? [] : text.split(',');
}

/** A `due_date` as written: the instant, and the offset (minutes east of UTC) it was written in. */
export interface WrittenTime {
  date: Date;
  offsetMinutes: number;
}

// time.Time's UnmarshalJSON takes RFC 3339 only.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/i;

/** A `*time.Time` JSON field that keeps the offset it was written in. */
export function writtenTimePtr(goName: string): GoField<WrittenTime | undefined> {
  return {
    goName,
    goType: 'time.Time',
    zero: undefined,
    decode(json) {
      if (typeof json !== 'string') {
        const found = Array.isArray(json) ? 'array' : typeof json === 'object' ? 'object' : typeof json === 'boolean' ? 'bool' : typeof json;
        return { ok: false, found };
      }
      const match = RFC3339.exec(json);
      const date = new Date(json);
      if (match === null || Number.isNaN(date.getTime())) return { ok: false, found: 'string', badTime: json };
      const offsetMinutes = match[2] === undefined ? 0 : (match[2] === '-' ? -1 : 1) * (Number(match[3]) * 60 + Number(match[4]));
      return { ok: true, value: { date, offsetMinutes } };
    },
    check: () => undefined,
  };
}

/** Go's zero time.Time (0001-01-01T00:00:00Z). */
const GO_ZERO_TIME_MS = new Date(0).setUTCFullYear(1, 0, 1);

export function isGoZeroTime(date: Date): boolean {
  return date.getTime() === GO_ZERO_TIME_MS;
}

/** 23:59:59 of the day `time` falls on in its own offset (Gitea's EditIssue deadline). */
export function endOfWrittenDay(time: WrittenTime): Date {
  const local = new Date(time.date.getTime() + time.offsetMinutes * 60_000);
  local.setUTCHours(23, 59, 59, 0);
  return new Date(local.getTime() - time.offsetMinutes * 60_000);
}
