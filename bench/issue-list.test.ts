/**
 * The issue-list scenarios' pieces on a real database (accounts, repos and issues schemas migrated): the seeding
 * script keeps what the triggers it switches off would have kept, and the baseline answers every page as Cairn's own
 * code does — the rows a plain COUNT(*)/OFFSET query picks, hydrated by the issues service's store, written by the
 * gateway's converters, with the gateway's Link header.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { type Database, openDatabase, sql } from '@cairn/db';
import { goJson as gatewayGoJson, linkHeader as gatewayLinkHeader } from '@cairn/http';
import { silentLogger } from '@cairn/log';
import type { BatchGetUsersRequest } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { Attachment, type BatchListAttachmentsRequest } from '@cairn/proto/cairn/repos/v1/releases_service';
import { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { viewerFromActor } from '@cairn/rpc';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { Client, Pool } from 'pg';
import { userForViewer } from '../services/accounts/src/domain/user-view';
import { findUsersByIds, toUser } from '../services/accounts/src/store/users';
import type { GatewayServices } from '../services/gateway/src/api/types';
import { toApiIssues } from '@cairn/gitea-json';
import { ISSUE_COLUMNS, issueRow, toIssues } from '../services/issues/src/store/issues';
import { createIssueListHandler, issueList } from './baselines/issue-list-handler';
import { ROOT } from './paths';
import { ASSIGNED_EVERY, CLOSED_EVERY, MILESTONE_EVERY, SEED_LABELS, seedIssues } from './seed-issues';

const ROOT_URL = 'http://localhost:3000/';
const NO_REPLY = 'noreply.localhost';
const SETTINGS = { rootUrl: ROOT_URL, noReplyAddress: NO_REPLY };
const OWNER = 'Bench.User';
/** Made the ordinary way before the seeding: an issue by a deleted user (#1) and an open pull request (#2). */
const BEFORE = 2;
/** Seeded after those, so indexes 3..3002: three blocks of 1,024, the top one partial. */
const COUNT = 3000;
/** A poster with no account: Gitea's Ghost user on both sides. */
const GONE_USER_ID = 999_999;

const migrations = (service: string): string => path.join(ROOT, 'services', service, 'src', 'db', 'migrations');

let database: TestDatabase;
let schemas: Database[];
let accountsDb: Database;
let issuesDb: Database;
let client: Client;
let pool: Pool;
let ownerId: number;
let repoId: number;
let otherRepoId: number;

async function insertRepo(name: string, options: { isPrivate: boolean; units: string[] }): Promise<number> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO repos.repositories (owner_id, owner_name, lower_owner_name, owner_type, owner_visibility, name, lower_name, is_private, default_branch)
     VALUES ($1, $2, lower($2), 0, 'public', $3, lower($3), $4, 'main') RETURNING id`,
    [ownerId, OWNER, name, options.isPrivate],
  );
  const id = Number(rows[0].id);
  for (const unit of options.units) await client.query('INSERT INTO repos.repo_units (repo_id, unit_key) VALUES ($1, $2)', [id, unit]);
  return id;
}

/** An issue created the ordinary way: the next index, counter triggers on. */
async function createIssue(repo: number, posterId: number, options: { closed?: boolean; pull?: boolean } = {}): Promise<number> {
  const { rows } = await client.query<{ max_index: string }>(
    `INSERT INTO issues.repo_issue_index AS r (repo_id, max_index) VALUES ($1, 1)
     ON CONFLICT (repo_id) DO UPDATE SET max_index = r.max_index + 1 RETURNING max_index`,
    [repo],
  );
  const index = Number(rows[0].max_index);
  await client.query('INSERT INTO issues.issues (repo_id, index, poster_id, title, is_closed, is_pull) VALUES ($1, $2, $3, $4, $5, $6)', [
    repo,
    index,
    posterId,
    `ordinary #${index}`,
    options.closed === true,
    options.pull === true,
  ]);
  return index;
}

async function rows<T>(text: string, values: unknown[]): Promise<T[]> {
  return (await client.query(text, values)).rows as T[];
}

