/**
 * RemoteService.FetchBundle (a restore's git data): a good bundle applies every branch, tag and refs/pull/<n>/head
 * with one cairn.git.pushed; a corrupt bundle is refused with a clear INVALID_ARGUMENT and nothing changes; a write
 * error while storing the bundle (a full disk) ends the call with it instead of hanging.
 */
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { silentLogger } from '@cairn/log';
import { type FetchBundleRequest, RemoteServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError, Code, type RpcClient, createRpcClient } from '@cairn/rpc';
import { receiveBundle } from '../src/rpc/fetch-bundle';
import { type GitStorageHarness, PUSHER, gitOk, repository, startGitStorage } from './harness';

let h: GitStorageHarness;
let remotes: RpcClient<typeof RemoteServiceService>;
let bundle: Buffer;
let sourceRefs: string;

beforeAll(async () => {
  h = await startGitStorage();
  remotes = createRpcClient(RemoteServiceService, { target: h.target, service: 'git-storage', caller: 'migrations', logger: silentLogger(), deadlineMs: 60_000 });
  // A dump's git/: main, fix, an annotated tag and refs/pull/2/head.
  const work = h.scratch('work');
  await gitOk(['init', '--quiet', '--initial-branch=main', work]);
  writeFileSync(path.join(work, 'a.txt'), 'a\n');
  await gitOk(['add', '.'], { cwd: work });
  await gitOk(['commit', '--quiet', '-m', 'first'], { cwd: work });
  await gitOk(['tag', '-a', '-m', 'one', 'v1'], { cwd: work });
  await gitOk(['checkout', '--quiet', '-b', 'fix'], { cwd: work });
  writeFileSync(path.join(work, 'a.txt'), 'fixed\n');
  await gitOk(['commit', '--quiet', '-am', 'fix'], { cwd: work });
  const dump = path.join(h.scratch('dump'), 'git');
  await gitOk(['clone', '--quiet', '--bare', work, dump]);
  await gitOk(['--git-dir', dump, 'update-ref', 'refs/pull/2/head', 'refs/heads/fix']);
  const file = path.join(h.scratch('bundle'), 'dump.bundle');
  await gitOk(['--git-dir', dump, 'bundle', 'create', '--quiet', file, '--all']);
  bundle = readFileSync(file);
  sourceRefs = await gitOk(['--git-dir', dump, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/', 'refs/tags/', 'refs/pull/']);
});

afterAll(async () => {
  remotes.close();
  await h.stop();
});

/** The request stream FetchBundle takes: the header, then `data` in chunks of `size`. */
async function* stream(repoId: number, data: Buffer, size = 16 * 1024): AsyncIterable<FetchBundleRequest> {
  yield { repository: repository(repoId), push: PUSHER, origin: 'migration', data: Buffer.alloc(0) };
  for (let at = 0; at < data.length; at += size) yield { repository: undefined, push: undefined, origin: '', data: data.subarray(at, at + size) };
}

const refsOf = (repoId: number) => gitOk(['--git-dir', h.gitDir(repoId), 'for-each-ref', '--format=%(refname) %(objectname)']);

describe('FetchBundle', () => {
  it('applies a good bundle (branches, tags, pull request heads) with one cairn.git.pushed, nothing staged', async () => {
    const id = await h.createEmpty();
    const before = (await h.pushedEvents()).length;
    const answer = await remotes.fetchBundle(stream(id, bundle));
    expect(answer.empty).toBe(false);
    expect(answer.updated.map((update) => update.ref).sort()).toEqual(['refs/heads/fix', 'refs/heads/main', 'refs/pull/2/head', 'refs/tags/v1']);
    expect(await refsOf(id)).toBe(sourceRefs);
    const events = (await h.pushedEvents()).slice(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ repoId: id, pusherId: PUSHER.pusherId, origin: 'migration' });
    // Branches and tags are the push; the pull request head is not published (as git-storage's own writes of it).
    expect(events[0].refUpdates.map((update) => update.ref).sort()).toEqual(['refs/heads/fix', 'refs/heads/main', 'refs/tags/v1']);

    // The same bundle again (a resumed restore) changes nothing and publishes nothing.
    const again = await remotes.fetchBundle(stream(id, bundle));
    expect(again.updated).toEqual([]);
    expect((await h.pushedEvents()).length).toBe(before + 1);
  });

  it('refuses a corrupt bundle with a clear error and changes nothing', async () => {
    const id = await h.createEmpty();
    const before = (await h.pushedEvents()).length;
    // A truncated pack: the header verifies as a bundle, the objects do not.
    const corrupt = bundle.subarray(0, bundle.length - 64);
    const refused = await remotes.fetchBundle(stream(id, corrupt)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(CairnError);
    expect((refused as CairnError).code).toBe(Code.INVALID_ARGUMENT);
    expect((refused as CairnError).message).toMatch(/^(not a usable git bundle|the bundle could not be fetched): /);
    const garbage = await remotes.fetchBundle(stream(id, Buffer.from('not a bundle at all\n'))).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((garbage as CairnError).code).toBe(Code.INVALID_ARGUMENT);
    expect((garbage as CairnError).message).toMatch(/^not a usable git bundle: /);
    expect(await refsOf(id)).toBe('');
    expect((await h.pushedEvents()).length).toBe(before);
  });

  it('surfaces a write error while storing the bundle instead of waiting for a drain', async () => {
    // A real full disk: every write to /dev/full fails with ENOSPC.
    const full = await receiveBundle(stream(1, bundle), createWriteStream('/dev/full')).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(full).toBeInstanceOf(CairnError);
    expect((full as CairnError).code).toBe(Code.UNAVAILABLE);
    expect((full as CairnError).message).toMatch(/^the bundle could not be stored: .*ENOSPC/);

    // A stream that fails after its buffer filled up (highWaterMark reached, so the writer waits): the wait ends.
    const failing = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, callback) {
        setImmediate(() => callback(new Error('no space left on device')));
      },
    });
    const stuck = await receiveBundle(stream(1, bundle, 256), failing).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((stuck as CairnError).message).toBe('the bundle could not be stored: no space left on device');
  });
});
