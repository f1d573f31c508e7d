/**
 * `cairn dump-repo` end to end: a repository of a running instance (a gitea source: Cairn serves Gitea's API v1) with
 * a commit, labels, a milestone, issues with comments and reactions and a release is dumped with the CLI, allowed by
 * `[migrations] ALLOW_LOCALNETWORKS` through the environment override; the files are Gitea's layout and say what the
 * API says (the release's assets as files under release_assets/<tag>/, release.yml pointing at them). With the
 * default policy a loopback source is refused and never contacted.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { type AddressInfo, type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { type Fixture, USER_PASSWORD, startFixture } from './support/fixture';
import { runCli } from './support/instance';

jest.setTimeout(240_000);

type Json = Record<string, unknown>;

describe('cairn dump-repo', () => {
  let fixture: Fixture;
  let out: string;
  /** The release's assets as uploaded: name → bytes. */
  const assets = new Map<string, Buffer>([
    ['tools-linux.tar.gz', Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256))],
    ['checksums.txt', Buffer.from('abc123  tools-linux.tar.gz\n')],
  ]);
  const call = (method: string, route: string, headers: Record<string, string>, body?: unknown) =>
    fixture.api.request<Json>(method, `/api/v1${route}`, { headers, body });

  beforeAll(async () => {
    fixture = await startFixture('e2e_dump_repo', ['alice', 'bob'], { CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true' });
    out = mkdtempSync(path.join(tmpdir(), 'cairn-dump-e2e-'));
    const alice = fixture.as('alice');
    const bob = fixture.as('bob');
    const ok = async (method: string, route: string, headers: Record<string, string>, body: unknown, status: number) => {
      const answer = await call(method, route, headers, body);
      expect({ route, status: answer.status }).toEqual({ route, status });
      return answer.body as Json;
    };
    await ok('POST', '/user/repos', alice, { name: 'tools', auto_init: true, default_branch: 'main' }, 201);
    await ok('PUT', '/repos/alice/tools/topics', alice, { topics: ['cli'] }, 204);
    const bug = await ok('POST', '/repos/alice/tools/labels', alice, { name: 'bug', color: '#ee0701', description: 'Something is broken' }, 201);
    const v1 = await ok('POST', '/repos/alice/tools/milestones', alice, { title: 'v1', description: 'first cut' }, 201);
    await ok('POST', '/repos/alice/tools/issues', alice, { title: 'Crash on start', body: 'It crashes.\nEvery time.', labels: [bug.id], milestone: v1.id }, 201);
    await ok('POST', '/repos/alice/tools/issues', bob, { title: 'Typo', body: 'teh' }, 201);
    await ok('POST', '/repos/alice/tools/issues/1/comments', bob, { body: 'me too' }, 201);
    await ok('POST', '/repos/alice/tools/issues/1/reactions', bob, { content: '+1' }, 201);
    const release = await ok('POST', '/repos/alice/tools/releases', alice, { tag_name: 'v1.0', target_commitish: 'main', name: 'First', body: 'Notes' }, 201);
    for (const [name, bytes] of assets) {
      const uploaded = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/alice/tools/releases/${release.id as number}/assets?name=${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: { ...alice, 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      expect(uploaded.status).toBe(201);
    }
  });

  afterAll(async () => {
    rmSync(out, { recursive: true, force: true });
    await fixture?.stop();
  });

  it("writes Gitea's dump layout from a gitea source: repo.yml, the git mirror, labels, milestones, issues, comments, reactions, releases", async () => {
    const repoDir = path.join(out, 'dump');
    const dumped = await runCli(
      [
        'dump-repo',
        '--git_service', 'gitea',
        '--clone_addr', `${fixture.instance.httpUrl}/alice/tools.git`,
        '--auth_username', 'alice',
        '--auth_password', USER_PASSWORD,
        '--owner_name', 'backup',
        '--repo_name', 'tools',
        '--repo_dir', repoDir,
      ],
      fixture.env,
    );
    expect({ code: dumped.code, stderr: dumped.stderr }).toEqual({ code: 0, stderr: '' });
    const dir = path.join(repoDir, 'backup', 'tools');
    const yaml = (name: string): unknown => parse(readFileSync(path.join(dir, name), 'utf8'));

    expect(yaml('repo.yml')).toMatchObject({ name: 'tools', owner: 'alice', service_type: 3, issues: true, labels: true, milestones: true, releases: true, comments: true, assets: true });
    expect(yaml('topic.yml')).toEqual({ topics: ['cli'] });
    expect(yaml('label.yml')).toEqual([{ name: 'bug', color: 'ee0701', description: 'Something is broken', exclusive: false }]);
    expect(yaml('milestone.yml')).toEqual([expect.objectContaining({ title: 'v1', description: 'first cut', state: 'open', deadline: null })]);
    // In the source's order (the API's: newest first).
    const issues = (yaml('issue.yml') as Json[]).sort((a, b) => Number(a.number) - Number(b.number));
    expect(issues.map((issue) => [issue.number, issue.title, issue.poster_name])).toEqual([
      [1, 'Crash on start', 'alice'],
      [2, 'Typo', 'bob'],
    ]);
    expect(issues[0]).toMatchObject({
      content: 'It crashes.\nEvery time.',
      milestone: 'v1',
      state: 'open',
      labels: [{ name: 'bug', color: 'ee0701' }],
      reactions: [{ user_name: 'bob', content: '+1' }],
    });
    const apiIssue = (await call('GET', '/repos/alice/tools/issues/1', fixture.as('alice'))).body as Json;
    expect(new Date(String(issues[0].created)).getTime()).toBe(new Date(String(apiIssue.created_at)).getTime());
    expect(readdirSync(path.join(dir, 'comments'))).toEqual(['1.yml']);
    expect(yaml('comments/1.yml')).toEqual([expect.objectContaining({ issue_index: 1, poster_name: 'bob', content: 'me too', reactions: [] })]);
    expect(yaml('release.yml')).toEqual([expect.objectContaining({ tag_name: 'v1.0', name: 'First', body: 'Notes', publisher_name: 'alice' })]);
    // Each asset's bytes in release_assets/<tag>/<name>, and release.yml's download_url is that relative path.
    const [dumpedRelease] = yaml('release.yml') as Json[];
    const dumpedAssets = (dumpedRelease.assets as Json[]).map(({ name, size, download_count, download_url }) => ({ name, size, download_count, download_url }));
    expect(dumpedAssets.sort((a, b) => String(a.name).localeCompare(String(b.name)))).toEqual(
      [...assets]
        .map(([name, bytes]) => ({ name, size: bytes.length, download_count: 0, download_url: `release_assets/v1.0/${name}` }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
    expect(readdirSync(path.join(dir, 'release_assets', 'v1.0')).sort()).toEqual([...assets.keys()].sort());
    for (const [name, bytes] of assets) expect(readFileSync(path.join(dir, 'release_assets', 'v1.0', name)).equals(bytes)).toBe(true);
    expect(existsSync(path.join(dir, 'pull_request.yml'))).toBe(false);

    // The git data: a bare mirror with the source's branches, tags and HEAD, and no credentials in its config.
    const branch = (await call('GET', '/repos/alice/tools/branches/main', fixture.as('alice'))).body as Json;
    const git = (...args: string[]) => execFileSync('git', ['--git-dir', path.join(dir, 'git'), ...args], { encoding: 'utf8' }).trim();
    expect(git('rev-parse', 'refs/heads/main')).toBe((branch.commit as Json).id);
    expect(git('rev-parse', '--verify', 'refs/tags/v1.0^{commit}')).toBe((branch.commit as Json).id);
    expect(git('symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    // Cloned from the clone_url the source names, as Gitea's dumper does.
    const repo = (await call('GET', '/repos/alice/tools', fixture.as('alice'))).body as Json;
    expect(git('config', 'remote.origin.url')).toBe(repo.clone_url);
    expect(readFileSync(path.join(dir, 'git', 'config'), 'utf8')).not.toContain(USER_PASSWORD);

    // The directory is no longer empty: a second dump into it is refused.
    const again = await runCli(['dump-repo', '--clone_addr', `${fixture.instance.httpUrl}/alice/tools.git`, '--owner_name', 'a', '--repo_name', 'b', '--repo_dir', repoDir], fixture.env);
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 1, stderr: `cairn: repo_dir ${repoDir} is not empty\n` });
  });

  it('refuses a loopback source under the default [migrations] policy without contacting it', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const repoDir = path.join(out, 'refused');
      for (const service of ['git', 'gitea']) {
        const refused = await runCli(
          ['dump-repo', '--git_service', service, '--clone_addr', `http://127.0.0.1:${port}/alice/tools.git`, '--owner_name', 'a', '--repo_name', 'b', '--repo_dir', repoDir],
          { ...fixture.env, CAIRN__migrations__ALLOW_LOCALNETWORKS: 'false' },
        );
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('cairn: You can not import from disallowed hosts.');
      }
      expect(connections).toBe(0);
      expect(existsSync(repoDir) ? readdirSync(repoDir) : []).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('answers a bad unit with a usage error', async () => {
    const bad = await runCli(['dump-repo', '--clone_addr', 'http://127.0.0.1:1/a/b', '--owner_name', 'a', '--repo_name', 'b', '--units', 'issues,wikis'], fixture.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid unit: wikis');
  });
});