/** The counters as stored, and as a real count says they must be. */
async function countersOf(repo: number): Promise<{ stored: unknown; counted: unknown }> {
  const stored = {
    counts: await rows('SELECT is_pull, is_closed, n::int FROM issues.issue_counts WHERE repo_id = $1 AND n > 0 ORDER BY 1, 2', [repo]),
    blocks: await rows('SELECT is_pull, is_closed, block::int, n FROM issues.issue_blocks WHERE repo_id = $1 AND n > 0 ORDER BY 1, 2, 3', [repo]),
    milestones: await rows('SELECT id::int, num_issues, num_closed_issues FROM issues.milestones WHERE repo_id = $1 ORDER BY id', [repo]),
  };
  const counted = {
    counts: await rows('SELECT is_pull, is_closed, count(*)::int AS n FROM issues.issues WHERE repo_id = $1 GROUP BY 1, 2 ORDER BY 1, 2', [repo]),
    blocks: await rows(
      'SELECT is_pull, is_closed, (index >> 10)::int AS block, count(*)::int AS n FROM issues.issues WHERE repo_id = $1 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3',
      [repo],
    ),
    milestones: await rows(
      `SELECT m.id::int, count(i.id)::int AS num_issues, count(i.id) FILTER (WHERE i.is_closed)::int AS num_closed_issues
       FROM issues.milestones m LEFT JOIN issues.issues i ON i.milestone_id = m.id WHERE m.repo_id = $1 GROUP BY m.id ORDER BY m.id`,
      [repo],
    ),
  };
  return { stored, counted };
}

beforeAll(async () => {
  database = await createTestDatabase('bench_issues');
  schemas = [];
  for (const schema of ['accounts', 'repos', 'issues']) {
    schemas.push(await openDatabase({ url: database.url, schema, logger: silentLogger(), maxConnections: 2, migrationsDir: migrations(schema) }));
  }
  [accountsDb, , issuesDb] = schemas;
  // The counter triggers name their tables unqualified: they run with the issues service's search_path.
  client = new Client({ connectionString: database.url, options: '-c search_path=issues' });
  await client.connect();
  pool = new Pool({ connectionString: database.url, max: 2 });

  const owner = await client.query<{ id: string }>(
    `INSERT INTO accounts.users (name, lower_name, full_name, email, created_at) VALUES ($1, lower($1), 'Bench <User> & co', 'bench@example.com', '2024-01-02T03:04:05.678Z')
     RETURNING id`,
    [OWNER],
  );
  ownerId = Number(owner.rows[0].id);
  repoId = await insertRepo('issue-list', { isPrivate: false, units: ['repo.code', 'repo.issues', 'repo.pulls'] });
  otherRepoId = await insertRepo('other', { isPrivate: false, units: ['repo.issues'] });
  await insertRepo('secret', { isPrivate: true, units: ['repo.issues'] });
  await insertRepo('no-issues', { isPrivate: false, units: ['repo.code'] });

  await createIssue(repoId, GONE_USER_ID);
  await createIssue(repoId, ownerId, { pull: true });
  await createIssue(otherRepoId, ownerId);
  await createIssue(otherRepoId, ownerId, { closed: true });
  await seedIssues(client, { repoId, posterId: ownerId, count: COUNT });
  // Two attachments on the newest open issue and one on the next: the lists show them as `assets`.
  await client.query(
    `INSERT INTO repos.attachments (uuid, repo_id, issue_id, uploader_id, name, size, download_count, created)
     SELECT gen_random_uuid(), i.repo_id, i.id, i.poster_id, 'log-' || n || '.txt', 40 + n, n, '2026-01-02T03:04:05Z'::timestamptz + n * interval '1 s'
     FROM (SELECT id, repo_id, poster_id, row_number() OVER (ORDER BY index DESC) AS r FROM issues.issues WHERE repo_id = $1 AND NOT is_closed) i
     JOIN generate_series(1, 2) n ON n <= 3 - i.r
     WHERE i.r <= 2`,
    [repoId],
  );
});

