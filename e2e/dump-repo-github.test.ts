/**
 * `cairn dump-repo --git_service github` against the GitHub stand-in of @cairn/testing (github-fixture.ts): no running
 * instance is needed, only the `[migrations]` settings (ALLOW_LOCALNETWORKS through the environment override). The
 * dump is Gitea's layout with the fixture's items: the pull requests GitHub lists among issues only in
 * pull_request.yml, with their patch, and every comment page read.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { type GithubFixture, startGithubFixture } from '@cairn/testing';
import { baseEnv, makeWorkDir, runCli } from './support/instance';

jest.setTimeout(120_000);

type Yaml = Record<string, unknown>;
const TOKEN = 'ghp_dumpFixtureToken';

describe('cairn dump-repo --git_service github', () => {
  let github: GithubFixture;
  let workDir: string;

  beforeAll(async () => {
    github = await startGithubFixture({ token: TOKEN });
    workDir = makeWorkDir('cairn-dump-github-');
  });

  afterAll(async () => {
    rmSync(path.dirname(workDir), { recursive: true, force: true });
    await github?.close();
  });

  it('dumps the GitHub repository’s git data and items in Gitea’s layout', async () => {
    const repoDir = path.join(path.dirname(workDir), 'dump');
    const env = baseEnv(workDir, { CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true' });
    const dumped = await runCli(
      ['dump-repo', '--git_service', 'github', '--clone_addr', github.cloneAddr, '--auth_token', TOKEN, '--owner_name', 'octo-org', '--repo_name', 'widgets', '--repo_dir', repoDir],
      env,
    );
    expect({ code: dumped.code, stderr: dumped.stderr }).toEqual({ code: 0, stderr: '' });
    const dir = path.join(repoDir, 'octo-org', 'widgets');
    const read = (file: string): unknown => parse(readFileSync(path.join(dir, file), 'utf8'));

    expect(read('topic.yml')).toEqual({ topics: ['widgets', 'colour'] });
    expect((read('label.yml') as Yaml[]).map((label) => label.name)).toEqual(['bug', 'enhancement', 'good first issue']);
    expect((read('milestone.yml') as Yaml[]).map((milestone) => [milestone.title, milestone.state])).toEqual([
      ['v1.0', 'open'],
      ['v0.9', 'closed'],
      ['v2.0', 'open'],
    ]);
    expect((read('release.yml') as Yaml[]).map((release) => [release.tag_name, release.target_commitish, release.publisher_name])).toEqual([['v1.0.0', 'main', 'octocat']]);
    const issues = read('issue.yml') as Yaml[];
    expect(issues.map((issue) => [issue.number, issue.poster_name, issue.state])).toEqual([
      [1, 'octocat', 'open'],
      [2, 'monalisa', 'closed'],
      [3, 'ghost', 'open'],
      [6, 'hubot', 'open'],
    ]);
    expect((read('comments/1.yml') as Yaml[]).map((comment) => [comment.poster_name, comment.content])).toEqual([
      ['hubot', 'Me too'],
      ['octocat', 'Fixed soon'],
      ['monalisa', 'Thanks!'],
    ]);
    const pulls = read('pull_request.yml') as Yaml[];
    expect(pulls.map((pull) => [pull.number, (pull.head as Yaml).ref, (pull.head as Yaml).sha, pull.merged])).toEqual([
      [4, 'feature', github.shas.feature, false],
      [5, 'add-widget', github.shas.widget, true],
      [7, 'hubot-fix', github.shas.fork, false],
    ]);
    expect(readFileSync(path.join(dir, 'git', 'pulls', '4.patch'), 'utf8')).toContain('Subject: [PATCH] Blue widgets');
    expect(existsSync(path.join(dir, 'reviews', '4.yml'))).toBe(true);

    const git = (...args: string[]) => execFileSync('git', ['--git-dir', path.join(dir, 'git'), ...args], { encoding: 'utf8' }).trim();
    expect(git('rev-parse', 'refs/heads/main', 'refs/heads/feature', 'refs/tags/v1.0.0').split('\n')).toEqual([github.shas.widget, github.shas.feature, github.shas.widget]);
    // Every API request carried the token.
    const api = github.requests.filter((request) => request.path.startsWith('/api/v3/'));
    expect(new Set(api.map((request) => request.authorization))).toEqual(new Set([`Bearer ${TOKEN}`]));
  });
});
