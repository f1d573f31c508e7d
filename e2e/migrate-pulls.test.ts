/**
 * Imports with pull requests (POST /repos/migrate, service gitea, pull_requests + issues) end to end, from a
 * repository of the same instance (a Cairn source): an open pull request with reviews (an approval, changes
 * requested with a code comment, a comment) and comments, a merged one, a closed unmerged one whose branch is then
 * deleted (its head lives on only in the source's refs/pull/3/head), and an open one from a fork (fetched into the
 * copy's branch carol/carol-fix, Gitea's naming). Both sides are compared through the API: numbers, states, merged
 * fields, head and base refs and shas, reviews and their comments, original authors, and the `.diff`, commits and
 * files of the imported pull requests against the source's. `cairn dump-repo` of the same source writes the pull
 * requests as Gitea's dump has them (pull_request.yml with head and base clone URLs, git/pulls/<n>.patch, reviews/
 * with signed lines) and a git mirror holding the source's refs/pull heads.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { type PullWork, demoRepository, pullWork, type Pull } from './support/pull-work';
import { type Fixture, USER_PASSWORD, startFixture } from './support/fixture';
import { runCli } from './support/instance';

jest.setTimeout(240_000);

type Json = Record<string, unknown>;

describe('POST /repos/migrate with pull requests from a gitea source (the same instance)', () => {
  let fixture: Fixture;
  let w: PullWork;
  let token = '';
  let carolId = 0;
  const alice = () => fixture.as('alice');
  const bob = () => fixture.as('bob');
  const carol = () => fixture.as('carol');
  const call = <T = Json>(method: string, path: string, headers: Record<string, string>, body?: unknown) => w.call<T>(method, path, headers, body);
  const ok = async <T = Json>(method: string, path: string, headers: Record<string, string>, body: unknown, status: number): Promise<T> => {
    const answer = await call<T>(method, path, headers, body);
    expect({ path, status: answer.status, body: answer.body }).toMatchObject({ path, status });
    return answer.body;
  };
  const list = async (path: string): Promise<Json[]> => (await ok<Json[] | null>('GET', path, bob(), undefined, 200)) ?? [];
  // Plain text, which the validating client does not take.
  const text = async (path: string): Promise<string> => {
    const answer = await fetch(`${fixture.instance.httpUrl}/api/v1${path}`, { headers: bob() });
    expect([path, answer.status]).toEqual([path, 200]);
    return answer.text();
  };

  beforeAll(async () => {
    fixture = await startFixture('e2e_migrate_pulls', ['alice', 'bob', 'carol'], { CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true' });
    w = await pullWork(fixture);
    expect((await call('PATCH', '/user/settings', carol(), { hide_email: true })).status).toBe(200);
    carolId = (await ok('GET', '/user', carol(), undefined, 200)).id as number;
    const aliceClone = await demoRepository(w, fixture, ['bob', 'carol']);

    // #1: bob's open pull request, reviewed and commented on.
    const bobClone = await w.clone('alice/demo', 'bob', 'bob');
    await w.pushBranch(bobClone, 'feature', 'feature.txt', 'one\ntwo\nthree\n');
    const first = await w.createPull('alice/demo', 'feature', 'Add the feature', bob());
    await w.settled('alice/demo', first.number, alice(), (pull) => pull.mergeable);
    await ok('POST', '/repos/alice/demo/pulls/1/reviews', alice(), { event: 'APPROVED', body: 'looks right' }, 200);
    await ok('POST', '/repos/alice/demo/pulls/1/reviews', carol(), {
      event: 'REQUEST_CHANGES',
      body: 'one thing',
      comments: [{ path: 'feature.txt', body: 'say 2 instead', new_position: 2 }],
    }, 200);
    await ok('POST', '/repos/alice/demo/pulls/1/reviews', carol(), { event: 'COMMENT', body: 'otherwise fine' }, 200);
    await ok('POST', '/repos/alice/demo/issues/1/comments', alice(), { body: 'thanks!' }, 201);
    await ok('POST', '/repos/alice/demo/issues/1/comments', carol(), { body: 'by carol' }, 201);

    // #2: alice's, merged.
    await w.pushBranch(aliceClone, 'to-merge', 'merged.txt', 'merged\n');
    await w.createPull('alice/demo', 'to-merge', 'Merge me', alice());
    await w.settled('alice/demo', 2, alice(), (pull) => pull.mergeable);
    await ok('POST', '/repos/alice/demo/pulls/2/merge', alice(), { Do: 'merge' }, 200);
    await w.settled('alice/demo', 2, alice(), (pull) => pull.merged);

    // #3: alice's, closed unmerged, its branch deleted.
    await w.pushBranch(aliceClone, 'abandoned', 'abandoned.txt', 'never mind\n');
    await w.createPull('alice/demo', 'abandoned', 'Abandoned idea', alice());
    await w.settled('alice/demo', 3, alice(), (pull) => pull.mergeable);
    await ok('PATCH', '/repos/alice/demo/pulls/3', alice(), { state: 'closed' }, 201);
    expect((await call('DELETE', '/repos/alice/demo/branches/abandoned', alice())).status).toBe(204);

    // #4: carol's, from her fork.
    await ok('POST', '/repos/alice/demo/forks', carol(), {}, 202);
    const carolClone = await w.clone('carol/demo', 'carol', 'carol');
    await w.pushBranch(carolClone, 'carol-fix', 'fix.txt', 'fixed\n');
    await w.createPull('alice/demo', 'carol:carol-fix', 'Fix from a fork', carol());
    await w.settled('alice/demo', 4, alice(), (pull) => pull.mergeable);

    const made = await ok('POST', '/users/bob/tokens', bob(), { name: 'import', scopes: ['all'] }, 201);
    token = made.sha1 as string;
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  const loginOf = (value: unknown) => (value as Json | null)?.login;
  const pullsOf = async (repo: string) => new Map(((await list(`/repos/${repo}/pulls?state=all`)) as unknown as Pull[]).map((pull) => [pull.number, pull]));

  it('imports pull requests with their heads, merged fields, reviews and comments', async () => {
    const migrated = await call('POST', '/repos/migrate', bob(), {
      clone_addr: `${fixture.instance.httpUrl}/alice/demo`,
      repo_name: 'copy',
      service: 'gitea',
      auth_token: token,
      issues: true,
      pull_requests: true,
    });
    expect([migrated.status, migrated.body]).toEqual([201, expect.objectContaining({ full_name: 'bob/copy' })]);

    const source = await pullsOf('alice/demo');
    const copy = await pullsOf('bob/copy');
    expect([...copy.keys()].sort()).toEqual([1, 2, 3, 4]);
    const shape = (pull: Pull) => {
      const { title, state, merged, merge_commit_sha, merge_base } = pull;
      const extra = pull as unknown as Json;
      return { title, state, merged, merge_commit_sha, merge_base, body: extra.body, merged_at: extra.merged_at, closed_at: extra.closed_at, created_at: extra.created_at, base: pull.base.ref, base_sha: pull.base.sha, head_sha: pull.head.sha };
    };
    for (const [number, pull] of source) expect([number, shape(copy.get(number) as Pull)]).toEqual([number, shape(pull)]);

    // Same-repository heads keep their names (a deleted branch's head is its refs/pull ref, on both sides).
    expect([1, 2, 3].map((n) => copy.get(n)?.head.ref)).toEqual([1, 2, 3].map((n) => source.get(n)?.head.ref));
    expect(copy.get(3)?.head.ref).toBe('refs/pull/3/head');
    // The fork's head was fetched into the copy as carol/carol-fix (Gitea's <owner>/<ref>).
    expect(copy.get(4)?.head).toMatchObject({ ref: 'carol/carol-fix', sha: source.get(4)?.head.sha });
    expect(await w.branchHead('bob/copy', 'carol/carol-fix', bob())).toBe(source.get(4)?.head.sha);
    // Open ones were checked; the merged one is merged by the importer, as Gitea records it.
    expect(copy.get(1)?.mergeable).toBe(true);
    expect(loginOf(copy.get(2)?.merged_by)).toBe('bob');

    // Authors: bob and alice are themselves (by e-mail); carol (hidden e-mail) is an original author.
    expect([1, 2, 3].map((n) => loginOf(copy.get(n)?.user))).toEqual(['bob', 'alice', 'alice']);
    const forkIssue = await ok('GET', '/repos/bob/copy/issues/4', bob(), undefined, 200);
    expect(forkIssue).toMatchObject({ original_author: 'carol', original_author_id: carolId });

    // The diff, commits and files of each imported pull request are the source's.
    for (const number of [1, 2, 3, 4]) {
      expect([number, await text(`/repos/bob/copy/pulls/${number}.diff`)]).toEqual([number, await text(`/repos/alice/demo/pulls/${number}.diff`)]);
    }
    const shas = (commits: Json[]) => commits.map((commit) => commit.sha);
    expect(shas(await list('/repos/bob/copy/pulls/1/commits'))).toEqual(shas(await list('/repos/alice/demo/pulls/1/commits')));
    const files = (changed: Json[]) => changed.map(({ filename, status, additions }) => ({ filename, status, additions }));
    expect(files(await list('/repos/bob/copy/pulls/1/files'))).toEqual(files(await list('/repos/alice/demo/pulls/1/files')));

    // Reviews: state, body, commit, official, submitted time; alice as alice, carol's on bob's row.
    const reviewShape = (reviews: Json[]) => reviews.map(({ state, body, commit_id, official, submitted_at, comments_count }) => ({ state, body, commit_id, official, submitted_at, comments_count }));
    const sourceReviews = await list('/repos/alice/demo/pulls/1/reviews');
    const copyReviews = await list('/repos/bob/copy/pulls/1/reviews');
    expect(reviewShape(copyReviews)).toEqual(reviewShape(sourceReviews));
    expect(copyReviews.map((review) => loginOf(review.user))).toEqual(['alice', 'bob', 'bob']);
    const commentShape = (comments: Json[]) =>
      comments.map(({ path, body, position, original_position, diff_hunk, commit_id, original_commit_id }) => ({ path, body, position, original_position, diff_hunk, commit_id, original_commit_id }));
    const sourceCode = await list(`/repos/alice/demo/pulls/1/reviews/${sourceReviews[1].id as number}/comments`);
    const copyCode = await list(`/repos/bob/copy/pulls/1/reviews/${copyReviews[1].id as number}/comments`);
    expect(copyCode).toHaveLength(1);
    expect(commentShape(copyCode)).toEqual(commentShape(sourceCode));

    // The pull request's comments, with their authors.
    const comments = await list('/repos/bob/copy/issues/1/comments');
    expect(comments.map((c) => [c.body, loginOf(c.user), c.original_author])).toEqual([
      ['thanks!', 'alice', ''],
      ['by carol', 'bob', 'carol'],
    ]);
    // The next issue or pull request gets the next number.
    expect(await ok('POST', '/repos/bob/copy/issues', bob(), { title: 'After the import' }, 201)).toMatchObject({ number: 5 });
  });

  it("dumps the pull requests in Gitea's layout: pull_request.yml, git/pulls/<n>.patch, reviews/<n>.yml", async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'cairn-dump-pulls-'));
    try {
      const dumped = await runCli(
        [
          'dump-repo', '--git_service', 'gitea', '--clone_addr', `${fixture.instance.httpUrl}/alice/demo.git`,
          '--auth_username', 'alice', '--auth_password', USER_PASSWORD, '--owner_name', 'backup', '--repo_name', 'demo', '--repo_dir', out,
        ],
        fixture.env,
      );
      expect({ code: dumped.code, stderr: dumped.stderr }).toEqual({ code: 0, stderr: '' });
      const dir = path.join(out, 'backup', 'demo');
      const yaml = (name: string) => parse(readFileSync(path.join(dir, name), 'utf8')) as Json[];
      const source = await pullsOf('alice/demo');
      const repo = await ok('GET', '/repos/alice/demo', bob(), undefined, 200);
      const fork = await ok('GET', '/repos/carol/demo', bob(), undefined, 200);
      const pulls = new Map(yaml('pull_request.yml').map((pull) => [pull.number as number, pull]));
      expect([...pulls.keys()].sort()).toEqual([1, 2, 3, 4]);
      expect(pulls.get(1)).toMatchObject({
        patch_url: 'git/pulls/1.patch',
        state: 'open',
        head: { clone_url: repo.clone_url, ref: 'feature', sha: source.get(1)?.head.sha, owner_name: 'alice', repo_name: 'demo' },
        base: { clone_url: repo.clone_url, ref: 'main', owner_name: 'alice', repo_name: 'demo' },
        ensured_safe: true,
      });
      expect(pulls.get(2)).toMatchObject({ merged: true, merge_commit_sha: source.get(2)?.merge_commit_sha });
      expect(pulls.get(4)).toMatchObject({ head: { clone_url: fork.clone_url, ref: 'carol-fix', owner_name: 'carol' } });
      // The patch is the source's, and the mirror holds every pull request's head.
      const patch = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/alice/demo/pulls/1.patch`, { headers: bob() });
      expect(readFileSync(path.join(dir, 'git', 'pulls', '1.patch'), 'utf8')).toBe(await patch.text());
      const git = (...args: string[]) => execFileSync('git', ['--git-dir', path.join(dir, 'git'), ...args], { encoding: 'utf8' }).trim();
      for (const n of [1, 2, 3, 4]) expect(git('rev-parse', `refs/pull/${n}/head`)).toBe(source.get(n)?.head.sha);
      const reviews = yaml('reviews/1.yml');
      expect(reviews.map((review) => [review.reviewer_name, review.state])).toEqual([
        ['alice', 'APPROVED'],
        ['carol', 'REQUEST_CHANGES'],
        ['carol', 'COMMENT'],
      ]);
      expect(reviews[1].comments).toEqual([expect.objectContaining({ tree_path: 'feature.txt', line: 2, content: 'say 2 instead' })]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
