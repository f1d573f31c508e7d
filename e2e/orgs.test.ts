/**
 * Organizations and teams end to end: the built supervisor on PostgreSQL, driven over HTTP through the
 * validating client (every body checked against Gitea's description). The visibility matrix — anonymous, plain
 * user, restricted user, organization member (owner), team member and site admin against a public, a limited
 * and a private organization — for lookup, lists, counts, a user's organizations and the member lists; then
 * teams, the Owners invariants, renames and bad input.
 */
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { apiClient, type ApiClient } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, type Instance } from './support/instance';

jest.setTimeout(120_000);

interface ApiOrg {
  id: number;
  name: string;
  email: string;
  visibility: string;
}
interface ApiTeam {
  id: number;
  name: string;
  description: string;
  permission: string;
  units: string[];
  units_map: Record<string, string>;
  includes_all_repositories: boolean;
  can_create_org_repo: boolean;
  organization: ApiOrg;
}

const ORGS = ['pub-org', 'lim-org', 'priv-org'] as const;
const VISIBILITY: Record<(typeof ORGS)[number], string> = { 'pub-org': 'public', 'lim-org': 'limited', 'priv-org': 'private' };
const ALL_UNITS = ['repo.code', 'repo.issues', 'repo.pulls', 'repo.releases', 'repo.wiki', 'repo.ext_wiki', 'repo.ext_issues', 'repo.projects', 'repo.packages', 'repo.actions'];

