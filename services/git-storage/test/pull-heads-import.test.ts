/**
 * MergeService.ImportPullHeads against real remotes (git http-backend on loopback, @cairn/testing git-cgi.ts): a
 * head the repository has gets refs/pull/<n>/head; a head only the source's refs/pull/<n>/head holds (a deleted
 * branch's) is fetched from there; an open fork pull request's branch comes from the fork into refs/heads/<owner>/<ref>
 * (head-pr-<n>/<owner>/<ref> when that name holds another commit); a head found nowhere gets no ref; a fork on a
 * refused host is never contacted. Patches are kept as pulls/<n>.patch. Nothing is published, nothing is left staged,
 * and the same call again changes nothing.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { encodeEnvKey } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { type ImportPullHeadsRequest, MergeServiceService, RemoteServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { type RpcClient, createRpcClient } from '@cairn/rpc';
import { gitHttpBackend } from '@cairn/testing';
import { type GitStorageHarness, PUSHER, gitOk, repository, startGitStorage } from './harness';

interface Remote {
  base: string;
  connections: number;
  close(): Promise<void>;
}

async function serve(host: string, root: string): Promise<Remote> {
  const server = http.createServer(gitHttpBackend(root, 'mirror'));
  const remote = { base: '', connections: 0, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  server.on('connection', (socket) => {
    remote.connections++;
    socket.unref();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  remote.base = `http://${host}:${(server.address() as AddressInfo).port}/`;
  return remote;
}

let h: GitStorageHarness;
let merge: RpcClient<typeof MergeServiceService>;
let remotes: RpcClient<typeof RemoteServiceService>;
let open: Remote;
let blocked: Remote;
const sha: Record<string, string> = {};

async function commit(work: string, file: string, message: string): Promise<string> {
  writeFileSync(path.join(work, file), `${message}\n`);
  await gitOk(['add', '.'], { cwd: work });
  await gitOk(['commit', '--quiet', '-m', message], { cwd: work });
  return gitOk(['rev-parse', 'HEAD'], { cwd: work });
}

beforeAll(async () => {
  h = await startGitStorage({
    [encodeEnvKey('migrations', 'ALLOW_LOCALNETWORKS')]: 'true',
    [encodeEnvKey('migrations', 'BLOCKED_DOMAINS')]: '127.0.0.2',
  });
  const options = { target: h.target, service: 'git-storage', caller: 'migrations', logger: silentLogger(), deadlineMs: 60_000 } as const;
  merge = createRpcClient(MergeServiceService, options);
  remotes = createRpcClient(RemoteServiceService, options);
  const root = h.scratch('remotes');
  // The source: main, feature, and a commit only refs/pull/3/head holds (its branch was deleted).
  const work = h.scratch('source-work');
  await gitOk(['init', '--quiet', '--initial-branch=main', work]);
  sha.main = await commit(work, 'a.txt', 'first');
  await gitOk(['checkout', '--quiet', '-b', 'feature'], { cwd: work });
  sha.feature = await commit(work, 'b.txt', 'feature');
  await gitOk(['checkout', '--quiet', '-b', 'gone', 'main'], { cwd: work });
  sha.gone = await commit(work, 'c.txt', 'gone');
  await gitOk(['checkout', '--quiet', '-b', 'fix', 'main'], { cwd: work });
  sha.fix = await commit(work, 'd.txt', 'fix in a fork');
  const source = path.join(root, 'source.git');
  await gitOk(['clone', '--quiet', '--bare', work, source]);
  await gitOk(['--git-dir', source, 'update-ref', 'refs/pull/3/head', sha.gone]);
  await gitOk(['--git-dir', source, 'update-ref', '-d', 'refs/heads/gone']);
  await gitOk(['--git-dir', source, 'update-ref', '-d', 'refs/heads/fix']);
  // The fork: its own branch fix.
  const fork = path.join(root, 'fork.git');
  await gitOk(['clone', '--quiet', '--bare', work, fork]);
  open = await serve('127.0.0.1', root);
  blocked = await serve('127.0.0.2', root);
});

afterAll(async () => {
  merge.close();
  remotes.close();
  await open.close();
  await blocked.close();
  await h.stop();
});

async function imported(): Promise<number> {
  const id = await h.createEmpty();
  await remotes.fetchRemote({ repository: repository(id), url: `${open.base}source.git`, auth: undefined, prune: false, timeoutSeconds: 0, push: PUSHER, origin: 'migration' });
  return id;
}

function request(id: number): ImportPullHeadsRequest {
  const pull = { headSha: '', headRef: '', baseRef: 'main', baseSha: '', fromFork: false, headCloneUrl: '', headOwner: '', patch: Buffer.alloc(0) };
  return {
    repository: repository(id),
    url: `${open.base}source.git`,
    auth: undefined,
    timeoutSeconds: 0,
    pulls: [
      { ...pull, index: 1, headSha: sha.feature, headRef: 'feature', patch: Buffer.from('From feature\n') },
      { ...pull, index: 3, headSha: sha.gone, headRef: 'gone', baseSha: sha.main },
      { ...pull, index: 4, headSha: sha.fix, headRef: 'fix', fromFork: true, headCloneUrl: `${open.base}fork.git`, headOwner: 'carol', patch: Buffer.from('From fix\n') },
      { ...pull, index: 5, headSha: sha.fix, headRef: 'fix', fromFork: true, headCloneUrl: `${blocked.base}fork.git`, headOwner: 'dave' },
      { ...pull, index: 6, headSha: 'f'.repeat(40), headRef: 'lost' },
    ],
  };
}

const refs = (id: number) => gitOk(['--git-dir', h.gitDir(id), 'for-each-ref', '--format=%(refname) %(objectname)']);

describe('ImportPullHeads', () => {
  it('sets up heads, fetches missing and fork heads through the guard, keeps patches, publishes nothing; again changes nothing', async () => {
    const id = await imported();
    const events = (await h.pushedEvents()).length;
    const answer = await merge.importPullHeads(request(id));
    expect(answer.pulls).toEqual([
      { index: 1, headBranch: 'feature', headCommitId: sha.feature, mergeBase: sha.main },
      { index: 3, headBranch: 'gone', headCommitId: sha.gone, mergeBase: sha.main },
      { index: 4, headBranch: 'carol/fix', headCommitId: sha.fix, mergeBase: sha.main },
      // The fork on a refused host: no branch (Gitea's "unknown repository"); the head commit is here all the same
      // (#4's fork brought it), so its ref is set.
      { index: 5, headBranch: 'unknown repository', headCommitId: sha.fix, mergeBase: sha.main },
      { index: 6, headBranch: 'lost', headCommitId: '', mergeBase: '' },
    ]);
    expect(blocked.connections).toBe(0);
    const after = await refs(id);
    expect(after).toContain(`refs/heads/carol/fix ${sha.fix}`);
    expect(after).toContain(`refs/pull/1/head ${sha.feature}`);
    expect(after).toContain(`refs/pull/3/head ${sha.gone}`);
    expect(after).not.toContain('refs/pull/6/head');
    expect(after).not.toContain('refs/cairn-fetch/');
    expect(readFileSync(path.join(h.gitDir(id), 'pulls', '1.patch'), 'utf8')).toBe('From feature\n');
    expect(readFileSync(path.join(h.gitDir(id), 'pulls', '4.patch'), 'utf8')).toBe('From fix\n');
    expect((await h.pushedEvents()).length).toBe(events);

    const written = statSync(path.join(h.gitDir(id), 'pulls', '1.patch')).mtimeMs;
    const again = await merge.importPullHeads(request(id));
    expect(again).toEqual(answer);
    expect(await refs(id)).toBe(after);
    expect(statSync(path.join(h.gitDir(id), 'pulls', '1.patch')).mtimeMs).toBe(written);
    expect((await h.pushedEvents()).length).toBe(events);
  });

  it("names a fork's branch head-pr-<n>/<owner>/<ref> when <owner>/<ref> holds another commit", async () => {
    const id = await imported();
    await gitOk(['--git-dir', h.gitDir(id), 'update-ref', 'refs/heads/carol/fix', sha.main]);
    const [, , fork] = request(id).pulls;
    const answer = await merge.importPullHeads({ ...request(id), pulls: [fork] });
    expect(answer.pulls).toEqual([{ index: 4, headBranch: 'head-pr-4/carol/fix', headCommitId: sha.fix, mergeBase: sha.main }]);
    const after = await refs(id);
    expect(after).toContain(`refs/heads/carol/fix ${sha.main}`);
    expect(after).toContain(`refs/heads/head-pr-4/carol/fix ${sha.fix}`);
  });

  it('refuses a bad index or head commit', async () => {
    const id = await imported();
    const [first] = request(id).pulls;
    await expect(merge.importPullHeads({ ...request(id), pulls: [{ ...first, index: 0 }] })).rejects.toMatchObject({ reason: 'invalid_index' });
    await expect(merge.importPullHeads({ ...request(id), pulls: [{ ...first, headSha: '--upload-pack=x' }] })).rejects.toMatchObject({ reason: 'invalid_revision' });
  });
});
