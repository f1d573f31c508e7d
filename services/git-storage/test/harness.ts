/**
 * Test helpers: git-storage started with `start()` on a fresh database, a temporary work directory and the
 * in-process bus; a fake accounts GpgKeyService answering FindVerificationKeys from `keys`; the HTTP bridge
 * (http-bridge.ts) for real `git` clients; the outbox's cairn.git.pushed events; and running git.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Bus, createInProcessBus, decodeEvent } from '@cairn/bus';
import { encodeEnvKey, loadConfig } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { GpgKeyServiceService, type VerificationKey } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import {
  type BranchRule,
  type CreateRepositoryRequest,
  type PushContext,
  type Repository,
  RepositoryServiceService,
  type Signature,
  SmartHttpServiceService,
} from '@cairn/proto/cairn/git/v1/git_service';
import { type RpcClient, type RpcServer, createRpcClient, createRpcServer, anyCaller } from '@cairn/rpc';
import { type TestDatabase, createTestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { type RunningService, start } from '../src/index';
import { repositoryPath } from '../src/storage/layout';
import { type HttpBridge, type PushPolicy, startHttpBridge } from './http-bridge';

export const ZERO_SHA = '0'.repeat(40);

export const PUSHER: PushContext = { pusherId: 7, repoOwnerId: 3, repoPrivate: true, pusherName: 'alice' };

export const AUTHOR: Signature = { name: 'Alice', email: 'alice@example.com', when: new Date('2024-05-06T07:08:09Z'), timezone: '+0200' };

/** Repository `repoId` on the default storage. */
export const repository = (repoId: number): Repository => ({ storage: '', repoId });

/** CreateRepository's request for `repoId`: an empty "demo" on main by AUTHOR, unless `fields` say otherwise. */
export function createRequest(repoId: number, fields: Partial<CreateRepositoryRequest> = {}): CreateRepositoryRequest {
  return {
    repository: repository(repoId),
    defaultBranch: 'main',
    autoInit: false,
    readme: '',
    gitignores: '',
    license: '',
    repoName: 'demo',
    description: '',
    author: AUTHOR,
    ownerName: '',
    ...fields,
  };
}

/** A rule for `name` with every permission; tests switch off what they check. */
export function rule(name: string, fields: Partial<BranchRule> = {}): BranchRule {
  return {
    ruleName: name,
    canPush: true,
    canForcePush: true,
    canDelete: true,
    requireSignedCommits: false,
    protectedFilePatterns: '',
    unprotectedFilePatterns: '',
    ...fields,
  };
}

