/**
 * Webhook definitions through the real gateway (Gitea's routers/api/v1/utils/hook.go): create, list, get, edit and
 * delete on the four scopes (repository, organization, user, admin system/default), each with Gitea's guards
 * (repository admins, organization owners, the user with a token that is not public-only, site admins), the
 * validation 422s, the defaults (inactive, events ["push"]), the secret never answered, another scope's hook id
 * answered 404, and every hook route answering 403 under `[security] DISABLE_WEB_HOOKS`.
 */
import type { ApiResponse } from './support/client';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(180_000);

interface ApiHook {
  id: number;
  type: string;
  name: string;
  branch_filter: string;
  config: Record<string, string>;
  events: string[];
  authorization_header: string;
  active: boolean;
  created_at: string;
  updated_at: string;
}

const CONFIG = { url: 'https://hooks.example.com/in', content_type: 'json', secret: 'sekrit' };

describe('webhook definitions', () => {
  let fixture: Fixture;

  function call<T = unknown>(method: string, apiPath: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> {
    return fixture.api.request<T>(method, `/api/v1${apiPath}`, { headers, body });
  }

  /** The whole answer with the secret nowhere in it. */
  function expectNoSecret(response: ApiResponse): void {
    expect(JSON.stringify(response.body)).not.toContain('sekrit');
  }

  beforeAll(async () => {
    fixture = await startFixture('e2e_hooks_api', ['alice', 'bob', 'carol']);
    const { as } = fixture;
    expect((await call('POST', '/user/repos', as('alice'), { name: 'app' })).status).toBe(201);
    expect((await call('POST', '/user/repos', as('alice'), { name: 'other' })).status).toBe(201);
    // bob writes to alice/app (not admin); carol is an admin collaborator.
    expect((await call('PUT', '/repos/alice/app/collaborators/bob', as('alice'), { permission: 'write' })).status).toBe(204);
    expect((await call('PUT', '/repos/alice/app/collaborators/carol', as('alice'), { permission: 'admin' })).status).toBe(204);
    // acme: alice owns it, bob is a member of a non-owner team.
    expect((await call('POST', '/orgs', as('alice'), { username: 'acme', visibility: 'public' })).status).toBe(201);
    const team = await call<{ id: number }>('POST', '/orgs/acme/teams', as('alice'), { name: 'devs', units_map: { 'repo.code': 'write' } });
    expect(team.status).toBe(201);
    expect((await call('PUT', `/teams/${team.body.id}/members/bob`, as('alice'))).status).toBe(204);
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  describe('repository hooks', () => {
    const hooks = '/repos/alice/app/hooks';
    let id = 0;

    it('creates a hook with Gitea’s defaults and never answers the secret', async () => {
      const created = await call<ApiHook>('POST', hooks, fixture.as('alice'), { type: 'gitea', config: CONFIG });
      expect(created).toMatchObject({
        status: 201,
        body: { type: 'gitea', active: false, events: ['push'], branch_filter: '', authorization_header: '', config: { url: CONFIG.url, content_type: 'json' } },
      });
      expect(Object.keys(created.body.config).sort()).toEqual(['content_type', 'url']);
      expectNoSecret(created);
      id = created.body.id;

      const listed = await call<ApiHook[]>('GET', hooks, fixture.as('carol'));
      expect(listed.status).toBe(200);
      expect(listed.body.map((hook) => hook.id)).toEqual([id]);
      expect(listed.headers.get('x-total-count')).toBe('1');
      expectNoSecret(listed);

      const got = await call<ApiHook>('GET', `${hooks}/${id}`, fixture.as('alice'));
      expect(got).toMatchObject({ status: 200, body: { id, type: 'gitea' } });
      expectNoSecret(got);
    });

    it('keeps what the body gives: events lower-cased, branch filter, authorization header, name, active', async () => {
      const created = await call<ApiHook>('POST', hooks, fixture.as('alice'), {
        type: 'slack',
        config: { ...CONFIG, channel: ' #dev ', username: 'bot' },
        events: ['Issues', 'PULL_REQUEST', 'issues'],
        branch_filter: '{main,release/*}',
        authorization_header: 'Bearer abc',
        name: 'ci',
        active: true,
      });
      expect(created).toMatchObject({
        status: 201,
        body: {
          type: 'slack',
          name: 'ci',
          active: true,
          events: ['issues', 'pull_request'],
          branch_filter: '{main,release/*}',
          authorization_header: 'Bearer abc',
          config: { url: CONFIG.url, content_type: 'json', channel: '#dev', username: 'bot', icon_url: '', color: '' },
        },
      });
      expect((await call('DELETE', `${hooks}/${created.body.id}`, fixture.as('alice'))).status).toBe(204);
    });

    it('pages the list with Link and X-Total-Count', async () => {
      const second = await call<ApiHook>('POST', hooks, fixture.as('alice'), { type: 'gogs', config: CONFIG });
      expect(second.status).toBe(201);
      const page = await call<ApiHook[]>('GET', `${hooks}?limit=1&page=2`, fixture.as('alice'));
      expect(page.body.map((hook) => hook.id)).toEqual([second.body.id]);
      expect(page.headers.get('x-total-count')).toBe('2');
      expect(page.headers.get('link')).toContain('rel="first"');
      expect((await call('DELETE', `${hooks}/${second.body.id}`, fixture.as('alice'))).status).toBe(204);
    });

    it('refuses what Gitea refuses, with its messages', async () => {
      const post = (body: unknown) => call<{ message: string }>('POST', hooks, fixture.as('alice'), body);
      expect(await post({ type: 'jenkins', config: CONFIG })).toMatchObject({ status: 422, body: { message: 'Invalid hook type: jenkins' } });
      expect(await post({ type: 'gitea', config: { content_type: 'json' } })).toMatchObject({ status: 422, body: { message: 'Missing config option: url' } });
      expect(await post({ type: 'gitea', config: { url: CONFIG.url } })).toMatchObject({ status: 422, body: { message: 'Missing config option: content_type' } });
      expect(await post({ type: 'gitea', config: { url: CONFIG.url, content_type: 'xml' } })).toMatchObject({ status: 422, body: { message: 'Invalid content type' } });
      expect(await post({ type: 'gitea', config: { url: 'not a url', content_type: 'json' } })).toMatchObject({ status: 422, body: { message: 'Invalid url' } });
      expect(await post({ type: 'gitea', config: CONFIG, branch_filter: '[main' })).toMatchObject({ status: 422, body: { message: '[BranchFilter]: GlobPattern' } });
      expect(await post({ type: 'slack', config: CONFIG })).toMatchObject({ status: 422, body: { message: 'Missing config option: channel' } });
      expect(await post({ type: 'slack', config: { ...CONFIG, channel: '#' } })).toMatchObject({ status: 400, body: { message: 'Invalid slack channel name' } });
      expect(await post({ config: CONFIG })).toMatchObject({ status: 422, body: { message: '[Type]: Required' } });
      expect((await call<ApiHook[]>('GET', hooks, fixture.as('alice'))).body.map((hook) => hook.id)).toEqual([id]);
    });

    it('edits only what is given, with the same checks', async () => {
      const edited = await call<ApiHook>('PATCH', `${hooks}/${id}`, fixture.as('alice'), {
        config: { url: 'http://hooks.example.com/new', secret: 'sekrit-too' },
        events: ['Create', 'delete'],
        active: true,
      });
      expect(edited).toMatchObject({ status: 200, body: { id, active: true, events: ['create', 'delete'], config: { url: 'http://hooks.example.com/new', content_type: 'json' } } });
      expectNoSecret(edited);
      const kept = await call<ApiHook>('PATCH', `${hooks}/${id}`, fixture.as('alice'), { branch_filter: 'main' });
      expect(kept).toMatchObject({ status: 200, body: { active: true, events: ['create', 'delete'], branch_filter: 'main' } });
      expect(await call('PATCH', `${hooks}/${id}`, fixture.as('alice'), { config: { content_type: 'yaml' } })).toMatchObject({
        status: 422,
        body: { message: 'Invalid content type' },
      });
      expect(await call('PATCH', `${hooks}/${id}`, fixture.as('alice'), { config: { url: 'ftp://x' } })).toMatchObject({ status: 422, body: { message: 'Invalid url' } });
    });

    it('is for repository admins only (Gitea’s reqAdmin) and signed-in callers', async () => {
      expect((await call('GET', hooks, fixture.as('bob'))).status).toBe(403);
      expect((await call('POST', hooks, fixture.as('bob'), { type: 'gitea', config: CONFIG })).status).toBe(403);
      expect((await call('GET', `${hooks}/${id}`, fixture.as('bob'))).status).toBe(403);
      expect((await call('DELETE', `${hooks}/${id}`, fixture.as('bob'))).status).toBe(403);
      expect((await call('POST', `${hooks}/${id}/tests`, fixture.as('bob'))).status).toBe(403);
      expect((await call('GET', hooks)).status).toBe(401);
      // A repository the caller cannot see is not found.
      expect((await call('POST', '/user/repos', fixture.as('alice'), { name: 'secret', private: true })).status).toBe(201);
      expect((await call('GET', '/repos/alice/secret/hooks', fixture.as('bob'))).status).toBe(404);
    });

    it('answers 404 for another repository’s hook id', async () => {
      const otherHooks = '/repos/alice/other/hooks';
      expect((await call('GET', `${otherHooks}/${id}`, fixture.as('alice'))).status).toBe(404);
      expect((await call('PATCH', `${otherHooks}/${id}`, fixture.as('alice'), { active: false })).status).toBe(404);
      expect((await call('DELETE', `${otherHooks}/${id}`, fixture.as('alice'))).status).toBe(404);
      expect((await call('GET', `/user/hooks/${id}`, fixture.as('alice'))).status).toBe(404);
      expect((await call('GET', `/admin/hooks/${id}`, fixture.root)).status).toBe(404);
      expect((await call('GET', `${hooks}/${id}`, fixture.as('alice'))).status).toBe(200);
    });

    it('deletes a hook (204), then it is gone (404)', async () => {
      expect((await call('DELETE', `${hooks}/${id}`, fixture.as('carol'))).status).toBe(204);
      expect((await call('GET', `${hooks}/${id}`, fixture.as('alice'))).status).toBe(404);
      expect((await call('DELETE', `${hooks}/${id}`, fixture.as('alice'))).status).toBe(404);
    });
  });

  describe('organization hooks', () => {
    const hooks = '/orgs/acme/hooks';

    it('lets owners and site admins manage them; members get 403 `Must be an organization owner`', async () => {
      const created = await call<ApiHook>('POST', hooks, fixture.as('alice'), { type: 'discord', config: CONFIG, events: ['repository'] });
      expect(created).toMatchObject({ status: 201, body: { type: 'discord', events: ['repository'], active: false } });
      expectNoSecret(created);
      const { id } = created.body;
      expect((await call<ApiHook[]>('GET', hooks, fixture.root)).body.map((hook) => hook.id)).toEqual([id]);
      expect(await call('GET', hooks, fixture.as('bob'))).toMatchObject({ status: 403, body: { message: 'Must be an organization owner' } });
      expect((await call('PATCH', `${hooks}/${id}`, fixture.as('bob'), { active: true })).status).toBe(403);
      expect((await call('GET', `/orgs/nosuch/hooks`, fixture.as('alice'))).status).toBe(404);
      expect((await call('GET', `/repos/alice/app/hooks/${id}`, fixture.as('alice'))).status).toBe(404);
      expect(await call('PATCH', `${hooks}/${id}`, fixture.as('alice'), { active: true, name: 'org' })).toMatchObject({ status: 200, body: { active: true, name: 'org' } });
      expect((await call('DELETE', `${hooks}/${id}`, fixture.as('alice'))).status).toBe(204);
      expect((await call('GET', `${hooks}/${id}`, fixture.as('alice'))).status).toBe(404);
    });
  });

  describe('user hooks', () => {
    it('are the signed-in user’s own, not for public-only tokens', async () => {
      const created = await call<ApiHook>('POST', '/user/hooks', fixture.as('bob'), { type: 'msteams', config: CONFIG, active: true });
      expect(created).toMatchObject({ status: 201, body: { type: 'msteams', active: true, events: ['push'] } });
      const { id } = created.body;
      expect((await call<ApiHook[]>('GET', '/user/hooks', fixture.as('bob'))).body.map((hook) => hook.id)).toEqual([id]);
      expect((await call<ApiHook[]>('GET', '/user/hooks', fixture.as('alice'))).body).toEqual([]);
      expect((await call('GET', `/user/hooks/${id}`, fixture.as('alice'))).status).toBe(404);
      expect((await call('DELETE', `/user/hooks/${id}`, fixture.as('alice'))).status).toBe(404);
      expect((await call('GET', '/user/hooks')).status).toBe(401);

      const token = await call<{ sha1: string }>('POST', '/users/bob/tokens', fixture.as('bob'), { name: 'public', scopes: ['public-only', 'write:user'] });
      expect(token.status).toBe(201);
      const publicOnly = { authorization: `token ${token.body.sha1}` };
      expect((await call('GET', '/user/hooks', publicOnly)).status).toBe(403);
      const reader = await call<{ sha1: string }>('POST', '/users/bob/tokens', fixture.as('bob'), { name: 'reader', scopes: ['read:user'] });
      expect((await call('GET', '/user/hooks', { authorization: `token ${reader.body.sha1}` })).status).toBe(200);
      expect((await call('POST', '/user/hooks', { authorization: `token ${reader.body.sha1}` }, { type: 'gitea', config: CONFIG })).status).toBe(403);

      expect(await call('PATCH', `/user/hooks/${id}`, fixture.as('bob'), { events: [] })).toMatchObject({ status: 200, body: { events: ['push'] } });
      expect((await call('DELETE', `/user/hooks/${id}`, fixture.as('bob'))).status).toBe(204);
    });
  });

  describe('system and default hooks', () => {
    it('are for site admins: `is_system_webhook` makes a system hook, else a default one; `?type=` picks the list', async () => {
      const system = await call<ApiHook>('POST', '/admin/hooks', fixture.root, { type: 'gitea', config: { ...CONFIG, is_system_webhook: 'true' } });
      expect(system.status).toBe(201);
      expect(system.body.config).toEqual({ url: CONFIG.url, content_type: 'json' });
      const fallback = await call<ApiHook>('POST', '/admin/hooks', fixture.root, { type: 'packagist', config: { ...CONFIG, username: 'u', api_token: 't' } });
      expect(fallback.status).toBe(201);
      expectNoSecret(fallback);

      const ids = async (query: string) => (await call<ApiHook[]>('GET', `/admin/hooks${query}`, fixture.root)).body.map((hook) => hook.id);
      expect(await ids('')).toEqual([system.body.id]);
      expect(await ids('?type=system')).toEqual([system.body.id]);
      expect(await ids('?type=default')).toEqual([fallback.body.id]);
      expect(await ids('?type=all')).toEqual([system.body.id, fallback.body.id]);

      expect(await call('GET', `/admin/hooks/${fallback.body.id}`, fixture.root)).toMatchObject({ status: 200, body: { type: 'packagist' } });
      expect(await call('PATCH', `/admin/hooks/${system.body.id}`, fixture.root, { active: true })).toMatchObject({ status: 200, body: { active: true } });
      expect((await call('GET', '/admin/hooks', fixture.as('alice'))).status).toBe(403);
      expect((await call('POST', '/admin/hooks', fixture.as('alice'), { type: 'gitea', config: CONFIG })).status).toBe(403);
      expect((await call('GET', `/repos/alice/app/hooks/${system.body.id}`, fixture.as('alice'))).status).toBe(404);
      for (const hook of [system, fallback]) expect((await call('DELETE', `/admin/hooks/${hook.body.id}`, fixture.root)).status).toBe(204);
      expect(await ids('?type=all')).toEqual([]);
    });
  });
});

describe('webhook definitions with [security] DISABLE_WEB_HOOKS', () => {
  let fixture: Fixture;

  function call<T = unknown>(method: string, apiPath: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> {
    return fixture.api.request<T>(method, `/api/v1${apiPath}`, { headers, body });
  }

  beforeAll(async () => {
    fixture = await startFixture('e2e_hooks_api_disabled', ['alice', 'bob'], { CAIRN__security__DISABLE_WEB_HOOKS: 'true' });
    expect((await call('POST', '/user/repos', fixture.as('alice'), { name: 'app' })).status).toBe(201);
    expect((await call('POST', '/orgs', fixture.as('alice'), { username: 'acme', visibility: 'public' })).status).toBe(201);
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  it('answers every hook route 403 `webhooks disabled by administrator`, after the other guards', async () => {
    const disabled = { status: 403, body: { message: 'webhooks disabled by administrator' } };
    const body = { type: 'gitea', config: CONFIG };
    const routes: Array<[string, string, Record<string, string>]> = [
      ['GET', '/repos/alice/app/hooks', fixture.as('alice')],
      ['POST', '/repos/alice/app/hooks', fixture.as('alice')],
      ['GET', '/repos/alice/app/hooks/1', fixture.as('alice')],
      ['PATCH', '/repos/alice/app/hooks/1', fixture.as('alice')],
      ['DELETE', '/repos/alice/app/hooks/1', fixture.as('alice')],
      ['POST', '/repos/alice/app/hooks/1/tests', fixture.as('alice')],
      ['GET', '/orgs/acme/hooks', fixture.as('alice')],
      ['POST', '/orgs/acme/hooks', fixture.as('alice')],
      ['GET', '/orgs/acme/hooks/1', fixture.as('alice')],
      ['GET', '/user/hooks', fixture.as('bob')],
      ['POST', '/user/hooks', fixture.as('bob')],
      ['DELETE', '/user/hooks/1', fixture.as('bob')],
      ['GET', '/admin/hooks', fixture.root],
      ['POST', '/admin/hooks', fixture.root],
      ['PATCH', '/admin/hooks/1', fixture.root],
    ];
    for (const [method, path, headers] of routes) {
      const answer = await call(method, path, headers, method === 'POST' || method === 'PATCH' ? body : undefined);
      expect([method, path, answer.status, answer.body]).toEqual([method, path, disabled.status, expect.objectContaining(disabled.body)]);
    }
    // The guards come first: a repository writer is still told they are not its admin, an anonymous caller to sign in.
    expect((await call<{ message: string }>('GET', '/repos/alice/app/hooks', fixture.as('bob'))).body.message).not.toContain('webhooks');
    expect((await call('GET', '/user/hooks')).status).toBe(401);
  });
});
