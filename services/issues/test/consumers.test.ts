/**
 * The consumers on the in-process bus. A deleted repository takes its issues (in batches), their comments,
 * subscriptions, times and stopwatches, its labels, milestones, counters and numbering along, and nothing of
 * another repository. A deleted user's stopwatches, subscriptions, assignments and mentions go; their comments stay
 * unless the deletion was a purge or `[service] USER_DELETE_WITH_COMMENTS_MAX_TIME` is set and the account was
 * younger than that (each comment then goes as a deletion does: counted down, event published). The same message
 * handed to a handler twice (JetStream's redelivery; the bus itself never stores an event id twice) applies
 * nothing twice, and a handler on a pool of one connection does not wait on itself.
 */
import { type BusHandler, type BusMessage, encodeEvent, uuidv7 } from '@cairn/bus';
import { type Database, openDatabase } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { OrgDeleted, UserDeleted } from '@cairn/proto/cairn/accounts/v1/events';
import { IssueCommentEvent } from '@cairn/proto/cairn/issues/v1/events';
import { RepoDeleted } from '@cairn/proto/cairn/repos/v1/events';
import { eventually } from '@cairn/testing';
import { USER_COMMENT_BATCH, deletesComments, userDeletedHandler } from '../src/events/accounts-consumer';
import { REPO_ISSUE_BATCH, repoDeletedHandler } from '../src/events/repos-consumer';
import { decoded, startService, type ServiceHarness } from './harness';

const HOUR = 3_600_000;

/** Counts rows of `table` matching `where` (parameters $1…). */
async function count(h: ServiceHarness, table: string, where: string, params: unknown[]): Promise<number> {
  const { rows } = await h.sql.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, params);
  return Number(rows[0].n);
}

let nextIndex = 1;
async function insertIssue(h: ServiceHarness, repoId: number, posterId: number, milestoneId: number | null = null): Promise<number> {
  const { rows } = await h.sql.query<{ id: string }>(
    `INSERT INTO issues (repo_id, index, poster_id, title, milestone_id) VALUES ($1, $2, $3, 'i', $4) RETURNING id`,
    [repoId, nextIndex++, posterId, milestoneId],
  );
  return Number(rows[0].id);
}

async function insertComments(h: ServiceHarness, repoId: number, issueId: number, posterId: number, n: number, type = 0): Promise<void> {
  await h.sql.query(
    `INSERT INTO comments (repo_id, issue_id, type, poster_id, body) SELECT $1, $2, $5, $3, 'c' || g FROM generate_series(1, $4) g`,
    [repoId, issueId, posterId, n, type],
  );
}

/** cairn.user.deleted as accounts publishes it. */
function userDeletedMessage(userId: number, more: { created?: Date; purge?: boolean } = {}): BusMessage {
  const eventId = uuidv7();
  const event = UserDeleted.fromPartial({
    meta: { eventId, occurredAt: new Date(), actorId: 1, repoId: 0 },
    userId,
    login: `user${userId}`,
    purge: more.purge ?? false,
    userCreated: more.created,
  });
  return { id: eventId, subject: 'cairn.user.deleted', data: encodeEvent(UserDeleted, event), deliveryCount: 1 };
}

async function publishUserDeleted(h: ServiceHarness, userId: number, more: { created?: Date; purge?: boolean } = {}): Promise<string> {
  const message = userDeletedMessage(userId, more);
  await h.bus.publish(message.subject, message.id, message.data);
  return message.id;
}

/**
 * The harness's database through a pool of ONE connection, for calling a consumer's handler directly: the bus
 * never hands the same message over twice, JetStream does (after a lost acknowledgement), and a handler must not
 * wait for a second connection while it holds one.
 */
async function singleConnection(h: ServiceHarness): Promise<Database> {
  const { user, host, port, database } = h.sql;
  return openDatabase({ url: `postgres://${user}@${host}:${port}/${database}`, schema: 'issues', logger: silentLogger(), maxConnections: 1 });
}

