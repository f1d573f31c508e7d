/**
 * Repositories end to end: the built supervisor (gateway, accounts, repos, git-storage, social) on PostgreSQL,
 * driven over HTTP through the validating client (every body checked against Gitea's description). First the access
 * matrix — anonymous, plain, restricted, collaborator, team member, organization owner and site admin against
 * public and private repositories of a user and of a public, a limited and a private organization — for direct
 * reads, owner lists, organization lists, search and the caller's own list, with their counts; then creation,
 * editing, renames, units, archiving, forks, transfers, collaborators, repository teams and topics.
 */
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { apiClient, type ApiClient, type ApiResponse } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, type Instance } from './support/instance';

jest.setTimeout(180_000);

interface ApiRepo {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  fork: boolean;
  empty: boolean;
  archived: boolean;
  description: string;
  website: string;
  default_branch: string;
  owner: { login: string };
  parent?: ApiRepo;
  permissions: { admin: boolean; push: boolean; pull: boolean };
  has_code: boolean;
  has_issues: boolean;
  has_wiki: boolean;
  internal_tracker?: { enable_time_tracker: boolean };
  repo_transfer?: { doer: { login: string }; recipient: { login: string } };
  clone_url: string;
  html_url: string;
}
interface ApiTeam {
  id: number;
  name: string;
}

const ORGS = ['pub-org', 'lim-org', 'priv-org'] as const;
const VISIBILITY: Record<(typeof ORGS)[number], string> = { 'pub-org': 'public', 'lim-org': 'limited', 'priv-org': 'private' };

/** The matrix's repositories: uma's two, and an open (public) and a closed (private) one per organization. */
const MATRIX_REPOS = ['uma/pub', 'uma/priv', ...ORGS.flatMap((org) => [`${org}/open`, `${org}/closed`])];

/**
 * Who reads what, by viewer (Gitea's models/perm/access/repo_permission.go): public repositories of visible
 * owners for signed-in non-restricted users (anonymous: public owners only); nothing implicit for restricted
 * users; collaborations (colin on uma/priv and priv-org/closed, rita on pub-org/open) even inside a private
 * organization; team members (tom's "devs" team is linked to every closed repository) see their teams'
 * repositories and their organizations' public ones; organization owners and site admins see everything of
 * theirs and everything.
 */
const READS: Record<string, string[]> = {
  anonymous: ['uma/pub', 'pub-org/open'],
  plain: ['uma/pub', 'pub-org/open', 'lim-org/open'],
  restricted: ['pub-org/open'],
  collaborator: ['uma/pub', 'uma/priv', 'pub-org/open', 'lim-org/open', 'priv-org/closed'],
  'team member': ['uma/pub', ...ORGS.flatMap((org) => [`${org}/open`, `${org}/closed`])],
  'org owner': ['uma/pub', ...ORGS.flatMap((org) => [`${org}/open`, `${org}/closed`])],
  admin: MATRIX_REPOS,
};

/** `GET /user/repos`: what each signed-in viewer owns or was given. */
const ACCESSIBLE: Record<string, string[]> = {
  plain: [],
  restricted: ['pub-org/open'],
  collaborator: ['priv-org/closed', 'uma/priv'],
  'team member': ORGS.map((org) => `${org}/closed`),
  'org owner': ORGS.flatMap((org) => [`${org}/open`, `${org}/closed`]),
};

