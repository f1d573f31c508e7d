/**
 * Bad input on this newer pull-request and issue routes (timeline, pins, update, auto-merge cancel, team
 * reviewers, resolving review comments): Gitea's status with its `{message}` body, never a 5xx, and nothing moves.
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

  // Gitea's statuses: an index or id that is not a number reads as 0, which names nothing (404); a malformed
  // `since`/`before` is 422 (routers/api/v1/utils.GetQueryBeforeSince). A pin position below 1 is a departure: 422
  // where Gitea's MovePin fails with 500 (docs/api.md).
  const cases: Array<[string, string, number]> = [
    ['GET', '/repos/alice/demo/issues/abc/timeline', 404],
    ['GET', '/repos/alice/demo/issues/99999999/timeline', 404],
    ['GET', '/repos/alice/demo/issues/99999999999999999999999/timeline', 404],
    ['GET', '/repos/alice/demo/issues/1/timeline?since=not-a-date', 422],
    ['GET', '/repos/alice/demo/issues/1/timeline?before=%27%3B%20DROP%20TABLE%20issues%3B--', 422],
    ['POST', '/repos/alice/demo/issues/abc/pin', 404],
    ['POST', '/repos/alice/demo/issues/99999999/pin', 404],
    ['PATCH', '/repos/alice/demo/issues/1/pin/abc', 422],
    ['PATCH', '/repos/alice/demo/issues/1/pin/0', 422],
    ['PATCH', '/repos/alice/demo/issues/1/pin/99999999999999999999999', 422],
    ['DELETE', '/repos/alice/demo/issues/99999999/pin', 404],
    ['POST', '/repos/alice/demo/pulls/abc/update', 404],
    ['POST', '/repos/alice/demo/pulls/99999999/update', 404],
    ['DELETE', '/repos/alice/demo/pulls/abc/merge', 404],
    ['DELETE', '/repos/alice/demo/pulls/99999999/merge', 404],
    ['POST', '/repos/alice/demo/pulls/comments/abc/resolve', 404],
    ['POST', '/repos/alice/demo/pulls/comments/99999999/resolve', 404],
    ['POST', '/repos/alice/demo/pulls/comments/99999999/unresolve', 404],
  ];

  it.each(cases)('%s %s is a %d with a message', async (method, path, status) => {
    const answer = await w.call<{ message?: string }>(method, path, alice());
    expect(answer.status).toBe(status);
    expect(typeof answer.body?.message).toBe('string');
  });

  it('refuses wrongly typed bodies on merge, reviewers and creation, and changes nothing', async () => {
    const before = await w.branchHead('alice/demo', 'main', alice());
    const index = pull.number;
    // A wrongly typed field is Gitea's binding error, 422; a body that is not JSON is Cairn's 400 (a departure:
    // Gitea's binding answers 422, docs/api.md).
    const wrong: Array<[string, string, unknown, number]> = [
      ['POST', `/repos/alice/demo/pulls/${index}/merge`, { do: 'merge', merge_when_checks_succeed: 'yes' }, 422],
      ['POST', `/repos/alice/demo/pulls/${index}/merge`, '{"do": "merge",', 400],
      ['POST', `/repos/alice/demo/pulls/${index}/requested_reviewers`, { team_reviewers: 'reviewers' }, 422],
      ['POST', `/repos/alice/demo/pulls/${index}/requested_reviewers`, { team_reviewers: [42] }, 422],
      ['POST', '/repos/alice/demo/pulls', { head: 'topic', base: 'main', title: 'x', team_reviewers: 'x' }, 422],
      ['PATCH', `/repos/alice/demo/pulls/${index}`, { content_version: 'one' }, 422],
    ];
    for (const [method, path, body, status] of wrong) {
      const answer = await w.call<{ message?: string }>(method, path, alice(), body);
      expect([method, path, answer.status]).toEqual([method, path, status]);
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
