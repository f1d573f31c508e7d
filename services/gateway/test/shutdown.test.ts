import http from 'node:http';
import { silentLogger } from '@cairn/log';
import { start } from '../src';
import { testConfig } from './support/config';
import { FakeAccounts } from './support/fake-accounts';
import { FakeBroadcastBus } from './support/fake-bus';
import { startGrpcAccounts } from './support/grpc-accounts';
import { basic } from './support/harness';

function get(url: string, headers: Record<string, string>, agent: http.Agent): Promise<{ status: number; connection?: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
      })
      .on('error', reject);
  });
}

describe('gateway stop() (SIGTERM)', () => {
  it('finishes the request in flight with 200, refuses new connections, then closes its subscriptions', async () => {
    const alice = new FakeAccounts().addUser('alice', { password: 'alice-pass-1' });
    let entered: (() => void) | undefined;
    const inFlight = new Promise<void>((resolve) => (entered = resolve));
    let release: (() => void) | undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const accounts = await startGrpcAccounts({
      async authenticatePassword() {
        entered?.();
        await released;
        return { user: alice };
      },
    });
    const bus = new FakeBroadcastBus();
    const config = testConfig({ CAIRN__services_0X2E_accounts__ADDR: accounts.addr });
    const service = await start({ config, logger: silentLogger(), bus, listen: '127.0.0.1:0' });
    const base = `http://127.0.0.1:${service.port}`;
    const agent = new http.Agent({ keepAlive: true });
    try {
      // /user/settings needs accounts alone (/user also counts stars, from social, which this test does not run).
      const slow = get(`${base}/api/v1/user/settings`, { authorization: basic('alice', 'alice-pass-1') }, agent);
      await inFlight;
      let stopped = false;
      const stopping = service.stop().then(() => (stopped = true));
      await expect(fetch(`${base}/api/v1/version`)).rejects.toThrow();
      expect(stopped).toBe(false);
      expect(bus.subscriptionCount).toBeGreaterThan(0);

      release?.();
      const answer = await slow;
      expect(answer.status).toBe(200);
      expect(answer.connection).toBe('close');
      expect(JSON.parse(answer.body) as { hide_email: boolean }).toMatchObject({ hide_email: false });
      await stopping;
      expect(bus.subscriptionCount).toBe(0);
    } finally {
      release?.();
      agent.destroy();
      await service.stop();
      await accounts.server.stop(0);
    }
  });
});