afterAll(async () => {
  await client?.end();
  await pool?.end();
  for (const schema of schemas ?? []) await schema.close();
  await database?.drop();
});

describe('seeding', () => {
  it('numbers the issues after those the repository had, and reserves the indexes', async () => {
    expect(await rows('SELECT min(index)::int AS first, max(index)::int AS last, count(*)::int AS n FROM issues.issues WHERE repo_id = $1', [repoId])).toEqual([
      { first: 1, last: BEFORE + COUNT, n: BEFORE + COUNT },
    ]);
    expect(await rows('SELECT max_index::int FROM issues.repo_issue_index WHERE repo_id = $1', [repoId])).toEqual([{ max_index: BEFORE + COUNT }]);
  });

  it('leaves counters equal to a real count, blocks summing to the total', async () => {
    const { stored, counted } = await countersOf(repoId);
    expect(stored).toEqual(counted);
    const blocks = await rows<{ total: number }>('SELECT sum(n)::int AS total FROM issues.issue_blocks WHERE repo_id = $1', [repoId]);
    expect(blocks).toEqual([{ total: BEFORE + COUNT }]);
    // Three blocks: indexes 1..3002.
    expect(await rows('SELECT DISTINCT block::int FROM issues.issue_blocks WHERE repo_id = $1 ORDER BY 1', [repoId])).toEqual([
      { block: 0 },
      { block: 1 },
      { block: 2 },
    ]);
  });

  it('follows its rules for states, labels, milestones and assignees', async () => {
    const seeded = Array.from({ length: COUNT }, (_, i) => i + BEFORE + 1);
    const every = (k: number): number => seeded.filter((n) => n % k === 0).length;
    expect(await rows('SELECT count(*)::int AS n FROM issues.issues WHERE repo_id = $1 AND is_closed AND index > $2', [repoId, BEFORE])).toEqual([{ n: every(CLOSED_EVERY) }]);
    for (const label of SEED_LABELS) {
      expect(
        await rows('SELECT count(*)::int AS n FROM issues.issue_labels il JOIN issues.labels l ON l.id = il.label_id WHERE l.repo_id = $1 AND l.name = $2', [
          repoId,
          label.name,
        ]),
      ).toEqual([{ n: every(label.every) }]);
    }
    expect(await rows('SELECT count(*)::int AS n FROM issues.issue_assignees a JOIN issues.issues i ON i.id = a.issue_id WHERE i.repo_id = $1', [repoId])).toEqual([
      { n: every(ASSIGNED_EVERY) },
    ]);
    const milestones = await rows<{ title: string; n: number; closed: number }>(
      `SELECT m.title, m.num_issues AS n, m.num_closed_issues AS closed FROM issues.milestones m WHERE m.repo_id = $1 ORDER BY m.title`,
      [repoId],
    );
    const inMilestone = seeded.filter((n) => n % MILESTONE_EVERY === 0);
    const expected = (parity: number): { n: number; closed: number } => {
      const issues = inMilestone.filter((n) => (n / MILESTONE_EVERY) % 2 === parity);
      return { n: issues.length, closed: issues.filter((n) => n % CLOSED_EVERY === 0).length };
    };
    expect(milestones).toEqual([
      { title: 'v1.0', ...expected(0) },
      { title: 'v2.0', ...expected(1) },
    ]);
    // Both states in each milestone, so open_issues and closed_issues both show.
    for (const milestone of milestones) expect(milestone.closed).toBeGreaterThan(0);
    for (const milestone of milestones) expect(milestone.n).toBeGreaterThan(milestone.closed);
  });

  it('leaves other repositories alone', async () => {
    const { stored, counted } = await countersOf(otherRepoId);
    expect(stored).toEqual(counted);
    expect(stored).toMatchObject({ counts: [{ is_pull: false, is_closed: false, n: 1 }, { is_pull: false, is_closed: true, n: 1 }] });
  });

  it('switches the triggers off for its own transaction only', async () => {
    const before = await countersOf(repoId);
    await createIssue(repoId, ownerId);
    const after = await countersOf(repoId);
    expect(after.stored).toEqual(after.counted);
    expect(after.stored).not.toEqual(before.stored);
    await client.query('DELETE FROM issues.issues WHERE repo_id = $1 AND index = $2', [repoId, BEFORE + COUNT + 1]);
    expect((await countersOf(repoId)).stored).toEqual(before.stored);
  });

  it('refuses nonsense options', async () => {
    await expect(seedIssues(client, { repoId, posterId: ownerId, count: 0 })).rejects.toThrow('count must be a positive integer');
    await expect(seedIssues(client, { repoId: -1, posterId: ownerId, count: 1 })).rejects.toThrow('repo id must be a positive integer');
  });
});

