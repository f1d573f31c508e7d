/**
 * User text that made backtracking matchers take minutes, through the gateway and real git (@cairn/text): a 1 MB
 * comment body of backticks then letters (the old code-span pattern was quadratic in it) is stored promptly with its
 * mention found, one over the 1 MiB body limit is a 422 with nothing stored, and a branch protection rule named
 * `**a**a**a**a**a**a**a**b` (the old glob took 241 s against a 200-character branch name) lets a push of such a
 * branch through and still refuses one it covers, both promptly.
 */
import { startFixture, type Fixture } from './support/fixture';
import { type PullWork, pullWork } from './support/pull-work';

jest.setTimeout(240_000);

/** Generous next to the milliseconds the work takes: the old matchers took minutes on the same input. */
const PROMPT_MS = 20_000;

interface ApiComment {
  id: number;
  body: string;
}

async function timed<T>(work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await work();
  expect(Date.now() - started).toBeLessThan(PROMPT_MS);
  return result;
}

describe('hostile text through the gateway', () => {
  let f: Fixture;
  let w: PullWork;

  beforeAll(async () => {
    f = await startFixture('e2e_linear_text', ['alice', 'bob']);
    w = await pullWork(f);
    expect((await w.call('POST', '/user/repos', f.as('alice'), { name: 'text', auto_init: true })).status).toBe(201);
    expect((await w.call('POST', '/repos/alice/text/issues', f.as('alice'), { title: 'hostile' })).status).toBe(201);
  });

  afterAll(async () => {
    w?.cleanUp();
    await f?.stop();
  });

  it('stores a 1 MB comment of backticks then letters promptly and finds the mention after it', async () => {
    const body = `x ${'`'.repeat(500_000)}${'a'.repeat(500_000)} @bob`;
    const made = await timed(() => w.call<ApiComment>('POST', '/repos/alice/text/issues/1/comments', f.as('alice'), { body }));
    expect(made.status).toBe(201);
    expect(made.body.body.length).toBe(body.length);
    // The mention after the unmatched backticks is found: the issue lists as mentioning bob.
    const mentioning = await w.call<{ number: number }[]>('GET', '/repos/alice/text/issues?mentioned_by=bob', f.as('alice'));
    expect([mentioning.status, mentioning.body.map((issue) => issue.number)]).toEqual([200, [1]]);
  });

  it('refuses a hostile body over the 1 MiB limit with 422 and stores nothing', async () => {
    const body = `x ${'`'.repeat(600_000)}${'a'.repeat(600_000)}`;
    const refused = await timed(() => w.call<{ message: string }>('POST', '/repos/alice/text/issues/1/comments', f.as('alice'), { body }));
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('body is too large');
    const comments = await w.call<ApiComment[]>('GET', '/repos/alice/text/issues/1/comments', f.as('alice'));
    expect(comments.body).toHaveLength(1);
  });

  it('matches a hostile protection rule name against long branch names promptly', async () => {
    const rule = await w.call('POST', '/repos/alice/text/branch_protections', f.as('alice'), { rule_name: '**a**a**a**a**a**a**a**b', enable_push: false });
    expect(rule.status).toBe(201);
    const work = await w.clone('alice/text', 'alice', 'text');
    await w.commitFile(work, 'long.txt', 'long\n');
    // Not covered (no `b`): the push goes through.
    const open = 'a'.repeat(200);
    const pushed = await timed(() => w.git(['push', '--quiet', 'origin', `HEAD:refs/heads/${open}`], work));
    expect(pushed.code).toBe(0);
    expect(await w.branchHead('alice/text', open, f.as('alice'))).toBe(await w.gitOk(['rev-parse', 'HEAD'], work));
    // Covered: refused by the rule.
    const covered = `${'a'.repeat(199)}b`;
    const refused = await timed(() => w.git(['push', 'origin', `HEAD:refs/heads/${covered}`], work));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`Not allowed to push to protected branch ${covered}`);
  });
});
