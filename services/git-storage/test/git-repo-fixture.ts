/**
 * Fixture for the RefService, CommitService and ContentService tests: the three services on a real gRPC server
 * over a temporary repositories root, a real test database with git-storage's migrations applied and the outbox
 * prepared (so cairn.git.pushed rows can be read back), and helpers that build history in bare repositories with the real git CLI.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeEvent, prepareOutbox } from '@cairn/bus';
import { type Database, openDatabase, sql, z } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { migrationPolicy } from '@cairn/outbound';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import {
  CommitServiceService,
  ContentServiceService,
  type PushContext,
  RefServiceService,
  type Repository,
} from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError, type RpcClient, createRpcClient, createRpcServer, anyCaller } from '@cairn/rpc';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { createPushPublisher } from '../src/events/push-publisher';
import { PushGcExclusion } from '../src/git/push-gc-exclusion';
import { gitEnvironment } from '../src/git/command';
import { MIGRATIONS_DIR } from '../src/index';
import { createCommitService } from '../src/rpc/commit-service';
import { createContentService } from '../src/rpc/content-service';
import { ConcurrencyLimit } from '../src/git/concurrency-limit';
import type { GitStorageContext } from '../src/rpc/context';
import { createRefService } from '../src/rpc/ref-service';
import { repositoryPath } from '../src/storage/layout';

export const PUSH: PushContext = { pusherId: 7, repoOwnerId: 3, repoPrivate: true, pusherName: 'alice' };

export interface GitResultText {
  stdout: string;
  status: number;
}

/** Runs git synchronously with the service's clean environment (tests only). */
export function git(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer } = {}): GitResultText {
  const result = spawnSync('git', args, {
    cwd: options.cwd,
    env: gitEnvironment(options.env),
    input: options.input,
    maxBuffer: 64 * 1024 * 1024,
  });
  const status = result.status ?? -1;
  if (status !== 0) throw new Error(`git ${args.join(' ')} failed (${status}): ${result.stderr.toString()}`);
  return { stdout: result.stdout.toString('utf8'), status };
}

/** GIT_AUTHOR_* / GIT_COMMITTER_* for a commit at `epochSeconds`. */
export function identityAt(epochSeconds: number, timezone = '+0000', name = 'Tester', email = 'tester@example.com'): NodeJS.ProcessEnv {
  const date = `@${epochSeconds} ${timezone}`;
  return {
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
    GIT_COMMITTER_DATE: date,
  };
}

/** One commit to make in a work tree: files to write (null deletes), then commit. */
export interface CommitSpec {
  files: Record<string, string | null>;
  message: string;
  /** Author and committer time (seconds). */
  at: number;
  timezone?: string;
}

export interface TestRepository {
  repository: Repository;
  gitDir: string;
}

export interface GitStorageFixture {
  context: GitStorageContext;
  refs: RpcClient<typeof RefServiceService>;
  commits: RpcClient<typeof CommitServiceService>;
  contents: RpcClient<typeof ContentServiceService>;
  /** An empty bare repository whose HEAD names `main`. */
  newRepository(): TestRepository;
  /** Makes `commits` on top of `branch` (created from nothing when absent) and pushes them. Answers the shas. */
  commitOn(repo: TestRepository, branch: string, commits: readonly CommitSpec[]): string[];
  /** The cairn.git.pushed events in the outbox, oldest first. */
  pushedEvents(): Promise<GitPushed[]>;
  stop(): Promise<void>;
}

let nextRepoId = 1;

