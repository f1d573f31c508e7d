/**
 * Pinned issues and pull requests end to end on the built supervisor, every answer checked against Gitea's
 * description: pinning issues up to `[repository.issue] MAX_PINNED` (3) and Gitea's refusal past it, the issue's
 * pin_order, moving a pin, the pinned lists in order (`/pulls/pinned` not taken for a pull request's number),
 * new_pin_allowed, unpinning, and who may do it (repository admins: a reader gets Gitea's reqAdmin 403, an
 * anonymous caller 401).
 */
import { type Pull, type PullWork, pullWork } from './support/pull-work';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

interface PinnedIssue {
  number: number;
  title: string;
  pin_order: number;
}
interface PinnedPull {
  number: number;
  pin_order: number;
  head: { ref: string };
  additions?: number;
}
interface PinsAllowed {
  issues: boolean;
  pull_requests: boolean;
}

const ADMIN_MESSAGE = 'user should be an owner or a collaborator with admin write of a repository';

describe('pinned issues and pull requests', () => {
  let fixture: Fixture;
  let w: PullWork;
  const issues: number[] = [];

  const alice = () => fixture.as('alice');
  const bob = () => fixture.as('bob');
  const call: PullWork['call'] = (...args) => w.call(...args);
  const pinned = async (): Promise<Array<[number, number]>> => {
    const res = await call<PinnedIssue[]>('GET', '/repos/alice/demo/issues/pinned', alice());
    expect(res.status).toBe(200);
    return res.body.map((issue) => [issue.number, issue.pin_order]);
  };

  beforeAll(async () => {
    fixture = await startFixture('e2e_pins', ['alice', 'bob']);
    w = await pullWork(fixture);
    expect((await call('POST', '/user/repos', alice(), { name: 'demo', auto_init: true })).status).toBe(201);
    for (const title of ['first', 'second', 'third', 'fourth']) {
      const res = await call<PinnedIssue>('POST', '/repos/alice/demo/issues', alice(), { title });
      expect(res.status).toBe(201);
      expect(res.body.pin_order).toBe(0);
      issues.push(res.body.number);
    }
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  it('pins issues in order up to MAX_PINNED, and refuses one more with Gitea\'s 400', async () => {
    const [first, second, third, fourth] = issues;
    for (const index of [first, second, third]) {
      expect((await call('POST', `/repos/alice/demo/issues/${index}/pin`, alice())).status).toBe(204);
    }
    // Pinning a pinned issue changes nothing.
    expect((await call('POST', `/repos/alice/demo/issues/${second}/pin`, alice())).status).toBe(204);
    expect(await pinned()).toEqual([
      [first, 1],
      [second, 2],
      [third, 3],
    ]);
    const one = await call<PinnedIssue>('GET', `/repos/alice/demo/issues/${second}`, alice());
    expect(one.body.pin_order).toBe(2);

    const refused = await call<{ message: string }>('POST', `/repos/alice/demo/issues/${fourth}/pin`, alice());
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('the max number of pinned issues has been readched');
    const allowed = await call<PinsAllowed>('GET', '/repos/alice/demo/new_pin_allowed', alice());
    expect(allowed).toMatchObject({ status: 200, body: { issues: false, pull_requests: true } });
    expect((await call('POST', '/repos/alice/demo/issues/999/pin', alice())).status).toBe(404);
  });

  it('refuses a reader with Gitea\'s reqAdmin 403 and an anonymous caller with 401, but shows them the pins', async () => {
    const [first, , , fourth] = issues;
    for (const [method, path] of [
      ['POST', `/repos/alice/demo/issues/${fourth}/pin`],
      ['DELETE', `/repos/alice/demo/issues/${first}/pin`],
      ['PATCH', `/repos/alice/demo/issues/${first}/pin/2`],
    ] as const) {
      const res = await call<{ message: string }>(method, path, bob());
      expect({ method, status: res.status, message: res.body.message }).toEqual({ method, status: 403, message: ADMIN_MESSAGE });
      expect((await call(method, path)).status).toBe(401);
    }
    const read = await call<PinnedIssue[]>('GET', '/repos/alice/demo/issues/pinned');
    expect(read.status).toBe(200);
    expect(read.body.map((issue) => issue.pin_order)).toEqual([1, 2, 3]);
    expect((await call<PinsAllowed>('GET', '/repos/alice/demo/new_pin_allowed', bob())).status).toBe(200);
  });

  it('moves a pin, shifting the ones in between, and refuses a position below 1', async () => {
    const [first, second, third] = issues;
    expect((await call('PATCH', `/repos/alice/demo/issues/${third}/pin/1`, alice())).status).toBe(204);
    expect(await pinned()).toEqual([
      [third, 1],
      [first, 2],
      [second, 3],
    ]);
    const bad = await call<{ message: string }>('PATCH', `/repos/alice/demo/issues/${third}/pin/0`, alice());
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe("The Position can't be lower than 1");
  });

  it('pins a pull request in its own list, reachable at /pulls/pinned', async () => {
    const work = await w.clone('alice/demo', 'alice', 'alice');
    await w.pushBranch(work, 'feature', 'feature.txt', 'one\n');
    const created: Pull = await w.createPull('alice/demo', 'feature', 'Add the feature', alice());
    const pull = await w.settled('alice/demo', created.number, alice(), (p) => p.mergeable);
    expect((await call('POST', `/repos/alice/demo/issues/${pull.number}/pin`, alice())).status).toBe(204);

    const list = await call<PinnedPull[]>('GET', '/repos/alice/demo/pulls/pinned', alice());
    expect(list.status).toBe(200);
    expect(list.body.map((p) => [p.number, p.pin_order, p.head.ref])).toEqual([[pull.number, 1, 'feature']]);
    // As GET /pulls/{index} shapes a pull request (Gitea's ToAPIPullRequest), diff totals included.
    expect(list.body[0].additions).toBe(1);
    expect((await call<PinnedPull>('GET', `/repos/alice/demo/pulls/${pull.number}`, alice())).body.pin_order).toBe(1);
    // The issues list stays the issues'.
    expect((await pinned()).map(([index]) => index)).not.toContain(pull.number);
    const allowed = await call<PinsAllowed>('GET', '/repos/alice/demo/new_pin_allowed', alice());
    expect(allowed.body).toEqual({ issues: false, pull_requests: true });
  });

  it('unpins (the others keep their positions, as in Gitea), making room for another pin', async () => {
    const [first, second, third, fourth] = issues;
    expect((await call('DELETE', `/repos/alice/demo/issues/${first}/pin`, alice())).status).toBe(204);
    expect((await call('DELETE', `/repos/alice/demo/issues/${first}/pin`, alice())).status).toBe(204);
    expect(await pinned()).toEqual([
      [third, 1],
      [second, 3],
    ]);
    expect((await call<PinnedIssue>('GET', `/repos/alice/demo/issues/${first}`, alice())).body.pin_order).toBe(0);
    expect((await call<PinsAllowed>('GET', '/repos/alice/demo/new_pin_allowed', alice())).body.issues).toBe(true);
    expect((await call('POST', `/repos/alice/demo/issues/${fourth}/pin`, alice())).status).toBe(204);
    expect(await pinned()).toEqual([
      [third, 1],
      [second, 3],
      [fourth, 4],
    ]);
  });
});
