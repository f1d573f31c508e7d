/**
 * Password sign-ins over real gRPC: the gateway sends the client's address (a trusted proxy's X-Forwarded-For,
 * else the peer) and answers accounts' refusals as 429 / 503 with `Retry-After` on the API and on git smart
 * HTTP; a stream of refusals does not open the circuit to accounts.
 */
import { silentLogger } from '@cairn/log';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { CairnError, Code } from '@cairn/rpc';
import { type RunningService, start } from '../src';
import { testConfig } from './support/config';
import { FakeAccounts } from './support/fake-accounts';
import { FakeBroadcastBus } from './support/fake-bus';
import { type GrpcAccounts, startGrpcAccounts } from './support/grpc-accounts';
import { basic } from './support/harness';

const THROTTLED_MESSAGE = 'too many failed sign-in attempts, try again later';
const BUSY_MESSAGE = 'too many password checks in progress, try again later';

describe('password sign-in refusals', () => {
  const alice: User = new FakeAccounts().addUser('alice', { password: 'alice-pass-1' });
  const addresses: string[] = [];
  let accounts: GrpcAccounts;
  let service: RunningService;
  let base: string;

  async function startWith(env: Record<string, string>): Promise<void> {
    const config = testConfig({ CAIRN__services_0X2E_accounts__ADDR: accounts.addr, ...env });
    service = await start({ config, logger: silentLogger(), bus: new FakeBroadcastBus(), listen: '127.0.0.1:0' });
    base = `http://127.0.0.1:${service.port}`;
  }

  beforeAll(async () => {
    accounts = await startGrpcAccounts({
      async authenticatePassword(request) {
        addresses.push(request.clientAddress);
        if (request.login === 'throttled') {
          throw new CairnError(Code.RESOURCE_EXHAUSTED, THROTTLED_MESSAGE, { reason: 'sign_in_throttled', retryAfterSeconds: 37 });
        }
        if (request.login === 'busy') {
          throw new CairnError(Code.RESOURCE_EXHAUSTED, BUSY_MESSAGE, { reason: 'password_checks_busy', retryAfterSeconds: 1 });
        }
        return { user: alice };
      },
    });
  });

  afterEach(async () => {
    await service.stop();
    addresses.length = 0;
  });

  afterAll(async () => {
    await accounts.server.stop(0);
  });

  it('answers a throttled sign-in with 429 and a busy one with 503, both with Retry-After, and keeps the circuit closed', async () => {
    await startWith({});
    // More refusals than the breaker's volume threshold: none of them may open the circuit.
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${base}/api/v1/user`, { headers: { authorization: basic('throttled', 'whatever-1') } });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('37');
      expect(await res.json()).toEqual({ message: THROTTLED_MESSAGE, url: 'http://localhost:3000/api/swagger' });
    }
    const busy = await fetch(`${base}/api/v1/user`, { headers: { authorization: basic('busy', 'whatever-1') } });
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(await busy.json()).toEqual({ message: BUSY_MESSAGE, url: 'http://localhost:3000/api/swagger' });
    // /user/settings needs accounts alone (/user also counts stars, from social, which this test does not run).
    const ok = await fetch(`${base}/api/v1/user/settings`, { headers: { authorization: basic('alice', 'alice-pass-1') } });
    expect(ok.status).toBe(200);
  });

  it('answers git smart HTTP with the same statuses, in plain text', async () => {
    await startWith({});
    const res = await fetch(`${base}/alice/repo.git/info/refs?service=git-upload-pack`, { headers: { authorization: basic('throttled', 'whatever-1') } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('37');
    expect(await res.text()).toBe(THROTTLED_MESSAGE);
  });

  it('sends the peer as the client address, or what a trusted proxy forwarded', async () => {
    await startWith({});
    const headers = { authorization: basic('alice', 'alice-pass-1') };
    await fetch(`${base}/api/v1/user`, { headers });
    await fetch(`${base}/api/v1/user`, { headers: { ...headers, 'x-forwarded-for': '198.51.100.1, 203.0.113.5' } });
    expect(addresses).toEqual(['127.0.0.1', '203.0.113.5']);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    await startWith({ CAIRN__security__REVERSE_PROXY_TRUSTED_PROXIES: '10.0.0.0/8' });
    await fetch(`${base}/api/v1/user`, { headers: { authorization: basic('alice', 'alice-pass-1'), 'x-forwarded-for': '203.0.113.5' } });
    expect(addresses).toEqual(['127.0.0.1']);
  });
});
