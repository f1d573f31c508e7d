import { setTimeout as delay } from 'node:timers/promises';
import { currentRequestId, runWithRequestContext, silentLogger } from '@cairn/log';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { createRpcClient, type RpcClient } from './client';
import { CairnError, Code } from './errors';
import { createHealthClient } from './health';
import { createRpcServer } from './server';
import type { RpcContext } from './types';
import {
  type CapturedLogger,
  type RunningUserServer,
  captureLogger,
  fakeUserService,
  rejection,
  sleep,
  startUserServer,
} from './user-service.fixture';

const GET_USER = '/cairn.accounts.v1.UserService/GetUser';

describe('rpc server + client', () => {
  let log: CapturedLogger;
  let running: RunningUserServer;
  let client: RpcClient<typeof UserServiceService>;
  const seen: { ctx?: RpcContext; ambient?: string } = {};

  beforeAll(async () => {
    log = captureLogger('accounts');
    running = await startUserServer(
      fakeUserService({
        async deleteUser() {
          throw new Error('connection to db failed: password hunter2');
        },
        async batchGetUsers(request, ctx) {
          seen.ctx = ctx;
          seen.ambient = currentRequestId();
          return { users: [] };
        },
        async updateUser(_request, ctx) {
          // Waits until the caller gives up; the signal is what tells it.
          await delay(2000, undefined, { signal: ctx.signal }).catch(() => undefined);
          throw CairnError.internal('should never reach the caller');
        },
      }),
      log.logger,
    );
    client = createRpcClient(UserServiceService, { target: running.target, service: 'accounts', caller: 'gateway', logger: silentLogger() });
  });

  afterAll(async () => {
    client.close();
    await running.server.stop(100);
  });

  const rpcLines = (rpc: string) => log.lines.filter((line) => line.msg === 'rpc' && line.rpc === rpc);

  it('round-trips typed requests and responses, Dates included', async () => {
    const createdAt = new Date('2021-03-04T05:06:07.089Z');
    const created = await client.createUser({
      username: 'alice',
      email: 'alice@example.com',
      password: 'pw',
      fullName: '',
      loginName: '',
      sourceId: 0,
      mustChangePassword: false,
      restricted: false,
      visibility: '',
      isAdmin: false,
      actorId: 0,
      createdAt,
    });
    expect(created.user?.created).toEqual(createdAt);
    expect(created.user?.created).toBeInstanceOf(Date);

    const fetched = await client.getUser({ username: 'alice' });
    expect(fetched.user).toEqual(created.user);
    expect(fetched.user?.login).toBe('alice');
  });

  it('sends a CairnError as code, message and reason', async () => {
    const error = await rejection(client.getUser({ id: 4242 }));
    expect(error.code).toBe(Code.NOT_FOUND);
    expect(error.message).toBe('user does not exist');
    expect(error.reason).toBe('user_not_found');

    const denied = await rejection(client.authenticatePassword({ login: 'alice', password: 'nope', clientAddress: '' }));
    expect(denied.code).toBe(Code.UNAUTHENTICATED);
    expect(denied.reason).toBeUndefined();
  });

  it('turns an unexpected error into INTERNAL "internal error" and logs the real one', async () => {
    const error = await rejection(client.deleteUser({ id: 1, actorId: 0, purge: false }));
    expect(error.code).toBe(Code.INTERNAL);
    expect(error.message).toBe('internal error');
    expect(error.reason).toBeUndefined();
    expect(JSON.stringify({ message: error.message, cause: String(error.cause) })).not.toContain('hunter2');

    await log.flush();
    const [line, ...more] = rpcLines('/cairn.accounts.v1.UserService/DeleteUser');
    expect(more).toHaveLength(0);
    expect(line).toMatchObject({ level: 'error', code: 'INTERNAL' });
    expect(JSON.stringify(line)).toContain('hunter2');
  });

  it('carries the caller’s request id into the handler and its log line', async () => {
    await runWithRequestContext({ requestId: 'req-42' }, () => client.batchGetUsers({ ids: [1] }));
    expect(seen.ctx?.requestId).toBe('req-42');
    expect(seen.ambient).toBe('req-42');
    expect(seen.ctx?.deadline).toBeInstanceOf(Date);

    await log.flush();
    const lines = rpcLines('/cairn.accounts.v1.UserService/BatchGetUsers');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', code: 'OK', request_id: 'req-42', service: 'accounts', caller: 'gateway' });
    expect(typeof lines[0].duration_ms).toBe('number');
  });

  it('gives a call without a request id a fresh one', async () => {
    await client.batchGetUsers({ ids: [] });
    expect(seen.ctx?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.ctx?.requestId).not.toBe('req-42');
  });

  it('logs exactly one line per RPC, at info for business errors', async () => {
    const before = rpcLines(GET_USER).length;
    await rejection(client.getUser({ id: 999 }));
    await client.getUser({ username: 'alice' });
    await log.flush();
    const lines = rpcLines(GET_USER).slice(before);
    expect(lines.map((line) => [line.level, line.code])).toEqual([
      ['info', 'NOT_FOUND'],
      ['info', 'OK'],
    ]);
  });

  it('answers DEADLINE_EXCEEDED when the handler outlives the deadline, and tells the handler', async () => {
    const error = await rejection(client.updateUser({ id: 1, actorId: 0 }, { deadlineMs: 50 }));
    expect(error.code).toBe(Code.DEADLINE_EXCEEDED);
    expect(error.message).toBe('accounts did not answer in time');

    // The handler returns once its signal fires; its line records what the caller saw.
    let lines = rpcLines('/cairn.accounts.v1.UserService/UpdateUser');
    for (let i = 0; i < 100 && lines.length === 0; i++) {
      await sleep(20);
      lines = rpcLines('/cairn.accounts.v1.UserService/UpdateUser');
    }
    expect(lines).toHaveLength(1);
    expect(lines[0].code).toBe('DEADLINE_EXCEEDED');
  });
});

