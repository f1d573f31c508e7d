import http from 'node:http';
import { CairnError, Code } from '@cairn/rpc';
import { FakeAccounts } from './support/fake-accounts';
import { type TestGateway, basic, eventually, jsonBody, startTestGateway, tokenAuth } from './support/harness';

const URL_KEY = 'http://localhost:3000/api/swagger';

/** A raw request, so a test can send what fetch will not (chunked bodies of any size, odd methods). */
function rawRequest(url: string, options: http.RequestOptions, body?: Buffer | string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe('HTTP behaviour', () => {
  const accounts = new FakeAccounts();
  const root = accounts.addUser('root', { isAdmin: true, password: 'root-password' });
  const ROOT = basic('root', 'root-password');
  const rootToken = tokenAuth(accounts.addToken(root.id, 'all', ['all']).secret);
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts, env: { CAIRN__server__MAX_BODY_SIZE: '1024' } });
  });
  afterAll(() => gw.close());

  it('sends JSON with Gitea\'s content type and nosniff on every API answer, errors included', async () => {
    for (const path of ['/api/v1/version', '/api/v1/user', '/api/v1/nope']) {
      const res = await gw.fetch(path);
      expect(res.headers.get('content-type')).toBe('application/json;charset=utf-8');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('sends neither X-Powered-By nor ETag', async () => {
    for (const path of ['/api/v1/version', '/swagger.v1.json', '/api/healthz', '/nowhere']) {
      const res = await gw.fetch(path);
      expect({ path, poweredBy: res.headers.get('x-powered-by'), etag: res.headers.get('etag') }).toEqual({ path, poweredBy: null, etag: null });
    }
  });

  it('answers an unknown API route with a JSON 404', async () => {
    const res = await gw.fetch('/api/v1/repos/a/b/nothing');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ errors: null, message: 'not found', url: URL_KEY });
  });

  it('is case-sensitive about paths, as Gitea is', async () => {
    expect((await gw.fetch('/api/v1/VERSION')).status).toBe(404);
    expect((await gw.fetch('/API/v1/version')).status).toBe(404);
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const res = await gw.fetch('/api/v1/version', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(await res.json()).toEqual({ message: 'method not allowed', url: URL_KEY });
    const tokens = await gw.fetch('/api/v1/users/root/tokens', { method: 'PUT' });
    expect(tokens.status).toBe(405);
    expect(tokens.headers.get('allow')).toBe('GET, POST, HEAD');
  });

  it('answers HEAD on GET routes without a body', async () => {
    const res = await gw.fetch('/api/v1/version', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('answers a malformed JSON body with 400', async () => {
    const res = await gw.fetch('/api/v1/admin/users', {
      method: 'POST',
      headers: { Authorization: ROOT, 'Content-Type': 'application/json' },
      body: '{"username": "x",',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string; url: string };
    expect(body.url).toBe(URL_KEY);
    expect(body.message).toMatch(/^invalid JSON body: /);
  });

  it('reads an empty body as {} (then binding says what is missing)', async () => {
    const res = await gw.fetch('/api/v1/admin/users', { method: 'POST', headers: { Authorization: ROOT } });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ message: '[Username]: Required', url: URL_KEY });
  });

  it('refuses a body over [server] MAX_BODY_SIZE with 413, by declared length or as it streams', async () => {
    const big = JSON.stringify({ username: 'x', email: 'x@example.com', full_name: 'y'.repeat(2000) });
    const declared = await rawRequest(`${gw.url}/api/v1/admin/users`, {
      method: 'POST',
      headers: { Authorization: ROOT, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(big) },
    }, big);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text)).toEqual({ message: 'request body too large (limit 1024 bytes)', url: URL_KEY });

    const chunked = await rawRequest(`${gw.url}/api/v1/admin/users`, {
      method: 'POST',
      headers: { Authorization: ROOT, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
    }, big);
    expect(chunked.status).toBe(413);
    expect(chunked.headers['content-type']).toBe('application/json;charset=utf-8');
  });

  it('hides unexpected errors behind a logged, generic 500', async () => {
    const original = accounts.clients.users.getUser;
    accounts.clients.users.getUser = async () => {
      throw new Error('secret detail: connection string postgres://u:p@db');
    };
    try {
      const res = await gw.fetch('/api/v1/users/root');
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ message: 'internal server error', url: URL_KEY });
      expect(text).not.toContain('secret detail');
      const logged = await eventually(() => gw.logs.find((l) => l.msg === 'request failed'));
      expect(JSON.stringify(logged)).toContain('secret detail');
    } finally {
      accounts.clients.users.getUser = original;
    }
  });

  it('maps service errors: an INTERNAL stays generic, UNAVAILABLE and DEADLINE_EXCEEDED are 503', async () => {
    const cases: Array<[CairnError, number, string]> = [
      [CairnError.internal('internal error'), 500, 'internal server error'],
      [CairnError.unavailable('accounts is unavailable'), 503, 'accounts is unavailable'],
      [new CairnError(Code.DEADLINE_EXCEEDED, 'accounts did not answer in time'), 503, 'accounts did not answer in time'],
    ];
    for (const [failure, status, message] of cases) {
      accounts.failure = failure;
      try {
        // Authentication itself needs accounts here, so every route is affected.
        const res = await gw.fetch('/api/v1/version', { headers: { Authorization: basic('root', 'root-password') } });
        expect({ status: res.status, body: await res.json() }).toEqual({ status, body: { message, url: URL_KEY } });
      } finally {
        accounts.failure = undefined;
      }
    }
    // The hidden INTERNAL message reaches the log, not the client.
    expect(gw.logs.some((l) => l.msg === 'request failed' && l.status === 500 && JSON.stringify(l).includes('internal error'))).toBe(true);
  });

  it('answers a malformed path escape with 400, not 500', async () => {
    const res = await rawRequest(`${gw.url}/api/v1/users/%E0%A4%A`, { method: 'GET', headers: { Authorization: rootToken } });
    expect(res.status).toBe(400);
  });

  it('leaves paths outside the API to later routes (404 for now)', async () => {
    const res = await gw.fetch('/explore/repos');
    expect(res.status).toBe(404);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('does not read a body before authentication: bad credentials win over a bad body', async () => {
    const res = await gw.fetch('/api/v1/admin/users', { ...jsonBody('POST', {}), headers: { Authorization: basic('root', 'wrong'), 'Content-Type': 'application/json' }, body: '{' });
    expect(res.status).toBe(401);
  });
});
