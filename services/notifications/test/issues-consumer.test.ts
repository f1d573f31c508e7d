/**
 * The notifications-issues handler on a real database with fake services: a redelivered event changes nothing
 * (threads, counters, mail jobs), the lists come in one call per kind (permissions in batches of 100), an issue or
 * repository gone by then notifies nobody (and records nothing), mail is queued only while `[mailer] ENABLED`, and
 * deleted issues', users' and repositories' threads go with their counters.
 */
import { type BusMessage, encodeEvent, prepareOutbox, uuidv7 } from '@cairn/bus';
import { type Database, openDatabase, sql, z } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { UserDeleted } from '@cairn/proto/cairn/accounts/v1/events';
import { IssueCommentEvent, IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { BatchGetUserPermissionsRequest, Permission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { userDeletedHandler } from '../src/events/accounts-consumer';
import { type FanOutClients, issuesEventHandler } from '../src/events/issues-consumer';
import { MIGRATIONS_DIR, repoDeletedHandler } from '../src/index';
import { repoDeleted } from './harness';

const logger = silentLogger();
const REPO = 10;
const READER: Permission = { accessMode: 'read', units: { 'repo.issues': 'read', 'repo.pulls': 'read' } };

interface Calls {
  audience: number;
  watchers: number;
  permissions: number[];
  repos: number;
}

/**
 * Fake services: `watchers` watch the repository, everyone in `readers` may read it; the rest as set per test. (Cast:
 * the fakes answer only the fields the fan-out reads.)
 */
function fakeClients(state: { watchers: number[]; readers: Set<number>; issueGone?: boolean; repoGone?: boolean }, calls: Calls): FanOutClients {
  return {
    subscriptions: {
      getIssueAudience: async () => {
        calls.audience += 1;
        if (state.issueGone) throw new CairnError(Code.NOT_FOUND, 'issue does not exist');
        return { watcherIds: [], unwatcherIds: [], participantIds: [1] };
      },
    },
    watches: {
      listWatchers: async () => {
        calls.watchers += 1;
        return { userIds: state.watchers, total: state.watchers.length };
      },
    },
    teams: { listTeamMembers: async () => ({ users: [], total: 0 }) },
    collaborators: {
      batchGetUserPermissions: async (request: BatchGetUserPermissionsRequest) => {
        calls.permissions.push(request.userIds.length);
        if (state.repoGone) throw new CairnError(Code.NOT_FOUND, 'repository does not exist');
        return { permissions: request.userIds.filter((id) => state.readers.has(id)).map((userId) => ({ userId, permission: READER })) };
      },
    },
    repos: {
      batchGetRepositories: async () => {
        calls.repos += 1;
        return { repositories: [{ repository: { id: REPO, ownerName: 'alice', name: 'app' } as never, permission: READER }] };
      },
    },
  } as unknown as FanOutClients;
}

function message<T>(subject: string, type: { toJSON(message: T): unknown }, event: T, id: string): BusMessage {
  return { id, subject, data: encodeEvent(type, event), deliveryCount: 1 };
}

const issue = (id: number) => ({ id, repoId: REPO, index: id, posterId: 1, title: `issue ${id}` });

describe('the notifications-issues handler', () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase('notif_issues');
    db = await openDatabase({ url: database.url, schema: 'notifications', logger, migrationsDir: MIGRATIONS_DIR });
    await prepareOutbox(db);
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const count = (table: 'notification_threads' | 'mail_jobs', where = sql.fragment`TRUE`) =>
    db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM ${sql.identifier([table])} WHERE ${where}`);
  const counters = () =>
    db.pool.any(sql.type(z.object({ user_id: z.number(), status: z.number(), threads: z.number() }))`
      SELECT user_id, status, threads::int FROM notification_counts WHERE threads <> 0 ORDER BY user_id, status`);
  const fresh = (): Calls => ({ audience: 0, watchers: 0, permissions: [], repos: 0 });

  it('writes a thread per reader once; the same event again changes nothing; permissions are asked 100 at a time', async () => {
    const watchers = Array.from({ length: 250 }, (_, i) => 1000 + i);
    const calls = fresh();
    const handler = issuesEventHandler({ db, logger, clients: fakeClients({ watchers, readers: new Set(watchers.slice(0, 200)) }, calls), mailerEnabled: true }, 'test-issues');
    const id = uuidv7();
    const event = IssueCommentEvent.fromPartial({ meta: { eventId: id, actorId: 2, repoId: REPO }, issue: issue(100), comment: { id: 7, body: 'hi' } });
    await handler(message('cairn.issue_comment.created', IssueCommentEvent, event, id));
    // The 200 readers among the watchers; the poster (user 1) is not a reader here: left out.
    expect(await count('notification_threads', sql.fragment`issue_id = 100`)).toBe(200);
    // 250 watchers, the poster, and the actor (for their own mail).
    expect(calls).toEqual({ audience: 1, watchers: 1, permissions: [100, 100, 52], repos: 1 });
    const before = await counters();
    expect(before).toHaveLength(200);
    expect(await count('mail_jobs')).toBe(200);

    await handler(message('cairn.issue_comment.created', IssueCommentEvent, event, id));
    expect(await count('notification_threads', sql.fragment`issue_id = 100`)).toBe(200);
    expect(await counters()).toEqual(before);
    expect(await count('mail_jobs')).toBe(200);
  });

  it('notifies nobody, and records nothing, for an issue or a repository gone by then', async () => {
    for (const gone of [{ issueGone: true }, { repoGone: true }]) {
      const handler = issuesEventHandler({ db, logger, clients: fakeClients({ watchers: [5], readers: new Set([5]), ...gone }, fresh()), mailerEnabled: false }, 'test-gone');
      const id = uuidv7();
      await handler(message('cairn.issue.opened', IssueEvent, IssueEvent.fromPartial({ meta: { eventId: id, actorId: 2, repoId: REPO }, issue: issue(101) }), id));
      expect(await count('notification_threads', sql.fragment`issue_id = 101`)).toBe(0);
      const recorded = await db.pool.exists(sql.unsafe`SELECT 1 FROM cairn_processed_events WHERE consumer = 'test-gone' AND event_id = ${id}`);
      expect(recorded).toBe(false);
    }
  });

  it('queues no mail while the mailer is off', async () => {
    const before = await count('mail_jobs');
    const handler = issuesEventHandler({ db, logger, clients: fakeClients({ watchers: [5], readers: new Set([5]) }, fresh()), mailerEnabled: false }, 'test-nomail');
    const id = uuidv7();
    await handler(message('cairn.issue.opened', IssueEvent, IssueEvent.fromPartial({ meta: { eventId: id, actorId: 2, repoId: REPO }, issue: issue(102) }), id));
    expect(await count('notification_threads', sql.fragment`issue_id = 102`)).toBe(1);
    expect(await count('mail_jobs')).toBe(before);
  });

  it('deletes a deleted issue’s, user’s and repository’s threads, counters following', async () => {
    const handler = issuesEventHandler({ db, logger, clients: fakeClients({ watchers: [5, 6], readers: new Set([5, 6]) }, fresh()), mailerEnabled: false }, 'test-delete');
    const open = async (issueId: number, repoId = REPO) => {
      const id = uuidv7();
      await handler(message('cairn.issue.opened', IssueEvent, IssueEvent.fromPartial({ meta: { eventId: id, actorId: 2, repoId }, issue: { ...issue(issueId), repoId } }), id));
    };
    await open(200);
    await open(201);
    await open(202, 11);
    expect(await count('notification_threads', sql.fragment`issue_id IN (200, 201, 202)`)).toBe(6);

    let id = uuidv7();
    await handler(message('cairn.issue.deleted', IssueEvent, IssueEvent.fromPartial({ meta: { eventId: id, actorId: 2, repoId: REPO }, issue: issue(200) }), id));
    expect(await count('notification_threads', sql.fragment`issue_id = 200`)).toBe(0);

    id = uuidv7();
    await userDeletedHandler(db, logger, 'test-accounts')(message('cairn.user.deleted', UserDeleted, UserDeleted.fromPartial({ meta: { eventId: id }, userId: 6 }), id));
    expect(await count('notification_threads', sql.fragment`user_id = 6`)).toBe(0);
    expect((await counters()).filter((row) => row.user_id === 6)).toEqual([]);

    const deletion = repoDeleted(11);
    await repoDeletedHandler(db, logger, 'test-repos')(message('cairn.repo.deleted', { toJSON: (e: typeof deletion) => e }, deletion, deletion.meta!.eventId));
    expect(await count('notification_threads', sql.fragment`repo_id = 11`)).toBe(0);
    expect(await count('notification_threads', sql.fragment`issue_id = 201`)).toBe(1);
    // The counters equal the threads left.
    const real = await db.pool.any(sql.type(z.object({ user_id: z.number(), status: z.number(), threads: z.number() }))`
      SELECT user_id, status, count(*)::int AS threads FROM notification_threads GROUP BY user_id, status ORDER BY user_id, status`);
    expect(await counters()).toEqual(real);
  });
});