/** The same message handed over twice, as after a lost acknowledgement. */
async function deliverTwice(handler: BusHandler, message: BusMessage, between: () => Promise<void>): Promise<void> {
  await handler(message);
  await between();
  await handler({ ...message, deliveryCount: 2 });
}

describe("USER_DELETE_WITH_COMMENTS_MAX_TIME's rule (Gitea's deleteUser)", () => {
  const at = new Date('2025-01-10T00:00:00Z');
  const event = (created: Date | undefined, purge = false) => UserDeleted.fromPartial({ meta: { eventId: uuidv7(), occurredAt: at }, userId: 5, purge, userCreated: created });
  test.each([
    ['off, young account', 0, new Date('2025-01-09T23:00:00Z'), false, false],
    ['off, purge', 0, new Date('2020-01-01T00:00:00Z'), true, true],
    ['on, younger than the setting', 2 * HOUR, new Date('2025-01-09T23:00:00Z'), false, true],
    ['on, older than the setting', 2 * HOUR, new Date('2025-01-09T21:00:00Z'), false, false],
    ['on, exactly as old as the setting', 2 * HOUR, new Date('2025-01-09T22:00:00Z'), false, false],
    ['on, creation time unknown', 2 * HOUR, undefined, false, false],
  ])('%s', (_name, maxTime, created, purge, expected) => {
    expect(deletesComments(event(created, purge), maxTime)).toBe(expected);
  });
});

