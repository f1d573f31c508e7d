/**
 * Pull-request reviews end to end on the built supervisor, every API answer checked against Gitea's description: on
 * an organization's repository, a team asked to review (unknown teams 404), shown in the pull request's
 * requested_reviewers_teams and found by a member's review_requested search until a member approves; a review
 * comment keeping Gitea's diff_hunk and html_url; resolving and unresolving its conversation (403 for someone who
 * may not); official reviews under the base branch rule's approvals allow list; and `team_reviewers` when creating
 * a pull request (unknown 404, a private repository's team without access 422, ignored on a user's repository).
 */
import { type Pull, type PullWork, pullWork } from './support/pull-work';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

interface ApiTeam {
  id: number;
  name: string;
}
interface Review {
  id: number;
  state: string;
  official: boolean;
  html_url: string;
  pull_request_url: string;
  user: { login: string } | null;
  team: ApiTeam | null;
}
interface ReviewComment {
  id: number;
  path: string;
  position: number;
  diff_hunk: string;
  html_url: string;
  pull_request_url: string;
  resolver: { login: string } | null;
}
interface PullWithTeams extends Pull {
  requested_reviewers_teams: ApiTeam[];
}

describe('pull-request reviews', () => {
  let fixture: Fixture;
  let w: PullWork;
  let pull: Pull;
  let teamId = 0;

  const alice = () => fixture.as('alice');
  const bob = () => fixture.as('bob');
  const carol = () => fixture.as('carol');
  const dave = () => fixture.as('dave');
  const call: PullWork['call'] = (...args) => w.call(...args);
  const pullPath = () => `/repos/acme/app/pulls/${pull.number}`;

  beforeAll(async () => {
    fixture = await startFixture('e2e_pull_reviews', ['alice', 'bob', 'carol', 'dave']);
    w = await pullWork(fixture);
    expect((await call('POST', '/orgs', alice(), { username: 'acme', email: 'acme@example.com', visibility: 'public' })).status).toBe(201);
    const team = await call<ApiTeam>('POST', '/orgs/acme/teams', alice(), { name: 'reviewers', units_map: { 'repo.code': 'write', 'repo.pulls': 'write' } });
    expect(team.status).toBe(201);
    teamId = team.body.id;
    expect((await call('PUT', `/teams/${teamId}/members/bob`, alice())).status).toBe(204);
    expect((await call('POST', '/orgs/acme/repos', alice(), { name: 'app', auto_init: true })).status).toBe(201);
    expect((await call('PUT', `/teams/${teamId}/repos/acme/app`, alice())).status).toBe(204);
    expect((await call('PUT', '/repos/acme/app/collaborators/dave', alice(), { permission: 'write' })).status).toBe(204);
    const work = await w.clone('acme/app', 'alice', 'alice');
    await w.pushBranch(work, 'feature', 'f.txt', 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n');
    const created = await w.createPull('acme/app', 'feature', 'Count to eight', alice());
    pull = await w.settled('acme/app', created.number, alice(), (p) => p.mergeable);
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  it('asks a team to review until a member approves; review_requested finds it for the members', async () => {
    const unknown = await call('POST', `${pullPath()}/requested_reviewers`, alice(), { team_reviewers: ['nobody'] });
    expect(unknown.status).toBe(404);
    const asked = await call<Review[]>('POST', `${pullPath()}/requested_reviewers`, alice(), { team_reviewers: ['Reviewers'] });
    expect(asked.status).toBe(201);
    expect(asked.body).toMatchObject([{ state: 'REQUEST_REVIEW', user: null, team: { id: teamId, name: 'reviewers' } }]);
    const shown = await call<PullWithTeams>('GET', pullPath(), alice());
    expect(shown.body.requested_reviewers_teams.map((team) => team.name)).toEqual(['reviewers']);

    const requestedOf = async (headers: Record<string, string>): Promise<number[]> =>
      (await call<Array<{ number: number }>>('GET', '/repos/issues/search?type=pulls&review_requested=true', headers)).body.map((issue) => issue.number);
    expect(await requestedOf(bob())).toEqual([pull.number]);
    expect(await requestedOf(carol())).toEqual([]);

    const approved = await call<Review>('POST', `${pullPath()}/reviews`, bob(), { event: 'APPROVED', body: 'fine by the team' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ state: 'APPROVED', official: true, user: { login: 'bob' }, team: null });
    expect(approved.body.html_url).toMatch(new RegExp(`/acme/app/pulls/${pull.number}#issuecomment-\\d+$`));
    expect(approved.body.pull_request_url).toMatch(new RegExp(`/acme/app/pulls/${pull.number}$`));
    expect((await call<PullWithTeams>('GET', pullPath(), alice())).body.requested_reviewers_teams).toEqual([]);
    expect(await requestedOf(bob())).toEqual([]);

    // Asked again, then the request is cancelled.
    expect((await call<Review[]>('POST', `${pullPath()}/requested_reviewers`, alice(), { team_reviewers: ['reviewers'] })).body).toHaveLength(1);
    expect((await call('DELETE', `${pullPath()}/requested_reviewers`, alice(), { team_reviewers: ['reviewers'] })).status).toBe(204);
    expect((await call<PullWithTeams>('GET', pullPath(), alice())).body.requested_reviewers_teams).toEqual([]);
  });

  it("keeps a review comment's diff hunk, and resolves and unresolves its conversation", async () => {
    const made = await call<Review>('POST', `${pullPath()}/reviews`, carol(), {
      event: 'COMMENT',
      body: '',
      comments: [{ path: 'f.txt', body: 'why seven?', new_position: 7 }],
    });
    expect(made.status).toBe(200);
    const comments = await call<ReviewComment[]>('GET', `${pullPath()}/reviews/${made.body.id}/comments`, carol());
    expect(comments.status).toBe(200);
    const [comment] = comments.body;
    expect(comment).toMatchObject({ path: 'f.txt', position: 7, diff_hunk: '@@ -0,0 +4,4 @@\n+four\n+five\n+six\n+seven', resolver: null });
    expect(comment.html_url).toMatch(new RegExp(`/acme/app/pulls/${pull.number}#issuecomment-${comment.id}$`));
    expect(comment.pull_request_url).toMatch(new RegExp(`/acme/app/pulls/${pull.number}$`));

    const resolve = (headers: Record<string, string>, action: 'resolve' | 'unresolve', id = comment.id) =>
      call('POST', `/repos/acme/app/pulls/comments/${id}/${action}`, headers);
    expect((await resolve(carol(), 'resolve')).status).toBe(403);
    expect((await resolve(alice(), 'resolve', 999_999)).status).toBe(404);
    expect((await resolve(alice(), 'resolve')).status).toBe(204);
    const resolverOf = async (): Promise<string | undefined> =>
      (await call<ReviewComment[]>('GET', `${pullPath()}/reviews/${made.body.id}/comments`, carol())).body[0].resolver?.login;
    expect(await resolverOf()).toBe('alice');
    expect((await resolve(dave(), 'unresolve')).status).toBe(204);
    expect(await resolverOf()).toBeUndefined();
  });

  it("counts approvals as official only for those on the base branch rule's approvals allow list", async () => {
    const rule = await call('POST', '/repos/acme/app/branch_protections', alice(), {
      rule_name: 'main',
      enable_push: true,
      enable_approvals_whitelist: true,
      approvals_whitelist_teams: ['reviewers'],
    });
    expect(rule.status).toBe(201);
    const byWriter = await call<Review>('POST', `${pullPath()}/reviews`, dave(), { event: 'APPROVED', body: '' });
    expect(byWriter.body).toMatchObject({ state: 'APPROVED', official: false });
    const byMember = await call<Review>('POST', `${pullPath()}/reviews`, bob(), { event: 'APPROVED', body: 'again' });
    expect(byMember.body).toMatchObject({ state: 'APPROVED', official: true });
  });

  it('asks users and teams named at creation; unknown users and teams 404, a private repository needs the team to reach it, a user repository ignores them', async () => {
    const work = await w.clone('acme/app', 'alice', 'alice-teams');
    await w.pushBranch(work, 'asked', 'asked.txt', 'teams\n');
    const create = (repo: string, head: string, more: Record<string, unknown>) =>
      call<PullWithTeams & { requested_reviewers: Array<{ login: string }> }>('POST', `/repos/${repo}/pulls`, alice(), { head, base: 'main', title: head, ...more });

    const unknown = await create('acme/app', 'asked', { team_reviewers: ['reviewers', 'nobody'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ message: "Team 'nobody' not exist" });
    // Users as on `…/requested_reviewers` (parseReviewersByNames): an unknown one is 404 and nothing is created.
    const pullCount = async () => (await call<unknown[]>('GET', '/repos/acme/app/pulls?state=all', alice())).body.length;
    const before = await pullCount();
    const nobody = await create('acme/app', 'asked', { reviewers: ['dave', 'ghost-reviewer'] });
    expect(nobody.status).toBe(404);
    expect(nobody.body).toMatchObject({ message: "User 'ghost-reviewer' not exist" });
    expect(await pullCount()).toBe(before);
    // …and one named by e-mail address is found.
    const made = await create('acme/app', 'asked', { reviewers: ['DAVE@example.com'], team_reviewers: ['Reviewers'] });
    expect(made.status).toBe(201);
    expect(made.body.requested_reviewers.map((user) => user.login)).toEqual(['dave']);
    expect(made.body.requested_reviewers_teams.map((team) => [team.id, team.name])).toEqual([[teamId, 'reviewers']]);
    const reviews = await call<Review[]>('GET', `/repos/acme/app/pulls/${made.body.number}/reviews`, alice());
    expect(reviews.body.filter((review) => review.team !== null)).toMatchObject([{ state: 'REQUEST_REVIEW', user: null, team: { id: teamId } }]);

    // A private repository the team does not reach: refused, nothing created.
    expect((await call('POST', '/orgs/acme/repos', alice(), { name: 'vault', private: true, auto_init: true })).status).toBe(201);
    const vault = await w.clone('acme/vault', 'alice', 'alice-vault');
    await w.pushBranch(vault, 'asked', 'asked.txt', 'teams\n');
    const refused = await create('acme/vault', 'asked', { team_reviewers: ['reviewers'] });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ message: expect.stringMatching(/^Reviewing team can't read repo/) });
    expect((await call<unknown[]>('GET', '/repos/acme/vault/pulls?state=all', alice())).body).toEqual([]);
    expect((await call('PUT', `/teams/${teamId}/repos/acme/vault`, alice())).status).toBe(204);
    const reached = await create('acme/vault', 'asked', { team_reviewers: ['reviewers'] });
    expect(reached.status).toBe(201);
    expect(reached.body.requested_reviewers_teams.map((team) => team.name)).toEqual(['reviewers']);

    // A user's repository ignores team reviewers (as Gitea), unknown names included.
    expect((await call('POST', '/user/repos', alice(), { name: 'solo', auto_init: true })).status).toBe(201);
    const solo = await w.clone('alice/solo', 'alice', 'alice-solo');
    await w.pushBranch(solo, 'asked', 'asked.txt', 'teams\n');
    const ignored = await create('alice/solo', 'asked', { team_reviewers: ['nobody'] });
    expect(ignored.status).toBe(201);
    expect(ignored.body.requested_reviewers_teams).toEqual([]);
  });
});
