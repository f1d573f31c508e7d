/**
 * Test harness for RepoService and CollaboratorService: a fresh database with repos' migrations and outbox, accounts
 * and git-storage in memory, the whole repos server on a real gRPC port with clients for it, and a look into the
 * outbox for the events written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { prepareOutbox } from '@cairn/bus';
import { loadConfig } from '@cairn/config';
import { openDatabase, sql, z, type Database } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import {
  CollaboratorServiceService,
  RepoServiceService,
  type CreateRepositoryRequest,
  type RepositoryWithPermission,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { createRpcClient, type RpcClient, type RpcServer } from '@cairn/rpc';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { DATABASE_SCHEMA, MIGRATIONS_DIR } from '../../src/index';
import type { ReposContext } from '../../src/rpc/context';
import { createReposServer } from '../../src/server';
import { accountsMemory, type AccountsMemory } from './accounts-memory';
import { gitMemory, type GitMemory } from './git-memory';

export interface ReposHarness {
  accounts: AccountsMemory;
  git: GitMemory;
  context: ReposContext;
  db: Database;
  repos: RpcClient<typeof RepoServiceService>;
  collaborators: RpcClient<typeof CollaboratorServiceService>;
  /** Creates a repository as `actorId` (owner: the actor unless given). */
  create(actorId: number, fields: Partial<CreateRepositoryRequest> & { name: string }): Promise<Required<RepositoryWithPermission>>;
  /** The subjects written to the outbox, oldest first. */
  subjects(): Promise<string[]>;
  /** The payload of the newest outbox event with this subject. */
  lastEvent(subject: string): Promise<Uint8Array>;
  stop(): Promise<void>;
}

const subjectRow = z.object({ subject: z.string() });
const dataRow = z.object({ data: z.instanceof(Buffer) });

export async function startReposHarness(): Promise<ReposHarness> {
  const database: TestDatabase = await createTestDatabase('repos_core');
  const workDir = mkdtempSync(path.join(tmpdir(), 'cairn-repos-core-'));
  const logger = silentLogger();
  let db: Database | undefined;
  let server: RpcServer | undefined;
  try {
    const { config } = loadConfig({ env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url } });
    db = await openDatabase({ url: database.url, schema: DATABASE_SCHEMA, logger, migrationsDir: MIGRATIONS_DIR });
    await prepareOutbox(db);
    const accounts = accountsMemory();
    const git = gitMemory();
    const context: ReposContext = {
      db,
      logger,
      config,
      accounts: { users: accounts.users, teams: accounts.teams, orgs: accounts.orgs },
      git: { repositories: git.repositories, refs: git.refs },
    };
    server = createReposServer(context, logger);
    const target = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
    const repos = createRpcClient(RepoServiceService, { target, service: 'repos', logger });
    const collaborators = createRpcClient(CollaboratorServiceService, { target, service: 'repos', logger });
    const opened = db;
    const running = server;
    return {
      accounts,
      git,
      context,
      db,
      repos,
      collaborators,
      async create(actorId, fields) {
        const { repository } = await repos.createRepository({
          actor: accounts.actor(actorId),
          owner: '',
          description: '',
          private: false,
          autoInit: false,
          gitignores: '',
          license: '',
          readme: '',
          defaultBranch: '',
          template: false,
          objectFormatName: '',
          trustModel: '',
          issueLabels: '',
          ...fields,
        });
        return repository as Required<RepositoryWithPermission>;
      },
      async subjects() {
        const rows = await opened.pool.any(sql.type(subjectRow)`SELECT subject FROM cairn_outbox ORDER BY seq`);
        return rows.map((row) => row.subject);
      },
      async lastEvent(subject) {
        const row = await opened.pool.one(sql.type(dataRow)`SELECT data FROM cairn_outbox WHERE subject = ${subject} ORDER BY seq DESC LIMIT 1`);
        return new Uint8Array(row.data);
      },
      async stop() {
        repos.close();
        collaborators.close();
        await running.stop();
        await opened.close();
        await database.drop();
        rmSync(workDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server?.stop();
    await db?.close();
    await database.drop();
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
}
