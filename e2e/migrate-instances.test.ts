/**
 * An import from a second local Cairn instance (issue 18's "Must be shown"): two instances with their own databases,
 * git storage and object stores; bob of the destination imports alice's repository of the source (service gitea,
 * every item) over HTTP, allowed by `[migrations] ALLOW_LOCALNETWORKS`. The source has labels, a milestone, an issue
 * with a comment and reactions, a release with an asset, a merged pull request and an open one with a review; both
 * sides are compared through their APIs. Nothing is shared but the machine's PostgreSQL server (each instance on its
 * own database, with its own in-process bus), so what the copy shows came through the source's API and git.
 */
import { type Fixture, startFixture } from './support/fixture';
import { type PullWork, demoRepository, pullWork } from './support/pull-work';

jest.setTimeout(300_000);

type Json = Record<string, unknown>;

describe('POST /repos/migrate from a second Cairn instance', () => {
  let source: Fixture;
  let destination: Fixture;
  let w: PullWork;
  let token = '';
  let assetBytes: Buffer;

  const call = (fixture: Fixture, method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fixture.api.request<Json>(method, `/api/v1${path}`, { headers, body });
  const ok = async (fixture: Fixture, method: string, path: string, headers: Record<string, string>, body: unknown, status: number): Promise<Json> => {
    const answer = await call(fixture, method, path, headers, body);
    expect({ path, status: answer.status, body: answer.body }).toMatchObject({ path, status });
    return answer.body;
  };
  const list = async (fixture: Fixture, path: string, headers: Record<string, string>): Promise<Json[]> =>
    ((await ok(fixture, 'GET', path, headers, undefined, 200)) as unknown as Json[] | null) ?? [];

  beforeAll(async () => {
    source = await startFixture('e2e_migrate_instances_src', ['alice', 'carol']);
    destination = await startFixture('e2e_migrate_instances_dst', ['alice', 'bob'], { CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true' });
    const alice = source.as('alice');
    const carol = source.as('carol');
    w = await pullWork(source);
    const clone = await demoRepository(w, source, ['carol']);
    await ok(source, 'PUT', '/repos/alice/demo/topics', alice, { topics: ['demo'] }, 204);
    const label = await ok(source, 'POST', '/repos/alice/demo/labels', alice, { name: 'bug', color: '#ee0701' }, 201);
    const milestone = await ok(source, 'POST', '/repos/alice/demo/milestones', alice, { title: 'v1' }, 201);
    await ok(source, 'POST', '/repos/alice/demo/issues', carol, { title: 'It breaks', body: 'details', labels: [label.id], milestone: milestone.id }, 201);
    await ok(source, 'POST', '/repos/alice/demo/issues/1/comments', alice, { body: 'looking' }, 201);
    await ok(source, 'POST', '/repos/alice/demo/issues/1/reactions', alice, { content: 'eyes' }, 201);

    // #2 merged, #3 open with carol's review.
    await w.pushBranch(clone, 'to-merge', 'merged.txt', 'merged\n');
    await w.createPull('alice/demo', 'to-merge', 'Merge me', alice);
    await w.settled('alice/demo', 2, alice, (pull) => pull.mergeable);
    await ok(source, 'POST', '/repos/alice/demo/pulls/2/merge', alice, { Do: 'merge' }, 200);
    await w.settled('alice/demo', 2, alice, (pull) => pull.merged);
    await w.pushBranch(clone, 'feature', 'feature.txt', 'one\ntwo\n');
    await w.createPull('alice/demo', 'feature', 'Add the feature', alice);
    await w.settled('alice/demo', 3, alice, (pull) => pull.mergeable);
    await ok(source, 'POST', '/repos/alice/demo/pulls/3/reviews', carol, { event: 'REQUEST_CHANGES', body: 'one thing', comments: [{ path: 'feature.txt', body: 'say 2', new_position: 2 }] }, 200);

    const release = await ok(source, 'POST', '/repos/alice/demo/releases', alice, { tag_name: 'v1.0', target_commitish: 'main', name: 'First', body: 'notes' }, 201);
    assetBytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256));
    const form = new FormData();
    form.append('attachment', new Blob([assetBytes]), 'tool.bin');
    const uploaded = await fetch(`${source.instance.httpUrl}/api/v1/repos/alice/demo/releases/${release.id as number}/assets?name=tool.bin`, { method: 'POST', headers: alice, body: form });
    expect(uploaded.status).toBe(201);

    // A token of the source's alice, as a user of another forge would give one.
    token = (await ok(source, 'POST', '/users/alice/tokens', alice, { name: 'export', scopes: ['all'] }, 201)).sha1 as string;
  });

  afterAll(async () => {
    w?.cleanUp();
    await destination?.stop();
    await source?.stop();
  });

  it('imports git data, topics, labels, milestones, issues, comments, reactions, releases with assets and pull requests', async () => {
    const bob = destination.as('bob');
    const migrated = await call(destination, 'POST', '/repos/migrate', bob, {
      clone_addr: `${source.instance.httpUrl}/alice/demo.git`,
      repo_name: 'demo',
      service: 'gitea',
      auth_token: token,
      labels: true,
      milestones: true,
      issues: true,
      releases: true,
      pull_requests: true,
    });
    expect([migrated.status, migrated.body]).toEqual([201, expect.objectContaining({ full_name: 'bob/demo', original_url: `${source.instance.httpUrl}/alice/demo.git` })]);
    const from = (path: string) => list(source, `/repos/alice/demo${path}`, source.as('alice'));
    const to = (path: string) => list(destination, `/repos/bob/demo${path}`, bob);

    const pick = (keys: string[]) => (items: Json[]) => items.map((item) => Object.fromEntries(keys.map((key) => [key, key.split('.').reduce<unknown>((v, k) => (v as Json | null)?.[k], item)])));
    const branches = pick(['name', 'commit.id']);
    expect(branches(await to('/branches'))).toEqual(branches(await from('/branches')));
    const tags = pick(['name', 'commit.sha']);
    expect(tags(await to('/tags'))).toEqual(tags(await from('/tags')));
    expect((await ok(destination, 'GET', '/repos/bob/demo/topics', bob, undefined, 200)).topics).toEqual(['demo']);
    const labels = pick(['name', 'color', 'description']);
    expect(labels(await to('/labels'))).toEqual(labels(await from('/labels')));
    const milestones = pick(['title', 'state', 'open_issues', 'closed_issues']);
    expect(milestones(await to('/milestones?state=all'))).toEqual(milestones(await from('/milestones?state=all')));

    const issues = pick(['number', 'title', 'body', 'state', 'comments', 'created_at', 'labels.0.name', 'milestone.title']);
    expect(issues(await to('/issues?state=all&type=issues'))).toEqual(issues(await from('/issues?state=all&type=issues')));
    // carol has no account at the destination: an original author; alice is alice there too (the same e-mail).
    const issue = await ok(destination, 'GET', '/repos/bob/demo/issues/1', bob, undefined, 200);
    expect(issue).toMatchObject({ original_author: 'carol' });
    const comments = pick(['body', 'user.login', 'created_at']);
    expect(comments(await to('/issues/1/comments'))).toEqual(comments(await from('/issues/1/comments')));
    // A reaction names its user without an e-mail, and when issue #1's reactions were imported no e-mail had taught
    // alice's name yet (the issue is carol's; alice's comments come later): kept as Gitea's replacement user.
    expect(pick(['user.login', 'content'])(await to('/issues/1/reactions'))).toEqual([{ 'user.login': 'alice(gitea)', content: 'eyes' }]);

    const pulls = pick(['number', 'title', 'state', 'merged', 'merge_commit_sha', 'base.ref', 'head.ref', 'head.sha', 'merge_base']);
    expect(pulls(await to('/pulls?state=all'))).toEqual(pulls(await from('/pulls?state=all')));
    const reviews = pick(['state', 'body', 'commit_id', 'comments_count']);
    expect(reviews(await to('/pulls/3/reviews'))).toEqual(reviews(await from('/pulls/3/reviews')));
    const diff = async (fixture: Fixture, repo: string, headers: Record<string, string>) => (await fetch(`${fixture.instance.httpUrl}/api/v1/repos/${repo}/pulls/3.diff`, { headers })).text();
    expect(await diff(destination, 'bob/demo', bob)).toBe(await diff(source, 'alice/demo', source.as('alice')));

    const [release] = await to('/releases');
    expect(release).toMatchObject({ tag_name: 'v1.0', name: 'First', body: 'notes' });
    const [asset] = release.assets as Json[];
    expect(asset).toMatchObject({ name: 'tool.bin', size: assetBytes.length });
    // Served by the destination from its own store (its ROOT_URL names the host; the path is the destination's).
    const downloaded = await fetch(`${destination.instance.httpUrl}${new URL(String(asset.browser_download_url)).pathname}`, { headers: bob });
    expect(downloaded.status).toBe(200);
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(assetBytes)).toBe(true);
  });
});
