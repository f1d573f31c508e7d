/**
 * What the pull-request end-to-end files share: a scratch directory with its own git configuration, clones over
 * smart HTTP as a fixture user, commits pushed as branches, and pull requests created and awaited through the API.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ApiResponse } from './client';
import { type Fixture, USER_PASSWORD } from './fixture';
import { gitTestEnv } from './instance';

export interface BranchInfo {
  label: string;
  ref: string;
  sha: string;
  repo_id: number;
  repo: { full_name: string } | null;
}
export interface Pull {
  id: number;
  number: number;
  title: string;
  state: string;
  mergeable: boolean;
  merged: boolean;
  merge_commit_sha: string | null;
  merged_by: { login: string } | null;
  base: BranchInfo;
  head: BranchInfo;
  merge_base: string;
  additions?: number;
  deletions?: number;
  changed_files?: number;
  user: { login: string };
}
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface PullWork {
  /** The scratch directory (its `home` is git's HOME). */
  scratch: string;
  /** The environment every git command runs with. */
  gitEnv: NodeJS.ProcessEnv;
  /** An API call through the validating client. */
  call<T = unknown>(method: string, apiPath: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>>;
  /** The smart-HTTP URL of `owner/name` with `user`'s credentials in it. */
  remote(repo: string, user: string): string;
  git(args: string[], cwd: string): Promise<Run>;
  /** `git` that throws on a non-zero exit; its trimmed stdout. */
  gitOk(args: string[], cwd: string): Promise<string>;
  /** A clone of `repo` as `user` in the scratch directory under `dir`; its path. */
  clone(repo: string, user: string, dir: string): Promise<string>;
  /** Writes `file`, commits it and returns the new HEAD. */
  commitFile(cwd: string, file: string, text: string, message?: string): Promise<string>;
  /** A new branch `name` from `from` (origin's main) with one commit writing `file`, pushed; its head. */
  pushBranch(cwd: string, name: string, file: string, text: string, from?: string): Promise<string>;
  /** A commit writing `file` on `branch` as origin has it, pushed; its sha. */
  pushToBranch(cwd: string, branch: string, file: string, text: string): Promise<string>;
  /** The head commit of `branch` of `repo` through the API. */
  branchHead(repo: string, branch: string, headers: Record<string, string>): Promise<string>;
  /** Creates a pull request of `head` into `base` (default main) of `repo`; throws unless 201. */
  createPull(repo: string, head: string, title: string, headers: Record<string, string>, base?: string): Promise<Pull>;
  /** The pull request once `want` holds for it (a new one starts in "checking"); throws after ~10 s. */
  settled(repo: string, index: number, headers: Record<string, string>, want: (pull: Pull) => boolean): Promise<Pull>;
  /** Removes the scratch directory. */
  cleanUp(): void;
}

/** A scratch workspace for `fixture`; commits are authored by `author` (`Name <email>`). */
export async function pullWork(fixture: Fixture, author = { name: 'Alice', email: 'alice@example.com' }): Promise<PullWork> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-pulls-'));
  const home = path.join(scratch, 'home');
  fs.mkdirSync(home);
  const gitEnv = gitTestEnv(home, author);

  const call = <T = unknown>(method: string, apiPath: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> =>
    fixture.api.request<T>(method, `/api/v1${apiPath}`, { headers, body });

  const remote = (repo: string, user: string): string => {
    const url = new URL(`${fixture.instance.httpUrl}/${repo}.git`);
    url.username = user;
    url.password = USER_PASSWORD;
    return url.toString();
  };

  const git = (args: string[], cwd: string): Promise<Run> =>
    new Promise((resolve) => {
      execFile('git', args, { cwd, env: gitEnv, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout: stdout.toString(), stderr: stderr.toString() });
      });
    });

  const gitOk = async (args: string[], cwd: string): Promise<string> => {
    const result = await git(args, cwd);
    if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
    return result.stdout.trim();
  };

  const commitFile = async (cwd: string, file: string, text: string, message = `change ${file}`): Promise<string> => {
    fs.writeFileSync(path.join(cwd, file), text);
    await gitOk(['add', '--', file], cwd);
    await gitOk(['commit', '--quiet', '--message', message], cwd);
    return gitOk(['rev-parse', 'HEAD'], cwd);
  };

  await gitOk(['config', '--global', 'init.defaultBranch', 'main'], scratch);

  return {
    scratch,
    gitEnv,
    call,
    remote,
    git,
    gitOk,
    commitFile,
    async clone(repo, user, dir) {
      const target = path.join(scratch, dir);
      await gitOk(['clone', '--quiet', remote(repo, user), target], scratch);
      return target;
    },
    async pushBranch(cwd, name, file, text, from = 'origin/main') {
      await gitOk(['fetch', '--quiet', 'origin'], cwd);
      await gitOk(['checkout', '--quiet', '-B', name, from], cwd);
      const sha = await commitFile(cwd, file, text);
      await gitOk(['push', '--quiet', 'origin', `${name}:${name}`], cwd);
      return sha;
    },
    async pushToBranch(cwd, branch, file, text) {
      await gitOk(['fetch', '--quiet', 'origin'], cwd);
      await gitOk(['checkout', '--quiet', '-B', branch, `origin/${branch}`], cwd);
      const sha = await commitFile(cwd, file, text);
      await gitOk(['push', '--quiet', 'origin', `${branch}:${branch}`], cwd);
      return sha;
    },
    async branchHead(repo, branch, headers) {
      const got = await call<{ commit: { id: string } }>('GET', `/repos/${repo}/branches/${branch}`, headers);
      if (got.status !== 200) throw new Error(`branch ${repo}@${branch}: ${got.status}`);
      return got.body.commit.id;
    },
    async createPull(repo, head, title, headers, base = 'main') {
      const created = await call<Pull>('POST', `/repos/${repo}/pulls`, headers, { head, base, title, body: `${title} body` });
      if (created.status !== 201) throw new Error(`create ${head}: ${created.status} ${JSON.stringify(created.body)}`);
      return created.body;
    },
    async settled(repo, index, headers, want) {
      let last: Pull | undefined;
      for (let attempt = 0; attempt < 100; attempt += 1) {
        const got = await call<Pull>('GET', `/repos/${repo}/pulls/${index}`, headers);
        if (got.status !== 200) throw new Error(`pull ${repo}#${index}: ${got.status}`);
        last = got.body;
        if (want(last)) return last;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`pull request ${index} did not settle: ${JSON.stringify(last)}`);
    },
    cleanUp() {
      fs.rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * What most pull-request files start from: alice's public, initialised `alice/demo` with `writers` as write
 * collaborators; alice's clone of it (under `alice` in the scratch directory).
 */
export async function demoRepository(w: PullWork, fixture: Fixture, writers: readonly string[] = []): Promise<string> {
  const alice = fixture.as('alice');
  const created = await w.call('POST', '/user/repos', alice, { name: 'demo', auto_init: true });
  if (created.status !== 201) throw new Error(`create alice/demo: ${created.status} ${JSON.stringify(created.body)}`);
  for (const writer of writers) {
    const added = await w.call('PUT', `/repos/alice/demo/collaborators/${writer}`, alice, { permission: 'write' });
    if (added.status !== 204) throw new Error(`add ${writer} to alice/demo: ${added.status}`);
  }
  return w.clone('alice/demo', 'alice', 'alice');
}
