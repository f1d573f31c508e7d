import { setTimeout as delay } from 'node:timers/promises';
import { silentLogger } from '@cairn/log';
import { BreakerState, METRIC_NAMES, metricValue } from '@cairn/metrics';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { createRpcClient } from './client';
import { fakeUserService, rejection, startUserServer } from './user-service.fixture';

const USER_SERVICE = 'cairn.accounts.v1.UserService';
const handled = (side: 'server' | 'client', method: string, code: string) =>
  metricValue(side === 'server' ? METRIC_NAMES.rpcServerHandled : METRIC_NAMES.rpcClientHandled, {
    grpc_service: USER_SERVICE,
    grpc_method: method,
    grpc_code: code,
  });
const timed = (side: 'server' | 'client', method: string) =>
  metricValue(`${side === 'server' ? METRIC_NAMES.rpcServerHandling : METRIC_NAMES.rpcClientHandling}_count`, {
    grpc_service: USER_SERVICE,
    grpc_method: method,
  });

describe('rpc metrics', () => {
  it('counts and times every RPC on both sides, by service, method and code', async () => {
    const { server, target } = await startUserServer(fakeUserService(), silentLogger());
    const client = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger: silentLogger() });
    try {
      await client.batchGetUsers({ ids: [] });
      await client.batchGetUsers({ ids: [1] });
      await rejection(client.getUser({ id: 404 }));
      for (const side of ['server', 'client'] as const) {
        expect(await handled(side, 'BatchGetUsers', 'OK')).toBe(2);
        expect(await handled(side, 'GetUser', 'NOT_FOUND')).toBe(1);
        expect(await handled(side, 'GetUser', 'OK')).toBeUndefined();
        expect(await timed(side, 'BatchGetUsers')).toBe(2);
        expect(await timed(side, 'GetUser')).toBe(1);
      }
    } finally {
      client.close();
      await server.stop(100);
    }
  });

  it('records what the caller saw when it gave up: DEADLINE_EXCEEDED on both sides', async () => {
    const { server, target } = await startUserServer(
      fakeUserService({
        async updateUser(_request, ctx) {
          await delay(2000, undefined, { signal: ctx.signal }).catch(() => undefined);
          return {};
        },
      }),
      silentLogger(),
    );
    const client = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger: silentLogger() });
    try {
      await rejection(client.updateUser({ id: 1, actorId: 0 }, { deadlineMs: 50 }));
      expect(await handled('client', 'UpdateUser', 'DEADLINE_EXCEEDED')).toBe(1);
      for (let i = 0; i < 100 && (await handled('server', 'UpdateUser', 'DEADLINE_EXCEEDED')) === undefined; i++) await delay(20);
      expect(await handled('server', 'UpdateUser', 'DEADLINE_EXCEEDED')).toBe(1);
    } finally {
      client.close();
      await server.stop(100);
    }
  });

  it('shows the breaker state: closed, then open (2) when the server is gone, and no series once closed', async () => {
    const { server, target } = await startUserServer(fakeUserService(), silentLogger());
    const client = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger: silentLogger() });
    const state = () => metricValue(METRIC_NAMES.breakerState, { client: USER_SERVICE });
    try {
      expect(await state()).toBe(BreakerState.closed);
      await client.batchGetUsers({ ids: [] });
      await server.stop(0);
      for (let i = 0; i < 10 && (await state()) !== BreakerState.open; i++) await rejection(client.getUser({ id: 1 }));
      expect(await state()).toBe(BreakerState.open);
      // Rejected by the open circuit: counted as what the caller got.
      const before = (await handled('client', 'GetUser', 'UNAVAILABLE')) ?? 0;
      await rejection(client.getUser({ id: 1 }));
      expect(await handled('client', 'GetUser', 'UNAVAILABLE')).toBe(before + 1);
    } finally {
      client.close();
    }
    expect(await state()).toBeUndefined();
  });
});