describe('repositories through the gateway', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;
  let api: ApiClient;

  const root = basicAuth('root', 'root-pass-123');
  const password = 'user-pass-123';
  const as = (name: string) => basicAuth(name, password);

  const VIEWERS: Record<string, Record<string, string> | undefined> = {
    anonymous: undefined,
    plain: as('carol'),
    restricted: as('rita'),
    collaborator: as('colin'),
    'team member': as('tom'),
    'org owner': as('alice'),
    admin: root,
  };

  function call<T = unknown>(method: string, path: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> {
    return api.request<T>(method, `/api/v1${path}`, { headers, body });
  }

  async function createRepo(owner: 'user' | string, by: Record<string, string>, body: Record<string, unknown>): Promise<ApiRepo> {
    const res = await call<ApiRepo>('POST', owner === 'user' ? '/user/repos' : `/orgs/${owner}/repos`, by, body);
    expect([body.name, res.status]).toEqual([body.name, 201]);
    return res.body;
  }

  const names = (repos: ApiRepo[]) => repos.map((repo) => repo.full_name).sort();
  const matrixOnly = (repos: ApiRepo[]) => names(repos).filter((name) => MATRIX_REPOS.includes(name));
  const teamIds: Record<string, number> = {};

  beforeAll(async () => {
    database = await createTestDatabase('e2e_repos');
    workDir = makeWorkDir();
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0' });
    instance = await startInstance(workDir, env);
    api = apiClient(instance.httpUrl);
    const created = await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com', '--admin'], env);
    expect(created.code).toBe(0);

    for (const [username, restricted] of [
      ['uma', false],
      ['alice', false],
      ['tom', false],
      ['carol', false],
      ['colin', false],
      ['rita', true],
      ['maker', false],
      ['dave', false],
    ] as const) {
      const made = await call('POST', '/admin/users', root, { username, email: `${username}@example.com`, password, must_change_password: false, restricted });
      expect(made.status).toBe(201);
    }

    await createRepo('user', as('uma'), { name: 'pub' });
    await createRepo('user', as('uma'), { name: 'priv', private: true });
    for (const org of ORGS) {
      expect((await call('POST', '/orgs', as('alice'), { username: org, email: `${org}@example.com`, visibility: VISIBILITY[org] })).status).toBe(201);
      const team = await call<ApiTeam>('POST', `/orgs/${org}/teams`, as('alice'), { name: 'devs', units_map: { 'repo.code': 'write', 'repo.issues': 'read' } });
      expect(team.status).toBe(201);
      teamIds[org] = team.body.id;
      expect((await call('PUT', `/teams/${team.body.id}/members/tom`, as('alice'))).status).toBe(204);
      await createRepo(org, as('alice'), { name: 'open' });
      await createRepo(org, as('alice'), { name: 'closed', private: true });
      expect((await call('PUT', `/repos/${org}/closed/teams/devs`, as('alice'))).status).toBe(204);
    }
    for (const [repo, user] of [
      ['uma/priv', 'colin'],
      ['priv-org/closed', 'colin'],
      ['pub-org/open', 'rita'],
    ]) {
      const added = await call('PUT', `/repos/${repo}/collaborators/${user}`, repo.startsWith('uma') ? as('uma') : as('alice'), { permission: 'read' });
      expect([repo, user, added.status]).toEqual([repo, user, 204]);
    }
  });

  afterAll(async () => {
    await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
  });

  describe('access matrix', () => {
    it.each(Object.keys(VIEWERS))('GET /repos/{owner}/{repo} for %s: 404 when hidden', async (viewer) => {
      for (const repo of MATRIX_REPOS) {
        const res = await call<ApiRepo>('GET', `/repos/${repo}`, VIEWERS[viewer]);
        expect([repo, res.status]).toEqual([repo, READS[viewer].includes(repo) ? 200 : 404]);
        if (res.status === 200) expect(res.body.full_name).toBe(repo);
      }
    });

    it.each(Object.keys(VIEWERS))('GET /users/uma/repos and its count for %s', async (viewer) => {
      const res = await call<ApiRepo[]>('GET', '/users/uma/repos?limit=50', VIEWERS[viewer]);
      expect(res.status).toBe(200);
      const expected = READS[viewer].filter((repo) => repo.startsWith('uma/'));
      expect(matrixOnly(res.body)).toEqual(expected.sort());
      expect(res.headers.get('x-total-count')).toBe(String(res.body.length));
      const first = await call<ApiRepo[]>('GET', '/users/uma/repos?limit=1', VIEWERS[viewer]);
      expect(first.headers.get('x-total-count')).toBe(String(res.body.length));
      expect(first.body).toHaveLength(Math.min(1, res.body.length));
      if (res.body.length > 1) expect(first.headers.get('link')).toContain('rel="next"');
    });

    it.each(Object.keys(VIEWERS))('GET /orgs/{org}/repos for %s', async (viewer) => {
      for (const org of ORGS) {
        const res = await call<ApiRepo[]>('GET', `/orgs/${org}/repos?limit=50`, VIEWERS[viewer]);
        const expected = READS[viewer].filter((repo) => repo.startsWith(`${org}/`));
        // accounts decides who sees an organization: members and admins; others public ones, signed-in users limited
        // ones too; a restricted user none they are not a member of (rita's collaboration does not make her one).
        const member = viewer === 'admin' || viewer === 'org owner' || viewer === 'team member';
        const orgVisible = member || (viewer !== 'restricted' && (org === 'pub-org' || (org === 'lim-org' && viewer !== 'anonymous')));
        if (!orgVisible) {
          expect([org, res.status]).toEqual([org, 404]);
          continue;
        }
        expect([org, res.status, matrixOnly(res.body)]).toEqual([org, 200, expected.sort()]);
        expect(res.headers.get('x-total-count')).toBe(String(res.body.length));
      }
    });

    it.each(Object.keys(VIEWERS))('GET /repos/search with X-Total-Count for %s', async (viewer) => {
      const res = await call<{ ok: boolean; data: ApiRepo[] }>('GET', '/repos/search?limit=50', VIEWERS[viewer]);
      expect(res.status).toBe(200);
      expect(res.body.ok).toBe(true);
      expect(matrixOnly(res.body.data)).toEqual([...READS[viewer]].sort());
      expect(res.headers.get('x-total-count')).toBe(String(res.body.data.length));
      // Paged, the count is still the count of what may be read.
      const paged = await call<{ data: ApiRepo[] }>('GET', '/repos/search?limit=2&page=1', VIEWERS[viewer]);
      expect(paged.headers.get('x-total-count')).toBe(String(res.body.data.length));
      expect(paged.body.data).toHaveLength(Math.min(2, res.body.data.length));
    });

    it.each(Object.keys(ACCESSIBLE))('GET /user/repos for %s', async (viewer) => {
      const res = await call<ApiRepo[]>('GET', '/user/repos?limit=50', VIEWERS[viewer]);
      expect(res.status).toBe(200);
      expect(matrixOnly(res.body)).toEqual([...ACCESSIBLE[viewer]].sort());
      expect(res.headers.get('x-total-count')).toBe(String(res.body.length));
    });

    it('GET /user/repos needs a signed-in caller, and lists what uma owns', async () => {
      expect((await call('GET', '/user/repos')).status).toBe(401);
      const mine = await call<ApiRepo[]>('GET', '/user/repos', as('uma'));
      expect(matrixOnly(mine.body)).toEqual(['uma/priv', 'uma/pub']);
    });

    it('reports the caller\'s permissions on each repository', async () => {
      const perms = async (viewer: string, repo: string) => (await call<ApiRepo>('GET', `/repos/${repo}`, VIEWERS[viewer])).body.permissions;
      expect(await perms('admin', 'uma/priv')).toEqual({ admin: true, push: true, pull: true });
      expect(await perms('collaborator', 'uma/priv')).toEqual({ admin: false, push: false, pull: true });
      expect(await perms('team member', 'lim-org/closed')).toEqual({ admin: false, push: true, pull: true });
      expect(await perms('org owner', 'priv-org/closed')).toEqual({ admin: true, push: true, pull: true });
      expect(await perms('plain', 'pub-org/open')).toEqual({ admin: false, push: false, pull: true });
    });
  });

  describe('create', () => {
    it('creates for the caller and for an organization, also through the deprecated path', async () => {
      const repo = await createRepo('user', as('dave'), { name: 'made', description: 'by the API', auto_init: false });
      expect(repo).toMatchObject({
        full_name: 'dave/made',
        owner: { login: 'dave' },
        description: 'by the API',
        private: false,
        empty: true,
        default_branch: 'main',
        permissions: { admin: true, push: true, pull: true },
      });
      expect(repo.html_url).toMatch(/\/dave\/made$/);
      expect(repo.clone_url).toBe(`${repo.html_url}.git`);
      const deprecated = await call<ApiRepo>('POST', '/org/pub-org/repos', as('alice'), { name: 'old-style' });
      expect(deprecated).toMatchObject({ status: 201, body: { full_name: 'pub-org/old-style' } });
      expect((await call('POST', '/org/pub-org/repos', undefined, { name: 'anon' })).status).toBe(401);
      expect((await call('POST', '/orgs/nobody-org/repos', as('alice'), { name: 'x' })).status).toBe(404);
    });

    it('answers 409 for a taken name and 422 for bad names', async () => {
      const dup = await call('POST', '/user/repos', as('dave'), { name: 'MADE' });
      expect(dup).toMatchObject({ status: 409, body: { message: 'The repository with the same name already exists.' } });
      expect(await call('POST', '/user/repos', as('dave'), { name: 'bad name' })).toMatchObject({ status: 422, body: { message: '[Name]: AlphaDashDot' } });
      expect(await call('POST', '/user/repos', as('dave'), {})).toMatchObject({ status: 422, body: { message: '[Name]: Required' } });
      expect((await call('POST', '/user/repos', as('dave'), { name: 'x'.repeat(101) })).status).toBe(422);
      expect((await call('POST', '/user/repos', as('dave'), { name: 'notes.wiki' })).status).toBe(422);
      expect((await call('POST', '/user/repos', as('dave'), { name: '..' })).status).toBe(422);
      expect(await call('POST', '/user/repos', as('dave'), { name: 'ok', default_branch: 'a..b' })).toMatchObject({ status: 422, body: { message: '[DefaultBranch]: GitRefName' } });
    });

    it('lets only those allowed create organization repositories; a can_create_org_repo member becomes admin', async () => {
      const refused = await call('POST', '/orgs/pub-org/repos', as('carol'), { name: 'not-mine' });
      expect(refused.status).toBe(403);
      const makers = await call<ApiTeam>('POST', '/orgs/pub-org/teams', as('alice'), {
        name: 'makers',
        units_map: { 'repo.code': 'read' },
        can_create_org_repo: true,
      });
      expect(makers.status).toBe(201);
      expect((await call('PUT', `/teams/${makers.body.id}/members/maker`, as('alice'))).status).toBe(204);
      const made = await createRepo('pub-org', as('maker'), { name: 'by-maker', private: true });
      expect(made.permissions).toEqual({ admin: true, push: true, pull: true });
      const permission = await call<{ permission: string; user: { login: string } }>('GET', '/repos/pub-org/by-maker/collaborators/maker/permission', as('maker'));
      expect(permission).toMatchObject({ status: 200, body: { permission: 'admin', user: { login: 'maker' } } });
    });
  });

  describe('get, edit, delete', () => {
    it('reads by id, for a signed-in caller who may read it', async () => {
      const priv = (await call<ApiRepo>('GET', '/repos/uma/priv', as('uma'))).body;
      expect(await call<ApiRepo>('GET', `/repositories/${priv.id}`, as('colin'))).toMatchObject({ status: 200, body: { full_name: 'uma/priv' } });
      expect((await call('GET', `/repositories/${priv.id}`, as('carol'))).status).toBe(404);
      expect((await call('GET', `/repositories/${priv.id}`)).status).toBe(401);
      expect((await call('GET', '/repositories/987654321', as('carol'))).status).toBe(404);
    });

    it('edits settings and units, answering the repository', async () => {
      await createRepo('user', as('dave'), { name: 'settings' });
      const res = await call<ApiRepo>('PATCH', '/repos/dave/settings', as('dave'), {
        description: 'new words',
        website: 'https://example.com',
        private: true,
        has_wiki: false,
        has_issues: true,
        internal_tracker: { enable_time_tracker: false, allow_only_contributors_to_track_time: false, enable_issue_dependencies: false },
      });
      expect(res).toMatchObject({
        status: 200,
        body: { description: 'new words', website: 'https://example.com', private: true, has_wiki: false, internal_tracker: { enable_time_tracker: false } },
      });
      expect((await call('GET', '/repos/dave/settings', as('carol'))).status).toBe(404);
      expect((await call('PATCH', '/repos/dave/settings', as('carol'), { description: 'x' })).status).toBe(404);
      expect(await call('PATCH', '/repos/uma/priv', as('colin'), { description: 'x' })).toMatchObject({
        status: 403,
        body: { message: 'user should be an owner or a collaborator with admin write of a repository' },
      });
      expect(await call('PATCH', '/repos/dave/settings', as('dave'), { projects_mode: 'nope' })).toMatchObject({ status: 422, body: { message: '[ProjectsMode]: In' } });
      // Merge styles are pull-request settings: they apply with the pulls unit switched on, as Gitea reads them.
      const merges = await call<ApiRepo & { allow_squash_merge: boolean; default_merge_style: string }>('PATCH', '/repos/dave/settings', as('dave'), {
        has_pull_requests: true,
        allow_squash_merge: false,
        default_merge_style: 'rebase',
      });
      expect(merges.body).toMatchObject({ allow_squash_merge: false, default_merge_style: 'rebase' });
      // A mirror interval is for mirrors only.
      expect((await call('PATCH', '/repos/dave/settings', as('dave'), { mirror_interval: '8h0m0s' })).status).toBe(422);
    });

    it('sets the default branch of an empty repository to any name', async () => {
      await createRepo('user', as('dave'), { name: 'empty-one' });
      const res = await call<ApiRepo>('PATCH', '/repos/dave/empty-one', as('dave'), { default_branch: 'develop' });
      expect(res).toMatchObject({ status: 200, body: { empty: true, default_branch: 'develop' } });
      expect((await call<ApiRepo>('GET', '/repos/dave/empty-one', as('dave'))).body.default_branch).toBe('develop');
    });

    it('redirects a former name with 301 after a rename', async () => {
      await createRepo('user', as('dave'), { name: 'before' });
      expect((await call<ApiRepo>('PATCH', '/repos/dave/before', as('dave'), { name: 'after' })).body.full_name).toBe('dave/after');
      const moved = await call('GET', '/repos/dave/before?x=1', as('dave'));
      expect(moved.status).toBe(301);
      expect(moved.headers.get('location')).toBe('/api/v1/repos/dave/after?x=1');
      const sub = await call('GET', '/repos/dave/before/topics', as('dave'));
      expect(sub.status).toBe(301);
      expect(sub.headers.get('location')).toBe('/api/v1/repos/dave/after/topics');
      expect((await call('GET', '/repos/dave/after.git', as('dave'))).status).toBe(200);
      // A taken name is 422 on edit.
      expect((await call('PATCH', '/repos/dave/after', as('dave'), { name: 'made' })).status).toBe(422);
    });

    it('refuses writes to an archived repository with 423, and allows un-archiving', async () => {
      await createRepo('user', as('dave'), { name: 'archive-me', auto_init: true });
      expect((await call<ApiRepo>('PATCH', '/repos/dave/archive-me', as('dave'), { archived: true })).body.archived).toBe(true);
      const write = await call('POST', '/repos/dave/archive-me/contents/new.txt', as('dave'), { content: Buffer.from('x').toString('base64') });
      expect(write).toMatchObject({ status: 423, body: { message: 'dave/archive-me is archived' } });
      expect((await call('PATCH', '/repos/dave/archive-me', as('dave'), { description: 'still archived' })).status).toBe(423);
      expect((await call<ApiRepo>('PATCH', '/repos/dave/archive-me', as('dave'), { archived: false })).body.archived).toBe(false);
      expect((await call('POST', '/repos/dave/archive-me/contents/new.txt', as('dave'), { content: Buffer.from('x').toString('base64') })).status).toBe(201);
    });

    it('answers 404 on the routes of a unit switched off', async () => {
      await createRepo('user', as('dave'), { name: 'no-code', auto_init: true });
      expect((await call('GET', '/repos/dave/no-code/branches', as('dave'))).status).toBe(200);
      expect((await call<ApiRepo>('PATCH', '/repos/dave/no-code', as('dave'), { has_code: false })).body.has_code).toBe(false);
      expect((await call('GET', '/repos/dave/no-code/branches', as('dave'))).status).toBe(404);
      expect((await call('POST', '/repos/dave/no-code/forks', as('carol'), {})).status).toBe(404);
      // Topics are not a unit.
      expect((await call('GET', '/repos/dave/no-code/topics', as('dave'))).status).toBe(200);
    });

    it('deletes with 204 (owners only), after which the repository is gone', async () => {
      await createRepo('user', as('dave'), { name: 'doomed' });
      expect((await call('DELETE', '/repos/dave/doomed')).status).toBe(401);
      expect((await call('DELETE', '/repos/dave/doomed', as('carol'))).status).toBe(403);
      expect((await call('DELETE', '/repos/dave/doomed', as('dave'))).status).toBe(204);
      expect((await call('GET', '/repos/dave/doomed', as('dave'))).status).toBe(404);
      expect(await call('DELETE', '/repos/pub-org/open', as('tom'))).toMatchObject({ status: 403, body: { message: 'user should be the owner of the repo' } });
    });
  });

  describe('search', () => {
    it('filters by keyword, owner, privacy, mode and template, sorts, and pages with Link', async () => {
      const search = (query: string, viewer: Record<string, string> | undefined = as('dave')) =>
        call<{ ok: boolean; data: ApiRepo[] }>('GET', `/repos/search?${query}`, viewer);
      const dave = (await call<{ id: number }>('GET', '/user', as('dave'))).body.id;
      const mine = await search(`uid=${dave}&exclusive=true&limit=50`);
      expect(names(mine.body.data)).toEqual(expect.arrayContaining(['dave/made', 'dave/settings']));
      expect(mine.body.data.every((repo) => repo.owner.login === 'dave')).toBe(true);
      expect(names((await search('q=settings')).body.data)).toEqual(['dave/settings']);
      expect(names((await search('q=new%20words&includeDesc=true')).body.data)).toEqual(['dave/settings']);
      for (const isPrivate of [true, false]) {
        const found = (await search(`uid=${dave}&is_private=${isPrivate}&limit=50`)).body.data;
        expect(found.length).toBeGreaterThan(0);
        expect(found.every((repo) => repo.private === isPrivate)).toBe(true);
      }
      expect((await call<{ data: ApiRepo[] }>('GET', '/repos/search?q=settings')).body.data).toEqual([]);
      const sorted = (await search(`uid=${dave}&exclusive=true&sort=alpha&order=desc&limit=50`)).body.data.map((repo) => repo.name);
      expect(sorted).toEqual([...sorted].sort().reverse());
      const paged = await search(`uid=${dave}&exclusive=true&sort=alpha&limit=2&page=1`);
      expect(paged.body.data).toHaveLength(2);
      expect(paged.headers.get('link')).toContain('rel="next"');
      expect(Number(paged.headers.get('x-total-count'))).toBe(mine.body.data.length);
      expect(await search('mode=weird')).toMatchObject({ status: 422, body: { message: 'Invalid search mode: "weird"' } });
      expect((await search('sort=height')).status).toBe(422);
    });
  });

  describe('forks', () => {
    it('forks with 202 into the caller or an organization, the fork naming its base as parent', async () => {
      const fork = await call<ApiRepo>('POST', '/repos/uma/pub/forks', as('carol'), {});
      expect(fork).toMatchObject({ status: 202, body: { full_name: 'carol/pub', fork: true, parent: { full_name: 'uma/pub' } } });
      const named = await call<ApiRepo>('POST', '/repos/uma/pub/forks', as('alice'), { organization: 'pub-org', name: 'uma-pub' });
      expect(named).toMatchObject({ status: 202, body: { full_name: 'pub-org/uma-pub', parent: { full_name: 'uma/pub' } } });
      expect((await call('POST', '/repos/uma/pub/forks', as('carol'), {})).status).toBe(409);
      expect((await call('POST', '/repos/uma/priv/forks', as('carol'), {})).status).toBe(404);
      expect((await call('POST', '/repos/uma/pub/forks', undefined, {})).status).toBe(401);
      const forks = await call<ApiRepo[]>('GET', '/repos/uma/pub/forks?limit=1');
      expect(forks.status).toBe(200);
      expect(forks.headers.get('x-total-count')).toBe('2');
      expect(forks.headers.get('link')).toContain('rel="next"');
      expect((await call<ApiRepo>('GET', '/repos/carol/pub')).body.parent?.full_name).toBe('uma/pub');
      // A fork's default branch can be set too (any name while it is empty).
      expect((await call<ApiRepo>('PATCH', '/repos/carol/pub', as('carol'), { default_branch: 'trunk' })).body.default_branch).toBe('trunk');
      const forksOnly = await call<{ data: ApiRepo[] }>('GET', '/repos/search?mode=fork&q=pub&limit=50', as('carol'));
      expect(names(forksOnly.body.data)).toEqual(expect.arrayContaining(['carol/pub', 'pub-org/uma-pub']));
      expect(forksOnly.body.data.every((repo) => repo.fork)).toBe(true);
    });
  });

  describe('transfer', () => {
    it('is pending (201) when the owner may not create repositories for the recipient, until rejected or accepted', async () => {
      await createRepo('user', as('uma'), { name: 'gift' });
      expect(await call('POST', '/repos/uma/gift/transfer', as('carol'), { new_owner: 'carol' })).toMatchObject({
        status: 403,
        body: { message: 'user should be the owner of the repo' },
      });
      expect(await call('POST', '/repos/uma/pub/transfer', as('rita'), { new_owner: 'rita' })).toMatchObject({ status: 404 });
      const pending = await call<ApiRepo>('POST', '/repos/uma/gift/transfer', as('uma'), { new_owner: 'carol' });
      expect(pending).toMatchObject({ status: 201, body: { full_name: 'uma/gift', repo_transfer: { doer: { login: 'uma' }, recipient: { login: 'carol' } } } });
      // Only the recipient answers a pending transfer.
      expect((await call('POST', '/repos/uma/gift/transfer/accept', as('tom'))).status).toBe(403);
      const rejected = await call<ApiRepo>('POST', '/repos/uma/gift/transfer/reject', as('carol'));
      expect(rejected).toMatchObject({ status: 200, body: { full_name: 'uma/gift' } });
      expect(rejected.body.repo_transfer).toBeUndefined();
      expect((await call('POST', '/repos/uma/gift/transfer/accept', as('uma'))).status).toBe(404);

      expect((await call('POST', '/repos/uma/gift/transfer', as('uma'), { new_owner: 'carol' })).status).toBe(201);
      expect((await call('POST', '/repos/uma/gift/transfer', as('uma'), { new_owner: 'carol' })).status).toBe(409);
      const accepted = await call<ApiRepo>('POST', '/repos/uma/gift/transfer/accept', as('carol'));
      expect(accepted).toMatchObject({ status: 202, body: { full_name: 'carol/gift', owner: { login: 'carol' } } });
      expect((await call('GET', '/repos/uma/gift', as('carol'))).status).toBe(301);
    });

    it('is immediate (202) into an organization the owner may create repositories in', async () => {
      await createRepo('user', as('alice'), { name: 'moving' });
      const moved = await call<ApiRepo>('POST', '/repos/alice/moving/transfer', as('alice'), { new_owner: 'lim-org', team_ids: [teamIds['lim-org']] });
      expect(moved).toMatchObject({ status: 202, body: { full_name: 'lim-org/moving', owner: { login: 'lim-org' } } });
      expect((await call<ApiRepo>('GET', '/repos/lim-org/moving', as('tom'))).body.permissions.push).toBe(true);
      expect(await call('POST', '/repos/lim-org/moving/transfer', as('alice'), { new_owner: 'nobody-here' })).toMatchObject({
        status: 404,
        body: { message: 'The new owner does not exist or cannot be found' },
      });
      expect(await call('POST', '/repos/lim-org/moving/transfer', as('tom'), { new_owner: 'tom' })).toMatchObject({
        status: 403,
        body: { message: 'user should be the owner of the repo' },
      });
    });
  });

  describe('collaborators', () => {
    it('adds, checks, lists, reports and removes collaborators', async () => {
      await createRepo('user', as('uma'), { name: 'team-work', private: true });
      expect((await call('PUT', '/repos/uma/team-work/collaborators/carol', as('uma'), { permission: 'write' })).status).toBe(204);
      expect((await call('PUT', '/repos/uma/team-work/collaborators/dave', as('uma'))).status).toBe(204);
      expect((await call('GET', '/repos/uma/team-work/collaborators/carol', as('carol'))).status).toBe(204);
      expect((await call('GET', '/repos/uma/team-work/collaborators/tom', as('carol'))).status).toBe(404);
      expect((await call('GET', '/repos/uma/team-work/collaborators/no-such-user', as('carol'))).status).toBe(422);
      const list = await call<Array<{ login: string }>>('GET', '/repos/uma/team-work/collaborators', as('carol'));
      expect(list.body.map((user) => user.login).sort()).toEqual(['carol', 'dave']);
      expect(list.headers.get('x-total-count')).toBe('2');
      const paged = await call<Array<{ login: string }>>('GET', '/repos/uma/team-work/collaborators?limit=1', as('carol'));
      expect(paged.body).toHaveLength(1);
      expect(paged.headers.get('x-total-count')).toBe('2');

      const own = await call('GET', '/repos/uma/team-work/collaborators/carol/permission', as('carol'));
      expect(own).toMatchObject({ status: 200, body: { permission: 'write', role_name: 'write', user: { login: 'carol' } } });
      expect(await call('GET', '/repos/uma/team-work/collaborators/carol/permission', as('dave'))).toMatchObject({ status: 403 });
      expect((await call('GET', '/repos/uma/team-work/collaborators/dave/permission', as('uma'))).body).toMatchObject({ permission: 'write' });
      expect((await call<ApiRepo>('GET', '/repos/uma/team-work', as('carol'))).body.permissions).toEqual({ admin: false, push: true, pull: true });

      expect(await call('PUT', '/repos/uma/team-work/collaborators/tom', as('carol'), { permission: 'read' })).toMatchObject({ status: 403 });
      expect((await call('DELETE', '/repos/uma/team-work/collaborators/carol', as('uma'))).status).toBe(204);
      // Removing someone who is no collaborator succeeds, as in Gitea; an unknown user is 422.
      expect((await call('DELETE', '/repos/uma/team-work/collaborators/carol', as('uma'))).status).toBe(204);
      expect((await call('DELETE', '/repos/uma/team-work/collaborators/no-such-user', as('uma'))).status).toBe(422);
      expect((await call('GET', '/repos/uma/team-work', as('carol'))).status).toBe(404);
      expect((await call('GET', '/repos/uma/team-work/collaborators/carol', as('uma'))).status).toBe(404);
      expect((await call('GET', '/repos/uma/team-work/collaborators')).status).toBe(401);
    });
  });

  describe('repository teams', () => {
    it('lists, checks, adds and removes teams of an organization repository', async () => {
      // Teams that include every repository (the Owners team) count as added, as Gitea links them to each new one.
      const listed = await call<ApiTeam[]>('GET', '/repos/priv-org/closed/teams', as('colin'));
      expect(listed.status).toBe(200);
      expect(listed.body.map((team) => team.name).sort()).toEqual(['Owners', 'devs']);
      expect(await call<ApiTeam>('GET', '/repos/priv-org/closed/teams/DEVS', as('alice'))).toMatchObject({ status: 200, body: { name: 'devs' } });
      expect((await call('GET', '/repos/priv-org/open/teams/devs', as('alice'))).status).toBe(404);
      expect((await call('PUT', '/repos/pub-org/open/teams/makers', as('alice'))).status).toBe(204);
      expect(await call('PUT', '/repos/pub-org/open/teams/makers', as('alice'))).toMatchObject({ status: 422, body: { message: "team 'makers' is already added to repo" } });
      expect((await call<ApiTeam[]>('GET', '/repos/pub-org/open/teams', as('carol'))).body.map((team) => team.name).sort()).toEqual(['Owners', 'makers']);
      expect((await call('PUT', '/repos/pub-org/open/teams/devs', as('tom'))).status).toBe(403);
      expect((await call('PUT', '/repos/pub-org/open/teams/nothing', as('alice'))).status).toBe(404);
      expect((await call('DELETE', '/repos/pub-org/open/teams/makers', as('alice'))).status).toBe(204);
      expect(await call('DELETE', '/repos/pub-org/open/teams/makers', as('alice'))).toMatchObject({ status: 422, body: { message: "team 'makers' was not added to repo" } });
      expect(await call('GET', '/repos/uma/pub/teams', as('uma'))).toMatchObject({ status: 405, body: { message: 'repo is not owned by an organization' } });
      expect((await call('GET', '/repos/pub-org/open/teams')).status).toBe(401);
    });
  });

  describe('topics', () => {
    it('replaces, adds, deletes, lists (paged) and searches topics', async () => {
      await createRepo('user', as('dave'), { name: 'topical' });
      expect((await call('PUT', '/repos/dave/topical/topics', as('dave'), { topics: ['Go', ' rust ', 'go'] })).status).toBe(204);
      expect((await call('PUT', '/repos/dave/topical/topics/web-dev', as('dave'))).status).toBe(204);
      const list = await call<{ topics: string[] }>('GET', '/repos/dave/topical/topics');
      expect(list).toMatchObject({ status: 200, body: { topics: ['go', 'rust', 'web-dev'] } });
      expect(list.headers.get('x-total-count')).toBe('3');
      const paged = await call<{ topics: string[] }>('GET', '/repos/dave/topical/topics?limit=1&page=2');
      expect(paged.body.topics).toEqual(['rust']);
      expect(paged.headers.get('x-total-count')).toBe('3');
      expect((await call('DELETE', '/repos/dave/topical/topics/go', as('dave'))).status).toBe(204);
      expect((await call('DELETE', '/repos/dave/topical/topics/go', as('dave'))).status).toBe(404);
      expect((await call<ApiRepo & { topics: string[] }>('GET', '/repos/dave/topical')).body.topics.sort()).toEqual(['rust', 'web-dev']);
      expect(await call('PUT', '/repos/dave/topical/topics', as('dave'), { topics: ['ok', 'Not Valid!'] })).toMatchObject({
        status: 422,
        body: { message: 'Topic names are invalid', invalidTopics: ['not valid!'] },
      });
      expect(await call('PUT', '/repos/dave/topical/topics/-bad', as('dave'))).toMatchObject({ status: 422, body: { message: 'Topic name is invalid', invalidTopics: '-bad' } });
      expect((await call('PUT', '/repos/dave/topical/topics', as('carol'), { topics: ['x'] })).status).toBe(403);
      const found = await call<{ topics: Array<{ topic_name: string; repo_count: number }> }>('GET', '/topics/search?q=ru');
      expect(found.status).toBe(200);
      expect(found.body.topics).toEqual([expect.objectContaining({ topic_name: 'rust', repo_count: 1 })]);
      expect((await call<{ data: ApiRepo[] }>('GET', '/repos/search?q=rust&topic=true')).body.data.map((repo) => repo.full_name)).toEqual(['dave/topical']);
    });
  });
});
