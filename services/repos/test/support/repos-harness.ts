/**
 * Test harness for repos' services: a fresh database with repos' migrations and outbox, accounts and git-storage in
 * memory, the whole repos server on a real gRPC port with clients for it, a look into the outbox for the events
 * written, and helpers that put repositories, collaborators and team links straight into the tables.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { prepareOutbox } from '@cairn/bus';
import { loadConfig } from '@cairn/config';
import { openDatabase, sql, z, type Database } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import {
  BranchProtectionServiceService,
  CollaboratorServiceService,
  CommitStatusServiceService,
  RepoServiceService,
  type FilterReadableRequest,
  type FilterReadableResponse,
  TopicServiceService,
  type CreateRepositoryRequest,
  type RepositoryWithPermission,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { TagProtectionServiceService } from '@cairn/proto/cairn/repos/v1/tag_protections_service';
import { AttachmentServiceService, ReleaseServiceService } from '@cairn/proto/cairn/repos/v1/releases_service';
import { type ObjectStore, localObjectStore } from '@cairn/storage';
import { type Identity, createRpcClient, type RpcClient, type RpcServer, runAsAsserted } from '@cairn/rpc';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { DATABASE_SCHEMA, MIGRATIONS_DIR } from '../../src/index';
import type { ReposContext } from '../../src/rpc/context';
import { createReposServer } from '../../src/server';
import { accountsMemory, type AccountsMemory } from './accounts-memory';
import { gitMemory, type GitMemory } from './git-memory';

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

export interface ReposHarness {
  accounts: AccountsMemory;
  git: GitMemory;
  context: ReposContext;
  db: Database;
  repos: RpcClient<typeof RepoServiceService>;
  /** The same, calling as another service. */
  reposAs(caller: Identity): RpcClient<typeof RepoServiceService>;
  /** FilterReadable as notifications asks it: for the viewer the gateway asserted. */
  filterReadable(request: FilterReadableRequest): Promise<FilterReadableResponse>;
  collaborators: RpcClient<typeof CollaboratorServiceService>;
  topics: RpcClient<typeof TopicServiceService>;
  protections: RpcClient<typeof BranchProtectionServiceService>;
  tagProtections: RpcClient<typeof TagProtectionServiceService>;
  statuses: RpcClient<typeof CommitStatusServiceService>;
  releases: RpcClient<typeof ReleaseServiceService>;
  attachments: RpcClient<typeof AttachmentServiceService>;
  /** The attachments' object store the context uses (a local directory under the work directory). */
  objects: ObjectStore;
  /** Creates a repository as `actorId` (owner: the actor unless given). */
  create(actorId: number, fields: Partial<CreateRepositoryRequest> & { name: string }): Promise<Required<RepositoryWithPermission>>;
  /** The subjects written to the outbox, oldest first. */
  subjects(): Promise<string[]>;
  /** The payload of the newest outbox event with this subject. */
  lastEvent(subject: string): Promise<Uint8Array>;
  /** Inserts a repository row (no git repository, no event). */
  insertRepo(repo: RepoFixture): Promise<number>;
  addCollaborator(repoId: number, userId: number, mode: 'read' | 'write' | 'admin'): Promise<void>;
  linkTeam(repoId: number, orgId: number, teamId: number): Promise<void>;
  stop(): Promise<void>;
}

const subjectRow = z.object({ subject: z.string() });
const dataRow = z.object({ data: z.instanceof(Buffer) });
const idRow = z.object({ id: z.number() });
const MODES = { read: 1, write: 2, admin: 3 } as const;

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
    const objects = localObjectStore(path.join(workDir, 'attachments'));
    const context: ReposContext = {
      db,
      objects,
      logger,
      config,
      accounts: { users: accounts.users, teams: accounts.teams, orgs: accounts.orgs },
      git: { repositories: git.repositories, refs: git.refs, analysis: git.analysis },
    };
    server = createReposServer(context, logger);
    const target = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
    const options = { target, service: 'repos', caller: 'gateway', logger } as const;
    const repos = createRpcClient(RepoServiceService, options);
    // Some RPCs serve other services only (rpc/callers.ts): a test asks them as that service.
    const asService = new Map<Identity, RpcClient<typeof RepoServiceService>>();
    const reposAs = (caller: Identity) => {
      const client = asService.get(caller) ?? createRpcClient(RepoServiceService, { ...options, caller });
      asService.set(caller, client);
      return client;
    };
    const collaborators = createRpcClient(CollaboratorServiceService, options);
    const topics = createRpcClient(TopicServiceService, options);
    const protections = createRpcClient(BranchProtectionServiceService, options);
    const tagProtections = createRpcClient(TagProtectionServiceService, options);
    const statuses = createRpcClient(CommitStatusServiceService, options);
    const releases = createRpcClient(ReleaseServiceService, options);
    const attachments = createRpcClient(AttachmentServiceService, options);
    const opened = db;
    const running = server;
    return {
      accounts,
      git,
      context,
      db,
      repos,
      reposAs,
      // notifications asks FilterReadable for the viewer of the gateway request it serves (the heatmap).
      filterReadable: (request) => {
        const ask = () => reposAs('notifications').filterReadable(request);
        return request.viewer === undefined ? ask() : runAsAsserted('gateway', request.viewer, ask);
      },
      collaborators,
      topics,
      protections,
      tagProtections,
      statuses,
      releases,
      attachments,
      objects,
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
          validateOnly: false,
          mirror: false,
          mirrorInterval: '',
          originalUrl: '',
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
      async insertRepo(repo) {
        const id = await opened.pool.oneFirst(sql.type(idRow)`
          INSERT INTO repositories (owner_id, owner_name, lower_owner_name, owner_type, owner_visibility, name, lower_name,
            is_private, is_archived, default_branch, topics, is_empty)
          VALUES (${repo.ownerId}, ${repo.ownerName}, ${repo.ownerName.toLowerCase()}, ${repo.ownerIsOrg ? 1 : 0},
            ${repo.ownerVisibility ?? 'public'}, ${repo.name}, ${repo.name.toLowerCase()}, ${repo.isPrivate ?? false},
            ${repo.isArchived ?? false}, 'main', ${sql.array(repo.topics ?? [], 'text')}, false)
          RETURNING id
        `);
        const units = repo.units ?? ['repo.code', 'repo.issues', 'repo.pulls'];
        await opened.pool.query(sql.unsafe`INSERT INTO repo_units (repo_id, unit_key) SELECT ${id}, unnest(${sql.array(units, 'text')})`);
        return id;
      },
      async addCollaborator(repoId, userId, mode) {
        await opened.pool.query(sql.unsafe`INSERT INTO collaborations (repo_id, user_id, mode) VALUES (${repoId}, ${userId}, ${MODES[mode]})`);
      },
      async linkTeam(repoId, orgId, teamId) {
        await opened.pool.query(sql.unsafe`INSERT INTO team_repos (org_id, team_id, repo_id) VALUES (${orgId}, ${teamId}, ${repoId})`);
      },
      async stop() {
        for (const client of [repos, ...asService.values(), collaborators, topics, protections, tagProtections, statuses, releases, attachments]) client.close();
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
