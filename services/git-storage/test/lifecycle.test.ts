/**
 * git-storage as a process lives: it declares its stream, serves health for each of its services, takes its file
 * size limit from the configuration, relays the pushes' events from the outbox to the bus, and stops cleanly
 * (twice is fine).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Bus, type BusMessage, decodeEvent } from '@cairn/bus';
import { encodeEnvKey } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { ContentServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { Code, checkHealth, createRpcClient } from '@cairn/rpc';
import { GIT_STREAM, GIT_SUBJECTS, GitSubject } from '../src/index';
import { AUTHOR, type GitStorageHarness, PUSHER, gitOk, repository, startGitStorage } from './harness';

/** A first health call on a fresh channel can take over the default 1 s when the whole suite runs in parallel. */
const HEALTH_DEADLINE_MS = 10_000;

let h: GitStorageHarness;
/** `[api] DEFAULT_MAX_BLOB_SIZE` of this instance: the largest file WriteFiles takes. */
const MAX_BLOB_SIZE = 4096;

beforeAll(async () => {
  h = await startGitStorage({ [encodeEnvKey('api', 'DEFAULT_MAX_BLOB_SIZE')]: String(MAX_BLOB_SIZE) });
});

afterAll(async () => {
  await h.stop();
});

it('names its stream and subjects', () => {
  expect([GIT_STREAM, GIT_SUBJECTS, GitSubject.pushed]).toEqual(['CAIRN_GIT', ['cairn.git.>'], 'cairn.git.pushed']);
});

it('serves health for every service', async () => {
  for (const service of ['', 'RepositoryService', 'SmartHttpService', 'RefService', 'CommitService', 'ContentService']) {
    expect(await checkHealth(h.target, service === '' ? '' : `cairn.git.v1.${service}`, HEALTH_DEADLINE_MS)).toBe(true);
  }
});

it('refuses files over [api] DEFAULT_MAX_BLOB_SIZE in WriteFiles', async () => {
  const contents = createRpcClient(ContentServiceService, { target: h.target, service: 'git-storage', caller: 'gateway', logger: silentLogger() });
  try {
    const limits = repository(await h.createEmpty({ repoName: 'limits' }));
    const write = (size: number) =>
      contents.writeFiles({
        repository: limits,
        branch: '',
        newBranch: '',
        files: [{ operation: 'create', path: `f${size}.bin`, content: Buffer.alloc(size, 0x61), sha: '', fromPath: '' }],
        message: 'size',
        author: AUTHOR,
        committer: AUTHOR,
        push: PUSHER,
        signoff: false,
      });
    await expect(write(MAX_BLOB_SIZE + 1)).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'file_too_large' });
    await expect(write(MAX_BLOB_SIZE)).resolves.toMatchObject({ branch: 'main' });
  } finally {
    contents.close();
  }
});

it('relays cairn.git.pushed from the outbox to the bus', async () => {
  const received: BusMessage[] = [];
  const bus: Bus = h.bus;
  const subscription = await bus.consume({
    stream: GIT_STREAM,
    durable: 'test-pushed',
    filterSubject: GitSubject.pushed,
    handler: async (message) => void received.push(message),
  });
  try {
    const id = await h.createEmpty();
    const work = path.join(h.scratch('life'), 'repo');
    await gitOk(['init', '--quiet', '--initial-branch=main', work]);
    writeFileSync(path.join(work, 'a.txt'), 'a\n');
    await gitOk(['add', '.'], { cwd: work });
    await gitOk(['commit', '--quiet', '-m', 'a'], { cwd: work });
    await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });

    for (let i = 0; i < 200 && !received.some((message) => decodeEvent(GitPushed, message.data).repoId === id); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const message = received.find((candidate) => decodeEvent(GitPushed, candidate.data).repoId === id);
    expect(message?.subject).toBe('cairn.git.pushed');
    const event = decodeEvent(GitPushed, message?.data ?? new Uint8Array());
    expect(message?.id).toBe(event.meta?.eventId);
    expect(event).toMatchObject({ pusherId: PUSHER.pusherId, commitCount: 1 });
  } finally {
    await subscription.stop();
  }
});