describe('organizations and teams through the gateway', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;
  let api: ApiClient;

  const root = basicAuth('root', 'root-pass-123');
  const password = 'user-pass-123';
  const as = (name: string) => basicAuth(name, password);

  /** Who asks, by matrix row: no header for anonymous. */
  const VIEWERS: Record<string, Record<string, string> | undefined> = {
    anonymous: undefined,
    plain: as('carol'),
    restricted: as('rita'),
    'org member': as('alice'),
    'team member': as('tom'),
    admin: root,
  };

  const teamIds: Record<string, number> = {};

  beforeAll(async () => {
    database = await createTestDatabase('e2e_orgs');
    workDir = makeWorkDir();
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0' });
    instance = await startInstance(workDir, env);
    api = apiClient(instance.httpUrl);
    const created = await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com', '--admin'], env);
    expect(created.code).toBe(0);

    for (const [username, restricted] of [
      ['alice', false],
      ['tom', false],
      ['carol', false],
      ['rita', true],
    ] as const) {
      const made = await api.request('POST', '/api/v1/admin/users', {
        headers: root,
        body: { username, email: `${username}@example.com`, password, must_change_password: false, restricted },
      });
      expect(made.status).toBe(201);
    }

    // alice owns one organization of each visibility; tom is in its "devs" team, with his membership public.
    for (const name of ORGS) {
      const org = await api.request('POST', '/api/v1/orgs', { headers: as('alice'), body: { username: name, email: `${name}@example.com`, visibility: VISIBILITY[name] } });
      expect(org.status).toBe(201);
      const team = await api.request<ApiTeam>('POST', `/api/v1/orgs/${name}/teams`, {
        headers: as('alice'),
        body: { name: 'devs', units_map: { 'repo.code': 'write', 'repo.issues': 'read' } },
      });
      expect(team.status).toBe(201);
      teamIds[name] = team.body.id;
      expect((await api.request('PUT', `/api/v1/teams/${team.body.id}/members/tom`, { headers: as('alice') })).status).toBe(204);
      expect((await api.request('PUT', `/api/v1/orgs/${name}/public_members/tom`, { headers: as('tom') })).status).toBe(204);
    }
  });

  afterAll(async () => {
    await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
  });

  // Visible organizations per viewer: [public, limited, private].
  const SEES: Record<string, [boolean, boolean, boolean]> = {
    anonymous: [true, false, false],
    plain: [true, true, false],
    restricted: [false, false, false],
    'org member': [true, true, true],
    'team member': [true, true, true],
    admin: [true, true, true],
  };
  const visibleOrgs = (viewer: string) => ORGS.filter((_, i) => SEES[viewer][i]);

  describe('visibility matrix', () => {
    it.each(Object.keys(VIEWERS))('GET /orgs/{org} for %s', async (viewer) => {
      for (const name of ORGS) {
        const res = await api.request<ApiOrg>('GET', `/api/v1/orgs/${name}`, { headers: VIEWERS[viewer] });
        const expected = visibleOrgs(viewer).includes(name) ? 200 : 404;
        expect([name, res.status]).toEqual([name, expected]);
        if (res.status === 200) {
          expect(res.body).toMatchObject({ name, visibility: VISIBILITY[name] });
          // The e-mail is for signed-in callers only.
          expect(res.body.email).toBe(viewer === 'anonymous' ? '' : `${name}@example.com`);
        }
      }
    });

    it.each(Object.keys(VIEWERS))('GET /orgs and X-Total-Count for %s', async (viewer) => {
      const all = await api.request<ApiOrg[]>('GET', '/api/v1/orgs?limit=50', { headers: VIEWERS[viewer] });
      expect(all.status).toBe(200);
      expect(all.body.map((org) => org.name).sort()).toEqual([...visibleOrgs(viewer)].sort());
      expect(all.headers.get('x-total-count')).toBe(String(all.body.length));
      if (viewer === 'anonymous') {
        expect(all.body.length).toBeGreaterThan(0);
        expect(all.body.every((org) => org.email === '')).toBe(true);
      }
      // Page by page, the count stays the count of what may be seen.
      const first = await api.request<ApiOrg[]>('GET', '/api/v1/orgs?limit=1&page=1', { headers: VIEWERS[viewer] });
      expect(first.headers.get('x-total-count')).toBe(String(all.body.length));
      expect(first.body.length).toBe(Math.min(1, all.body.length));
    });

    // tom's public memberships, as each viewer may see them: never a private organization to others, and a
    // restricted viewer only organizations they belong to.
    const TOMS_ORGS: Record<string, string[] | 401> = {
      anonymous: 401,
      plain: ['lim-org', 'pub-org'],
      restricted: [],
      'org member': ['lim-org', 'pub-org'],
      'team member': ['lim-org', 'priv-org', 'pub-org'],
      admin: ['lim-org', 'priv-org', 'pub-org'],
    };
    it.each(Object.keys(VIEWERS))('GET /users/tom/orgs for %s', async (viewer) => {
      const res = await api.request<ApiOrg[]>('GET', '/api/v1/users/tom/orgs', { headers: VIEWERS[viewer] });
      const expected = TOMS_ORGS[viewer];
      if (expected === 401) {
        expect(res.status).toBe(401);
        return;
      }
      expect(res.status).toBe(200);
      expect(res.body.map((org) => org.name)).toEqual(expected);
      expect(res.headers.get('x-total-count')).toBe(String(expected.length));
    });

    it('GET /user/orgs lists all of the caller\'s organizations', async () => {
      const mine = await api.request<ApiOrg[]>('GET', '/api/v1/user/orgs', { headers: as('tom') });
      expect(mine.body.map((org) => org.name)).toEqual(['lim-org', 'priv-org', 'pub-org']);
      expect((await api.request<ApiOrg[]>('GET', '/api/v1/user/orgs', { headers: as('carol') })).body).toEqual([]);
      expect((await api.request('GET', '/api/v1/user/orgs')).status).toBe(401);
    });

    it.each(Object.keys(VIEWERS))('members and public members for %s', async (viewer) => {
      const headers = VIEWERS[viewer];
      const member = viewer === 'org member' || viewer === 'team member' || viewer === 'admin';
      for (const name of ORGS) {
        const visible = visibleOrgs(viewer).includes(name);
        const members = await api.request<Array<{ login: string; email: string }>>('GET', `/api/v1/orgs/${name}/members`, { headers });
        if (viewer === 'anonymous') expect(members.status).toBe(401);
        else if (!visible) expect([name, members.status]).toEqual([name, 404]);
        else {
          // alice's membership is concealed (the default): only members see it.
          expect([name, members.body.map((user) => user.login)]).toEqual([name, member ? ['alice', 'tom'] : ['tom']]);
          expect(members.headers.get('x-total-count')).toBe(String(members.body.length));
        }
        const publicMembers = await api.request<Array<{ login: string; email: string }>>('GET', `/api/v1/orgs/${name}/public_members`, { headers });
        if (!visible) expect([name, publicMembers.status]).toEqual([name, 404]);
        else {
          expect([name, publicMembers.body.map((user) => user.login)]).toEqual([name, ['tom']]);
          expect(publicMembers.headers.get('x-total-count')).toBe('1');
          if (viewer === 'anonymous') expect(publicMembers.body[0].email).toMatch(/^\d+\+tom@noreply\./);
        }
      }
    });

    it('answers membership checks as Gitea does', async () => {
      expect((await api.request('GET', '/api/v1/orgs/lim-org/members/alice', { headers: as('tom') })).status).toBe(204);
      expect((await api.request('GET', '/api/v1/orgs/lim-org/members/carol', { headers: as('tom') })).status).toBe(404);
      const redirected = await api.request('GET', '/api/v1/orgs/lim-org/members/alice', { headers: as('carol') });
      expect(redirected.status).toBe(303);
      expect(redirected.headers.get('location')).toBe('/api/v1/orgs/lim-org/public_members/alice');
      expect((await api.request('GET', '/api/v1/orgs/lim-org/members/carol', { headers: as('carol') })).status).toBe(404);
      expect((await api.request('GET', '/api/v1/orgs/pub-org/public_members/tom')).status).toBe(204);
      expect((await api.request('GET', '/api/v1/orgs/pub-org/public_members/alice')).status).toBe(404);
      expect((await api.request('GET', '/api/v1/orgs/priv-org/public_members/tom')).status).toBe(404);
      const other = await api.request('PUT', '/api/v1/orgs/pub-org/public_members/alice', { headers: as('tom') });
      expect(other).toMatchObject({ status: 403, body: { message: 'Cannot publicize another member' } });
    });

    it("reports a user's permissions in an organization", async () => {
      const owner = await api.request('GET', '/api/v1/users/alice/orgs/pub-org/permissions', { headers: as('carol') });
      expect(owner.body).toEqual({ is_owner: true, is_admin: true, can_write: true, can_read: true, can_create_repository: true });
      const hidden = await api.request('GET', '/api/v1/users/alice/orgs/priv-org/permissions', { headers: as('carol') });
      expect(hidden.status).toBe(404);
    });
  });

  describe('teams', () => {
    it('reports units_map and permission as Gitea, and shows teams to members only', async () => {
      const devs = await api.request<ApiTeam>('GET', `/api/v1/teams/${teamIds['lim-org']}`, { headers: as('tom') });
      expect(devs.body).toMatchObject({
        name: 'devs',
        permission: 'none',
        units: ['repo.code', 'repo.issues'],
        units_map: { 'repo.code': 'write', 'repo.issues': 'read' },
        includes_all_repositories: false,
        can_create_org_repo: false,
        organization: { name: 'lim-org' },
      });
      const listed = await api.request<ApiTeam[]>('GET', '/api/v1/orgs/lim-org/teams', { headers: as('tom') });
      expect(listed.body.map((team) => team.name)).toEqual(['devs', 'Owners']);
      expect(listed.headers.get('x-total-count')).toBe('2');
      const owners = listed.body.find((team) => team.name === 'Owners')!;
      expect(owners).toMatchObject({ permission: 'owner', units: ALL_UNITS, includes_all_repositories: true, can_create_org_repo: true });
      expect(Object.values(owners.units_map)).toEqual(ALL_UNITS.map(() => 'owner'));

      expect(await api.request('GET', `/api/v1/teams/${owners.id}`, { headers: as('tom') })).toMatchObject({ status: 403, body: { message: 'Must be a team member' } });
      expect((await api.request('GET', '/api/v1/orgs/pub-org/teams', { headers: as('carol') })).status).toBe(403);
      expect((await api.request('GET', '/api/v1/orgs/priv-org/teams', { headers: as('carol') })).status).toBe(404);
      expect((await api.request('GET', `/api/v1/teams/${teamIds['pub-org']}`, { headers: as('carol') })).status).toBe(404);
      expect((await api.request('GET', `/api/v1/teams/${teamIds['pub-org']}`)).status).toBe(401);

      const search = await api.request<{ ok: boolean; data: ApiTeam[] }>('GET', '/api/v1/orgs/lim-org/teams/search?q=DEV', { headers: root });
      expect(search.body.ok).toBe(true);
      expect(search.body.data.map((team) => team.name)).toEqual(['devs']);
      expect(search.headers.get('x-total-count')).toBe('1');
    });

    it('creates an admin team, edits only the supplied fields and deletes it', async () => {
      const created = await api.request<ApiTeam>('POST', '/api/v1/orgs/pub-org/teams', {
        headers: as('alice'),
        body: { name: 'admins', description: 'The admins', permission: 'admin', can_create_org_repo: true },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ permission: 'admin', units: ALL_UNITS, description: 'The admins', can_create_org_repo: true });
      expect(Object.values(created.body.units_map)).toEqual(ALL_UNITS.map(() => 'admin'));
      const id = created.body.id;

      const renamed = await api.request<ApiTeam>('PATCH', `/api/v1/teams/${id}`, { headers: as('alice'), body: { name: 'chiefs' } });
      expect(renamed.body).toMatchObject({ name: 'chiefs', description: 'The admins', permission: 'admin', can_create_org_repo: true });
      const demoted = await api.request<ApiTeam>('PATCH', `/api/v1/teams/${id}`, {
        headers: as('alice'),
        body: { permission: 'write', units_map: { 'repo.wiki': 'write' }, includes_all_repositories: true },
      });
      expect(demoted.body).toMatchObject({
        name: 'chiefs',
        description: 'The admins',
        permission: 'none',
        units: ['repo.wiki'],
        units_map: { 'repo.wiki': 'write' },
        includes_all_repositories: true,
      });
      const described = await api.request<ApiTeam>('PATCH', `/api/v1/teams/${id}`, { headers: as('alice'), body: { description: '' } });
      expect(described.body).toMatchObject({ name: 'chiefs', description: '', units_map: { 'repo.wiki': 'write' } });

      expect((await api.request('PATCH', `/api/v1/teams/${id}`, { headers: as('tom'), body: { description: 'x' } })).status).toBe(403);
      expect((await api.request('DELETE', `/api/v1/teams/${id}`, { headers: as('alice') })).status).toBe(204);
      expect((await api.request('GET', `/api/v1/teams/${id}`, { headers: as('alice') })).status).toBe(404);
    });

    it('refuses bad teams', async () => {
      const create = (body: unknown) => api.request('POST', '/api/v1/orgs/pub-org/teams', { headers: as('alice'), body });
      expect(await create({})).toMatchObject({ status: 422, body: { message: '[Name]: Required' } });
      expect(await create({ name: 'no spaces', units: ['repo.code'] })).toMatchObject({ status: 422, body: { message: '[Name]: AlphaDashDot' } });
      expect(await create({ name: 'DEVS', units: ['repo.code'] })).toMatchObject({ status: 422, body: { message: expect.stringMatching(/^team already exists/) } });
      expect(await create({ name: 'empty', permission: 'read' })).toMatchObject({ status: 422, body: { message: 'units permission should not be empty' } });
      expect((await api.request('POST', '/api/v1/orgs/pub-org/teams', { headers: as('tom'), body: { name: 'x', units: ['repo.code'] } })).status).toBe(403);
    });

    it('never lets the Owners team lose its last member, nor be deleted', async () => {
      const teams = await api.request<ApiTeam[]>('GET', '/api/v1/orgs/pub-org/teams', { headers: as('alice') });
      const owners = teams.body.find((team) => team.name === 'Owners')!;
      const last = await api.request('DELETE', `/api/v1/teams/${owners.id}/members/alice`, { headers: as('alice') });
      expect(last).toMatchObject({ status: 422, body: { message: expect.stringMatching(/^user is the last member of owner team \[uid: \d+\]$/) } });
      expect((await api.request('DELETE', '/api/v1/orgs/pub-org/members/alice', { headers: as('alice') })).status).toBe(422);
      expect(await api.request('DELETE', `/api/v1/teams/${owners.id}`, { headers: as('alice') })).toMatchObject({
        status: 422,
        body: { message: 'the Owners team cannot be deleted' },
      });

      // With a second owner, the first may go; removing tom's last team takes him out of the organization.
      expect((await api.request('PUT', `/api/v1/teams/${owners.id}/members/carol`, { headers: as('alice') })).status).toBe(204);
      expect((await api.request('DELETE', `/api/v1/teams/${owners.id}/members/alice`, { headers: as('carol') })).status).toBe(204);
      expect((await api.request('DELETE', `/api/v1/teams/${teamIds['pub-org']}/members/tom`, { headers: as('carol') })).status).toBe(204);
      const members = await api.request<Array<{ login: string }>>('GET', '/api/v1/orgs/pub-org/members', { headers: as('carol') });
      expect(members.body.map((user) => user.login)).toEqual(['carol']);
      expect((await api.request<ApiTeam[]>('GET', `/api/v1/teams/${owners.id}/members`, { headers: as('carol') })).body).toHaveLength(1);
    });

    it('lists no repositories for a team without any, and 404 for a repository the organization lacks', async () => {
      const listed = await api.request('GET', `/api/v1/teams/${teamIds['lim-org']}/repos`, { headers: as('alice') });
      expect(listed).toMatchObject({ status: 200, body: [] });
      expect((await api.request('PUT', `/api/v1/teams/${teamIds['lim-org']}/repos/lim-org/code`, { headers: as('alice') })).status).toBe(404);
    });
  });

  describe('renames and bad input', () => {
    it('redirects an old organization name with 307', async () => {
      await api.request('POST', '/api/v1/orgs', { headers: as('carol'), body: { username: 'oldco' } });
      expect((await api.request('POST', '/api/v1/orgs/oldco/rename', { headers: as('carol'), body: { new_name: 'newco' } })).status).toBe(204);
      const moved = await api.request('GET', '/api/v1/orgs/oldco/members?limit=5', { headers: as('carol') });
      expect(moved.status).toBe(307);
      expect(moved.headers.get('location')).toBe('/api/v1/orgs/newco/members?limit=5');
      expect((await api.request<ApiOrg>('GET', '/api/v1/orgs/newco')).body.name).toBe('newco');
      expect(await api.request('POST', '/api/v1/orgs/newco/rename', { headers: as('carol'), body: { new_name: 'Tom' } })).toMatchObject({
        status: 422,
        body: { message: 'user already exists [name: Tom]' },
      });
    });

    it("answers bad organizations with Gitea's 4xx and message", async () => {
      const create = (body: unknown) => api.request('POST', '/api/v1/orgs', { headers: as('carol'), body });
      const cases: Array<[unknown, number, string]> = [
        [{ username: 'fine', visibility: 'secret' }, 422, '[Visibility]: In'],
        [{ username: '' }, 422, '[UserName]: Required'],
        [{}, 422, '[UserName]: Required'],
        [{ username: 'bad name' }, 422, '[UserName]: invalid username'],
        [{ username: 'api' }, 422, 'name is reserved [name: api]'],
        [{ username: 'assets' }, 422, 'name is reserved [name: assets]'],
        [{ username: 'admin' }, 422, 'name is reserved [name: admin]'],
        [{ username: 'PUB-ORG' }, 422, 'user already exists [name: PUB-ORG]'],
        [{ username: 'Tom' }, 422, 'user already exists [name: Tom]'],
      ];
      for (const [body, status, message] of cases) {
        const res = await create(body);
        expect({ body, status: res.status, message: (res.body as { message?: string }).message }).toEqual({ body, status, message });
      }
      const edit = await api.request('PATCH', '/api/v1/orgs/lim-org', { headers: as('alice'), body: { visibility: 'hidden' } });
      expect(edit).toMatchObject({ status: 422, body: { message: '[Visibility]: In' } });
      expect((await api.request('POST', '/api/v1/orgs', { body: { username: 'anon' } })).status).toBe(401);
    });

    it('lets admins list every organization and change one', async () => {
      const all = await api.request<ApiOrg[]>('GET', '/api/v1/admin/orgs?limit=50', { headers: root });
      expect(all.body.map((org) => org.name)).toEqual(expect.arrayContaining([...ORGS, 'newco']));
      expect((await api.request('GET', '/api/v1/admin/orgs', { headers: as('alice') })).status).toBe(403);
      const edited = await api.request<ApiOrg>('PATCH', '/api/v1/orgs/priv-org', { headers: root, body: { location: 'Mars' } });
      expect(edited.body).toMatchObject({ visibility: 'private', name: 'priv-org' });
      expect((await api.request('PATCH', '/api/v1/orgs/lim-org', { headers: as('tom'), body: { location: 'x' } })).status).toBe(403);
      const made = await api.request<ApiOrg>('POST', '/api/v1/admin/users/rita/orgs', { headers: root, body: { username: 'ritas', visibility: 'private' } });
      expect(made.status).toBe(201);
      expect((await api.request<ApiOrg>('GET', '/api/v1/orgs/ritas', { headers: as('rita') })).status).toBe(200);
      expect((await api.request('DELETE', '/api/v1/orgs/ritas', { headers: as('rita') })).status).toBe(204);
      expect((await api.request('GET', '/api/v1/orgs/ritas', { headers: root })).status).toBe(404);
    });
  });
});
