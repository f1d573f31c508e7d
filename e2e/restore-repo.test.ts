/**
 * `cairn restore-repo` end to end, through the running instance: the hand-written Gitea-format dump (with a git/ bare
 * repository built here with fixed dates) restores and the API shows what the dump says; a repository dumped with
 * `dump-repo` restores under another name equal to the original through the API; `--validation` refuses a bad dump
 * naming the file and field; an existing name is refused with nothing created; no archive object is left behind.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Fixture, USER_PASSWORD, startFixture } from './support/fixture';
import { GITEA_DUMP, buildGitData, restoreObjectsIn } from './support/gitea-dump';
import { runCli } from './support/instance';

jest.setTimeout(300_000);

type Json = Record<string, unknown>;
const FIXTURE = GITEA_DUMP;
/** The round trip's release asset. */
const ASSET = Buffer.from('release notes\n');

describe('cairn restore-repo', () => {
  let fixture: Fixture;
  let scratch: string;
  const call = async (method: string, route: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fixture.api.request(method, `/api/v1${route}`, { headers: fixture.root, body });
  const get = async <T = Json>(route: string): Promise<T> => {
    const answer = await call('GET', route);
    expect({ route, status: answer.status }).toEqual({ route, status: 200 });
    return answer.body as T;
  };
  const restore = (dir: string, owner: string, name: string, ...extra: string[]) =>
    runCli(['restore-repo', '-r', dir, '--owner_name', owner, '--repo_name', name, ...extra], fixture.env);
  const restoreObjects = () => restoreObjectsIn(fixture.workDir);
  /** The restored repository's bare git directory (git-storage's layout under the work dir). */
  const repositoryDir = (id: number): string => {
    const found = execFileSync('find', [fixture.workDir, '-type', 'd', '-name', `${id}.git`], { encoding: 'utf8' }).trim().split('\n').filter((line) => line !== '');
    expect(found).toHaveLength(1);
    return found[0];
  };
  const download = async (url: string): Promise<Buffer> => {
    const answer = await fetch(url, { headers: fixture.root });
    expect({ url, status: answer.status }).toEqual({ url, status: 200 });
    return Buffer.from(await answer.arrayBuffer());
  };

  beforeAll(async () => {
    fixture = await startFixture('e2e_restore_repo', ['alice', 'carol'], { CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true' });
    scratch = mkdtempSync(path.join(tmpdir(), 'cairn-restore-e2e-'));
  });

  afterAll(async () => {
    rmSync(scratch, { recursive: true, force: true });
    await fixture?.stop();
  });

  it("restores a hand-written Gitea dump: git data, topics, labels, milestones, issues, comments, reactions, releases", async () => {
    const dir = path.join(scratch, 'gitea-dump');
    cpSync(FIXTURE, dir, { recursive: true });
    const commits = buildGitData(dir, scratch);
    const restored = await restore(dir, 'alice', 'restored', '--validation');
    expect({ code: restored.code, stderr: restored.stderr }).toEqual({ code: 0, stderr: '' });
    expect(restored.stdout).toContain(`restored alice/restored from ${dir}`);

    const repo = await get('/repos/alice/restored');
    expect(repo).toMatchObject({ name: 'restored', description: 'Small tools', private: false, empty: false, default_branch: 'main', original_url: 'https://gitea.example.com/alice/tools' });
    expect(await get('/repos/alice/restored/topics')).toEqual({ topics: ['cli', 'tools'] });
    const branches = await get<Json[]>('/repos/alice/restored/branches');
    expect(branches.map((branch) => [branch.name, (branch.commit as Json).id]).sort()).toEqual([
      ['fix', commits.fix],
      ['main', commits.main],
    ]);
    const tags = await get<Json[]>('/repos/alice/restored/tags');
    expect(tags.map((tag) => [tag.name, (tag.commit as Json).sha])).toEqual([['v1.0', commits.tag]]);

    const labels = await get<Json[]>('/repos/alice/restored/labels');
    expect(labels.map((label) => [label.name, label.color, label.exclusive])).toEqual([
      ['bug', 'ee0701', false],
      ['priority/high', 'd93f0b', true],
    ]);
    const milestones = await get<Json[]>('/repos/alice/restored/milestones?state=all');
    expect(milestones.map((milestone) => [milestone.title, milestone.state, milestone.due_on]).sort()).toEqual([
      ['v0', 'closed', null],
      ['v1', 'open', '2024-03-01T00:00:00Z'],
    ]);

    const issues = await get<Json[]>('/repos/alice/restored/issues?state=all&type=issues');
    const byNumber = new Map(issues.map((issue) => [issue.number, issue]));
    expect([...byNumber.keys()].sort()).toEqual([1, 3]);
    // carol@example.com is a local user: the author is carol; dave is not: kept as the original author.
    expect(byNumber.get(1)).toMatchObject({
      title: 'Crash on start',
      body: 'It crashes.\nEvery time.',
      state: 'open',
      user: { login: 'carol' },
      milestone: { title: 'v1' },
      created_at: '2024-01-05T08:00:00Z',
    });
    expect(((byNumber.get(1)?.labels ?? []) as Json[]).map((label) => label.name).sort()).toEqual(['bug', 'priority/high']);
    expect(byNumber.get(3)).toMatchObject({ title: 'yes', state: 'closed', original_author: 'dave', is_locked: true });
    const reactions = await get<Json[]>('/repos/alice/restored/issues/1/reactions');
    expect(reactions.map((reaction) => reaction.content)).toEqual(['+1']);
    const comments = await get<Json[]>('/repos/alice/restored/issues/1/comments');
    expect(comments.map((comment) => [comment.body, comment.original_author || (comment.user as Json).login])).toEqual([
      ['me too', 'dave'],
      ['Fixed in\nmain.', 'carol'],
    ]);
    const releases = await get<Json[]>('/repos/alice/restored/releases');
    expect(releases.map((release) => [release.tag_name, release.name, release.body])).toEqual([['v1.0', 'First', 'Notes']]);
    expect(releases[0].assets).toEqual([expect.objectContaining({ name: 'tools.txt', size: 6, download_count: 2, created_at: '2024-01-09T00:00:00Z' })]);
    const asset = ((releases[0].assets as Json[]) ?? [])[0];
    expect(await download(asset.browser_download_url as string)).toEqual(readFileSync(path.join(FIXTURE, 'release_assets', '5', 'tools.txt')));

    // Pull request #2: head fix (the dump's refs/pull/2/head), base main, carol's; its patch kept as Gitea keeps it.
    const pulls = await get<Json[]>('/repos/alice/restored/pulls?state=all');
    expect(pulls.map((pull) => [pull.number, pull.title, pull.state, pull.body, (pull.user as Json).login, (pull.milestone as Json | null)?.title])).toEqual([
      [2, 'Fix the crash', 'open', 'Fixes #1', 'carol', 'v1'],
    ]);
    // The dump names no head commit (a zero id): the head is the dump's refs/pull/2/head, as Gitea's API reads it.
    expect(pulls[0].head).toMatchObject({ ref: 'fix', sha: commits.fix });
    expect(pulls[0].base).toMatchObject({ ref: 'main' });
    const gitDir = repositoryDir((repo as Json).id as number);
    expect(execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'refs/pull/2/head'], { encoding: 'utf8' }).trim()).toBe(commits.fix);
    expect(readFileSync(path.join(gitDir, 'pulls', '2.patch'), 'utf8')).toBe(readFileSync(path.join(FIXTURE, 'git', 'pulls', '2.patch'), 'utf8'));
    // reviews/2.yml: carol's approval as carol; dave (no local user) on the restoring admin's row, as an import does.
    const reviews = await get<Json[]>('/repos/alice/restored/pulls/2/reviews');
    expect(reviews.map((review) => [review.state, review.body, (review.user as Json).login, review.official, review.submitted_at])).toEqual([
      ['APPROVED', 'Looks right', 'carol', true, '2024-01-07T00:00:00Z'],
      ['REQUEST_CHANGES', 'Please add a test', 'root', false, '2024-01-07T01:00:00Z'],
    ]);

    // The task has ended: its archive is gone.
    expect(restoreObjects()).toEqual([]);
  });

  it('round-trips dump-repo → restore-repo: the copy equals the original through the API', async () => {
    const alice = fixture.as('alice');
    const ok = async (method: string, route: string, body: unknown) => {
      const answer = await fixture.api.request(method, `/api/v1${route}`, { headers: alice, body });
      expect({ route, status: answer.status }).toEqual({ route, status: 201 });
      return answer.body as Json;
    };
    await ok('POST', '/user/repos', { name: 'tools', auto_init: true, default_branch: 'main', description: 'the original' });
    await fixture.api.request('PUT', '/api/v1/repos/alice/tools/topics', { headers: alice, body: { topics: ['cli'] } });
    const bug = await ok('POST', '/repos/alice/tools/labels', { name: 'bug', color: '#ee0701', description: 'Something is broken' });
    const v1 = await ok('POST', '/repos/alice/tools/milestones', { title: 'v1', description: 'first cut' });
    await ok('POST', '/repos/alice/tools/issues', { title: 'Crash on start', body: 'It crashes.', labels: [bug.id], milestone: v1.id });
    await fixture.api.request('POST', '/api/v1/repos/alice/tools/issues', { headers: fixture.as('carol'), body: { title: 'Typo', body: 'teh' } });
    await ok('POST', '/repos/alice/tools/issues/1/comments', { body: 'me too' });
    await fixture.api.request('POST', '/api/v1/repos/alice/tools/issues/1/reactions', { headers: fixture.as('carol'), body: { content: 'heart' } });
    const release = await ok('POST', '/repos/alice/tools/releases', { tag_name: 'v1.0', target_commitish: 'main', name: 'First', body: 'Notes' });
    const uploaded = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/alice/tools/releases/${release.id as number}/assets?name=notes.txt`, {
      method: 'POST',
      headers: alice,
      body: (() => {
        const form = new FormData();
        form.append('attachment', new Blob([ASSET]), 'notes.txt');
        return form;
      })(),
    });
    expect(uploaded.status).toBe(201);
    // Pull request #3 from a branch, reviewed by carol.
    await ok('POST', '/repos/alice/tools/contents/fix.txt', { content: Buffer.from('fixed\n').toString('base64'), message: 'fix', branch: 'main', new_branch: 'fix' });
    await ok('POST', '/repos/alice/tools/pulls', { title: 'Fix it', body: 'Fixes #1', head: 'fix', base: 'main' });
    const reviewed = await fixture.api.request('POST', '/api/v1/repos/alice/tools/pulls/3/reviews', { headers: fixture.as('carol'), body: { event: 'COMMENT', body: 'nice' } });
    expect(reviewed.status).toBe(200);

    const out = path.join(scratch, 'round-trip');
    const dumped = await runCli(
      ['dump-repo', '--git_service', 'gitea', '--clone_addr', `${fixture.instance.httpUrl}/alice/tools.git`, '--auth_username', 'alice', '--auth_password', USER_PASSWORD, '--owner_name', 'alice', '--repo_name', 'tools', '--repo_dir', out],
      fixture.env,
    );
    expect({ code: dumped.code, stderr: dumped.stderr }).toEqual({ code: 0, stderr: '' });
    const restored = await restore(path.join(out, 'alice', 'tools'), 'alice', 'tools-copy');
    expect({ code: restored.code, stderr: restored.stderr }).toEqual({ code: 0, stderr: '' });

    const both = async (route: string, pick: (body: unknown) => unknown) => {
      const original = pick(await get(`/repos/alice/tools${route}`));
      expect({ route, copy: pick(await get(`/repos/alice/tools-copy${route}`)) }).toEqual({ route, copy: original });
    };
    const list = (fields: string[]) => (body: unknown) => (body as Json[]).map((item) => fields.map((field) => field.split('.').reduce<unknown>((value, key) => (value as Json | null)?.[key], item)));
    await both('', (body) => [(body as Json).description, (body as Json).default_branch, (body as Json).empty]);
    await both('/topics', (body) => body);
    await both('/branches', list(['name', 'commit.id']));
    await both('/tags', list(['name', 'commit.sha']));
    await both('/labels', list(['name', 'color', 'description', 'exclusive']));
    await both('/milestones?state=all', list(['title', 'description', 'state', 'due_on']));
    await both('/issues?state=all&type=issues', list(['number', 'title', 'body', 'state', 'user.login', 'milestone.title', 'created_at', 'comments']));
    await both('/issues/1/comments', list(['body', 'user.login', 'created_at']));
    await both('/issues/1/reactions', list(['content', 'user.login']));
    // The publisher is not compared: the Cairn uploader's createReleases (the import's, not restore's) does not map a
    // release's publisher to a local user yet, so the copy's author is the doer, as for an import.
    await both('/releases', list(['tag_name', 'name', 'body', 'draft', 'prerelease', 'target_commitish']));
    await both('/pulls?state=all', list(['number', 'title', 'body', 'state', 'user.login', 'head.ref', 'head.sha', 'base.ref', 'base.sha', 'merged', 'created_at']));
    await both('/pulls/3/reviews', list(['state', 'body', 'user.login', 'official', 'submitted_at']));
    // The release asset: same name, size and bytes through the API download.
    const assetsOf = async (repo: string) => ((await get<Json[]>(`/repos/alice/${repo}/releases`))[0].assets ?? []) as Json[];
    const [originalAsset] = await assetsOf('tools');
    const [copiedAsset] = await assetsOf('tools-copy');
    expect([copiedAsset?.name, copiedAsset?.size]).toEqual(['notes.txt', ASSET.length]);
    expect(await download(copiedAsset.browser_download_url as string)).toEqual(await download(originalAsset.browser_download_url as string));
    expect(restoreObjects()).toEqual([]);
  });

  it('--validation refuses a dump that breaks Gitea’s schema, naming the file and field; nothing is created', async () => {
    const dir = path.join(scratch, 'invalid');
    cpSync(FIXTURE, dir, { recursive: true });
    writeFileSync(path.join(dir, 'issue.yml'), readFileSync(path.join(dir, 'issue.yml'), 'utf8').replace('state: open', 'state: pending'));
    const refused = await restore(dir, 'alice', 'invalid', '--validation');
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({
      code: 1,
      stderr: 'cairn: Failed to restore repository: issue.yml: validation failed: item [0].state: must be one of "closed", "open", not "pending"\n',
    });
    expect((await call('GET', '/repos/alice/invalid')).status).toBe(404);
  });

  it('refuses an existing repository name and an unknown owner, keeping nothing', async () => {
    const dir = path.join(scratch, 'again');
    cpSync(FIXTURE, dir, { recursive: true });
    const exists = await restore(dir, 'alice', 'restored');
    expect(exists.code).toBe(1);
    expect(exists.stderr).toMatch(/^cairn: .*already exists/);
    const nobody = await restore(dir, 'nobody', 'tools');
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/^cairn: .*nobody/);
    expect((await call('GET', '/repos/nobody/tools')).status).toBe(404);
    expect(restoreObjects()).toEqual([]);
    expect(existsSync(dir)).toBe(true);
  });
});
