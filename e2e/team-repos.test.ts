/**
 * A team's repositories end to end (`/teams/{id}/repos…`): the built supervisor on PostgreSQL, driven over HTTP
 * through the validating client. accounts decides who may see the team, repos holds the links and decides
 * repository access — which follows at once from a link (repos asks accounts for the user's teams).
 */
import { createTestDatabase } from '@cairn/testing';
import { apiClient, type ApiClient, type ApiResponse } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, type Instance } from './support/instance';

jest.setTimeout(180_000);

interface ApiRepo {
  id: number;
  full_name: string;
  permissions: { admin: boolean; push: boolean; pull: boolean };
}
interface ApiTeam {
  id: number;
}

const PASSWORD = 'team-pass-123';
const as = (name: string) => basicAuth(name, PASSWORD);

describe('team repositories through the gateway', () => {
  let api: ApiClient;
  let stop: () => Promise<void>;
  let devs: number;

  const call = <T = unknown>(method: string, path: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> =>
    api.request<T>(method, `/api/v1${path}`, { headers, body });

  beforeAll(async () => {
    const database = await createTestDatabase('e2e_team_repos');
    const workDir = makeWorkDir();
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0' });
    let instance: Instance | undefined;
    try {
      instance = await startInstance(workDir, env);
      const created = await runCli(['admin', 'user', 'create', '--username', 'root', '--password', PASSWORD, '--email', 'root@example.com', '--admin'], env);
      expect(created.code).toBe(0);
    } catch (error) {
      await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
      await database.drop();
      throw error;
    }
    const running = instance;
    stop = async () => {
      await cleanUpWorkDir(workDir, [running]);
      await database.drop();
    };
    api = apiClient(running.httpUrl);
    for (const username of ['alice', 'tom', 'carol', 'dave']) {
      const made = await call('POST', '/admin/users', as('root'), { username, email: `${username}@example.com`, password: PASSWORD, must_change_password: false });
      expect(made.status).toBe(201);
    }
    expect((await call('POST', '/orgs', as('alice'), { username: 'acme', email: 'acme@example.com', visibility: 'public' })).status).toBe(201);
    const team = await call<ApiTeam>('POST', '/orgs/acme/teams', as('alice'), { name: 'devs', units_map: { 'repo.code': 'write', 'repo.issues': 'read' } });
    expect(team.status).toBe(201);
    devs = team.body.id;
    expect((await call('PUT', `/teams/${devs}/members/tom`, as('alice'))).status).toBe(204);
    const other = await call<ApiTeam>('POST', '/orgs/acme/teams', as('alice'), { name: 'other', units_map: { 'repo.code': 'read' } });
    expect((await call('PUT', `/teams/${other.body.id}/members/carol`, as('alice'))).status).toBe(204);
    for (const name of ['secret', 'plain']) {
      expect((await call('POST', '/orgs/acme/repos', as('alice'), { name, private: name === 'secret' })).status).toBe(201);
    }
  });

  afterAll(async () => {
    await stop?.();
  });

  it('links a repository (org owner, 204, again 204), which gives the team its access', async () => {
    expect((await call('GET', '/repos/acme/secret', as('tom'))).status).toBe(404);
    const empty = await call<ApiRepo[]>('GET', `/teams/${devs}/repos`, as('tom'));
    expect(empty).toMatchObject({ status: 200, body: [] });
    expect(empty.headers.get('x-total-count')).toBe('0');

    expect((await call('PUT', `/teams/${devs}/repos/acme/secret`, as('alice'))).status).toBe(204);
    expect((await call('PUT', `/teams/${devs}/repos/acme/secret`, as('alice'))).status).toBe(204);
    expect(await call<ApiRepo>('GET', '/repos/acme/secret', as('tom'))).toMatchObject({
      status: 200,
      body: { full_name: 'acme/secret', permissions: { admin: false, push: true, pull: true } },
    });

    const listed = await call<ApiRepo[]>('GET', `/teams/${devs}/repos`, as('tom'));
    expect(listed.status).toBe(200);
    expect(listed.body.map((repo) => repo.full_name)).toEqual(['acme/secret']);
    expect(listed.headers.get('x-total-count')).toBe('1');
    // Gitea ignores the path's organization and looks in the team's.
    expect(await call<ApiRepo>('GET', `/teams/${devs}/repos/acme/secret`, as('tom'))).toMatchObject({ status: 200, body: { full_name: 'acme/secret' } });
    expect(await call('GET', `/teams/${devs}/repos/acme/plain`, as('tom'))).toMatchObject({ status: 404, body: { message: 'not found' } });
    expect((await call('GET', `/teams/${devs}/repos/acme/nothing`, as('tom'))).status).toBe(404);
  });

  it('shows a team’s repositories to its members, owners and admins only', async () => {
    expect(await call('GET', `/teams/${devs}/repos`, as('carol'))).toMatchObject({ status: 403, body: { message: 'Must be a team member' } });
    expect((await call('GET', `/teams/${devs}/repos`, as('dave'))).status).toBe(404);
    expect((await call('GET', `/teams/${devs}/repos`)).status).toBe(401);
    expect((await call<ApiRepo[]>('GET', `/teams/${devs}/repos`, as('root'))).body.map((repo) => repo.full_name)).toEqual(['acme/secret']);
  });

  it('needs admin access to the repository to change the team’s links', async () => {
    expect(await call('PUT', `/teams/${devs}/repos/acme/plain`, as('tom'))).toMatchObject({
      status: 403,
      body: { message: 'Must have admin-level access to the repository' },
    });
    expect((await call('PUT', `/teams/${devs}/repos/acme/plain`, as('carol'))).status).toBe(403);
    expect((await call('DELETE', `/teams/${devs}/repos/acme/secret`, as('tom'))).status).toBe(403);
    expect((await call('PUT', `/teams/${devs}/repos/acme/nothing`, as('alice'))).status).toBe(404);
    expect((await call<ApiRepo[]>('GET', `/teams/${devs}/repos`, as('tom'))).body).toHaveLength(1);
  });

  it('unlinks (204, again 204), which takes the access away', async () => {
    expect((await call('DELETE', `/teams/${devs}/repos/acme/secret`, as('alice'))).status).toBe(204);
    expect((await call('DELETE', `/teams/${devs}/repos/acme/secret`, as('alice'))).status).toBe(204);
    expect((await call('GET', '/repos/acme/secret', as('tom'))).status).toBe(404);
    const listed = await call<ApiRepo[]>('GET', `/teams/${devs}/repos`, as('tom'));
    expect(listed).toMatchObject({ status: 200, body: [] });
  });
});
