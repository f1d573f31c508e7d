/**
 * Who can be assigned, end to end through the gateway (Gitea's routers/api/v1/repo/issue.go CreateIssue, pull.go
 * CreatePullRequest, services/issue/assignee.go; models/perm/access/repo_permission.go CanBeAssigned: write on any
 * unit, or read on pull requests): an issue or pull request created or edited with an assignee who has no access
 * answers 422 `user doesn't have access to repo [user_id: N, repo_name: X]` and creates or assigns nothing; a write
 * collaborator is assigned (201); on a public repository anyone reads pull requests, so anyone can be assigned —
 * unless the pull requests unit is off.
 */
import type { ApiClient, ApiResponse } from './support/client';
import { startFixture, type Fixture } from './support/fixture';

jest.setTimeout(300_000);

interface ApiIssue {
  number: number;
  assignees: Array<{ login: string }> | null;
}

describe('assignees who can be assigned', () => {
  let fx: Fixture;
  let api: ApiClient;
  let peteId: number;

  const request = <T = unknown>(method: string, path: string, user: string, body?: unknown): Promise<ApiResponse<T>> =>
    api.request<T>(method, `/api/v1${path}`, { headers: fx.as(user), body });
  const noAccess = (repo: string) => ({ status: 422, body: { message: `user doesn't have access to repo [user_id: ${peteId}, repo_name: ${repo}]` } });
  const logins = (issue: ApiIssue) => (issue.assignees ?? []).map((user) => user.login);

  /** How many issues and pull requests `repo` has. */
  async function count(repo: string, type: 'issues' | 'pulls'): Promise<number> {
    const res = await request(`GET`, `/repos/${repo}/issues?state=all&type=${type}`, 'olivia');
    expect(res.status).toBe(200);
    return Number(res.headers.get('x-total-count'));
  }

  beforeAll(async () => {
    // olivia owns both repositories; wendy writes the private one; pete is a stranger to it.
    fx = await startFixture('e2e_issue_assignees', ['olivia', 'wendy', 'pete']);
    api = fx.api;
    for (const [name, isPrivate] of [
      ['priv', true],
      ['pub', false],
      ['nopulls', false],
    ] as const) {
      const res = await request('POST', '/user/repos', 'olivia', { name, private: isPrivate, auto_init: true });
      expect([name, res.status]).toEqual([name, 201]);
      const branch = await request('POST', `/repos/olivia/${name}/contents/feature.txt`, 'olivia', { content: Buffer.from('feature\n').toString('base64'), new_branch: 'feature' });
      expect([name, branch.status]).toEqual([name, 201]);
    }
    expect((await request('PUT', '/repos/olivia/priv/collaborators/wendy', 'olivia', { permission: 'write' })).status).toBe(204);
    expect((await request('PATCH', '/repos/olivia/nopulls', 'olivia', { has_pull_requests: false })).status).toBe(200);
    peteId = (await request<{ id: number }>('GET', '/users/pete', 'olivia')).body.id;
  });
  afterAll(async () => {
    await fx?.stop();
  });

  test('creating an issue assigned to a user without access is 422, and creates nothing', async () => {
    expect(await request('POST', '/repos/olivia/priv/issues', 'olivia', { title: 'Hidden work', assignees: ['pete'] })).toMatchObject(noAccess('priv'));
    // The deprecated single `assignee` is checked as well.
    expect(await request('POST', '/repos/olivia/priv/issues', 'olivia', { title: 'Hidden work', assignee: 'pete' })).toMatchObject(noAccess('priv'));
    expect(await request('POST', '/repos/olivia/priv/issues', 'olivia', { title: 'Hidden work', assignees: ['wendy', 'pete'] })).toMatchObject(noAccess('priv'));
    expect(await count('olivia/priv', 'issues')).toBe(0);
  });

  test('a write collaborator is assigned: 201', async () => {
    const res = await request<ApiIssue>('POST', '/repos/olivia/priv/issues', 'olivia', { title: 'Shared work', assignees: ['wendy'] });
    expect(res.status).toBe(201);
    expect(logins(res.body)).toEqual(['wendy']);
  });

  test('editing an issue to assign a user without access is 422, and changes nothing', async () => {
    const created = await request<ApiIssue>('POST', '/repos/olivia/priv/issues', 'olivia', { title: 'Edited', assignees: ['wendy'] });
    expect(created.status).toBe(201);
    const path = `/repos/olivia/priv/issues/${created.body.number}`;
    expect(await request('PATCH', path, 'olivia', { assignees: ['wendy', 'pete'] })).toMatchObject(noAccess('priv'));
    expect(await request('PATCH', path, 'olivia', { assignee: 'pete' })).toMatchObject(noAccess('priv'));
    expect(logins((await request<ApiIssue>('GET', path, 'olivia')).body)).toEqual(['wendy']);
    const edited = await request<ApiIssue>('PATCH', path, 'olivia', { assignees: ['olivia'] });
    expect(edited.status).toBe(201);
    expect(logins(edited.body)).toEqual(['olivia']);
  });

  test('pull requests: created or edited with a user without access is 422; with a writer 201', async () => {
    const pull = { head: 'feature', base: 'main', title: 'Feature' };
    expect(await request('POST', '/repos/olivia/priv/pulls', 'olivia', { ...pull, assignees: ['pete'] })).toMatchObject(noAccess('priv'));
    expect(await count('olivia/priv', 'pulls')).toBe(0);
    const created = await request<ApiIssue>('POST', '/repos/olivia/priv/pulls', 'olivia', { ...pull, assignees: ['wendy'] });
    expect(created.status).toBe(201);
    expect(logins(created.body)).toEqual(['wendy']);
    const path = `/repos/olivia/priv/pulls/${created.body.number}`;
    expect(await request('PATCH', path, 'olivia', { assignees: ['pete'] })).toMatchObject(noAccess('priv'));
    expect(logins((await request<ApiIssue>('GET', path, 'olivia')).body)).toEqual(['wendy']);
  });

  test('on a public repository reading pull requests is enough, unless the pull requests unit is off', async () => {
    const issue = await request<ApiIssue>('POST', '/repos/olivia/pub/issues', 'olivia', { title: 'Anyone', assignees: ['pete'] });
    expect(issue.status).toBe(201);
    expect(logins(issue.body)).toEqual(['pete']);
    const pull = await request<ApiIssue>('POST', '/repos/olivia/pub/pulls', 'olivia', { head: 'feature', base: 'main', title: 'Feature', assignees: ['pete'] });
    expect(pull.status).toBe(201);
    expect(logins(pull.body)).toEqual(['pete']);

    // Reading issues alone does not make one assignable.
    expect(await request('POST', '/repos/olivia/nopulls/issues', 'olivia', { title: 'Issues only', assignees: ['pete'] })).toMatchObject(noAccess('nopulls'));
    expect(await count('olivia/nopulls', 'issues')).toBe(0);
  });
});
