import { setTimeout as delay } from 'node:timers/promises';
import { silentLogger } from '@cairn/log';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { createRpcClient } from './client';
import { Code } from './errors';
import { MAX_MESSAGE_BYTES } from './limits';
import { captureLogger, fakeUserService, rejection, startUserServer } from './user-service.fixture';

const newUser = {
  username: 'bob',
  email: 'bob@example.com',
  password: 'pw',
  fullName: '',
  loginName: '',
  sourceId: 0,
  mustChangePassword: false,
  restricted: false,
  visibility: '',
  isAdmin: false,
  actorId: 0,
};

describe('rpc client', () => {
  it('does not count business errors against the circuit', async () => {
    const { server, target } = await startUserServer(fakeUserService(), silentLogger());
    const client = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger: silentLogger() });
    try {
      await client.createUser(newUser);
      for (let i = 0; i < 20; i++) {
        const error = await rejection(client.getUser({ id: 9999 }));
        expect([error.code, error.message, error.reason]).toEqual([Code.NOT_FOUND, 'user does not exist', 'user_not_found']);
      }
      expect((await client.getUser({ username: 'bob' })).user?.login).toBe('bob');
    } finally {
      client.close();
      await server.stop(100);
    }
  });

  it('fails with DEADLINE_EXCEEDED after the client’s default deadline', async () => {
    const { server, target } = await startUserServer(
      fakeUserService({
        async getUser(_request, ctx) {
          await delay(1000, undefined, { signal: ctx.signal }).catch(() => undefined);
          return {};
        },
      }),
      silentLogger(),
    );
    const client = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger: silentLogger(), deadlineMs: 50 });
    try {
      const error = await rejection(client.getUser({ id: 1 }));
      expect(error.code).toBe(Code.DEADLINE_EXCEEDED);
      expect(error.message).toBe('accounts did not answer in time');
    } finally {
      client.close();
      await server.stop(100);
    }
  });

  it('cancels the call when the breaker’s own timeout cuts it short', async () => {
    let aborted: Promise<void> | undefined;
    const { server, target } = await startUserServer(
      fakeUserService({
        async getUser(_request, ctx) {
          aborted = new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
          await delay(5000, undefined, { signal: ctx.signal }).catch(() => undefined);
          return {};
        },
      }),
      silentLogger(),
    );
    // Long enough for the call to reach the handler on a busy machine, so there is a call to cancel.
    const client = createRpcClient(UserServiceService, {
      target,
      service: 'accounts',
      caller: 'gateway',
      logger: silentLogger(),
      breaker: { timeoutMs: 500 },
    });
    try {
      const error = await rejection(client.getUser({ id: 1 }));
      expect(error.code).toBe(Code.DEADLINE_EXCEEDED);
      expect(error.message).toBe('accounts did not answer in time');
      await expect(aborted).resolves.toBeUndefined();
    } finally {
      client.close();
      await server.stop(100);
    }
  });

  it('fails with UNAVAILABLE when the server is gone, then opens the circuit', async () => {
    const { server, target } = await startUserServer(fakeUserService(), silentLogger());
    const log = captureLogger('gateway');
    const client = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger: log.logger });
    try {
      await client.createUser(newUser);
      await server.stop(0);

      const messages: string[] = [];
      for (let i = 0; i < 10 && !messages.includes('accounts is unavailable (circuit open)'); i++) {
        const error = await rejection(client.getUser({ id: 1 }));
        expect(error.code).toBe(Code.UNAVAILABLE);
        messages.push(error.message);
      }
      expect(messages[0]).toBe('accounts is unavailable');
      expect(messages.at(-1)).toBe('accounts is unavailable (circuit open)');
      expect(new Set(messages)).toEqual(new Set(['accounts is unavailable', 'accounts is unavailable (circuit open)']));

      await log.flush();
      const failures = log.lines.filter((line) => line.msg === 'rpc call failed');
      expect(failures).toHaveLength(messages.length);
      expect(failures[0]).toMatchObject({ level: 'warn', code: 'UNAVAILABLE', rpc: '/cairn.accounts.v1.UserService/GetUser' });
      expect(log.lines.some((line) => line.msg === 'circuit opened')).toBe(true);
    } finally {
      client.close();
    }
  });

  it('cancels a unary call when its signal aborts, and the handler sees it', async () => {
    let handlerAborted: Promise<void> | undefined;
    const { server, target } = await startUserServer(
      fakeUserService({
        async getUser(_request, ctx) {
          handlerAborted = new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
          await delay(5000, undefined, { signal: ctx.signal }).catch(() => undefined);
          return {};
        },
      }),
      silentLogger(),
    );
    const client = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger: silentLogger() });
    try {
      const abort = new AbortController();
      const call = rejection(client.getUser({ id: 1 }, { signal: abort.signal }));
      while (handlerAborted === undefined) await delay(5);
      abort.abort();
      expect((await call).code).toBe(Code.CANCELLED);
      await expect(handlerAborted).resolves.toBeUndefined();
      const early = await rejection(client.getUser({ id: 1 }, { signal: AbortSignal.abort() }));
      expect([early.code, early.message]).toEqual([Code.CANCELLED, 'accounts call cancelled']);
    } finally {
      client.close();
      await server.stop(100);
    }
  });

  it("carries messages over grpc's 4 MiB default both ways, and refuses those over MAX_MESSAGE_BYTES", async () => {
    const { server, target } = await startUserServer(fakeUserService(), silentLogger());
    const client = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger: silentLogger() });
    try {
      const { user } = await client.createUser(newUser);
      // The request and the answer each hold the 6 MiB name.
      const fullName = 'x'.repeat(6 * 1024 * 1024);
      const updated = await client.updateUser({ id: user?.id ?? 0, actorId: 0, fullName });
      expect(updated.user?.fullName.length).toBe(fullName.length);
      const tooBig = await rejection(client.updateUser({ id: user?.id ?? 0, actorId: 0, fullName: 'x'.repeat(MAX_MESSAGE_BYTES) }));
      expect(tooBig.code).toBe(Code.RESOURCE_EXHAUSTED);
    } finally {
      client.close();
      await server.stop(100);
    }
  });

  it('fails with UNAVAILABLE after close()', async () => {
    const client = createRpcClient(UserServiceService, { target: '127.0.0.1:1', service: 'accounts', caller: 'gateway', logger: silentLogger() });
    client.close();
    const error = await rejection(client.getUser({ id: 1 }));
    expect(error.code).toBe(Code.UNAVAILABLE);
  });

  it('types requests and responses from the definition', async () => {
    const client = createRpcClient(UserServiceService, { target: '127.0.0.1:1', service: 'accounts', caller: 'gateway', logger: silentLogger() });
    client.close();
    // @ts-expect-error GetUserRequest has no field `name`
    await client.getUser({ name: 'x' }).catch(() => undefined);
    const login: Promise<string | undefined> = client.getUser({ id: 1 }).then((response) => response.user?.login);
    await login.catch(() => undefined);
  });
});