describe('with the default settings', () => {
  let h: ServiceHarness;
  beforeAll(async () => {
    h = await startService();
  });
  afterAll(async () => {
    await h.stop();
  });

  test("a deleted organization's labels go, off every issue that carried them; repository labels stay", async () => {
    const issueId = await insertIssue(h, 31, 7);
    const labels = await h.sql.query<{ id: string }>(
      `INSERT INTO labels (repo_id, org_id, name, color) VALUES (0, 900, 'org-bug', 'ee0701'), (0, 901, 'other-org', '00aabb'), (31, 0, 'repo-bug', '112233') RETURNING id`,
    );
    for (const { id } of labels.rows) await h.sql.query('INSERT INTO issue_labels (issue_id, label_id) VALUES ($1, $2)', [issueId, id]);
    const eventId = uuidv7();
    const event = OrgDeleted.fromPartial({ meta: { eventId, occurredAt: new Date(), actorId: 1, repoId: 0 }, orgId: 900, name: 'acme' });
    await h.bus.publish('cairn.org.deleted', eventId, encodeEvent(OrgDeleted, event));
    await eventually(async () => expect(await count(h, 'labels', 'org_id = $1', [900])).toBe(0));
    expect(await count(h, 'labels', 'org_id = $1 OR repo_id = $2', [901, 31])).toBe(2);
    expect(await count(h, 'issue_labels', 'issue_id = $1', [issueId])).toBe(2);
  });

  test('a deleted repository takes everything of its issues along, in batches, and nothing of another', async () => {
    const repoId = 301;
    const otherRepo = 302;
    const { rows: ms } = await h.sql.query<{ id: string }>("INSERT INTO milestones (repo_id, title) VALUES ($1, 'v1'), ($2, 'v1') RETURNING id", [repoId, otherRepo]);
    const [milestone, otherMilestone] = ms.map((row) => Number(row.id));
    await h.sql.query("INSERT INTO labels (repo_id, name, color) VALUES ($1, 'bug', 'ff0000'), ($2, 'bug', 'ff0000')", [repoId, otherRepo]);
    await h.sql.query("INSERT INTO labels (org_id, name, color) VALUES ($1, 'org-bug', 'ff0000')", [repoId]);
    // More issues than one batch takes.
    const many = REPO_ISSUE_BATCH * 2 + 7;
    await h.sql.query(
      `INSERT INTO issues (repo_id, index, poster_id, title, milestone_id) SELECT $1, g, 9, 't', $3 FROM generate_series(1, $2) g`,
      [repoId, many, milestone],
    );
    await h.sql.query('INSERT INTO repo_issue_index (repo_id, max_index) VALUES ($1, $2)', [repoId, many]);
    const { rows: first } = await h.sql.query<{ id: string }>('SELECT id FROM issues WHERE repo_id = $1 AND index = 1', [repoId]);
    const issueId = Number(first[0].id);
    await insertComments(h, repoId, issueId, 9, 3);
    await h.sql.query('INSERT INTO issue_watches (issue_id, user_id, is_watching) VALUES ($1, 9, true)', [issueId]);
    await h.sql.query('INSERT INTO stopwatches (user_id, issue_id, repo_id) VALUES (9, $1, $2)', [issueId, repoId]);
    await h.sql.query('INSERT INTO tracked_times (issue_id, repo_id, user_id, time) VALUES ($1, $2, 9, 60)', [issueId, repoId]);
    const otherIssue = await insertIssue(h, otherRepo, 9, otherMilestone);
    await insertComments(h, otherRepo, otherIssue, 9, 2);

    await h.publishRepoDeleted(repoId);
    await eventually(async () => expect(await count(h, 'milestones', 'repo_id = $1', [repoId])).toBe(0), 60_000);
    for (const table of ['issues', 'comments', 'labels', 'issue_counts', 'issue_blocks', 'repo_issue_index', 'stopwatches', 'tracked_times']) {
      expect([table, await count(h, table, 'repo_id = $1', [repoId])]).toEqual([table, 0]);
    }
    expect(await count(h, 'issue_watches', 'issue_id = $1', [issueId])).toBe(0);
    // An organization label of the same number is not the repository's.
    expect(await count(h, 'labels', 'org_id = $1', [repoId])).toBe(1);
    // The other repository is untouched.
    expect(await count(h, 'issues', 'repo_id = $1', [otherRepo])).toBe(1);
    expect(await count(h, 'comments', 'repo_id = $1', [otherRepo])).toBe(2);
    expect(await count(h, 'labels', 'repo_id = $1', [otherRepo])).toBe(1);
    const { rows: counts } = await h.sql.query<{ n: string }>('SELECT n FROM issue_counts WHERE repo_id = $1', [otherRepo]);
    expect(counts.map((row) => Number(row.n))).toEqual([1]);
    const { rows: msCounts } = await h.sql.query<{ num_issues: number }>('SELECT num_issues FROM milestones WHERE id = $1', [otherMilestone]);
    expect(msCounts[0].num_issues).toBe(1);

    // The other repository's turn, through the bus.
    await h.publishRepoDeleted(otherRepo);
    await eventually(async () => expect(await count(h, 'issues', 'repo_id = $1', [otherRepo])).toBe(0));
  });

  test('a redelivered repository deletion applies nothing twice, on a pool of one connection', async () => {
    const repoId = 303;
    await h.sql.query("INSERT INTO labels (repo_id, name, color) VALUES ($1, 'bug', 'ff0000')", [repoId]);
    await insertIssue(h, repoId, 9);
    const db = await singleConnection(h);
    try {
      const eventId = uuidv7();
      const event = RepoDeleted.fromPartial({ meta: { eventId, occurredAt: new Date(), actorId: 1, repoId }, repoId });
      const message: BusMessage = { id: eventId, subject: 'cairn.repo.deleted', data: encodeEvent(RepoDeleted, event), deliveryCount: 1 };
      await deliverTwice(repoDeletedHandler({ db, logger: silentLogger() }), message, async () => {
        expect(await count(h, 'issues', 'repo_id = $1', [repoId])).toBe(0);
        expect(await count(h, 'labels', 'repo_id = $1', [repoId])).toBe(0);
        // A label under the same id after the event was applied: the redelivery does not take it.
        await h.sql.query("INSERT INTO labels (repo_id, name, color) VALUES ($1, 'late', '00ff00')", [repoId]);
      });
      expect(await count(h, 'labels', 'repo_id = $1', [repoId])).toBe(1);
      // An unreadable message is dropped, not retried forever.
      await repoDeletedHandler({ db, logger: silentLogger() })({ id: uuidv7(), subject: 'cairn.repo.deleted', data: new TextEncoder().encode('{'), deliveryCount: 1 });
    } finally {
      await db.close();
    }
  });

  test("a deleted user's stopwatches, subscriptions, assignments and mentions go; their issues and comments stay", async () => {
    const repoId = 311;
    const user = 71;
    const other = 72;
    const issueId = await insertIssue(h, repoId, user);
    await insertComments(h, repoId, issueId, user, 2);
    await insertComments(h, repoId, issueId, other, 1);
    for (const who of [user, other]) {
      await h.sql.query('INSERT INTO stopwatches (user_id, issue_id, repo_id) VALUES ($1, $2, $3)', [who, issueId, repoId]);
      await h.sql.query('INSERT INTO issue_watches (issue_id, user_id, is_watching) VALUES ($1, $2, true)', [issueId, who]);
      await h.sql.query('INSERT INTO issue_assignees (issue_id, assignee_id) VALUES ($1, $2)', [issueId, who]);
      await h.sql.query('INSERT INTO issue_mentions (issue_id, user_id) VALUES ($1, $2)', [issueId, who]);
    }
    await h.sql.query('INSERT INTO tracked_times (issue_id, repo_id, user_id, time) VALUES ($1, $2, $3, 60)', [issueId, repoId, user]);
    const seq = await h.lastSeq();

    // A young account, but the setting is off (0): comments stay.
    await publishUserDeleted(h, user, { created: new Date(Date.now() - 1000) });
    await eventually(async () => expect(await count(h, 'stopwatches', 'user_id = $1', [user])).toBe(0));
    expect(await count(h, 'issue_watches', 'user_id = $1', [user])).toBe(0);
    expect(await count(h, 'issue_assignees', 'assignee_id = $1', [user])).toBe(0);
    expect(await count(h, 'issue_mentions', 'user_id = $1', [user])).toBe(0);
    expect(await count(h, 'comments', 'poster_id = $1', [user])).toBe(2);
    expect(await count(h, 'tracked_times', 'user_id = $1', [user])).toBe(1);
    // The poster is never rewritten.
    expect(await count(h, 'issues', 'id = $1 AND poster_id = $2', [issueId, user])).toBe(1);
    for (const table of ['stopwatches', 'issue_watches']) expect(await count(h, table, 'user_id = $1', [other])).toBe(1);
    expect(await count(h, 'issue_assignees', 'assignee_id = $1', [other])).toBe(1);
    expect(await h.outbox(seq)).toEqual([]);

    await publishUserDeleted(h, other);
    await eventually(async () => expect(await count(h, 'stopwatches', 'user_id = $1', [other])).toBe(0));
  });

  test("a purge takes the user's plain comments too", async () => {
    const repoId = 312;
    const user = 73;
    const issueId = await insertIssue(h, repoId, 74);
    await insertComments(h, repoId, issueId, user, 3);
    await insertComments(h, repoId, issueId, user, 1, 27);
    await publishUserDeleted(h, user, { created: new Date('2001-01-01T00:00:00Z'), purge: true });
    await eventually(async () => expect(await count(h, 'comments', 'poster_id = $1 AND type = 0', [user])).toBe(0));
    // Other kinds of comment stay (Gitea deletes CommentTypeComment only).
    expect(await count(h, 'comments', 'poster_id = $1', [user])).toBe(1);
    expect(await count(h, 'issues', 'id = $1 AND num_comments = 0', [issueId])).toBe(1);
  });
});

