/**
 * Test fixtures: an in-memory UserService, a logger whose lines can be read back, and a running server.
 * (Excluded from the build; used by the *.test.ts files beside it.)
 */
import { Writable } from 'node:stream';
import { type Logger, createLogger } from '@cairn/log';
import { type User, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { CairnError } from './errors';
import { type RpcServer, createRpcServer } from './server';
import { anyCaller } from './authorize';
import type { AsyncServiceOf } from './types';

export type UserServiceImpl = AsyncServiceOf<typeof UserServiceService>;

export function makeUser(id: number, login: string, created: Date): User {
  return {
    id,
    login,
    loginName: '',
    sourceId: 0,
    fullName: '',
    email: `${login}@example.com`,
    language: '',
    isAdmin: false,
    created,
    updated: created,
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
    type: 0,
    keepEmailPrivate: false,
    keepActivityPrivate: false,
    theme: '',
    diffViewStyle: '',
    emailNotificationsPreference: 'enabled',
  };
}

/** In-memory users; `overrides` replace single methods for a test. */
export function fakeUserService(overrides: Partial<UserServiceImpl> = {}): UserServiceImpl {
  const users = new Map<number, User>();
  const notFound = () => CairnError.notFound('user does not exist', { reason: 'user_not_found' });
  const impl: UserServiceImpl = {
    async createUser(request) {
      const user = makeUser(users.size + 1, request.username, request.createdAt ?? new Date());
      users.set(user.id, user);
      return { user };
    },
    async getUser(request) {
      const user = [...users.values()].find((u) => u.id === request.id || u.login === request.username);
      if (user === undefined) throw notFound();
      return { user };
    },
    async batchGetUsers(request) {
      return { users: request.ids.flatMap((id) => users.get(id) ?? []) };
    },
    async batchGetUsersByEmail(request) {
      return { users: request.emails.flatMap((email) => [...users.values()].filter((u) => u.email === email).map((user) => ({ email, user }))) };
    },
    async updateUser(request) {
      const user = users.get(request.id);
      if (user === undefined) throw notFound();
      const updated = { ...user, fullName: request.fullName ?? user.fullName };
      users.set(user.id, updated);
      return { user: updated };
    },
    async deleteUser(request) {
      if (!users.delete(request.id)) throw notFound();
      return {};
    },
    async authenticatePassword() {
      throw CairnError.unauthenticated('wrong user name or password');
    },
    async searchUsers() {
      return { users: [...users.values()], total: users.size };
    },
    async listUsers() {
      return { users: [...users.values()], total: users.size };
    },
    async renameUser(request) {
      const user = users.get(request.id);
      if (user === undefined) throw notFound();
      const renamed = { ...user, login: request.newName };
      users.set(user.id, renamed);
      return { user: renamed };
    },
    async resolveName(request) {
      const user = [...users.values()].find((u) => u.login === request.name);
      if (user === undefined) throw notFound();
      return { id: user.id, type: user.type, name: user.login, redirect: false, visibility: user.visibility };
    },
  };
  return { ...impl, ...overrides };
}

export interface CapturedLogger {
  logger: Logger;
  /** Lines written so far (parsed JSON). */
  lines: Record<string, unknown>[];
  /** Lets pending writes land before lines are read. */
  flush(): Promise<void>;
}

export function captureLogger(service = 'test'): CapturedLogger {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return {
    logger: createLogger({ service, level: 'debug', destination }),
    lines,
    flush: () => new Promise((resolve) => setImmediate(resolve)),
  };
}

export interface RunningUserServer {
  server: RpcServer;
  target: string;
}

/** A real server on 127.0.0.1 (free port) serving the given UserService implementation. */
export async function startUserServer(impl: UserServiceImpl, logger: Logger): Promise<RunningUserServer> {
  const server = createRpcServer({ service: 'accounts', logger });
  server.addService(UserServiceService, impl, anyCaller(UserServiceService));
  const port = await server.start('127.0.0.1:0');
  server.setServing(true);
  return { server, target: `127.0.0.1:${port}` };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The CairnError a promise rejects with (fails the test on anything else). */
export async function rejection(promise: Promise<unknown>): Promise<CairnError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof CairnError)) throw new Error(`expected a CairnError, got ${String(error)}`);
  return error;
}
