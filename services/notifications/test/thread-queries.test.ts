/**
 * The notification threads' reads and marks (store/thread-queries.ts) on a user with 60,000 threads: pages in
 * Gitea's order under each filter, totals from the counters or bounded counts, and the plans that keep a user with a
 * million threads as cheap as one with ten — page 1 of the default list reads two short index ranges (no sort of the
 * list, no scan of it), and the unfiltered total reads counter rows.
 */
import { type CommonQueryMethods, type Database, type QuerySqlToken, openDatabase, sql, z } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { MIGRATIONS_DIR } from '../src/index';
import { MARK_ANSWER_LIMIT, type ThreadFilter, type ThreadRow, countThreads, countUnread, listThreads, setThreadsStatus } from '../src/store/thread-queries';
import { ThreadStatus, touchThreads } from '../src/store/threads';

const USER = 1;
const THREADS = 60_000;
const EPOCH = Date.parse('2024-01-01T00:00:00Z');
let database: TestDatabase;
let db: Database;

/** Thread n of USER: updated at EPOCH + n s (so n orders them), every 10th read, every 97th pinned, the rest unread; repository n % 3 + 1; a pull request every 4th. */
function statusOf(n: number): ThreadStatus {
  return n % 10 === 0 ? ThreadStatus.read : n % 97 === 0 ? ThreadStatus.pinned : ThreadStatus.unread;
}

beforeAll(async () => {
  database = await createTestDatabase('notif_thread_queries');
  db = await openDatabase({ url: database.url, schema: 'notifications', logger: silentLogger(), migrationsDir: MIGRATIONS_DIR });
  await db.pool.transaction(async (tx) => {
    // 60,000 row-level counter updates of one row would take long: triggers off, counters rebuilt (as the bench seed).
    await tx.query(sql.unsafe`SET LOCAL session_replication_role = replica`);
    await tx.query(sql.unsafe`
      INSERT INTO notification_threads (user_id, repo_id, subject_type, issue_id, issue_index, status, updated_at)
      SELECT ${USER}, n % 3 + 1, CASE WHEN n % 4 = 0 THEN 2 ELSE 1 END, n, n,
             CASE WHEN n % 10 = 0 THEN 2 WHEN n % 97 = 0 THEN 3 ELSE 1 END,
             to_timestamp(${EPOCH / 1000} + n)
      FROM generate_series(1, ${THREADS}) AS g(n)`);
    await tx.query(sql.unsafe`
      INSERT INTO notification_counts (user_id, status, threads)
      SELECT user_id, status, count(*) FROM notification_threads GROUP BY 1, 2`);
  });
  await db.pool.query(sql.unsafe`VACUUM ANALYZE notification_threads`);
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
});

/** What a filter selects, newest first, worked out here without the database. */
function expected(filter: Omit<ThreadFilter, 'userId'>): number[] {
  const out: number[] = [];
  for (let n = THREADS; n >= 1; n -= 1) {
    const at = EPOCH + n * 1000;
    if (filter.statuses !== undefined && !filter.statuses.includes(statusOf(n))) continue;
    if (filter.subjectTypes.length > 0 && !filter.subjectTypes.includes(n % 4 === 0 ? 2 : 1)) continue;
    if (filter.repoId !== undefined && filter.repoId !== (n % 3) + 1) continue;
    if (filter.since !== undefined && at < filter.since.getTime()) continue;
    if (filter.beforeExclusive !== undefined && at >= filter.beforeExclusive.getTime()) continue;
    out.push(n);
  }
  return out;
}

const issueIds = (rows: readonly ThreadRow[]) => rows.map((row) => row.issue_id);

describe('listThreads and countThreads', () => {
  const filters: [string, Omit<ThreadFilter, 'userId'>][] = [
    ['the default list (unread and pinned)', { statuses: [ThreadStatus.unread, ThreadStatus.pinned], subjectTypes: [] }],
    ['every status', { subjectTypes: [] }],
    ['read only', { statuses: [ThreadStatus.read], subjectTypes: [] }],
    ['pull requests', { statuses: [ThreadStatus.unread, ThreadStatus.pinned], subjectTypes: [2] }],
    ['one repository, every status', { repoId: 2, subjectTypes: [] }],
    ['one repository, pinned', { repoId: 3, statuses: [ThreadStatus.pinned], subjectTypes: [] }],
    [
      'a time range',
      { subjectTypes: [], since: new Date(EPOCH + 1_000 * 1000), beforeExclusive: new Date(EPOCH + 1_200 * 1000) },
    ],
  ];

  it.each(filters)('%s: pages newest first, and the total', async (_name, filter) => {
    const want = expected(filter);
    const full = { userId: USER, ...filter };
    expect(issueIds(await listThreads(db.pool, full, 0, 30))).toEqual(want.slice(0, 30));
    expect(issueIds(await listThreads(db.pool, full, 30, 30))).toEqual(want.slice(30, 60));
    expect(issueIds(await listThreads(db.pool, full, 3_000, 50))).toEqual(want.slice(3_000, 3_050));
    expect(await countThreads(db.pool, full)).toBe(want.length);
  });

  it('counts unread threads from the counter', async () => {
    expect(await countUnread(db.pool, USER)).toBe(expected({ statuses: [ThreadStatus.unread], subjectTypes: [] }).length);
    expect(await countUnread(db.pool, 999)).toBe(0);
  });
});

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** The plan of the one statement `run` makes, executed (EXPLAIN ANALYZE). */
async function planOf(run: (captor: CommonQueryMethods) => Promise<unknown>): Promise<PlanNode> {
  let captured: QuerySqlToken | undefined;
  // Stands in for the pool: records the statement and answers an empty result of each shape the store reads.
  const captor = {
    any: async (query: QuerySqlToken) => ((captured = query), []),
    one: async (query: QuerySqlToken) => ((captured = query), { total: 0 }),
    maybeOne: async (query: QuerySqlToken) => ((captured = query), null),
  };
  await run(captor as unknown as CommonQueryMethods);
  if (captured === undefined) throw new Error('no statement captured');
  const row = await db.pool.one(sql.type(z.object({ 'QUERY PLAN': z.array(z.object({ Plan: z.unknown() })) }))`EXPLAIN (ANALYZE, FORMAT JSON) ${captured}`);
  return row['QUERY PLAN'][0].Plan as PlanNode;
}