export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitStorageHarness {
  root: string;
  bus: Bus;
  /** `127.0.0.1:<port>` of the service. */
  target: string;
  repositories: RpcClient<typeof RepositoryServiceService>;
  smartHttp: RpcClient<typeof SmartHttpServiceService>;
  /** What the fake accounts service answers FindVerificationKeys from. */
  keys: VerificationKey[];
  /** Push context and rules the HTTP bridge sends for each repository (default: PUSHER, no rules). */
  policies: Map<number, PushPolicy>;
  /** `http://…/<repoId>.git` of the HTTP bridge. */
  url(repoId: number): string;
  gitDir(repoId: number): string;
  /** A fresh repository id for this run. */
  nextRepoId(): number;
  /** Creates an empty repository (createRequest's, with `fields` changed) under a fresh id, and returns the id. */
  createEmpty(fields?: Partial<CreateRepositoryRequest>): Promise<number>;
  /** A scratch directory removed at stop. */
  scratch(name: string): string;
  /** The cairn.git.pushed events in the outbox, oldest first. */
  pushedEvents(): Promise<GitPushed[]>;
  /** The service's database (for tests that write or read its tables themselves). */
  databaseUrl: string;
  /** Stops the service gracefully, runs `whileStopped`, and starts it again on the same port, database and disk. */
  restart(whileStopped?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/** Runs git as a user would (own HOME, no system or global config), never throwing on failure. */
export function git(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<GitRun> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        env: {
          PATH: process.env.PATH,
          HOME: options.cwd ?? tmpdir(),
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_TERMINAL_PROMPT: '0',
          GIT_AUTHOR_NAME: 'Alice',
          GIT_AUTHOR_EMAIL: 'alice@example.com',
          GIT_COMMITTER_NAME: 'Alice',
          GIT_COMMITTER_EMAIL: 'alice@example.com',
          ...options.env,
        },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** git that must succeed: answers stdout, trimmed. */
export async function gitOk(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const run = await git(args, options);
  if (run.code !== 0) throw new Error(`git ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
  return run.stdout.trim();
}

async function startFakeAccounts(keys: VerificationKey[]): Promise<{ server: RpcServer; target: string }> {
  const server = createRpcServer({ service: 'accounts', logger: silentLogger() });
  // Only the method git-storage calls.
  const definition = { findVerificationKeys: GpgKeyServiceService.findVerificationKeys };
  server.addService(definition, {
    async findVerificationKeys(request) {
      const wanted = new Set(request.emails.map((email) => email.toLowerCase()));
      return { keys: keys.filter((key) => wanted.has(key.email.toLowerCase())) };
    },
  }, anyCaller(definition));
  const port = await server.start('127.0.0.1:0');
  server.setServing(true);
  return { server, target: `127.0.0.1:${port}` };
}

/** `env`: configuration overrides, as CAIRN__* variables. */
export async function startGitStorage(env: NodeJS.ProcessEnv = {}): Promise<GitStorageHarness> {
  const database: TestDatabase = await createTestDatabase('git_storage');
  const workDir = mkdtempSync(path.join(tmpdir(), 'cairn-git-storage-'));
  const keys: VerificationKey[] = [];
  const accounts = await startFakeAccounts(keys);
  const { config } = loadConfig({
    env: {
      CAIRN_WORK_DIR: workDir,
      CAIRN__DATABASE__URL: database.url,
      [encodeEnvKey('services.accounts', 'ADDR')]: accounts.target,
      ...env,
    },
  });
  const logger = silentLogger();
  const bus: Bus = await createInProcessBus({ url: database.url, logger });
  let service: RunningService = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const target = `127.0.0.1:${service.port}`;
  // RepositoryService serves repos (rpc/callers.ts).
  const repositories = createRpcClient(RepositoryServiceService, { target, service: 'git-storage', caller: 'repos', logger, deadlineMs: 30_000 });
  const smartHttp = createRpcClient(SmartHttpServiceService, { target, service: 'git-storage', caller: 'gateway', logger });
  const policies = new Map<number, PushPolicy>();
  const bridge: HttpBridge = await startHttpBridge(smartHttp, (repoId) => policies.get(repoId) ?? { push: PUSHER, rules: [] });
  const sql = new Client({ connectionString: database.url });
  await sql.connect();
  const root = path.join(workDir, 'repositories');
  let repoIds = 1000;
  const scratchDirs: string[] = [];

  return {
    root,
    bus,
    target,
    repositories,
    smartHttp,
    keys,
    policies,
    url: bridge.url,
    gitDir: (repoId) => repositoryPath(root, repository(repoId)),
    nextRepoId: () => ++repoIds,
    async createEmpty(fields) {
      const id = ++repoIds;
      await repositories.createRepository(createRequest(id, fields));
      return id;
    },
    scratch(name) {
      const dir = mkdtempSync(path.join(tmpdir(), `cairn-git-${name}-`));
      scratchDirs.push(dir);
      return dir;
    },
    async pushedEvents() {
      const { rows } = await sql.query<{ data: Buffer }>(
        `SELECT data FROM git_storage.cairn_outbox WHERE subject = 'cairn.git.pushed' ORDER BY seq`,
      );
      return rows.map((row) => decodeEvent(GitPushed, row.data));
    },
    databaseUrl: database.url,
    async restart(whileStopped) {
      await service.stop();
      await whileStopped?.();
      service = await start({ config, logger, bus, listen: target });
    },
    async stop() {
      await bridge.close();
      repositories.close();
      smartHttp.close();
      await sql.end();
      await service.stop();
      await accounts.server.stop(0);
      await bus.close();
      await database.drop();
      rmSync(workDir, { recursive: true, force: true });
      for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
