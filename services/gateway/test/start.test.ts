import { silentLogger } from '@cairn/log';
import { start } from '../src';
import { GIT_REPO_CACHE_SUBJECTS } from '../src/git/repo-cache-invalidation';
import { testConfig } from './support/config';
import { FakeBroadcastBus } from './support/fake-bus';
import { basic } from './support/harness';

describe('start', () => {
  it('listens where told, answers without accounts where it can, 503 where it cannot, and stops cleanly', async () => {
    // Nothing listens on port 1: accounts is down.
    const config = testConfig({ CAIRN__services_0X2E_accounts__ADDR: '127.0.0.1:1', CAIRN__rpc__DEADLINE_MS: '2000' });
    const bus = new FakeBroadcastBus();
    const service = await start({ config, logger: silentLogger(), bus, listen: '127.0.0.1:0' });
    try {
      expect(service.name).toBe('gateway');
      expect(service.port).toBeGreaterThan(0);
      // The token cache's four subjects, and the smart HTTP repository cache's (src/git/repo-cache-invalidation.ts).
      expect(bus.subscriptionCount).toBe(4 + GIT_REPO_CACHE_SUBJECTS.length);
      const base = `http://127.0.0.1:${service.port}`;
      expect((await fetch(`${base}/api/v1/version`)).status).toBe(200);
      const res = await fetch(`${base}/api/v1/user`, { headers: { Authorization: basic('alice', 'password') } });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { message: string }).message).toMatch(/accounts/);
    } finally {
      await service.stop();
    }
    expect(bus.subscriptionCount).toBe(0);
  });

  it('refuses a listen address it cannot parse', async () => {
    await expect(start({ config: testConfig(), logger: silentLogger(), bus: new FakeBroadcastBus(), listen: 'nowhere' })).rejects.toThrow(
      /invalid listen address/,
    );
  });
});