export async function startGitStorageFixture(): Promise<GitStorageFixture> {
  const database: TestDatabase = await createTestDatabase('git_storage');
  const logger = silentLogger();
  const db: Database = await openDatabase({ url: database.url, schema: 'git_storage', logger, migrationsDir: MIGRATIONS_DIR });
  await prepareOutbox(db);
  const scratch = mkdtempSync(path.join(tmpdir(), 'cairn-git-storage-test-'));
  const root = path.join(scratch, 'repositories');
  const context: GitStorageContext = {
    root,
    db,
    logger,
    gpgKeys: {
      findVerificationKeys: () => Promise.reject(CairnError.internal('these tests verify no signatures')),
      listGpgKeys: () => Promise.reject(CairnError.internal('these tests list no GPG keys')),
    },
    maxFileSize: 1024 * 1024,
    transfers: new ConcurrencyLimit(32, 64),
    transferTimeoutMs: 3_600_000,
    maxPushSize: 0,
    pushes: createPushPublisher({ root, db, logger }),
    pushGc: new PushGcExclusion(),
    // These tests serve no RemoteService; the default policy, as a node without [migrations] settings.
    remotes: { policy: migrationPolicy({ allowedDomains: [], blockedDomains: [], allowLocalnetworks: false }), migrateTimeoutMs: 600_000, mirrorTimeoutMs: 300_000 },
  };
  const server = createRpcServer({ service: 'git-storage', logger });
  server.addService(RefServiceService, createRefService(context), anyCaller(RefServiceService));
  server.addService(CommitServiceService, createCommitService(context), anyCaller(CommitServiceService));
  server.addService(ContentServiceService, createContentService(context), anyCaller(ContentServiceService));
  const port = await server.start('127.0.0.1:0');
  const target = `127.0.0.1:${port}`;
  const clientOptions = { target, service: 'git-storage', caller: 'gateway', logger, deadlineMs: 30_000 } as const;
  const refs = createRpcClient(RefServiceService, clientOptions);
  const commits = createRpcClient(CommitServiceService, clientOptions);
  const contents = createRpcClient(ContentServiceService, clientOptions);

  return {
    context,
    refs,
    commits,
    contents,

    newRepository() {
      const repository: Repository = { storage: '', repoId: nextRepoId++ };
      const gitDir = repositoryPath(root, repository);
      mkdirSync(path.dirname(gitDir), { recursive: true });
      git(['init', '--quiet', '--bare', '--initial-branch=main', gitDir]);
      return { repository, gitDir };
    },

    commitOn(repo, branch, specs) {
      const work = mkdtempSync(path.join(scratch, 'work-'));
      try {
        git(['init', '--quiet', work]);
        git(['fetch', '--quiet', repo.gitDir, `+refs/heads/*:refs/remotes/origin/*`], { cwd: work });
        const exists = git(['branch', '--remotes', '--list', `origin/${branch}`], { cwd: work }).stdout.trim() !== '';
        git(exists ? ['checkout', '--quiet', '-B', branch, `origin/${branch}`] : ['checkout', '--quiet', '--orphan', branch], { cwd: work });
        const shas: string[] = [];
        for (const spec of specs) {
          for (const [file, content] of Object.entries(spec.files)) {
            const full = path.join(work, file);
            if (content === null) {
              rmSync(full);
            } else {
              mkdirSync(path.dirname(full), { recursive: true });
              writeFileSync(full, content);
            }
          }
          git(['add', '--all'], { cwd: work });
          git(['commit', '--quiet', '--allow-empty', '--no-verify', `--message=${spec.message}`], {
            cwd: work,
            env: identityAt(spec.at, spec.timezone),
          });
          shas.push(git(['rev-parse', 'HEAD'], { cwd: work }).stdout.trim());
        }
        git(['push', '--quiet', repo.gitDir, `HEAD:refs/heads/${branch}`], { cwd: work });
        return shas;
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },

    async pushedEvents() {
      const rows = await db.pool.any(
        sql.type(z.object({ subject: z.string(), data: z.instanceof(Buffer) }))`SELECT subject, data FROM cairn_outbox ORDER BY seq`,
      );
      return rows.filter((row) => row.subject === 'cairn.git.pushed').map((row) => decodeEvent(GitPushed, row.data));
    },

    async stop() {
      refs.close();
      commits.close();
      contents.close();
      await server.stop(0);
      await db.close();
      await database.drop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** The CairnError a promise rejects with. */
export async function rejection(promise: Promise<unknown>): Promise<CairnError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** Collects a server stream's messages. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}
