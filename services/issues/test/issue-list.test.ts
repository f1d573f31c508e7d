/**
 * ListIssues and SearchIssues on a real database. The plain list (per-block counters, no COUNT or OFFSET over the
 * list) must answer exactly what a naive ORDER BY index DESC LIMIT/OFFSET query answers, for every page size, state
 * and kind, also after issues are closed, reopened and deleted; the filters (labels, milestones, keyword, times,
 * poster, assignee) and the cross-repository search with its repository sets.
 */
import type { IssueFilter, RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { CairnError, Code } from '@cairn/rpc';
import { scope, startService, type ScopeOptions, type ServiceHarness } from './harness';

let harness: ServiceHarness;

beforeAll(async () => {
  harness = await startService();
});
afterAll(async () => {
  await harness.stop();
});

const READER = 8;

function filter(fields: Partial<IssueFilter> = {}): IssueFilter {
  return { state: '', type: '', labels: [], milestones: [], q: '', createdById: 0, assignedId: 0, mentionedId: 0, reviewRequestedId: 0, reviewedId: 0, ...fields };
}

const as = (repoId: number, more: Partial<ScopeOptions> = {}): RepoScope => scope({ userId: READER, mode: 'read', repoId, ...more });

async function failure(call: Promise<unknown>): Promise<CairnError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

/** What a naive query answers: the indexes of page `page`, newest first, and how many match. */
async function naive(repoId: number, kinds: boolean[], states: boolean[], page: number, limit: number): Promise<{ indexes: number[]; total: number }> {
  const { rows } = await harness.sql.query<{ index: string }>(
    'SELECT index FROM issues WHERE repo_id = $1 AND is_pull = ANY($2) AND is_closed = ANY($3) ORDER BY index DESC LIMIT $4 OFFSET $5',
    [repoId, kinds, states, limit, (page - 1) * limit],
  );
  const count = await harness.sql.query<{ n: string }>('SELECT count(*) AS n FROM issues WHERE repo_id = $1 AND is_pull = ANY($2) AND is_closed = ANY($3)', [
    repoId,
    kinds,
    states,
  ]);
  return { indexes: rows.map((row) => Number(row.index)), total: Number(count.rows[0].n) };
}

const STATES: Array<[string, boolean[]]> = [
  ['', [false]],
  ['open', [false]],
  ['closed', [true]],
  ['all', [false, true]],
];
const TYPES: Array<[string, boolean[]]> = [
  ['', [false, true]],
  ['issues', [false]],
  ['pulls', [true]],
];

/** The whole list, naively: every index of the repository's matching issues, newest first. */
async function naiveAll(repoId: number, kinds: boolean[], states: boolean[]): Promise<number[]> {
  const { rows } = await harness.sql.query<{ index: string }>(
    'SELECT index FROM issues WHERE repo_id = $1 AND is_pull = ANY($2) AND is_closed = ANY($3) ORDER BY index DESC',
    [repoId, kinds, states],
  );
  return rows.map((row) => Number(row.index));
}

/** Every page of every list of the repository, through the service and naively: they must agree. */
async function expectListsMatchNaive(repoId: number, limits: number[]): Promise<number> {
  let compared = 0;
  for (const [state, states] of STATES) {
    for (const [type, kinds] of TYPES) {
      const all = await naiveAll(repoId, kinds, states);
      for (const limit of limits) {
        for (let page = 1; page <= Math.ceil(all.length / limit) + 1; page += 1) {
          const answer = await harness.issues.listIssues({ scope: as(repoId), filter: filter({ state, type }), page: { page, limit } });
          expect({ state, type, limit, page, indexes: answer.issues.map((issue) => issue.index), total: answer.total }).toEqual({
            state,
            type,
            limit,
            page,
            indexes: all.slice((page - 1) * limit, page * limit),
            total: all.length,
          });
          compared += 1;
        }
      }
    }
  }
  return compared;
}

/**
 * Seeds `count` issues with gaps in the numbering (so that blocks hold different numbers of issues), a mix of
 * issues and pull requests, open and closed. The triggers keep the counters as they would for one-by-one creation.
 */
async function seed(repoId: number, count: number): Promise<void> {
  await harness.sql.query(
    `INSERT INTO issues (repo_id, index, poster_id, title, is_pull, is_closed, closed_at)
     SELECT $1, n + (n / 7) * 3 + CASE WHEN n > 1500 THEN 900 ELSE 0 END, 1 + n % 5, 'issue ' || n, n % 4 = 0, n % 3 = 0,
            CASE WHEN n % 3 = 0 THEN now() END
     FROM generate_series(1, $2) AS n`,
    [repoId, count],
  );
}

describe('the plain list', () => {
  test('agrees with a naive ORDER BY/OFFSET query on every page, before and after closing, reopening and deleting', async () => {
    const repoId = 501;
    await seed(repoId, 2600);
    expect(await expectListsMatchNaive(repoId, [50, 37])).toBeGreaterThan(600);
    // Close a whole block's open issues, reopen some closed ones, delete a few, across block boundaries.
    await harness.sql.query('UPDATE issues SET is_closed = true, closed_at = now() WHERE repo_id = $1 AND index BETWEEN 1024 AND 2047 AND NOT is_closed', [repoId]);
    await harness.sql.query('UPDATE issues SET is_closed = false, closed_at = NULL WHERE repo_id = $1 AND index % 11 = 0 AND is_closed', [repoId]);
    await harness.sql.query('DELETE FROM issues WHERE repo_id = $1 AND (index % 13 = 0 OR index BETWEEN 3000 AND 3100)', [repoId]);
    expect(await expectListsMatchNaive(repoId, [43])).toBeGreaterThan(250);
  }, 120_000);

  test('small page sizes across block boundaries', async () => {
    const repoId = 502;
    await harness.sql.query(
      `INSERT INTO issues (repo_id, index, poster_id, title, is_closed) SELECT $1::int8, n, 1, 't', n % 2 = 0
       FROM generate_series(1015, 1040) AS n UNION ALL SELECT $1::int8, n, 1, 't', false FROM generate_series(2040, 2060) AS n`,
      [repoId],
    );
    for (const limit of [1, 2, 3, 10]) {
      for (const [state, states] of STATES) {
        const { total } = await naive(repoId, [false, true], states, 1, limit);
        for (let page = 1; page <= Math.ceil(total / limit) + 1; page += 1) {
          const answer = await harness.issues.listIssues({ scope: as(repoId), filter: filter({ state }), page: { page, limit } });
          expect(answer.issues.map((issue) => issue.index)).toEqual((await naive(repoId, [false, true], states, page, limit)).indexes);
          expect(answer.total).toBe(total);
        }
      }
    }
  });

  test('a page past the end, or absurdly far, is empty with the total; an empty repository has none', async () => {
    const repoId = 503;
    await seed(repoId, 40);
    const open = (await naive(repoId, [false, true], [false], 1, 1)).total;
    for (const page of [3, 1000, 2 ** 31 - 1]) {
      const answer = await harness.issues.listIssues({ scope: as(repoId), filter: filter(), page: { page, limit: 50 } });
      expect([answer.issues, answer.total]).toEqual([[], open]);
    }
    const empty = await harness.issues.listIssues({ scope: as(504), filter: filter(), page: { page: 1, limit: 50 } });
    expect([empty.issues, empty.total]).toEqual([[], 0]);
  });

  test('only the kinds the viewer may read are listed; asking for an unreadable kind is NOT_FOUND', async () => {
    const repoId = 505;
    await seed(repoId, 20);
    const issuesOnly = as(repoId, { units: ['repo.issues'] });
    const listed = await harness.issues.listIssues({ scope: issuesOnly, filter: filter({ state: 'all' }), page: { page: 1, limit: 50 } });
    expect(listed.issues.every((issue) => !issue.isPull)).toBe(true);
    expect(listed.total).toBe((await naive(repoId, [false], [false, true], 1, 1)).total);
    expect((await failure(harness.issues.listIssues({ scope: issuesOnly, filter: filter({ type: 'pulls' }), page: { page: 1, limit: 5 } }))).code).toBe(Code.NOT_FOUND);
    expect((await failure(harness.issues.listIssues({ scope: as(repoId, { units: ['repo.code'] }), filter: filter(), page: { page: 1, limit: 5 } }))).code).toBe(
      Code.NOT_FOUND,
    );
  });
});

describe('hydration', () => {
  test('listed issues carry exactly what GetIssue answers: labels by name, milestone, assignees, times', async () => {
    const repoId = 520;
    const ownerId = 100;
    await seed(repoId, 60);
    const labelIds: number[] = [];
    for (const [repo, org, name, archived] of [
      [repoId, 0, 'beta', false],
      [repoId, 0, 'Alpha', true],
      [0, ownerId, 'alpha <&> "org"', false],
      [repoId, 0, 'gamma', false],
    ] as const) {
      const { rows } = await harness.sql.query<{ id: string }>(
        `INSERT INTO labels (repo_id, org_id, name, color, description, exclusive, archived_at)
         VALUES ($1, $2, $3, 'ee0701', 'about ' || $3, $3 = 'gamma', CASE WHEN $4 THEN now() END) RETURNING id`,
        [repo, org, name, archived],
      );
      labelIds.push(Number(rows[0].id));
    }
    const { rows: milestones } = await harness.sql.query<{ id: string }>(
      `INSERT INTO milestones (repo_id, title, description, is_closed, closed_at, due_on)
       VALUES ($1, 'open one', 'soon', false, NULL, now() + interval '3 days 0.123456 seconds'),
              ($1, 'closed one', '', true, now() - interval '1.5 seconds', NULL) RETURNING id`,
      [repoId],
    );
    const issues = await harness.sql.query<{ id: string; index: string }>('SELECT id, index FROM issues WHERE repo_id = $1 ORDER BY index', [repoId]);
    for (const [at, row] of issues.rows.entries()) {
      // Every set of the labels (made in an order their names do not have); some assignees, given out of order.
      for (const [position, labelId] of labelIds.entries()) {
        if (((at >> position) & 1) === 1) await harness.sql.query('INSERT INTO issue_labels (issue_id, label_id) VALUES ($1, $2)', [row.id, labelId]);
      }
      if (at % 4 === 0) await harness.sql.query('INSERT INTO issue_assignees (issue_id, assignee_id) VALUES ($1, 12), ($1, 3), ($1, 7)', [row.id]);
      if (at % 5 !== 0) await harness.sql.query('UPDATE issues SET milestone_id = $1, deadline = now() + interval \'1 day\' WHERE id = $2', [milestones[at % 2].id, row.id]);
    }
    const scope = as(repoId, { ownerId });
    const listed = [
      ...(await harness.issues.listIssues({ scope, filter: filter({ state: 'all' }), page: { page: 1, limit: 50 } })).issues,
      ...(await harness.issues.listIssues({ scope, filter: filter({ state: 'all' }), page: { page: 2, limit: 50 } })).issues,
      ...(await harness.issues.listIssues({ scope, filter: filter({ state: 'all', q: 'issue' }), page: { page: 1, limit: 50 } })).issues,
    ];
    expect(listed.length).toBe(60 + 50);
    expect(listed.some((issue) => issue.labels.length > 1 && issue.milestone !== undefined && issue.assigneeIds.length === 3)).toBe(true);
    for (const issue of listed) {
      const { issue: single } = await harness.issues.getIssue({ scope, index: issue.index });
      expect(issue).toEqual(single);
    }
  });
});

describe('filtered lists', () => {
  const repoId = 600;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    const insert = async (index: number, title: string, body: string, posterId: number, isClosed: boolean, updated: string): Promise<number> => {
      const { rows } = await harness.sql.query<{ id: string }>(
        `INSERT INTO issues (repo_id, index, poster_id, title, body, is_closed, updated) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
        [repoId, index, posterId, title, body, isClosed, updated],
      );
      return Number(rows[0].id);
    };
    ids.one = await insert(1, 'Crash on start', 'stack trace', 1, false, '2024-01-01T00:00:00.500Z');
    ids.two = await insert(2, 'Typo in docs', 'a 100% typo_here', 2, false, '2024-02-01T00:00:00Z');
    ids.three = await insert(3, 'crash when saving', '', 2, true, '2024-03-01T00:00:00Z');
    ids.four = await insert(4, 'Feature', 'see #2', 3, false, '2024-04-01T00:00:00Z');
    const label = async (name: string, issueIds: number[]): Promise<void> => {
      const { rows } = await harness.sql.query<{ id: string }>("INSERT INTO labels (repo_id, name, color) VALUES ($1, $2, 'ee0701') RETURNING id", [repoId, name]);
      for (const issueId of issueIds) await harness.sql.query('INSERT INTO issue_labels (issue_id, label_id) VALUES ($1, $2)', [issueId, rows[0].id]);
    };
    await label('bug', [ids.one, ids.three]);
    await label('ui', [ids.one, ids.four]);
    const { rows } = await harness.sql.query<{ id: string }>("INSERT INTO milestones (repo_id, title) VALUES ($1, 'v1'), ($1, '42') RETURNING id", [repoId]);
    ids.v1 = Number(rows[0].id);
    ids.m42 = Number(rows[1].id);
    await harness.sql.query('UPDATE issues SET milestone_id = $1 WHERE id = ANY($2)', [ids.v1, [ids.one, ids.two]]);
    await harness.sql.query('UPDATE issues SET milestone_id = $1 WHERE id = $2', [ids.m42, ids.four]);
    await harness.sql.query('INSERT INTO issue_assignees (issue_id, assignee_id) VALUES ($1, 9), ($2, 9)', [ids.two, ids.four]);
    await harness.sql.query("INSERT INTO comments (repo_id, issue_id, poster_id, body) VALUES ($1, $2, 1, 'needle in a comment')", [repoId, ids.four]);
  });

  async function indexes(fields: Partial<IssueFilter>, page = { page: 1, limit: 50 }): Promise<[number[], number]> {
    const answer = await harness.issues.listIssues({ scope: as(repoId), filter: filter({ state: 'all', ...fields }), page });
    return [answer.issues.map((issue) => issue.index), answer.total];
  }

  test.each<[string, Partial<IssueFilter>, [number[], number]]>([
    ['labels: every one named', { labels: ['bug'] }, [[3, 1], 2]],
    ['labels: all of them', { labels: ['bug', 'ui'] }, [[1], 1]],
    ['labels: a name no label has is discarded (Gitea)', { labels: ['nope'] }, [[4, 3, 2, 1], 4]],
    ['labels: only the names that exist count', { labels: ['ui', 'nope'] }, [[4, 1], 2]],
    ['milestones by title', { milestones: ['v1'] }, [[2, 1], 2]],
    ['milestones by id', { milestones: [] }, [[4, 2, 1], 3]],
    ['milestones: a title that looks like a number', { milestones: ['42'] }, [[4], 1]],
    ['milestones: unknown ones are discarded (Gitea)', { milestones: ['nope'] }, [[4, 3, 2, 1], 4]],
    ['milestones: known and unknown', { milestones: ['nope', 'v1'] }, [[2, 1], 2]],
    ['q in the title, any case', { q: 'CRASH' }, [[3, 1], 2]],
    ['q with LIKE wildcards taken literally', { q: '100%' }, [[2], 1]],
    ['q with an underscore', { q: 'o_h' }, [[2], 1]],
    ['q in a comment', { q: 'needle' }, [[4], 1]],
    ['q as a number finds that issue', { q: '3' }, [[3], 1]],
    ['created_by', { createdById: 2 }, [[3, 2], 2]],
    ['assigned_by', { assignedId: 9 }, [[4, 2], 2]],
    ['since (whole seconds)', { since: new Date('2024-01-01T00:00:00.900Z') }, [[4, 3, 2, 1], 4]],
    ['since', { since: new Date('2024-02-01T00:00:01Z') }, [[4, 3], 2]],
    ['before (the second itself included)', { before: new Date('2024-01-01T00:00:00Z') }, [[1], 1]],
    ['since and before', { since: new Date('2024-02-01T00:00:00Z'), before: new Date('2024-03-01T00:00:00Z') }, [[3, 2], 2]],
    ['state and a filter', { state: 'closed', q: 'crash' }, [[3], 1]],
  ])('%s', async (_name, fields, expected) => {
    if (_name === 'milestones by id') fields = { milestones: [String(ids.m42), String(ids.v1)] };
    expect(await indexes(fields)).toEqual(expected);
  });

  test('filtered lists page too', async () => {
    expect(await indexes({ q: 'crash' }, { page: 2, limit: 1 })).toEqual([[1], 2]);
    expect(await indexes({ q: 'crash' }, { page: 3, limit: 1 })).toEqual([[], 2]);
  });
});

describe('search', () => {
  test('only the repositories given, issues and pull requests each from their own set', async () => {
    const seedRepo = async (repoId: number): Promise<void> => {
      await harness.sql.query(
        `INSERT INTO issues (repo_id, index, poster_id, title, is_pull) VALUES ($1::int8, 1, 1, 'issue of ' || $1::text, false), ($1::int8, 2, 1, 'pull of ' || $1::text, true)`,
        [repoId],
      );
    };
    for (const repoId of [701, 702, 703]) await seedRepo(repoId);
    const search = async (repoIds: number[], pullRepoIds: number[], fields: Partial<IssueFilter> = {}, page = { page: 1, limit: 50 }): Promise<[string[], number]> => {
      const answer = await harness.issues.searchIssues({ viewer: { userId: READER, isAdmin: false, isRestricted: false }, repoIds, pullRepoIds, filter: filter(fields), page });
      return [answer.issues.map((issue) => issue.title), answer.total];
    };
    expect(await search([701, 702], [702])).toEqual([['pull of 702', 'issue of 702', 'issue of 701'], 3]);
    expect(await search([701, 702], [702], { type: 'issues' })).toEqual([['issue of 702', 'issue of 701'], 2]);
    expect(await search([701, 702], [702, 703], { type: 'pulls' })).toEqual([['pull of 703', 'pull of 702'], 2]);
    expect(await search([], [])).toEqual([[], 0]);
    expect(await search([701, 702, 703], [], {}, { page: 2, limit: 2 })).toEqual([['issue of 701'], 3]);
    expect(await search([701, 702, 703], [], { q: 'of 702' })).toEqual([['issue of 702'], 1]);
    // Labels: one of the names is enough; a name only another repository has is discarded.
    const { rows } = await harness.sql.query<{ id: string; repo_id: string }>(
      "INSERT INTO labels (repo_id, name, color) VALUES (701, 'a', 'ee0701'), (702, 'b', 'ee0701'), (799, 'c', 'ee0701') RETURNING id, repo_id",
    );
    await harness.sql.query('INSERT INTO issue_labels (issue_id, label_id) SELECT i.id, $1 FROM issues i WHERE i.repo_id = 701 AND NOT i.is_pull', [rows[0].id]);
    await harness.sql.query('INSERT INTO issue_labels (issue_id, label_id) SELECT i.id, $1 FROM issues i WHERE i.repo_id = 702 AND NOT i.is_pull', [rows[1].id]);
    expect(await search([701, 702, 703], [], { labels: ['a', 'b'] })).toEqual([['issue of 702', 'issue of 701'], 2]);
    expect(await search([701, 702, 703], [], { labels: ['c'] })).toEqual([['issue of 703', 'issue of 702', 'issue of 701'], 3]);
    expect(await search([701, 703], [], { labels: ['b'] })).toEqual([['issue of 703', 'issue of 701'], 2]);
  });
});