describe('rpc server shutdown', () => {
  it('reports NOT_SERVING, lets the call in flight finish, and refuses new calls', async () => {
    let entered: (() => void) | undefined;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let release: (() => void) | undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { server, target } = await startUserServer(
      fakeUserService({
        async batchGetUsers() {
          entered?.();
          await released;
          return { users: [] };
        },
      }),
      silentLogger(),
    );
    const client = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger: silentLogger(), deadlineMs: 10_000 });
    const health = createHealthClient(target);
    try {
      expect(await health.check()).toBe(true);
      const slow = client.batchGetUsers({ ids: [1] });
      await inHandler;
      let stopped = false;
      const stopping = server.stop(10_000).then(() => (stopped = true));
      // Health turns first; the server is still draining the slow call.
      expect(await health.check()).toBe(false);
      expect(stopped).toBe(false);
      const late = await rejection(client.getUser({ id: 1 }));
      expect(late.code).toBe(Code.UNAVAILABLE);

      release?.();
      await expect(slow).resolves.toEqual({ users: [] });
      await stopping;
      expect(stopped).toBe(true);
    } finally {
      release?.();
      health.close();
      client.close();
      await server.stop(0);
    }
  });

  it('cuts calls off after the grace period', async () => {
    const { server, target } = await startUserServer(
      fakeUserService({
        batchGetUsers: () => new Promise(() => undefined),
      }),
      silentLogger(),
    );
    const client = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger: silentLogger(), deadlineMs: 10_000 });
    try {
      const stuck = rejection(client.batchGetUsers({ ids: [] }));
      await sleep(50);
      await server.stop(100);
      // grpc-js resets the stream: the caller sees CANCELLED (or UNAVAILABLE), never an answer.
      expect([Code.CANCELLED, Code.UNAVAILABLE]).toContain((await stuck).code);
    } finally {
      client.close();
    }
  });
});
