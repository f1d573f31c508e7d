/**
 * The organization and team routes over HTTP with accounts faked: what each route sends to accounts (who asks,
 * paging, the body as bound), and how answers and errors become Gitea's JSON, statuses and headers.
 */
import { CairnError } from '@cairn/rpc';
import { IsMemberResponse_Answer, type Organization, type Team } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { expectExactGiteaShape } from './support/gitea-schema';
import { FakeAccounts } from './support/fake-accounts';
import { type TestGateway, basic, jsonBody, startTestGateway, tokenAuth } from './support/harness';

const URL_KEY = 'http://localhost:3000/api/swagger';

function org(id: number, name: string, fields: Partial<Organization> = {}): Organization {
  return {
    id,
    name,
    fullName: '',
    email: `${name}@example.com`,
    description: '',
    website: '',
    location: '',
    visibility: 'public',
    repoAdminChangeTeamAccess: false,
    created: new Date('2024-01-02T03:04:05Z'),
    updated: new Date('2024-01-02T03:04:05Z'),
    ...fields,
  };
}

describe('organization routes', () => {
  const accounts = new FakeAccounts();
  const fakes = accounts.orgFakes;
  const alice = accounts.addUser('alice', { password: 'alice-password' });
  const bob = accounts.addUser('bob');
  const root = accounts.addUser('root', { isAdmin: true, password: 'root-password' });
  const acme = accounts.addUser('acme', { type: 1 });
  const hidden = accounts.addUser('hidden', { type: 1, visibility: 'limited' });
  const ALICE = basic('alice', 'alice-password');
  const ROOT = basic('root', 'root-password');
  const aliceUserToken = tokenAuth(accounts.addToken(alice.id, 'user', ['write:user']).secret);
  const aliceOrgToken = tokenAuth(accounts.addToken(alice.id, 'org', ['read:user', 'write:organization']).secret);
  const aliceViewer = { userId: alice.id, isAdmin: false, isRestricted: false };
  const acmeOrg = org(acme.id, 'acme');
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ accounts });
  });
  afterAll(() => gw.close());
  beforeEach(() => {
    fakes.calls.length = 0;
  });

  describe('GET /orgs', () => {
    it('lists what accounts answers for the caller, with paging headers', async () => {
      fakes.orgs.listOrgs = async () => ({ orgs: [acmeOrg], total: 3 });
      const res = await gw.fetch('/api/v1/orgs?limit=1&page=2', { headers: { Authorization: ALICE } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Array<Record<string, unknown>>;
      expect(body).toHaveLength(1);
      expectExactGiteaShape('Organization', body[0]);
      expect(body[0]).toMatchObject({ id: acme.id, name: 'acme', username: 'acme', email: 'acme@example.com', visibility: 'public' });
      expect(res.headers.get('x-total-count')).toBe('3');
      expect(res.headers.get('link')).toContain('rel="next"');
      expect(fakes.lastRequest('listOrgs')).toEqual({ viewer: aliceViewer, page: { page: 2, limit: 1 }, publicOnly: false });
    });

    it('asks as nobody for an anonymous caller', async () => {
      fakes.orgs.listOrgs = async () => ({ orgs: [], total: 0 });
      expect((await gw.fetch('/api/v1/orgs')).status).toBe(200);
      expect(fakes.lastRequest('listOrgs')).toEqual({ viewer: undefined, page: { page: 1, limit: 30 }, publicOnly: false });
    });
  });

  describe('POST /orgs', () => {
    const create = (body: unknown, auth = ALICE) => gw.fetch('/api/v1/orgs', jsonBody('POST', body, { Authorization: auth }));

    it('creates an organization owned by the caller (201)', async () => {
      fakes.orgs.createOrg = async (request) => ({ org: org(50, request.name, { fullName: request.fullName, visibility: 'limited' }) });
      const res = await create({ username: 'newco', full_name: 'New Co', visibility: 'limited', repo_admin_change_team_access: true }, aliceOrgToken);
      expect(res.status).toBe(201);
      const body = await res.json();
      expectExactGiteaShape('Organization', body);
      expect(body).toMatchObject({ name: 'newco', full_name: 'New Co', visibility: 'limited' });
      expect(fakes.lastRequest('createOrg')).toEqual({
        actor: aliceViewer,
        ownerId: alice.id,
        name: 'newco',
        fullName: 'New Co',
        email: '',
        description: '',
        website: '',
        location: '',
        visibility: 'limited',
        repoAdminChangeTeamAccess: true,
      });
    });

    it('needs a signed-in caller and the organization scope', async () => {
      expect(await (await gw.fetch('/api/v1/orgs', jsonBody('POST', { username: 'x' }))).json()).toEqual({ message: 'token is required', url: URL_KEY });
      const res = await create({ username: 'x' }, aliceUserToken);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { message: string }).message).toBe('token does not have at least one of required scope(s), required=[write:organization], token scope=write:user');
    });

    it("checks the body as Gitea's binding does", async () => {
      const cases: Array<[unknown, string]> = [
        [{}, '[UserName]: Required'],
        [{ username: 'bad name' }, '[UserName]: invalid username'],
        [{ username: 'a'.repeat(41) }, '[UserName]: MaxSize'],
        [{ username: 'fine', visibility: 'secret' }, '[Visibility]: In'],
        [{ username: 'fine', website: 'not a url' }, '[Website]: Url'],
      ];
      for (const [body, message] of cases) {
        const res = await create(body);
        expect({ status: res.status, body: await res.json() }).toEqual({ status: 422, body: { message, url: URL_KEY } });
      }
      expect(fakes.calls).toEqual([]);
    });

    it("answers accounts' refusals with Gitea's statuses", async () => {
      const cases: Array<[CairnError, number]> = [
        [CairnError.exists('user already exists [name: acme]', { reason: 'user_exists' }), 422],
        [CairnError.invalid('name is reserved [name: api]', { reason: 'name_reserved' }), 422],
        [CairnError.denied('user is not allowed to create organizations', { reason: 'create_org_denied' }), 403],
      ];
      for (const [error, status] of cases) {
        fakes.orgs.createOrg = async () => {
          throw error;
        };
        const res = await create({ username: 'acme' });
        expect({ status: res.status, body: await res.json() }).toEqual({ status, body: { message: error.message, url: URL_KEY } });
      }
    });
  });

  describe('one organization', () => {
    it('keeps public-only tokens to public organizations', async () => {
      const publicOnly = tokenAuth(accounts.addToken(alice.id, 'public', ['public-only', 'read:organization']).secret);
      fakes.orgs.getOrg = async (request) => ({ org: request.name === 'hidden' ? org(hidden.id, 'hidden', { visibility: 'limited' }) : acmeOrg });
      const refused = await gw.fetch('/api/v1/orgs/hidden', { headers: { Authorization: publicOnly } });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ message: 'token scope is limited to public orgs', url: URL_KEY });
      expect((await gw.fetch('/api/v1/orgs/acme', { headers: { Authorization: publicOnly } })).status).toBe(200);
      expect((await gw.fetch('/api/v1/orgs/hidden', { headers: { Authorization: ALICE } })).status).toBe(200);
    });

    it('reads, edits, renames and deletes by the current name', async () => {
      fakes.orgs.getOrg = async () => ({ org: acmeOrg });
      const got = await gw.fetch('/api/v1/orgs/ACME');
      expect(got.status).toBe(200);
      expectExactGiteaShape('Organization', await got.json());
      expect(fakes.lastRequest('getOrg')).toEqual({ viewer: undefined, name: 'acme' });

      fakes.orgs.updateOrg = async () => ({ org: org(acme.id, 'acme', { location: 'Mars' }) });
      const edited = await gw.fetch('/api/v1/orgs/acme', jsonBody('PATCH', { location: 'Mars', visibility: '' }, { Authorization: ALICE }));
      expect(((await edited.json()) as { location: string }).location).toBe('Mars');
      expect(fakes.lastRequest('updateOrg')).toEqual({
        actor: aliceViewer,
        org: 'acme',
        fullName: undefined,
        email: undefined,
        description: undefined,
        website: undefined,
        location: 'Mars',
        visibility: '',
        repoAdminChangeTeamAccess: undefined,
      });
      const badVisibility = await gw.fetch('/api/v1/orgs/acme', jsonBody('PATCH', { visibility: 'nope' }, { Authorization: ALICE }));
      expect(await badVisibility.json()).toEqual({ message: '[Visibility]: In', url: URL_KEY });

      fakes.orgs.renameOrg = async () => ({ org: acmeOrg });
      expect((await gw.fetch('/api/v1/orgs/acme/rename', jsonBody('POST', { new_name: 'acme2' }, { Authorization: ALICE }))).status).toBe(204);
      expect(fakes.lastRequest('renameOrg')).toEqual({ actor: aliceViewer, org: 'acme', newName: 'acme2' });

      fakes.orgs.deleteOrg = async () => ({});
      expect((await gw.fetch('/api/v1/orgs/acme', { method: 'DELETE', headers: { Authorization: ALICE } })).status).toBe(204);
    });

    it('answers an unknown organization with 404 before calling the handler', async () => {
      const res = await gw.fetch('/api/v1/orgs/nothing');
      expect(res.status).toBe(404);
      expect(fakes.calls).toEqual([]);
    });

    it('passes permission refusals through', async () => {
      fakes.orgs.deleteOrg = async () => {
        throw CairnError.denied('Must be an organization owner', { reason: 'org_denied' });
      };
      const res = await gw.fetch('/api/v1/orgs/acme', { method: 'DELETE', headers: { Authorization: ALICE } });
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 403, body: { message: 'Must be an organization owner', url: URL_KEY } });
    });

    it("answers 422 with Gitea's message while the organization owns repositories (Gitea: 500)", async () => {
      fakes.orgs.deleteOrg = async () => {
        throw CairnError.precondition('user still has ownership of repositories [uid: 3]', { reason: 'owner_has_repositories' });
      };
      const res = await gw.fetch('/api/v1/orgs/acme', { method: 'DELETE', headers: { Authorization: ALICE } });
      expect({ status: res.status, body: await res.json() }).toEqual({
        status: 422,
        body: { message: 'user still has ownership of repositories [uid: 3]', url: URL_KEY },
      });
    });
  });

  describe("a user's organizations", () => {
    it('lists the caller\'s own and another user\'s, needing user and organization scopes', async () => {
      fakes.orgs.listUserOrgs = async () => ({ orgs: [acmeOrg], total: 1 });
      const mine = await gw.fetch('/api/v1/user/orgs', { headers: { Authorization: aliceOrgToken } });
      expect(mine.status).toBe(200);
      expect(mine.headers.get('x-total-count')).toBe('1');
      expect(fakes.lastRequest('listUserOrgs')).toEqual({ viewer: aliceViewer, username: 'alice', page: { page: 1, limit: 30 }, publicOnly: false });
      const denied = await gw.fetch('/api/v1/user/orgs', { headers: { Authorization: aliceUserToken } });
      expect(denied.status).toBe(403);

      expect((await gw.fetch('/api/v1/users/BOB/orgs', { headers: { Authorization: ALICE } })).status).toBe(200);
      expect(fakes.lastRequest('listUserOrgs')).toMatchObject({ username: 'bob' });
      expect((await gw.fetch('/api/v1/users/bob/orgs')).status).toBe(401);
    });

    it("reports a user's permissions", async () => {
      fakes.orgs.getOrgPermissions = async () => ({ isOwner: false, isAdmin: false, canWrite: false, canRead: true, canCreateRepository: true });
      const res = await gw.fetch('/api/v1/users/bob/orgs/acme/permissions', { headers: { Authorization: ALICE } });
      const body = await res.json();
      expectExactGiteaShape('OrganizationPermissions', body);
      expect(body).toEqual({ is_owner: false, is_admin: false, can_write: false, can_read: true, can_create_repository: true });
      expect(fakes.lastRequest('getOrgPermissions')).toEqual({ viewer: aliceViewer, username: 'bob', org: 'acme' });
    });
  });

  describe('members', () => {
    it('lists members with X-Total-Count only', async () => {
      fakes.orgs.listMembers = async () => ({ users: [alice], total: 1 });
      const res = await gw.fetch('/api/v1/orgs/acme/members', { headers: { Authorization: ALICE } });
      expect(res.status).toBe(200);
      expectExactGiteaShape('User', ((await res.json()) as unknown[])[0]);
      expect(res.headers.get('x-total-count')).toBe('1');
      expect(res.headers.get('link')).toBeNull();
      expect(fakes.lastRequest('listMembers')).toMatchObject({ org: 'acme', publicOnly: false });
      expect((await gw.fetch('/api/v1/orgs/acme/members')).status).toBe(401);
      expect((await gw.fetch('/api/v1/orgs/acme/public_members')).status).toBe(200);
      expect(fakes.lastRequest('listMembers')).toMatchObject({ viewer: undefined, publicOnly: true });
    });

    it('answers a membership check with 204, 404 or 303 to the public check', async () => {
      const answers: Array<[IsMemberResponse_Answer, number]> = [
        [IsMemberResponse_Answer.ANSWER_MEMBER, 204],
        [IsMemberResponse_Answer.ANSWER_NOT_MEMBER, 404],
        [IsMemberResponse_Answer.ANSWER_ASK_PUBLIC, 303],
      ];
      for (const [answer, status] of answers) {
        fakes.orgs.isMember = async () => ({ answer, username: 'bob' });
        const res = await gw.fetch('/api/v1/orgs/acme/members/Bob', { headers: { Authorization: ALICE }, redirect: 'manual' });
        expect(res.status).toBe(status);
        if (status === 303) {
          expect(res.headers.get('location')).toBe('/api/v1/orgs/acme/public_members/bob');
          expect(await res.text()).toBe('<a href="/api/v1/orgs/acme/public_members/bob">See Other</a>.\n\n');
        }
      }
      expect(fakes.lastRequest('isMember')).toEqual({ viewer: aliceViewer, org: 'acme', username: 'bob', publicOnly: false });
      fakes.orgs.isMember = async () => ({ answer: IsMemberResponse_Answer.ANSWER_MEMBER, username: 'bob' });
      expect((await gw.fetch('/api/v1/orgs/acme/public_members/bob')).status).toBe(204);
      expect(fakes.lastRequest('isMember')).toMatchObject({ publicOnly: true, viewer: undefined });
    });

    it('removes members and shows or hides memberships', async () => {
      fakes.orgs.removeMember = async () => ({});
      fakes.orgs.setMemberPublic = async () => ({});
      const auth = { headers: { Authorization: ALICE } };
      expect((await gw.fetch('/api/v1/orgs/acme/members/bob', { method: 'DELETE', ...auth })).status).toBe(204);
      expect((await gw.fetch('/api/v1/orgs/acme/public_members/alice', { method: 'PUT', ...auth })).status).toBe(204);
      expect(fakes.lastRequest('setMemberPublic')).toEqual({ actor: aliceViewer, org: 'acme', username: 'alice', public: true });
      expect((await gw.fetch('/api/v1/orgs/acme/public_members/alice', { method: 'DELETE', ...auth })).status).toBe(204);
      expect(fakes.lastRequest('setMemberPublic')).toMatchObject({ public: false });
      fakes.orgs.removeMember = async () => {
        throw CairnError.precondition(`user is the last member of owner team [uid: ${alice.id}]`, { reason: 'last_org_owner' });
      };
      const last = await gw.fetch('/api/v1/orgs/acme/members/alice', { method: 'DELETE', ...auth });
      expect({ status: last.status, body: await last.json() }).toEqual({ status: 422, body: { message: `user is the last member of owner team [uid: ${alice.id}]`, url: URL_KEY } });
    });
  });

  describe('administration', () => {
    it('lists every organization and creates one for a user', async () => {
      fakes.orgs.listOrgs = async () => ({ orgs: [acmeOrg], total: 1 });
      const all = await gw.fetch('/api/v1/admin/orgs', { headers: { Authorization: ROOT } });
      expect(all.status).toBe(200);
      expect(fakes.lastRequest('listOrgs')).toMatchObject({ viewer: { userId: root.id, isAdmin: true } });
      expect((await gw.fetch('/api/v1/admin/orgs', { headers: { Authorization: ALICE } })).status).toBe(403);

      fakes.orgs.createOrg = async (request) => ({ org: org(60, request.name) });
      const created = await gw.fetch('/api/v1/admin/users/bob/orgs', jsonBody('POST', { username: 'bobco' }, { Authorization: ROOT }));
      expect(created.status).toBe(201);
      expect(fakes.lastRequest('createOrg')).toMatchObject({ ownerId: bob.id, name: 'bobco' });
    });
  });
});

