/**
 * Test harness for repos' metadata services (topics, branch protections, commit statuses): a fresh database with
 * repos' migrations, accounts in memory, the services on a real gRPC server and clients for them, and helpers
 * that put repositories, collaborators and team links straight into the tables.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@cairn/config';
import { openDatabase, sql, z, type Database } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import {
  BranchProtectionServiceService,
  CommitStatusServiceService,
  TopicServiceService,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { createRpcClient, createRpcServer, type RpcClient, type RpcServer } from '@cairn/rpc';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { createBranchProtectionService } from '../../src/rpc/branch-protection-service';
import { createCommitStatusService } from '../../src/rpc/commit-status-service';
import type { GitRefsClient, GitRepositoriesClient, ReposContext } from '../../src/rpc/context';
import { createTopicService } from '../../src/rpc/topic-service';
import { accountsFake, type AccountsFake } from './accounts-fake';

const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'src', 'db', 'migrations');

export interface RepoFixture {
  ownerId: number;
  ownerName: string;
  /** Default: a user. */
  ownerIsOrg?: boolean;
  ownerVisibility?: 'public' | 'limited' | 'private';
  name: string;
  isPrivate?: boolean;
  isArchived?: boolean;
  topics?: string[];
  /** Default: code, issues, pulls. */
  units?: string[];
}

export interface MetadataHarness {
  accounts: AccountsFake;
  context: ReposContext;
  db: Database;
  topics: RpcClient<typeof TopicServiceService>;
  protections: RpcClient<typeof BranchProtectionServiceService>;
  statuses: RpcClient<typeof CommitStatusServiceService>;
  insertRepo(repo: RepoFixture): Promise<number>;
  addCollaborator(repoId: number, userId: number, mode: 'read' | 'write' | 'admin'): Promise<void>;
  linkTeam(repoId: number, orgId: number, teamId: number): Promise<void>;
  stop(): Promise<void>;
}

const MODES = { read: 1, write: 2, admin: 3 } as const;
const idRow = z.object({ id: z.number() });

function unused<T extends object>(service: string): T {
  return new Proxy({} as T, { get: (_target, method) => (method === 'then' ? undefined : () => Promise.reject(new Error(`${service}.${String(method)} is not used here`))) });
}

export async function startMetadataHarness(): Promise<MetadataHarness> {
  const database: TestDatabase = await createTestDatabase('repos');
  const workDir = mkdtempSync(path.join(tmpdir(), 'cairn-repos-'));
  const logger = silentLogger();
  let db: Database | undefined;
  let server: RpcServer | undefined;
  try {
    const { config } = loadConfig({ env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url } });
    db = await openDatabase({ url: database.url, schema: 'repos', logger, migrationsDir: MIGRATIONS_DIR });
    const accounts = accountsFake();
    const context: ReposContext = {
      db,
      logger,
      config,
      accounts: { users: accounts.users, teams: accounts.teams, orgs: accounts.orgs },
      git: { repositories: unused<GitRepositoriesClient>('git.RepositoryService'), refs: unused<GitRefsClient>('git.RefService') },
    };
    server = createRpcServer({ service: 'repos', logger });
    server.addService(TopicServiceService, createTopicService(context));
    server.addService(BranchProtectionServiceService, createBranchProtectionService(context));
    server.addService(CommitStatusServiceService, createCommitStatusService(context));
    const target = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
    const options = { target, service: 'repos', logger };
    const topics = createRpcClient(TopicServiceService, options);
    const protections = createRpcClient(BranchProtectionServiceService, options);
    const statuses = createRpcClient(CommitStatusServiceService, options);
    const pool = db.pool;
    const running = server;
    const opened = db;

    return {
      accounts,
      context,
      db,
      topics,
      protections,
      statuses,
      async insertRepo(repo) {
        const id = await pool.oneFirst(sql.type(idRow)`
          INSERT INTO repositories (owner_id, owner_name, lower_owner_name, owner_type, owner_visibility, name, lower_name,
            is_private, is_archived, default_branch, topics, is_empty)
          VALUES (${repo.ownerId}, ${repo.ownerName}, ${repo.ownerName.toLowerCase()}, ${repo.ownerIsOrg ? 1 : 0},
            ${repo.ownerVisibility ?? 'public'}, ${repo.name}, ${repo.name.toLowerCase()}, ${repo.isPrivate ?? false},
            ${repo.isArchived ?? false}, 'main', ${sql.array(repo.topics ?? [], 'text')}, false)
          RETURNING id
        `);
        const units = repo.units ?? ['repo.code', 'repo.issues', 'repo.pulls'];
        await pool.query(sql.unsafe`INSERT INTO repo_units (repo_id, unit_key) SELECT ${id}, unnest(${sql.array(units, 'text')})`);
        return id;
      },
      async addCollaborator(repoId, userId, mode) {
        await pool.query(sql.unsafe`INSERT INTO collaborations (repo_id, user_id, mode) VALUES (${repoId}, ${userId}, ${MODES[mode]})`);
      },
      async linkTeam(repoId, orgId, teamId) {
        await pool.query(sql.unsafe`INSERT INTO team_repos (org_id, team_id, repo_id) VALUES (${orgId}, ${teamId}, ${repoId})`);
      },
      async stop() {
        topics.close();
        protections.close();
        statuses.close();
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