describe('baseline', () => {
  const basePath = `/api/v1/repos/${OWNER}/issue-list/issues`;

  /** Cairn's answer, the slow obvious way: COUNT(*), OFFSET, the issues store's hydration, the gateway's converters. */
  async function reference(query: string): Promise<{ body: string; total: number; link: string | undefined }> {
    const params = new URLSearchParams(query);
    const closed = { open: [false], closed: [true], all: [false, true] }[params.get('state') ?? 'open'] ?? [];
    const kinds = { '': [false, true], issues: [false], pulls: [true] }[params.get('type') ?? ''] ?? [];
    const limitParam = Number(params.get('limit') ?? 0);
    const limit = limitParam <= 0 ? 30 : Math.min(limitParam, 50);
    const page = Math.max(Number(params.get('page') ?? 1), 1);
    const where = sql.fragment`i.repo_id = ${repoId} AND i.is_closed = ANY(${sql.array(closed, 'bool')}) AND i.is_pull = ANY(${sql.array(kinds, 'bool')})`;
    const found = await issuesDb.pool.any(
      sql.type(issueRow)`SELECT ${ISSUE_COLUMNS} FROM issues i WHERE ${where} ORDER BY i.index DESC OFFSET ${(page - 1) * limit} LIMIT ${limit}`,
    );
    const total = Number(await issuesDb.pool.oneFirst(sql.unsafe`SELECT count(*) FROM issues i WHERE ${where}`));
    // Only what toApiIssues reads: the root URL, the no-reply domain, and accounts' batchGetUsers as accounts answers it.
    const services = {
      config: { server: { rootUrl: ROOT_URL }, service: { noReplyAddress: NO_REPLY } },
      clients: {
        users: {
          batchGetUsers: async (request: BatchGetUsersRequest) => ({
            users: (await findUsersByIds(accountsDb.pool, request.ids)).map((row) => userForViewer(toUser(row), viewerFromActor(request.viewer), NO_REPLY)),
          }),
        },
        // As repos' BatchListAttachments answers a public repository's issues' own attachments.
        attachments: {
          batchListAttachments: async (request: BatchListAttachmentsRequest) => ({
            attachments: (
              await rows<{ id: string; issue_id: string; uuid: string; name: string; size: string; download_count: string; created: Date }>(
                'SELECT id, issue_id, uuid, name, size, download_count, created FROM repos.attachments WHERE issue_id = ANY($1::bigint[]) AND comment_id IS NULL ORDER BY id',
                [request.issueIds],
              )
            ).map((row) =>
              Attachment.create({ id: Number(row.id), issueId: Number(row.issue_id), uuid: row.uuid, name: row.name, size: Number(row.size), downloadCount: Number(row.download_count), created: row.created }),
            ),
          }),
        },
      },
    } as unknown as GatewayServices;
    const repository = Repository.create({ id: repoId, name: 'issue-list', ownerName: OWNER });
    const issues = await toApiIssues(services, undefined, await toIssues(issuesDb.pool, found), new Map([[repoId, repository]]));
    return { body: gatewayGoJson(issues), total, link: gatewayLinkHeader({ rootUrl: ROOT_URL, path: basePath, rawQuery: query, total, pageSize: limit }) };
  }

  async function expectSameAnswer(query: string): Promise<number> {
    const answer = await issueList(pool, SETTINGS, new URL(`${basePath}?${query}`, 'http://baseline'));
    const expected = await reference(query);
    expect([query, answer.status]).toEqual([query, 200]);
    expect(answer.body).toBe(expected.body);
    expect(answer.headers['X-Total-Count']).toBe(String(expected.total));
    expect(answer.headers.Link).toBe(expected.link);
    return (JSON.parse(answer.body) as unknown[]).length;
  }

  it.each([
    'state=open&page=1',
    'state=open&page=34',
    'state=closed&page=2&limit=50',
    'state=all&page=61&limit=50',
    'state=all&page=62&limit=50',
    'page=0',
    'state=open&page=3&limit=500',
    'type=issues&state=all&page=21',
    'type=pulls',
    'type=issues&page=81',
  ])('answers %s as Cairn does, byte for byte', async (query) => {
    await expectSameAnswer(query);
  });

  it("shows the issues' attachments as Cairn does (one query beside the users, as Cairn's one call)", async () => {
    await expectSameAnswer('state=open&page=1');
    const answer = await issueList(pool, SETTINGS, new URL(`${basePath}?state=open&page=1`, 'http://baseline'));
    const [first, second, third] = JSON.parse(answer.body) as Array<{ assets: Array<{ name: string }> }>;
    expect([first.assets.map(({ name }) => name), second.assets.map(({ name }) => name), third.assets]).toEqual([['log-1.txt', 'log-2.txt'], ['log-1.txt'], []]);
  });

  it('answers every page of the open list as Cairn does, across block boundaries', async () => {
    let seen = 0;
    for (let page = 1; ; page++) {
      const length = await expectSameAnswer(`state=open&page=${page}&limit=50`);
      seen += length;
      if (length < 50) break;
    }
    expect(seen).toBe(Number((await rows<{ n: string }>('SELECT count(*) AS n FROM issues.issues WHERE repo_id = $1 AND NOT is_closed', [repoId]))[0].n));
  });

  it('shows the Ghost user for a poster whose account is gone, and a pull request as one', async () => {
    const answer = await issueList(pool, SETTINGS, new URL(`${basePath}?state=all&page=61&limit=50`, 'http://baseline'));
    const issues = JSON.parse(answer.body) as Array<{ number: number; user: { id: number; login: string; email: string }; pull_request: unknown }>;
    expect(issues.map((issue) => issue.number)).toEqual([2, 1]);
    expect(issues[0]).toMatchObject({ pull_request: { merged: false, html_url: `${ROOT_URL}${OWNER}/issue-list/pulls/2` } });
    expect(issues[1]).toMatchObject({ user: { id: -1, login: 'Ghost', email: `-1+ghost@${NO_REPLY}` }, pull_request: null });
  });

  it.each([
    ['a private repository', `/api/v1/repos/${OWNER}/secret/issues`, 404],
    ['a repository without issues', `/api/v1/repos/${OWNER}/no-issues/issues`, 404],
    ['an unknown repository', `/api/v1/repos/${OWNER}/nothing/issues`, 404],
    ['pull requests where their unit is off', `/api/v1/repos/${OWNER}/other/issues?type=pulls`, 404],
    ['a filter it does not implement', `${basePath}?labels=bug`, 400],
    ['a malformed path', '/api/v1/repos/%E0%A4%A/x/issues', 400],
  ])('refuses %s', async (_what, url, status) => {
    expect((await issueList(pool, SETTINGS, new URL(url, 'http://baseline'))).status).toBe(status);
  });

  it('serves over HTTP with the headers', async () => {
    const server = http.createServer(createIssueListHandler(pool, SETTINGS));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}${basePath}?state=open&page=2`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json;charset=utf-8');
      expect(response.headers.get('x-total-count')).toBe(String((await reference('state=open&page=2')).total));
      expect(await response.text()).toBe((await reference('state=open&page=2')).body);
      expect((await fetch(`http://127.0.0.1:${port}${basePath}`, { method: 'POST' })).status).toBe(404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