describe('team routes', () => {
  const accounts = new FakeAccounts();
  const fakes = accounts.orgFakes;
  const alice = accounts.addUser('alice', { password: 'alice-password' });
  const acme = accounts.addUser('acme', { type: 1 });
  const ALICE = basic('alice', 'alice-password');
  let gw: TestGateway;

  const team = (fields: Partial<Team> = {}): Team => ({
    id: 7,
    orgId: acme.id,
    name: 'devs',
    description: '',
    permission: 'none',
    includesAllRepositories: false,
    canCreateOrgRepo: false,
    units: ['repo.code', 'repo.issues'],
    unitsMap: { 'repo.issues': 'write', 'repo.code': 'read' },
    organization: org(acme.id, 'acme'),
    ...fields,
  });

  beforeAll(async () => {
    gw = await startTestGateway({ accounts });
  });
  afterAll(() => gw.close());

  it('lists, creates and searches an organization\'s teams', async () => {
    fakes.teams.listTeams = async () => ({ teams: [team()], total: 1 });
    const listed = await gw.fetch('/api/v1/orgs/acme/teams', { headers: { Authorization: ALICE } });
    expect(listed.headers.get('x-total-count')).toBe('1');
    const [first] = (await listed.json()) as Array<{ units_map: Record<string, string>; organization: unknown }>;
    expectExactGiteaShape('Team', first);
    expect(Object.keys(first.units_map)).toEqual(['repo.code', 'repo.issues']);
    expectExactGiteaShape('Organization', first.organization);
    expect((await gw.fetch('/api/v1/orgs/acme/teams')).status).toBe(401);

    fakes.teams.createTeam = async () => ({ team: team() });
    const created = await gw.fetch(
      '/api/v1/orgs/acme/teams',
      jsonBody('POST', { name: 'devs', permission: 'write', units: ['repo.code'], units_map: { 'repo.code': 'read' }, can_create_org_repo: true }, { Authorization: ALICE }),
    );
    expect(created.status).toBe(201);
    expect(fakes.lastRequest('createTeam')).toMatchObject({
      org: 'acme',
      name: 'devs',
      permission: 'write',
      units: ['repo.code'],
      unitsMap: { 'repo.code': 'read' },
      canCreateOrgRepo: true,
      includesAllRepositories: false,
    });
    const badName = await gw.fetch('/api/v1/orgs/acme/teams', jsonBody('POST', { name: 'no spaces' }, { Authorization: ALICE }));
    expect(await badName.json()).toEqual({ message: '[Name]: AlphaDashDot', url: URL_KEY });
    fakes.teams.createTeam = async () => {
      throw CairnError.invalid('units permission should not be empty', { reason: 'team_units_empty' });
    };
    const noUnits = await gw.fetch('/api/v1/orgs/acme/teams', jsonBody('POST', { name: 'x' }, { Authorization: ALICE }));
    expect({ status: noUnits.status, body: await noUnits.json() }).toEqual({ status: 422, body: { message: 'units permission should not be empty', url: URL_KEY } });
    fakes.teams.createTeam = async () => {
      throw CairnError.exists(`team already exists [org_id: ${acme.id}, name: devs]`, { reason: 'team_exists' });
    };
    expect((await gw.fetch('/api/v1/orgs/acme/teams', jsonBody('POST', { name: 'devs', units: ['repo.code'] }, { Authorization: ALICE }))).status).toBe(422);

    fakes.teams.searchTeams = async () => ({ teams: [team()], total: 1 });
    const found = await gw.fetch('/api/v1/orgs/acme/teams/search?q=%20dev%20&include_desc=false', { headers: { Authorization: ALICE } });
    const body = (await found.json()) as { ok: boolean; data: unknown[] };
    expect(body.ok).toBe(true);
    expectExactGiteaShape('Team', body.data[0]);
    expect(fakes.lastRequest('searchTeams')).toMatchObject({ keyword: 'dev', includeDescription: false });
    await gw.fetch('/api/v1/orgs/acme/teams/search', { headers: { Authorization: ALICE } });
    expect(fakes.lastRequest('searchTeams')).toMatchObject({ keyword: '', includeDescription: true });
  });

  it('reads, edits and deletes a team by id', async () => {
    fakes.teams.getTeam = async () => ({ team: team() });
    const res = await gw.fetch('/api/v1/teams/7', { headers: { Authorization: ALICE } });
    expectExactGiteaShape('Team', await res.json());
    expect(fakes.lastRequest('getTeam')).toMatchObject({ id: 7 });
    fakes.teams.getTeam = async () => {
      throw CairnError.notFound('team does not exist [org_id 0, team_id 0, name: ]', { reason: 'team_not_found' });
    };
    expect((await gw.fetch('/api/v1/teams/abc', { headers: { Authorization: ALICE } })).status).toBe(404);
    expect(fakes.lastRequest('getTeam')).toMatchObject({ id: 0 });

    fakes.teams.updateTeam = async () => ({ team: team({ description: 'new' }) });
    await gw.fetch('/api/v1/teams/7', jsonBody('PATCH', { name: '', description: 'new' }, { Authorization: ALICE }));
    expect(fakes.lastRequest('updateTeam')).toEqual({
      actor: expect.objectContaining({ isAdmin: false }),
      id: 7,
      name: undefined,
      description: 'new',
      permission: '',
      units: [],
      unitsMap: {},
      includesAllRepositories: undefined,
      canCreateOrgRepo: undefined,
    });
    fakes.teams.deleteTeam = async () => ({});
    expect((await gw.fetch('/api/v1/teams/7', { method: 'DELETE', headers: { Authorization: ALICE } })).status).toBe(204);
  });

  it('lists and changes team members', async () => {
    fakes.teams.listTeamMembers = async () => ({ users: [alice], total: 1 });
    const listed = await gw.fetch('/api/v1/teams/7/members', { headers: { Authorization: ALICE } });
    expect(listed.headers.get('x-total-count')).toBe('1');
    fakes.teams.getTeamMember = async () => ({ user: alice });
    expectExactGiteaShape('User', await (await gw.fetch('/api/v1/teams/7/members/alice', { headers: { Authorization: ALICE } })).json());
    fakes.teams.getTeamMember = async () => {
      throw CairnError.notFound('not found', { reason: 'team_member_not_found' });
    };
    const missing = await gw.fetch('/api/v1/teams/7/members/alice', { headers: { Authorization: ALICE } });
    expect(await missing.json()).toEqual({ errors: null, message: 'not found', url: URL_KEY });
    fakes.teams.addTeamMember = async () => ({});
    fakes.teams.removeTeamMember = async () => ({});
    expect((await gw.fetch('/api/v1/teams/7/members/alice', { method: 'PUT', headers: { Authorization: ALICE } })).status).toBe(204);
    expect((await gw.fetch('/api/v1/teams/7/members/alice', { method: 'DELETE', headers: { Authorization: ALICE } })).status).toBe(204);
  });
});
