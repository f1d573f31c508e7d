import { createServer } from 'node:net';
import { silentLogger } from '@cairn/log';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { Code } from './errors';
import { checkHealth, waitForReady } from './health';
import { createRpcServer } from './server';
import { anyCaller } from './authorize';
import { fakeUserService, rejection } from './user-service.fixture';

/** A port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('health', () => {
  const USER_SERVICE = 'cairn.accounts.v1.UserService';

  it('reports NOT_SERVING until setServing(true), for the server and each service', async () => {
    const server = createRpcServer({ service: 'accounts', logger: silentLogger() });
    server.addService(UserServiceService, fakeUserService(), anyCaller(UserServiceService));
    const target = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
    try {
      expect(await checkHealth(target)).toBe(false);
      expect(await checkHealth(target, USER_SERVICE)).toBe(false);

      server.setServing(true);
      expect(await checkHealth(target)).toBe(true);
      expect(await checkHealth(target, USER_SERVICE)).toBe(true);
      expect(await checkHealth(target, 'cairn.unknown.v1.NoService')).toBe(false);

      server.setServing(false);
      expect(await checkHealth(target)).toBe(false);
      expect(await checkHealth(target, USER_SERVICE)).toBe(false);
    } finally {
      await server.stop(100);
    }
  });

  it('waitForReady resolves once a live server turns SERVING', async () => {
    const server = createRpcServer({ service: 'accounts', logger: silentLogger() });
    server.addService(UserServiceService, fakeUserService(), anyCaller(UserServiceService));
    const target = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
    try {
      const ready = waitForReady(target, { timeoutMs: 5000, service: USER_SERVICE });
      setTimeout(() => server.setServing(true), 150);
      await expect(ready).resolves.toBeUndefined();
      await expect(waitForReady(target, 1000)).resolves.toBeUndefined();
    } finally {
      await server.stop(100);
    }
  });

  it('waitForReady rejects with UNAVAILABLE when nothing answers', async () => {
    const target = `127.0.0.1:${await deadPort()}`;
    expect(await checkHealth(target)).toBe(false);
    const error = await rejection(waitForReady(target, { timeoutMs: 300 }));
    expect(error.code).toBe(Code.UNAVAILABLE);
    expect(error.message).toBe(`${target} is not ready after 300 ms`);
  });

  it('a stopped server is not healthy', async () => {
    const server = createRpcServer({ service: 'accounts', logger: silentLogger() });
    server.addService(UserServiceService, fakeUserService(), anyCaller(UserServiceService));
    const target = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
    server.setServing(true);
    await server.stop(100);
    expect(await checkHealth(target)).toBe(false);
  });
});
