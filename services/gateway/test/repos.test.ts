/**
 * The repository context and the repository routes over HTTP with repos faked: the `{owner}/{repo}` step (301 from
 * a former name, 404 when hidden or the unit is off, 403 by level, 423 from repos' archive refusal), what the routes
 * send to repos, and Gitea's JSON for what comes back — one batch per kind of hydration.
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { CairnError } from '@cairn/rpc';
import { expectExactGiteaShape, giteaApi } from './support/gitea-schema';
import { FakeAccounts } from './support/fake-accounts';
import { FakeRepos, permission, repository } from './support/fake-repos';
import { type TestGateway, basic, jsonBody, startTestGateway, tokenAuth } from './support/harness';

const ROOT_URL = 'http://localhost:3000/';
const URL_KEY = `${ROOT_URL}api/swagger`;

describe('repository context and routes', () => {
  const accounts = new FakeAccounts();
  const repos = new FakeRepos();
  accounts.clients.repos = repos.client;
  accounts.clients.stars = repos.stars;
  accounts.clients.issues = repos.issues;
  const alice = accounts.addUser('alice', { password: 'alice-password' });
  const bob = accounts.addUser('bob', { password: 'bob-password' });
  const carol = accounts.addUser('carol', { password: 'carol-password' });
  const ALICE = basic('alice', 'alice-password');
  const BOB = basic('bob', 'bob-password');
  const CAROL = basic('carol', 'carol-password');
  const alicePublicOnly = tokenAuth(accounts.addToken(alice.id, 'public', ['public-only', 'write:repository']).secret);
  const aliceUserOnly = tokenAuth(accounts.addToken(alice.id, 'user', ['write:user']).secret);

  /** alice owns; bob reads; carol writes; anonymous reads public repositories only. */
  const byName = (viewer: Actor | undefined, isPrivate: boolean) => {
    if (viewer?.userId === alice.id) return permission('owner');
    if (viewer?.userId === carol.id) return permission('write');
    if (viewer?.userId === bob.id) return permission('read');
    return isPrivate ? undefined : permission('read');
  };
  const demo = repos.add(repository(10, 'alice', 'demo', { ownerId: alice.id, description: 'the demo' }), (v) => byName(v, false));
  const secret = repos.add(repository(11, 'alice', 'secret', { ownerId: alice.id, private: true }), (v) => byName(v, true));
  const noCode = repos.add(
    repository(12, 'alice', 'nocode', { ownerId: alice.id, units: [{ key: 'repo.issues' }] }),
    (v) => (v?.userId === alice.id ? permission('owner', ['repo.issues']) : permission('read', ['repo.issues'])),
  );
  repos.addRedirect('alice', 'old-demo', { owner: 'alice', name: 'demo' });
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ accounts });
  });
  afterAll(() => gw.close());
  beforeEach(() => {
    repos.reset();
    accounts.requests.batchGetUsers = [];
  });

  async function get(path: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: unknown }> {
    const res = await gw.fetch(path, { redirect: 'manual', ...init });
    const text = await res.text();
    const body: unknown = (res.headers.get('content-type') ?? '').includes('json') && text !== '' ? JSON.parse(text) : text;
    if (path.startsWith('/api/v1/')) giteaApi.expectResponse({ method: init.method ?? 'GET', path, status: res.status, body: body === '' ? undefined : body });
    return { status: res.status, headers: res.headers, body };
  }

  describe('GET /repos/{owner}/{repo}', () => {
    it("answers Gitea's Repository with one GetRepository, one BatchGetUsers, one GetRepoCounters and one GetRepoIssueCounters", async () => {
      repos.counters.set(demo.id, { stars: 3, watchers: 2 });
      repos.issueCounters.set(demo.id, { openIssues: 5, openPulls: 1 });
      const res = await get('/api/v1/repos/alice/demo', { headers: { Authorization: BOB } });
      expect(res.status).toBe(200);
      expectExactGiteaShape('Repository', res.body);
      expect(res.body).toMatchObject({
        id: 10,
        name: 'demo',
        full_name: 'alice/demo',
        description: 'the demo',
        owner: { id: alice.id, login: 'alice' },
        html_url: `${ROOT_URL}alice/demo`,
        clone_url: `${ROOT_URL}alice/demo.git`,
        url: `${ROOT_URL}api/v1/repos/alice/demo`,
        ssh_url: '',
        stars_count: 3,
        watchers_count: 2,
        open_issues_count: 5,
        open_pr_counter: 1,
        permissions: { admin: false, push: false, pull: true },
        has_code: true,
        has_issues: true,
        internal_tracker: { enable_time_tracker: true, allow_only_contributors_to_track_time: true, enable_issue_dependencies: true },
        archived_at: '1970-01-01T00:00:00Z',
        mirror_updated: '0001-01-01T00:00:00Z',
      });
      expect(res.body).not.toHaveProperty('parent');
      expect(res.body).not.toHaveProperty('repo_transfer');
      expect(repos.calls('getRepository')).toEqual([{ viewer: { userId: bob.id, isAdmin: false, isRestricted: false }, id: 0, owner: 'alice', name: 'demo' }]);
      expect(accounts.requests.batchGetUsers).toHaveLength(1);
      expect(repos.calls('getRepoCounters')).toEqual([{ repoIds: [10] }]);
      expect(repos.calls('getRepoIssueCounters')).toEqual([{ repoIds: [10] }]);
      expect(repos.calls('batchGetRepositories')).toEqual([]);
    });

    it('reads a name ending in .git as the repository', async () => {
      const res = await get('/api/v1/repos/alice/demo.git');
      expect(res.status).toBe(200);
      expect(repos.calls('getRepository')).toEqual([{ viewer: undefined, id: 0, owner: 'alice', name: 'demo' }]);
    });

    it('answers 301 from a former name to the current one, path and query kept', async () => {
      let res = await get('/api/v1/repos/alice/old-demo?limit=1&page=2');
      expect(res.status).toBe(301);
      expect(res.headers.get('location')).toBe('/api/v1/repos/alice/demo?limit=1&page=2');
      res = await get('/api/v1/repos/alice/old-demo/topics', { method: 'PUT', headers: { Authorization: ALICE } });
      expect(res.status).toBe(301);
      expect(res.headers.get('location')).toBe('/api/v1/repos/alice/demo/topics');
      res = await get('/api/v1/repos/Alice/OLD-DEMO.git');
      expect(res.headers.get('location')).toBe('/api/v1/repos/alice/demo.git');
    });

    it('answers 404 for a repository the caller may not read, exactly as for one that does not exist', async () => {
      const hidden = await get('/api/v1/repos/alice/secret');
      const missing = await get('/api/v1/repos/alice/nothing-here');
      expect(hidden).toMatchObject({ status: 404, body: { errors: null, message: 'not found', url: URL_KEY } });
      expect(missing.body).toEqual(hidden.body);
      expect((await get('/api/v1/repos/alice/secret', { headers: { Authorization: BOB } })).status).toBe(200);
    });

    it('refuses a public-only token on a private repository, and a token without the repository scope', async () => {
      expect(await get('/api/v1/repos/alice/secret', { headers: { Authorization: alicePublicOnly } })).toMatchObject({
        status: 403,
        body: { message: 'token scope is limited to public repos' },
      });
      expect((await get('/api/v1/repos/alice/demo', { headers: { Authorization: alicePublicOnly } })).status).toBe(200);
      expect((await get('/api/v1/repos/alice/demo', { headers: { Authorization: aliceUserOnly } })).status).toBe(403);
      expect(repos.calls('getRepository')).toHaveLength(2);
    });
  });

  describe('PATCH and DELETE /repos/{owner}/{repo}', () => {
    it("checks the level before binding the body, with Gitea's messages", async () => {
      let res = await get('/api/v1/repos/alice/demo', jsonBody('PATCH', { name: 'bad name!' }, { Authorization: CAROL }));
      expect(res).toMatchObject({ status: 403, body: { message: 'user should be an owner or a collaborator with admin write of a repository', url: URL_KEY } });
      res = await get('/api/v1/repos/alice/demo', { method: 'DELETE', headers: { Authorization: CAROL } });
      expect(res).toMatchObject({ status: 403, body: { message: 'user should be the owner of the repo' } });
      res = await get('/api/v1/repos/alice/demo', jsonBody('PATCH', { name: 'bad name!' }, { Authorization: ALICE }));
      expect(res).toMatchObject({ status: 422, body: { message: '[Name]: AlphaDashDot' } });
      expect(repos.calls('updateRepository')).toEqual([]);
      expect(repos.calls('deleteRepository')).toEqual([]);
    });

    it('asks for a token before looking the repository up', async () => {
      const res = await get('/api/v1/repos/alice/secret', { method: 'DELETE' });
      expect(res).toMatchObject({ status: 401, body: { message: 'token is required' } });
      expect(repos.calls('getRepository')).toEqual([]);
    });

    it('sends the edit as UpdateRepository fields and answers the updated repository', async () => {
      repos.answers.updateRepository = async () => ({ repository: { repository: { ...demo, name: 'renamed' }, permission: permission('owner') } });
      const res = await get(
        '/api/v1/repos/alice/demo',
        jsonBody('PATCH', { name: 'renamed', has_wiki: false, has_pull_requests: true, allow_squash_merge: false, archived: true }, { Authorization: ALICE }),
      );
      expect(res).toMatchObject({ status: 200, body: { name: 'renamed', permissions: { admin: true, push: true, pull: true } } });
      expect(repos.calls('updateRepository')).toEqual([
        expect.objectContaining({
          id: 10,
          name: 'renamed',
          archived: true,
          units: { 'repo.wiki': false, 'repo.pulls': true },
          allowSquashMerge: false,
          allowMergeCommits: undefined,
        }),
      ]);
    });

    it('answers 423 when repos refuses a write to an archived repository, and 422 for a taken name', async () => {
      repos.answers.updateRepository = async () => {
        throw CairnError.precondition('alice/demo is archived', { reason: 'repo_archived' });
      };
      let res = await get('/api/v1/repos/alice/demo', jsonBody('PATCH', { description: 'x' }, { Authorization: ALICE }));
      expect(res).toMatchObject({ status: 423, body: { message: 'alice/demo is archived', url: URL_KEY } });
      repos.answers.updateRepository = async () => {
        throw CairnError.exists('repo name is already taken [name: secret]');
      };
      res = await get('/api/v1/repos/alice/demo', jsonBody('PATCH', { name: 'secret' }, { Authorization: ALICE }));
      expect(res).toMatchObject({ status: 422, body: { message: 'repo name is already taken [name: secret]' } });
    });

    it('deletes with 204', async () => {
      repos.answers.deleteRepository = async () => ({});
      const res = await get('/api/v1/repos/alice/demo', { method: 'DELETE', headers: { Authorization: ALICE } });
      expect(res.status).toBe(204);
      expect(repos.calls('deleteRepository')).toEqual([{ actor: { userId: alice.id, isAdmin: false, isRestricted: false }, id: 10 }]);
    });
  });

  describe('units', () => {
    it('answers 404 on a route of a unit the repository has switched off', async () => {
      const res = await get('/api/v1/repos/alice/nocode/forks', jsonBody('POST', {}, { Authorization: ALICE }));
      expect(res).toMatchObject({ status: 404, body: { errors: null, message: 'not found' } });
      expect(repos.calls('forkRepository')).toEqual([]);
    });

    it('reports the switched-off units as has_* false', async () => {
      const res = await get(`/api/v1/repos/alice/${noCode.name}`);
      expect(res.body).toMatchObject({ has_code: false, has_issues: true, has_wiki: false, has_pull_requests: false, permissions: { pull: false } });
    });
  });

  describe('forks and parents', () => {
    it('forks with 202 and shows the base as parent, fetched in one BatchGetRepositories', async () => {
      const fork = repository(20, 'bob', 'demo', { ownerId: bob.id, fork: true, parentId: demo.id });
      repos.answers.forkRepository = async () => ({ repository: { repository: fork, permission: permission('owner') } });
      const res = await get('/api/v1/repos/alice/demo/forks', jsonBody('POST', { name: 'demo' }, { Authorization: BOB }));
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ id: 20, fork: true, owner: { login: 'bob' }, parent: { id: 10, full_name: 'alice/demo', permissions: { pull: true } } });
      expect(repos.calls('forkRepository')).toEqual([expect.objectContaining({ id: 10, organization: '', name: 'demo' })]);
      expect(repos.calls('batchGetRepositories')).toEqual([{ viewer: { userId: bob.id, isAdmin: false, isRestricted: false }, ids: [10] }]);
      expect(repos.calls('getRepoCounters')).toEqual([{ repoIds: [20, 10] }]);
    });

    it('leaves out a parent the caller may not read', async () => {
      const fork = repository(21, 'bob', 'secret', { ownerId: bob.id, fork: true, parentId: secret.id });
      repos.answers.listForks = async () => ({ repositories: [{ repository: fork, permission: permission('read') }], total: 7 });
      const res = await get('/api/v1/repos/alice/demo/forks?limit=1');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([expect.not.objectContaining({ parent: expect.anything() })]);
      expect(res.headers.get('x-total-count')).toBe('7');
      expect(res.headers.get('link')).toContain('rel="next"');
    });
  });

  describe('GET /repositories/{id}', () => {
    it('answers the repository by id, and 404 for a hidden or malformed one', async () => {
      expect((await get('/api/v1/repositories/10', { headers: { Authorization: BOB } })).body).toMatchObject({ id: 10 });
      expect(await get('/api/v1/repositories/11', { headers: { Authorization: CAROL } })).toMatchObject({ status: 200 });
      const notFound = await get('/api/v1/repositories/99', { headers: { Authorization: BOB } });
      expect(notFound).toMatchObject({ status: 404, body: { errors: null, message: 'not found' } });
      expect((await get('/api/v1/repositories/abc', { headers: { Authorization: BOB } })).status).toBe(404);
    });
  });

  describe('GET /repos/search', () => {
    it('reads the query as Gitea does and answers {ok, data} with paging headers', async () => {
      repos.starred.set(bob.id, [10, 12]);
      repos.answers.searchRepositories = async () => ({ repositories: [{ repository: demo, permission: permission('read') }], total: 3 });
      const res = await get(
        `/api/v1/repos/search?q=%20de%20&includeDesc=1&uid=${alice.id}&starredBy=${bob.id}&template=false&mode=source&sort=alpha&limit=1&page=2`,
        { headers: { Authorization: BOB } },
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: true, data: [{ id: 10 }] });
      expect(res.headers.get('x-total-count')).toBe('3');
      expect(res.headers.get('link')).toContain('rel="prev"');
      expect(repos.calls('searchRepositories')).toEqual([
        {
          viewer: { userId: bob.id, isAdmin: false, isRestricted: false },
          page: { page: 2, limit: 1 },
          keyword: 'de',
          includeDescription: true,
          ownerId: alice.id,
          exclusive: false,
          isPrivate: undefined,
          template: false,
          archived: undefined,
          mode: 'source',
          sort: 'alpha',
          order: '',
          topic: false,
          teamId: 0,
          publicOnly: false,
          onlyIds: [10, 12],
          restrictToIds: true,
        },
      ]);
    });

    it('searches public repositories only for anonymous callers and with private=false', async () => {
      repos.answers.searchRepositories = async () => ({ repositories: [], total: 0 });
      await get('/api/v1/repos/search?is_private=true');
      await get('/api/v1/repos/search?private=false', { headers: { Authorization: BOB } });
      expect(repos.calls('searchRepositories').map((call) => (call as { isPrivate?: boolean }).isPrivate)).toEqual([false, false]);
    });
  });

  describe('topics', () => {
    it("answers repos' refusals with Gitea's own 422 bodies", async () => {
      const topics = accounts.clients.topics;
      accounts.clients.topics = {
        ...topics,
        replaceTopics: async () => {
          throw CairnError.invalid('Topic names are invalid: ["Bad Name","x,y"]', { reason: 'topics_invalid' });
        },
        addTopic: async () => {
          throw CairnError.invalid('Topic name is invalid', { reason: 'topic_invalid' });
        },
        deleteTopic: async () => {
          throw CairnError.notFound('topic is not exist [name: go]', { reason: 'topic_not_found' });
        },
      };
      try {
        let res = await get('/api/v1/repos/alice/demo/topics', jsonBody('PUT', { topics: ['Bad Name', 'x,y'] }, { Authorization: ALICE }));
        expect(res).toEqual({ status: 422, headers: expect.anything(), body: { invalidTopics: ['Bad Name', 'x,y'], message: 'Topic names are invalid' } });
        res = await get('/api/v1/repos/alice/demo/topics/%20BAD!', { method: 'PUT', headers: { Authorization: ALICE } });
        expect(res.body).toEqual({ invalidTopics: 'bad!', message: 'Topic name is invalid' });
        res = await get('/api/v1/repos/alice/demo/topics/go', { method: 'DELETE', headers: { Authorization: ALICE } });
        expect(res).toMatchObject({ status: 404, body: { errors: null, message: 'not found' } });
      } finally {
        accounts.clients.topics = topics;
      }
    });
  });

  describe('teams', () => {
    it("answers 405 on a user's repository", async () => {
      const res = await get('/api/v1/repos/alice/demo/teams', { headers: { Authorization: BOB } });
      expect(res).toMatchObject({ status: 405, body: { message: 'repo is not owned by an organization' } });
    });
  });
});
