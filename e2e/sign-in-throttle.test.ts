/**
 * Failed password sign-ins through the gateway (issue 13 §5): after [security] LOGIN_MAX_FAILURES bad passwords
 * for one account from one address, API basic auth and git over smart HTTP answer 429 with `Retry-After`, even
 * for the right password, while tokens, other addresses (told by a trusted proxy's X-Forwarded-For: the test
 * connects from loopback, which Gitea's default REVERSE_PROXY_TRUSTED_PROXIES trusts) and other accounts are
 * untouched. An account guessed at from many addresses is blocked too, but not for an address that signed in to
 * it before. A burst of password checks beyond PASSWORD_CHECK_CONCURRENCY + PASSWORD_CHECK_QUEUE is shed with 503
 * and `Retry-After: 1`, and token requests keep working through it.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApiResponse } from './support/client';
import { USER_PASSWORD, startFixture, type Fixture } from './support/fixture';
import { basicAuth } from './support/instance';

jest.setTimeout(180_000);

interface Run {
  code: number;
  stderr: string;
}

describe('sign-in throttle through the gateway', () => {
  let f: Fixture;
  let home: string;

  const call = <T = unknown>(method: string, apiPath: string, headers: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> =>
    f.api.request<T>(method, `/api/v1${apiPath}`, { headers, body });

  /** Basic auth for `user` as sent through a trusted proxy for `address`. */
  const from = (address: string, user: string, password: string) => ({ ...basicAuth(user, password), 'X-Forwarded-For': address });

  async function createToken(user: string): Promise<string> {
    const made = await call<{ sha1: string }>('POST', `/users/${user}/tokens`, f.as(user), { name: `t-${Date.now()}`, scopes: ['all'] });
    expect(made.status).toBe(201);
    return made.body.sha1;
  }

  function git(args: string[]): Promise<Run> {
    const env = { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
    return new Promise((resolve) => {
      execFile('git', args, { env }, (error, _stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stderr: stderr.toString() });
      });
    });
  }

  /** `http://user:secret@host:port/<repo>.git` */
  function remote(repo: string, user: string, secret: string): string {
    const url = new URL(`${f.instance.httpUrl}/${repo}.git`);
    url.username = user;
    url.password = secret;
    return url.toString();
  }

  beforeAll(async () => {
    f = await startFixture('e2e_sign_in_throttle', ['alice', 'bob', 'carol', 'dave', 'erin'], {
      CAIRN__security__LOGIN_MAX_FAILURES: '3',
      CAIRN__security__LOGIN_MAX_ACCOUNT_FAILURES: '20',
      CAIRN__security__LOGIN_MAX_ADDRESS_FAILURES: '50',
      CAIRN__security__LOGIN_BLOCK_SECONDS: '120',
      // One hash at a time and no waiting line: the burst below must overflow it.
      CAIRN__security__PASSWORD_CHECK_CONCURRENCY: '1',
      CAIRN__security__PASSWORD_CHECK_QUEUE: '0',
    });
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-throttle-home-'));
    const repo = await call('POST', '/user/repos', f.as('bob'), { name: 'tools', private: true, auto_init: true });
    expect(repo.status).toBe(201);
  });

  afterAll(async () => {
    await f?.stop();
    if (home !== undefined) fs.rmSync(home, { recursive: true, force: true });
  });

  it('answers API basic auth with 429 and Retry-After after LOGIN_MAX_FAILURES bad passwords, even for the right one', async () => {
    const token = await createToken('alice');
    for (let i = 0; i < 3; i++) {
      const bad = await call('GET', '/user', basicAuth('alice', 'wrong-password'));
      expect(bad.status).toBe(401);
    }
    for (const password of ['wrong-password', USER_PASSWORD]) {
      const refused = await call<{ message: string; url: string }>('GET', '/user', basicAuth('alice', password));
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ message: 'too many failed sign-in attempts, try again later', url: expect.stringMatching(/\/api\/swagger$/) });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(100);
      expect(retryAfter).toBeLessThanOrEqual(120);
    }
    // The same account by token, from another address, and another account from the blocked address all still work.
    await expect(call('GET', '/user', { Authorization: `token ${token}` })).resolves.toMatchObject({ status: 200, body: { login: 'alice' } });
    await expect(call('GET', '/user', from('198.51.100.7', 'alice', USER_PASSWORD))).resolves.toMatchObject({ status: 200, body: { login: 'alice' } });
    await expect(call('GET', '/user', f.as('erin'))).resolves.toMatchObject({ status: 200, body: { login: 'erin' } });
  });

  it("blocks an account guessed at from many addresses, except for an address that signed in to it before", async () => {
    const known = '198.51.100.60';
    await expect(call('GET', '/user', from(known, 'dave', USER_PASSWORD))).resolves.toMatchObject({ status: 200 });
    // LOGIN_MAX_ACCOUNT_FAILURES (20) failures spread over seven addresses, none of them over its own limit of 3.
    for (let i = 0; i < 20; i++) {
      const bad = await call('GET', '/user', from(`198.51.100.${70 + (i % 7)}`, 'dave', 'wrong-password'));
      expect(bad.status).toBe(401);
    }
    const refused = await call('GET', '/user', from('198.51.100.99', 'dave', USER_PASSWORD));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(100);
    await expect(call('GET', '/user', from(known, 'dave', USER_PASSWORD))).resolves.toMatchObject({ status: 200, body: { login: 'dave' } });
  });

  it('answers git over smart HTTP with 429 and Retry-After after LOGIN_MAX_FAILURES bad passwords', async () => {
    const address = '198.51.100.8';
    const infoRefs = (password: string) =>
      fetch(`${f.instance.httpUrl}/bob/tools.git/info/refs?service=git-upload-pack`, { headers: from(address, 'bob', password) });
    // git itself, from loopback: three failures, then git reports the 429.
    for (let i = 0; i < 3; i++) {
      const failed = await git(['ls-remote', remote('bob/tools', 'bob', 'wrong-password')]);
      expect(failed.code).not.toBe(0);
      expect(failed.stderr).toContain('Authentication failed');
    }
    const throttled = await git(['ls-remote', remote('bob/tools', 'bob', USER_PASSWORD)]);
    expect(throttled.code).not.toBe(0);
    expect(throttled.stderr).toContain('429');
    // The same through a proxy for another address: three 401s, then 429 with Retry-After and a plain-text reason.
    for (let i = 0; i < 3; i++) expect((await infoRefs('wrong-password')).status).toBe(401);
    const refused = await infoRefs(USER_PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(100);
    expect(await refused.text()).toBe('too many failed sign-in attempts, try again later');
    // bob's right password from an address that did not fail still gets the refs.
    const ok = await fetch(`${f.instance.httpUrl}/bob/tools.git/info/refs?service=git-upload-pack`, {
      headers: from('198.51.100.9', 'bob', USER_PASSWORD),
    });
    expect(ok.status).toBe(200);
  });

  it('sheds a burst of password checks beyond the queue with 503 and Retry-After: 1, while tokens keep working', async () => {
    // Made before the burst and never used, so authenticating it needs accounts during the burst's aftermath.
    const token = await createToken('carol');
    const burst = await Promise.all(Array.from({ length: 12 }, () => call('GET', '/user', f.as('carol'))));
    const statuses = burst.map((answer) => answer.status);
    expect(statuses).toContain(200);
    expect(statuses).toContain(503);
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
    for (const shed of burst.filter((answer) => answer.status === 503)) {
      expect(shed.headers.get('retry-after')).toBe('1');
      expect(shed.body).toMatchObject({ message: 'too many password checks in progress, try again later' });
    }
    // Shedding is an answer, not a sick service: the gateway still reaches accounts (no open circuit).
    await expect(call('GET', '/user', { Authorization: `token ${token}` })).resolves.toMatchObject({ status: 200, body: { login: 'carol' } });
    await expect(call('GET', '/user', f.as('carol'))).resolves.toMatchObject({ status: 200 });
  });
});
