/**
 * The accounts API end to end: the built supervisor with PostgreSQL and NATS, driven over HTTP through
 * the validating client (every body checked against Gitea's description), and the public events watched
 * on NATS.
 */
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { createTestDatabase, testNatsUrl, type TestDatabase, uniqueName } from '@cairn/testing';
import { apiClient, type ApiClient } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, waitFor, type Instance } from './support/instance';
import { deleteStreamsOf } from './support/nats-streams';

jest.setTimeout(120_000);

interface ReceivedEvent {
  subject: string;
  id: string | undefined;
  body: Record<string, unknown>;
}

describe('accounts API through the gateway', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;
  let api: ApiClient;
  let nats: NatsConnection;
  let watch: Subscription;
  const events: ReceivedEvent[] = [];
  const admin = basicAuth('root', 'root-pass-123');
  // A `[bus] PREFIX` of its own on the machine's NATS (its streams deleted afterwards); subjects are read back in the
  // code's names (`cairn.user.created`).
  const prefix = uniqueName('e2eapi');

  beforeAll(async () => {
    nats = await connect({ servers: testNatsUrl() });
    watch = nats.subscribe(`${prefix}.>`, {
      callback: (_err, msg) => {
        events.push({ subject: `cairn${msg.subject.slice(prefix.length)}`, id: msg.headers?.get('Nats-Msg-Id'), body: msg.json<Record<string, unknown>>() });
      },
    });
    database = await createTestDatabase('e2e_api');
    workDir = makeWorkDir();
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__bus__URL: testNatsUrl(), CAIRN__bus__PREFIX: prefix, CAIRN__server__HTTP_PORT: '0' });
    instance = await startInstance(workDir, env);
    api = apiClient(instance.httpUrl);
    const created = await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com', '--admin'], env);
    expect(created.code).toBe(0);
  });

  afterAll(async () => {
    watch?.unsubscribe();
    await nats?.close();
    await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
    await deleteStreamsOf([prefix]);
  });

  const eventsFor = (subject: string, match: (body: Record<string, unknown>) => boolean): ReceivedEvent[] =>
    events.filter((e) => e.subject === subject && match(e.body));

  it('serves version, settings and its own API description', async () => {
    expect((await api.request('GET', '/api/v1/version')).body).toEqual({ version: expect.any(String) });
    const settings = await api.request<Record<string, unknown>>('GET', '/api/v1/settings/api');
    expect(settings.body).toMatchObject({ max_response_items: 50, default_paging_num: 30 });
    for (const area of ['ui', 'repository', 'attachment']) expect((await api.request('GET', `/api/v1/settings/${area}`)).status).toBe(200);
    const description = await api.request<{ basePath: string; paths: Record<string, unknown> }>('GET', '/swagger.v1.json');
    expect(description.body.basePath).toBe('/api/v1');
    expect(Object.keys(description.body.paths)).toEqual(expect.arrayContaining(['/version', '/user', '/users/{username}/tokens']));
    const redirect = await api.request('GET', '/api/v1/swagger');
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('location')).toBe('/api/swagger');
  });

  it('signs in the CLI-made administrator with basic auth, and publishes cairn.user.created', async () => {
    const me = await api.request<{ login: string; is_admin: boolean }>('GET', '/api/v1/user', { headers: admin });
    expect(me).toMatchObject({ status: 200, body: { login: 'root', is_admin: true } });
    const [event] = await waitFor('cairn.user.created', () => {
      const found = eventsFor('cairn.user.created', (b) => (b.user as { login?: string })?.login === 'root');
      return found.length > 0 ? found : undefined;
    });
    expect(event.id).toBe((event.body.meta as { eventId: string }).eventId);
  });

  it('accepts a token in every form Gitea does, and refuses bad credentials everywhere', async () => {
    const created = await api.request<{ sha1: string; token_last_eight: string; scopes: string[] }>('POST', '/api/v1/users/root/tokens', {
      headers: admin,
      body: { name: 'everything', scopes: ['all'] },
    });
    expect(created.status).toBe(201);
    const token = created.body.sha1;
    expect(token).toMatch(/^[0-9a-f]{40}$/);
    expect(created.body.token_last_eight).toBe(token.slice(-8));

    const forms: Array<[string, RequestInit['headers'] | undefined, string]> = [
      ['token header', { authorization: `token ${token}` }, '/api/v1/user'],
      ['bearer header', { authorization: `Bearer ${token}` }, '/api/v1/user'],
      ['basic user:token', basicAuth('root', token), '/api/v1/user'],
      ['basic token:', basicAuth(token, ''), '/api/v1/user'],
      ['?token=', undefined, `/api/v1/user?token=${token}`],
      ['?access_token=', undefined, `/api/v1/user?access_token=${token}`],
    ];
    for (const [form, headers, path] of forms) {
      const response = await api.request<{ login: string }>('GET', path, { headers: headers as Record<string, string> });
      expect([form, response.status, response.body.login]).toEqual([form, 200, 'root']);
    }
    expect((await api.request('GET', `/api/v1/user?token=${token}`)).headers.get('x-gitea-warning')).toBeTruthy();

    for (const headers of [{ authorization: 'token 0000000000000000000000000000000000000000' }, basicAuth('root', 'wrong')]) {
      const refused = await api.request('GET', '/api/v1/version', { headers });
      expect(refused).toMatchObject({ status: 401, body: { message: 'invalid username, password or token' } });
    }
    expect((await api.request('GET', '/api/v1/user')).status).toBe(401);
  });

  it('creates, edits and deletes users as an administrator', async () => {
    const created = await api.request<{ id: number; login: string; restricted: boolean }>('POST', '/api/v1/admin/users', {
      headers: admin,
      body: { username: 'bob', email: 'bob@example.com', password: 'bob-pass-123', must_change_password: false },
    });
    expect(created).toMatchObject({ status: 201, body: { login: 'bob', restricted: false } });
    expect((await api.request('GET', '/api/v1/user', { headers: basicAuth('bob', 'bob-pass-123') })).status).toBe(200);

    const duplicate = await api.request('POST', '/api/v1/admin/users', {
      headers: admin,
      body: { username: 'BOB', email: 'other@example.com', password: 'bob-pass-123' },
    });
    expect(duplicate).toMatchObject({ status: 422, body: { message: 'user already exists [name: BOB]' } });
    expect((await api.request('POST', '/api/v1/admin/users', { headers: basicAuth('bob', 'bob-pass-123'), body: { username: 'x', email: 'x@example.com', password: 'x-pass-123' } })).status).toBe(403);

    const edited = await api.request<{ restricted: boolean; full_name: string }>('PATCH', '/api/v1/admin/users/bob', {
      headers: admin,
      body: { login_name: 'bob', source_id: 0, restricted: true, full_name: 'Bob B' },
    });
    expect(edited).toMatchObject({ status: 200, body: { restricted: true, full_name: 'Bob B' } });
    expect((await api.request<{ restricted: boolean }>('GET', '/api/v1/users/bob')).body.restricted).toBe(true);
    await waitFor('cairn.user.updated', () =>
      eventsFor('cairn.user.updated', (b) => (b.user as { id?: string | number })?.id === created.body.id && (b.changed as string[]).includes('restricted'))[0],
    );

    expect((await api.request('DELETE', '/api/v1/admin/users/bob', { headers: admin })).status).toBe(204);
    expect((await api.request('GET', '/api/v1/users/bob')).status).toBe(404);
    expect((await api.request('GET', '/api/v1/user', { headers: basicAuth('bob', 'bob-pass-123') })).status).toBe(401);
    await waitFor('cairn.user.deleted', () => eventsFor('cairn.user.deleted', (b) => b.login === 'bob')[0]);
  });

  it('enforces token scopes and forgets a deleted token at once', async () => {
    const readOnly = await api.request<{ id: number; sha1: string }>('POST', '/api/v1/users/root/tokens', {
      headers: admin,
      body: { name: 'read-admin', scopes: ['read:admin', 'read:user'] },
    });
    const headers = { authorization: `token ${readOnly.body.sha1}` };
    expect((await api.request('GET', '/api/v1/user', { headers })).status).toBe(200);
    const refused = await api.request('POST', '/api/v1/admin/users', {
      headers,
      body: { username: 'carl', email: 'carl@example.com', password: 'carl-pass-123' },
    });
    expect(refused).toMatchObject({
      status: 403,
      body: { message: 'token does not have at least one of required scope(s), required=[write:admin], token scope=read:admin,read:user' },
    });

    const list = await api.request<Array<{ name: string }>>('GET', '/api/v1/users/root/tokens?limit=1', { headers: admin });
    expect(list.body).toHaveLength(1);
    expect(list.headers.get('x-total-count')).toBe('2');
    expect(list.headers.get('link')).toContain('rel="next"');

    expect((await api.request('DELETE', `/api/v1/users/root/tokens/${readOnly.body.id}`, { headers: admin })).status).toBe(204);
    expect((await api.request('GET', '/api/v1/user', { headers })).status).toBe(401);
    const tokenEvent = await waitFor('cairn.access_token.deleted', () =>
      eventsFor('cairn.access_token.deleted', (b) => Number(b.tokenId) === readOnly.body.id)[0],
    );
    expect(JSON.stringify(tokenEvent.body)).not.toContain(readOnly.body.sha1);
  });

  it('answers bad input with a 4xx JSON error and changes nothing', async () => {
    const malformed = await api.request('POST', '/api/v1/admin/users', { headers: admin, body: '{"username": ' });
    expect(malformed.status).toBe(400);
    const wrongType = await api.request('POST', '/api/v1/admin/users', { headers: admin, body: { username: 42, email: 'n@example.com' } });
    expect(wrongType.status).toBe(422);
    const injection = await api.request('POST', '/api/v1/admin/users', {
      headers: admin,
      body: { username: "x'; DROP TABLE users; --", email: 'i@example.com', password: 'inject-pass-1' },
    });
    expect(injection.status).toBe(422);
    // The gateway answers 413 as soon as the limit is passed and closes the connection, so a client still
    // sending may see the connection reset before it reads the answer: either way the body is refused.
    const huge = await api
      .request('POST', '/api/v1/admin/users', { headers: admin, body: { username: 'big', email: 'b@example.com', password: 'x'.repeat(11 * 1024 * 1024) } })
      .then((response) => response.status)
      .catch((error: Error) => (/EPIPE|ECONNRESET|other side closed/.test(String((error.cause as Error | undefined)?.message ?? error.message)) ? 413 : error));
    expect(huge).toBe(413);
    const traversal = await api.request('GET', '/api/v1/users/..%2F..%2Fetc%2Fpasswd');
    expect(traversal.status).toBe(404);
    const unknown = await api.request('GET', '/api/v1/no/such/route');
    expect(unknown).toMatchObject({ status: 404, body: { message: expect.any(String) } });
    // Nothing of the above was created.
    expect((await api.request('GET', '/api/v1/users/big')).status).toBe(404);
    expect((await api.request('GET', '/api/v1/user', { headers: admin })).status).toBe(200);
  });
});
