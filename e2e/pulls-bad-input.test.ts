/**
 * Bad input on this newer pull-request and issue routes (timeline, pins, update, auto-merge cancel, team
 * reviewers, resolving review comments): a clear 4xx with Gitea's `{message}` body, never a 5xx, and nothing moves.
 */
import { type Pull, type PullWork, demoRepository, pullWork } from './support/pull-work';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

describe('bad input on pull-request routes', () => {
  let fixture: Fixture;
  let w: PullWork;
  let work: string;
  let pull: Pull;
  const alice = () => fixture.as('alice');

  beforeAll(async () => {
    fixture = await startFixture('e2e_pulls_bad_input', ['alice', 'carol']);
    w = await pullWork(fixture);
    work = await demoRepository(w, fixture, ['carol']);
    await w.pushBranch(work, 'topic', 'topic.txt', 'topic\n');
    pull = await w.createPull('alice/demo', 'topic', 'Topic', alice());
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  const cases: Array<[string, string]> = [
    ['GET', '/repos/alice/demo/issues/abc/timeline'],
    ['GET', '/repos/alice/demo/issues/99999999/timeline'],
    ['GET', '/repos/alice/demo/issues/99999999999999999999999/timeline'],
    ['GET', '/repos/alice/demo/issues/1/timeline?since=not-a-date'],
    ['GET', '/repos/alice/demo/issues/1/timeline?before=%27%3B%20DROP%20TABLE%20issues%3B--'],
    ['POST', '/repos/alice/demo/issues/abc/pin'],
    ['POST', '/repos/alice/demo/issues/99999999/pin'],
    ['PATCH', '/repos/alice/demo/issues/1/pin/abc'],
    ['PATCH', '/repos/alice/demo/issues/1/pin/0'],
    ['PATCH', '/repos/alice/demo/issues/1/pin/99999999999999999999999'],
    ['DELETE', '/repos/alice/demo/issues/99999999/pin'],
    ['POST', '/repos/alice/demo/pulls/abc/update'],
    ['POST', '/repos/alice/demo/pulls/99999999/update'],
    ['DELETE', '/repos/alice/demo/pulls/abc/merge'],
    ['DELETE', '/repos/alice/demo/pulls/99999999/merge'],
    ['POST', '/repos/alice/demo/pulls/comments/abc/resolve'],
    ['POST', '/repos/alice/demo/pulls/comments/99999999/resolve'],
    ['POST', '/repos/alice/demo/pulls/comments/99999999/unresolve'],
  ];

  it.each(cases)('%s %s is a 4xx with a message', async (method, path) => {
    const answer = await w.call<{ message?: string }>(method, path, alice());
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(typeof answer.body?.message).toBe('string');
  });

  it('refuses wrongly typed bodies on merge, reviewers and creation, and changes nothing', async () => {
    const before = await w.branchHead('alice/demo', 'main', alice());
    const index = pull.number;
    const wrong: Array<[string, string, unknown]> = [
      ['POST', `/repos/alice/demo/pulls/${index}/merge`, { do: 'merge', merge_when_checks_succeed: 'yes' }],
      ['POST', `/repos/alice/demo/pulls/${index}/merge`, '{"do": "merge",'],
      ['POST', `/repos/alice/demo/pulls/${index}/requested_reviewers`, { team_reviewers: 'reviewers' }],
      ['POST', `/repos/alice/demo/pulls/${index}/requested_reviewers`, { team_reviewers: [42] }],
      ['POST', '/repos/alice/demo/pulls', { head: 'topic', base: 'main', title: 'x', team_reviewers: 'x' }],
      ['PATCH', `/repos/alice/demo/pulls/${index}`, { content_version: 'one' }],
    ];
    for (const [method, path, body] of wrong) {
      const answer = await w.call<{ message?: string }>(method, path, alice(), body);
      expect([method, path, answer.status >= 400 && answer.status < 500]).toEqual([method, path, true]);
      expect(typeof answer.body?.message).toBe('string');
    }
    // An update with an unknown style merges (Gitea: anything but "rebase"); the head is already up to date here.
    const update = await w.call<{ message?: string }>('POST', `/repos/alice/demo/pulls/${index}/update?style=%3Cscript%3E`, alice());
    expect(update.status).toBe(422);
    expect(await w.branchHead('alice/demo', 'main', alice())).toBe(before);
    const after = await w.call<Pull>('GET', `/repos/alice/demo/pulls/${index}`, alice());
    expect(after.body).toMatchObject({ state: 'open', merged: false, title: 'Topic' });
  });
});
