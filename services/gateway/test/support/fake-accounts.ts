/**
 * An in-memory accounts service with the async client shape the gateway uses, answering with accounts'
 * error codes, reasons and messages, so gateway tests need no gRPC and no database. `calls` counts
 * requests per method; `failure` makes every call fail (e.g. UNAVAILABLE) to test the mapping.
 */
import { randomBytes } from 'node:crypto';
import { CairnError } from '@cairn/rpc';
import type { AccessToken, User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { GatewayClients, StarsClient, TokensClient, UsersClient } from '../../src/clients';
import { FakeActivity } from './fake-activity';
import { unusedClient } from './unused-client';
import { FakeOrgs } from './fake-orgs';

const CATEGORIES = ['activitypub', 'admin', 'misc', 'notification', 'organization', 'package', 'issue', 'repository', 'user'];
const RESERVED = new Set(['api', 'admin', 'user', 'explore', 'swagger']);

function baseUser(id: number, login: string): User {
  return {
    id,
    login,
    loginName: '',
    sourceId: 0,
    fullName: '',
    email: `${login.toLowerCase()}@example.com`,
    language: '',
    isAdmin: false,
    lastLogin: undefined,
    created: new Date('2024-01-02T03:04:05Z'),
    restricted: false,
    active: true,
    prohibitLogin: false,
    location: '',
    website: '',
    description: '',
    visibility: 'public',
    mustChangePassword: false,
    maxRepoCreation: -1,
    allowGitHook: false,
    allowImportLocal: false,
    allowCreateOrganization: true,
    updated: new Date('2024-01-02T03:04:05Z'),
    type: 0,
    keepEmailPrivate: false,
    keepActivityPrivate: false,
    theme: '',
    diffViewStyle: '',
    emailNotificationsPreference: 'enabled',
  };
}

/** accounts' lookup rule, without organizations: public to all, limited to signed-in unrestricted, private to self. */
function isVisible(user: User, viewer: Actor | undefined): boolean {
  if (viewer !== undefined && (viewer.isAdmin || viewer.userId === user.id)) return true;
  if (user.visibility === 'limited') return viewer !== undefined && !viewer.isRestricted;
  return user.visibility !== 'private';
}

/** accounts' list rule: anonymous and restricted viewers list public users, others also limited ones and themselves. */
function isListed(user: User, viewer: Actor | undefined): boolean {
  if (viewer === undefined || viewer.isRestricted) return user.visibility === 'public';
  return viewer.isAdmin || user.visibility !== 'private' || user.id === viewer.userId;
}

/** accounts' shaping (domain/user-view.ts) in short: placeholder e-mail and blank details for others. */
function shapeFor(user: User, viewer: Actor | undefined): User {
  const authed = viewer !== undefined && (viewer.isAdmin || viewer.userId === user.id);
  const email =
    viewer !== undefined && (!user.keepEmailPrivate || authed) ? user.email : `${user.id}+${user.login.toLowerCase()}@noreply.localhost`;
  if (authed) return { ...user, email };
  return { ...user, email, loginName: '', sourceId: 0, language: '', isAdmin: false, lastLogin: new Date(0), active: false, prohibitLogin: false };
}

function normalizeScopes(scopes: readonly string[]): string[] {
  const levels = new Map<string, number>();
  let all = false;
  for (const scope of scopes.flatMap((s) => s.split(',')).filter((s) => s !== '')) {
    if (scope === 'all') {
      all = true;
      continue;
    }
    const match = /^(read|write):(.+)$/.exec(scope);
    if (match === null || !CATEGORIES.includes(match[2])) {
      throw CairnError.invalid(`invalid access token scope provided: invalid access token scope: ${scope}`, { reason: 'token_scope' });
    }
    levels.set(match[2], Math.max(levels.get(match[2]) ?? 0, match[1] === 'write' ? 2 : 1));
  }
  if (all) return ['all'];
  const normal = CATEGORIES.filter((c) => levels.has(c)).map((c) => `${levels.get(c) === 2 ? 'write' : 'read'}:${c}`);
  if (normal.length === 0) throw CairnError.invalid('access token must have a scope', { reason: 'token_scope' });
  return normal;
}

export class FakeAccounts {
  readonly users = new Map<number, User>();
  readonly passwords = new Map<number, string>();
  /** secret → token */
  readonly tokens = new Map<string, AccessToken>();
  readonly calls: Record<string, number> = {};
  /** Every request per method, in order, to check what the gateway asked. */
  readonly requests: Record<string, unknown[]> = {};
  /** Old lower-case name → user id, as renames leave them. */
  readonly redirects = new Map<string, number>();
  /** When set, every call fails with it. */
  failure: CairnError | undefined;
  private nextUserId = 1;
  private nextTokenId = 1;

  readonly clients: GatewayClients;
  /** OrgService and TeamService answers, set per test. */
  readonly orgFakes = new FakeOrgs();
  /** notifications' ActivityService, beside accounts so one fake hands the app every client. */
  readonly activity = new FakeActivity();

  constructor() {
    const users: UsersClient = {
      createUser: async (request) =>
        this.call('createUser', () => {
          const name = request.username;
          if (RESERVED.has(name.toLowerCase())) throw CairnError.invalid(`name is reserved [name: ${name}]`, { reason: 'name_reserved' });
          if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
            throw CairnError.invalid(`name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`, { reason: 'name_invalid' });
          }
          if (this.findByName(name) !== undefined) throw CairnError.exists(`user already exists [name: ${name}]`, { reason: 'user_exists' });
          this.checkEmail(request.email, undefined);
          if (request.password.length < 8) throw CairnError.invalid('password must be at least 8 characters', { reason: 'password_too_short' });
          const user = this.addUser(name, {
            email: request.email,
            fullName: request.fullName,
            loginName: request.loginName,
            mustChangePassword: request.mustChangePassword,
            restricted: request.restricted,
            visibility: request.visibility === '' ? 'public' : request.visibility,
            isAdmin: request.isAdmin,
            created: request.createdAt ?? new Date(),
            password: request.password,
          });
          return { user };
        }),
      getUser: async (request) =>
        this.call('getUser', () => {
          const user = request.id !== undefined ? this.users.get(request.id) : this.findByName(request.username ?? '');
          if (user === undefined || !isVisible(user, request.viewer)) {
            throw CairnError.notFound(`user does not exist [uid: ${request.id ?? 0}, name: ${request.username ?? ''}]`, { reason: 'user_not_found' });
          }
          return { user: shapeFor(user, request.viewer) };
        }, request),
      batchGetUsers: async (request) =>
        this.call('batchGetUsers', () => ({
          users: request.ids.flatMap((id) => this.users.get(id) ?? []).map((user) => shapeFor(user, request.viewer)),
        })),
      batchGetUsersByEmail: async (request) =>
        this.call('batchGetUsersByEmail', () => ({
          users: [...new Set(request.emails)].flatMap((email) => {
            const user = [...this.users.values()].find((u) => u.type === 0 && u.active && u.email.toLowerCase() === email.toLowerCase());
            return user === undefined ? [] : [{ email, user: shapeFor(user, request.viewer) }];
          }),
        }), request),
      searchUsers: async (request) =>
        this.call('searchUsers', () => this.search(request.viewer, request.keyword, request.page, (user) => !request.publicOnly || user.visibility === 'public'), request),
      listUsers: async (request) =>
        this.call('listUsers', () => {
          if (!['', 'name', 'created', 'updated', 'id'].includes(request.sort)) {
            throw CairnError.invalid('Invalid sort and order parameters', { reason: 'sort_invalid' });
          }
          return this.search(request.viewer, request.keyword, request.page, (user) => request.visibility === '' || user.visibility === request.visibility);
        }, request),
      renameUser: async (request) =>
        this.call('renameUser', () => {
          const user = this.users.get(request.id);
          if (user === undefined) throw CairnError.notFound(`user does not exist [uid: ${request.id}, name: ]`, { reason: 'user_not_found' });
          if (RESERVED.has(request.newName.toLowerCase())) {
            throw CairnError.invalid(`name is reserved [name: ${request.newName.toLowerCase()}]`, { reason: 'name_reserved' });
          }
          const holder = this.findByName(request.newName);
          if (holder !== undefined && holder.id !== user.id) {
            throw CairnError.exists(`user already exists [name: ${request.newName}]`, { reason: 'user_exists' });
          }
          this.redirects.delete(request.newName.toLowerCase());
          if (user.login.toLowerCase() !== request.newName.toLowerCase()) this.redirects.set(user.login.toLowerCase(), user.id);
          const renamed = { ...user, login: request.newName };
          this.users.set(user.id, renamed);
          return { user: renamed };
        }, request),
      resolveName: async (request) =>
        this.call('resolveName', () => {
          const current = this.findByName(request.name);
          const redirectId = this.redirects.get(request.name.toLowerCase());
          const user = current ?? (redirectId === undefined ? undefined : this.users.get(redirectId));
          if (user === undefined || !isVisible(user, request.viewer)) {
            throw CairnError.notFound(`user redirect does not exist [name: ${request.name}]`, { reason: 'user_not_found' });
          }
          return { id: user.id, type: user.type, name: user.login, redirect: current === undefined, visibility: user.visibility };
        }, request),
      updateUser: async (request) =>
        this.call('updateUser', () => {
          const user = this.users.get(request.id);
          if (user === undefined) throw CairnError.notFound(`user does not exist [uid: ${request.id}, name: ]`, { reason: 'user_not_found' });
          if (request.email !== undefined) this.checkEmail(request.email, user.id);
          if (request.password !== undefined) {
            if (request.password.length < 8) throw CairnError.invalid('password must be at least 8 characters', { reason: 'password_too_short' });
            this.passwords.set(user.id, request.password);
          }
          const { id: _id, actorId: _actor, password: _password, ...edits } = request;
          const defined = Object.fromEntries(Object.entries(edits).filter(([, v]) => v !== undefined));
          const updated: User = { ...user, ...defined, updated: new Date() };
          this.users.set(user.id, updated);
          return { user: updated };
        }, request),
      deleteUser: async (request) =>
        this.call('deleteUser', () => {
          if (!this.users.delete(request.id)) throw CairnError.notFound(`user does not exist [uid: ${request.id}, name: ]`, { reason: 'user_not_found' });
          for (const [secret, token] of this.tokens) if (token.userId === request.id) this.tokens.delete(secret);
          return {};
        }),
      authenticatePassword: async (request) =>
        this.call('authenticatePassword', () => {
          const login = request.login.toLowerCase();
          const user = [...this.users.values()].find((u) => u.login.toLowerCase() === login || u.email.toLowerCase() === login);
          if (user === undefined || this.passwords.get(user.id) !== request.password) {
            throw CairnError.unauthenticated('invalid username, password or token', { reason: 'invalid_credentials' });
          }
          return { user };
        }),
    };

    const tokens: TokensClient = {
      createAccessToken: async (request) =>
        this.call('createAccessToken', () => {
          if (request.name.trim() === '') throw CairnError.invalid('access token name is required', { reason: 'token_name_invalid' });
          if ([...this.tokens.values()].some((t) => t.userId === request.userId && t.name === request.name)) {
            throw CairnError.exists('access token name has been used already', { reason: 'token_name_used' });
          }
          const { secret, token } = this.addToken(request.userId, request.name, normalizeScopes(request.scopes));
          return { token, sha1: secret };
        }),
      listAccessTokens: async (request) =>
        this.call('listAccessTokens', () => {
          const all = [...this.tokens.values()].filter((t) => t.userId === request.userId).sort((a, b) => b.id - a.id);
          const page = request.page;
          const slice = page === undefined || page.limit <= 0 ? all : all.slice((page.page - 1) * page.limit, page.page * page.limit);
          return { tokens: slice, total: all.length };
        }),
      deleteAccessToken: async (request) =>
        this.call('deleteAccessToken', () => {
          const own = [...this.tokens.entries()].filter(([, t]) => t.userId === request.userId);
          const byId = /^\d+$/.test(request.idOrName) ? own.filter(([, t]) => t.id === Number(request.idOrName)) : [];
          const matches = byId.length > 0 ? byId : own.filter(([, t]) => t.name === request.idOrName);
          if (matches.length === 0) {
            throw CairnError.notFound(`access token does not exist [id or name: ${request.idOrName}]`, { reason: 'token_not_found' });
          }
          if (matches.length > 1) {
            throw CairnError.precondition(`multiple matches for token name '${request.idOrName}'`, { reason: 'token_name_ambiguous' });
          }
          this.tokens.delete(matches[0][0]);
          return {};
        }),
      authenticateToken: async (request) =>
        this.call('authenticateToken', () => {
          const token = this.tokens.get(request.token);
          const user = token === undefined ? undefined : this.users.get(token.userId);
          if (token === undefined || user === undefined) {
            throw CairnError.unauthenticated('invalid username, password or token', { reason: 'invalid_credentials' });
          }
          return { token, user };
        }),
    };

    this.clients = {
      users,
      tokens,
      orgs: this.orgFakes.orgsClient,
      teams: this.orgFakes.teamsClient,
      activity: this.activity.client,
      notifications: unusedClient('notifications'),
      hooks: unusedClient('hooks'),
      hookDeliveries: unusedClient('hooks'),
      migrations: unusedClient('migrations'),
      gpgKeys: unusedClient('accounts'),
      repos: unusedClient('repos'),
      collaborators: unusedClient('repos'),
      topics: unusedClient('repos'),
      branchProtections: unusedClient('repos'),
      commitStatuses: unusedClient('repos'),
      tagProtections: unusedClient('repos'),
      releases: unusedClient('repos'),
      attachments: unusedClient('repos'),
      refs: unusedClient('git-storage'),
      commits: unusedClient('git-storage'),
      contents: unusedClient('git-storage'),
      smartHttp: unusedClient('git-storage'),
      gitMerge: unusedClient('git-storage'),
      analysis: unusedClient('git-storage'),
      // Users' starred_repos_count (covered end to end): nobody has starred anything here.
      stars: unusedClient<StarsClient>('social', { batchListStarredRepos: async () => ({ users: [] }) }),
      watches: unusedClient('social'),
      reactions: unusedClient('social'),
      issues: unusedClient('issues'),
      labels: unusedClient('issues'),
      milestones: unusedClient('issues'),
      comments: unusedClient('issues'),
      issueSubscriptions: unusedClient('issues'),
      timeTracking: unusedClient('issues'),
      pulls: unusedClient('issues'),
      reviews: unusedClient('issues'),
    };
  }

  private async call<T>(method: string, answer: () => T, request?: unknown): Promise<T> {
    this.calls[method] = (this.calls[method] ?? 0) + 1;
    (this.requests[method] ??= []).push(request);
    if (this.failure !== undefined) throw this.failure;
    return answer();
  }

  private search(
    viewer: Actor | undefined,
    keyword: string,
    page: { page: number; limit: number } | undefined,
    filter: (user: User) => boolean,
  ): { users: User[]; total: number } {
    const matches = [...this.users.values()]
      .filter((user) => user.type === 0 && isListed(user, viewer) && filter(user))
      .filter((user) => `${user.login}\n${user.fullName}`.toLowerCase().includes(keyword.toLowerCase()))
      .sort((a, b) => (a.login.toLowerCase() < b.login.toLowerCase() ? -1 : 1));
    const slice = page === undefined ? matches : matches.slice((page.page - 1) * page.limit, page.page * page.limit);
    return { users: slice.map((user) => shapeFor(user, viewer)), total: matches.length };
  }

  private findByName(name: string): User | undefined {
    return [...this.users.values()].find((u) => u.login.toLowerCase() === name.toLowerCase());
  }

  private checkEmail(email: string, userId: number | undefined): void {
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw CairnError.invalid(`e-mail invalid [email: ${email}]`, { reason: 'email_invalid' });
    const holder = [...this.users.values()].find((u) => u.email.toLowerCase() === email.toLowerCase());
    if (holder !== undefined && holder.id !== userId) throw CairnError.exists(`e-mail already in use [email: ${email}]`, { reason: 'email_used' });
  }

  /** Adds a user directly (test set-up); `password` defaults to `password123`. */
  addUser(login: string, fields: Partial<User> & { password?: string } = {}): User {
    const { password, ...rest } = fields;
    const user: User = { ...baseUser(this.nextUserId++, login), ...rest };
    this.users.set(user.id, user);
    this.passwords.set(user.id, password ?? 'password123');
    return user;
  }

  /** Adds a token directly (test set-up). */
  addToken(userId: number, name: string, scopes: string[]): { secret: string; token: AccessToken } {
    const secret = randomBytes(20).toString('hex');
    const token: AccessToken = {
      id: this.nextTokenId++,
      userId,
      name,
      scopes,
      tokenLastEight: secret.slice(-8),
      createdAt: new Date('2024-02-03T04:05:06Z'),
      lastUsedAt: undefined,
    };
    this.tokens.set(secret, token);
    return { secret, token };
  }

  /** Changes a user behind the gateway's back (as another instance or the CLI would). */
  setUser(id: number, fields: Partial<User>): void {
    const user = this.users.get(id);
    if (user === undefined) throw new Error(`no user ${id}`);
    this.users.set(id, { ...user, ...fields });
  }
}
