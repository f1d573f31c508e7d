/**
 * Deleting owners of repositories end to end, on the built supervisor in its single-process mode (where accounts and
 * repos call each other): as Gitea, `DELETE /admin/users/{username}` refuses a user who owns repositories with 422
 * until `?purge=true`, which deletes the user's repositories (and those of the organizations they alone own) first;
 * `DELETE /orgs/{org}` refuses an organization with repositories (Gitea: 500, Cairn: 422). Nothing is deleted by a
 * refusal.
 */
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { apiClient, type ApiClient, type ApiResponse } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, type Instance } from './support/instance';

jest.setTimeout(180_000);

describe('deleting owners of repositories', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;
  let api: ApiClient;
  const ids: Record<string, number> = {};

  const root = basicAuth('root', 'root-pass-123');
  const password = 'user-pass-123';
  const olive = basicAuth('olive', password);

  function call<T = unknown>(method: string, path: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> {
    return api.request<T>(method, `/api/v1${path}`, { headers, body });
  }

  const status = async (method: string, path: string, headers: Record<string, string> = root) => (await call(method, path, headers)).status;

  beforeAll(async () => {
    database = await createTestDatabase('e2e_owner_delete');
    workDir = makeWorkDir();
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0' });
    instance = await startInstance(workDir, env);
    expect(instance.runtime.mode).toBe('single-process');
    api = apiClient(instance.httpUrl);
    expect((await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com', '--admin'], env)).code).toBe(0);
    for (const username of ['olive', 'peter']) {
      const made = await call<{ id: number }>('POST', '/admin/users', root, { username, email: `${username}@example.com`, password, must_change_password: false });
      expect(made.status).toBe(201);
      ids[username] = made.body.id;
    }
    expect((await call('POST', '/user/repos', olive, { name: 'keep', auto_init: true })).status).toBe(201);
    for (const org of ['olive-org', 'olive-solo', 'olive-shared']) {
      const made = await call<{ id: number }>('POST', '/orgs', olive, { username: org });
      expect(made.status).toBe(201);
      ids[org] = made.body.id;
      expect((await call('POST', `/orgs/${org}/repos`, olive, { name: 'site', auto_init: true })).status).toBe(201);
    }
    // peter co-owns olive-shared, which therefore outlives olive.
    const owners = await call<Array<{ id: number; name: string }>>('GET', '/orgs/olive-shared/teams', olive);
    const ownersTeam = owners.body.find((team) => team.name === 'Owners');
    expect((await call('PUT', `/teams/${ownersTeam?.id}/members/peter`, olive)).status).toBe(204);
  });

  afterAll(async () => {
    if (workDir !== undefined) await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
  });

  it("refuses to delete a user who owns repositories with 422 and Gitea's message, deleting nothing", async () => {
    const refused = await call('DELETE', '/admin/users/olive', root);
    expect(refused).toMatchObject({ status: 422, body: { message: `user still has ownership of repositories [uid: ${ids.olive}]` } });
    expect(await status('GET', '/users/olive')).toBe(200);
    expect(await status('GET', '/repos/olive/keep')).toBe(200);
    expect(await status('GET', '/repos/olive/keep/contents/README.md')).toBe(200);
  });

  it('refuses to delete an organization that owns repositories with 422, and deletes it once they are gone', async () => {
    const refused = await call('DELETE', '/orgs/olive-org', olive);
    expect(refused).toMatchObject({ status: 422, body: { message: `user still has ownership of repositories [uid: ${ids['olive-org']}]` } });
    expect(await status('GET', '/orgs/olive-org')).toBe(200);
    expect(await status('GET', '/repos/olive-org/site')).toBe(200);

    expect(await status('DELETE', '/repos/olive-org/site', olive)).toBe(204);
    expect(await status('DELETE', '/orgs/olive-org', olive)).toBe(204);
    expect(await status('GET', '/orgs/olive-org')).toBe(404);
  });

  it('with purge, deletes the repositories of the user and of the organizations they alone own, then the user', async () => {
    expect(await status('DELETE', '/admin/users/olive?purge=true')).toBe(204);
    expect(await status('GET', '/users/olive')).toBe(404);
    expect(await status('GET', '/repos/olive/keep')).toBe(404);
    expect(await status('GET', '/orgs/olive-solo')).toBe(404);
    expect(await status('GET', '/repos/olive-solo/site')).toBe(404);
    // An organization with another owner stays, with its repositories.
    expect(await status('GET', '/orgs/olive-shared')).toBe(200);
    expect(await status('GET', '/repos/olive-shared/site/contents/README.md')).toBe(200);
    // The name is free again, and a new repository there starts from nothing.
    const again = await call('POST', '/admin/users', root, { username: 'olive', email: 'olive@example.com', password, must_change_password: false });
    expect(again.status).toBe(201);
    const fresh = await call<{ empty: boolean }>('POST', '/user/repos', olive, { name: 'keep' });
    expect(fresh).toMatchObject({ status: 201, body: { empty: true } });
  });
});