describe('with USER_DELETE_WITH_COMMENTS_MAX_TIME = 1h', () => {
  let h: ServiceHarness;
  beforeAll(async () => {
    h = await startService({ CAIRN__service__USER_DELETE_WITH_COMMENTS_MAX_TIME: '1h' });
  });
  afterAll(async () => {
    await h.stop();
  });

  test("a young account's plain comments go, in batches, each counted down and announced; an old account's stay", async () => {
    const repoId = 321;
    const young = 81;
    const old = 82;
    const bystander = 83;
    const issueId = await insertIssue(h, repoId, bystander);
    const secondIssue = await insertIssue(h, repoId, young);
    const many = USER_COMMENT_BATCH + 3;
    await insertComments(h, repoId, issueId, young, many);
    await insertComments(h, repoId, secondIssue, young, 2);
    await insertComments(h, repoId, issueId, old, 2);
    await insertComments(h, repoId, issueId, bystander, 1);
    await h.sql.query(`UPDATE issues SET updated = now() - interval '1 day' WHERE repo_id = $1`, [repoId]);
    const seq = await h.lastSeq();

    await publishUserDeleted(h, old, { created: new Date(Date.now() - 2 * HOUR) });
    await publishUserDeleted(h, young, { created: new Date(Date.now() - HOUR / 2) });
    await eventually(async () => expect(await count(h, 'comments', 'poster_id = $1', [young])).toBe(0), 60_000);
    expect(await count(h, 'comments', 'poster_id = $1', [old])).toBe(2);
    expect(await count(h, 'comments', 'poster_id = $1', [bystander])).toBe(1);
    const { rows } = await h.sql.query<{ id: string; num_comments: number; fresh: boolean }>(
      `SELECT id, num_comments, updated > now() - interval '1 hour' AS fresh FROM issues WHERE repo_id = $1 ORDER BY id`,
      [repoId],
    );
    expect(rows.map((row) => [Number(row.id), row.num_comments, row.fresh])).toEqual([
      [issueId, 3, true],
      [secondIssue, 0, true],
    ]);
    // The issues the young account posted stay.
    expect(await count(h, 'issues', 'poster_id = $1', [young])).toBe(1);

    const events = await h.outbox(seq);
    expect(events.length).toBe(many + 2);
    expect(new Set(events.map((row) => row.subject))).toEqual(new Set(['cairn.issue_comment.deleted']));
    const event = decoded(IssueCommentEvent, events[0]);
    expect(event).toMatchObject({ comment: { posterId: young, repoId }, repoPrivate: true, meta: { actorId: 1, repoId } });
  });

  test('a redelivered user deletion applies nothing twice and announces nothing twice, on a pool of one connection', async () => {
    const repoId = 322;
    const young = 84;
    const issueId = await insertIssue(h, repoId, 85);
    await insertComments(h, repoId, issueId, young, 3);
    const seq = await h.lastSeq();
    const db = await singleConnection(h);
    try {
      const handler = userDeletedHandler({ db, logger: silentLogger(), userDeleteWithCommentsMaxTime: HOUR });
      await deliverTwice(handler, userDeletedMessage(young, { created: new Date(Date.now() - HOUR / 2) }), async () => {
        expect(await count(h, 'comments', 'poster_id = $1', [young])).toBe(0);
        // A subscription under the same id after the event was applied: the redelivery does not take it.
        await h.sql.query('INSERT INTO issue_watches (issue_id, user_id, is_watching) VALUES ($1, $2, true)', [issueId, young]);
      });
      expect(await count(h, 'issue_watches', 'user_id = $1', [young])).toBe(1);
      expect((await h.outbox(seq)).length).toBe(3);
      expect(await count(h, 'issues', 'id = $1 AND num_comments = 0', [issueId])).toBe(1);
    } finally {
      await db.close();
    }
  });
});