describe('plans', () => {
  it('page 1 of the default list reads two short index ranges: no sequential scan, no sort of the list', async () => {
    const plan = await planOf((captor) => listThreads(captor, { userId: USER, statuses: [ThreadStatus.unread, ThreadStatus.pinned], subjectTypes: [] }, 0, 30));
    const all = nodes(plan);
    expect(all.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
    const scans = all.filter((node) => node['Relation Name'] === 'notification_threads');
    expect(scans.length).toBe(2);
    for (const scan of scans) expect(scan['Actual Rows'] * scan['Actual Loops']).toBeLessThanOrEqual(30);
    // Any sort there is sorts at most the two ranges' 60 rows.
    for (const sort of all.filter((node) => node['Node Type'] === 'Sort')) expect(sort['Actual Rows']).toBeLessThanOrEqual(60);
  });

  it('page 1 of every status reads one index range', async () => {
    const plan = await planOf((captor) => listThreads(captor, { userId: USER, subjectTypes: [] }, 0, 30));
    const scans = nodes(plan).filter((node) => node['Relation Name'] === 'notification_threads');
    expect(scans.map((scan) => [scan['Node Type'], scan['Actual Rows']])).toEqual([[expect.stringMatching(/^Index/), 30]]);
  });

  it('the unfiltered total reads the counters, not the threads', async () => {
    const plan = await planOf((captor) => countThreads(captor, { userId: USER, statuses: [ThreadStatus.unread, ThreadStatus.pinned], subjectTypes: [] }));
    const relations = nodes(plan).flatMap((node) => (node['Relation Name'] === undefined ? [] : [node['Relation Name']]));
    expect(relations).toEqual(['notification_counts']);
  });
});

describe('setThreadsStatus and the counters', () => {
  it('marks the matching threads, answers them newest first, and moves the counters', async () => {
    const other = 2;
    await db.pool.transaction((tx) =>
      touchThreads(
        tx,
        [10, 11, 12].map((issueId) => ({ userId: other, repoId: 5, subjectType: 1, issueId, issueIndex: issueId, commitId: '', commentId: 0, updatedBy: 9 })),
      ),
    );
    expect(await countUnread(db.pool, other)).toBe(3);
    const changed = await db.pool.transaction((tx) => setThreadsStatus(tx, { userId: other, statuses: [ThreadStatus.unread], repoId: 5 }, ThreadStatus.read));
    expect(changed.map((row) => [row.user_id, row.status])).toEqual([
      [other, ThreadStatus.read],
      [other, ThreadStatus.read],
      [other, ThreadStatus.read],
    ]);
    expect(await countUnread(db.pool, other)).toBe(0);
    expect(await countThreads(db.pool, { userId: other, statuses: [ThreadStatus.read], subjectTypes: [] })).toBe(3);
    // Nothing of another user's changed.
    expect(await countUnread(db.pool, USER)).toBe(expected({ statuses: [ThreadStatus.unread], subjectTypes: [] }).length);
  });
});

describe('marking many threads', () => {
  it('changes every matching thread but answers the newest MARK_ANSWER_LIMIT', async () => {
    const user = 3;
    await db.pool.query(sql.unsafe`
      INSERT INTO notification_threads (user_id, repo_id, subject_type, issue_id, issue_index, status, updated_at)
      SELECT ${user}, 1, 1, n, n, 1, to_timestamp(${EPOCH / 1000} + n) FROM generate_series(1, ${MARK_ANSWER_LIMIT + 200}) AS g(n)`);
    const changed = await db.pool.transaction((tx) => setThreadsStatus(tx, { userId: user, statuses: [ThreadStatus.unread] }, ThreadStatus.read));
    expect(changed).toHaveLength(MARK_ANSWER_LIMIT);
    expect(changed[0].issue_id).toBe(MARK_ANSWER_LIMIT + 200);
    expect(await countUnread(db.pool, user)).toBe(0);
    expect(await countThreads(db.pool, { userId: user, statuses: [ThreadStatus.read], subjectTypes: [] })).toBe(MARK_ANSWER_LIMIT + 200);
  });
});
