/**
 * The notifications-transfers handler on a real database, with accounts faked in memory: a pending transfer to a
 * user gives that user an unread repository thread and (mailer on) one transfer mail job; to an organization, the
 * members of its teams that may create repositories, never the doer; a redelivered event adds nothing; with the
 * mailer off no job is queued; a failed accounts lookup throws (the bus redelivers) and writes nothing.
 */
import { type BusMessage, encodeEvent, prepareOutbox, type Bus, uuidv7 } from '@cairn/bus';
import { type Database, openDatabase, sql, z } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Team } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { RepoTransferRequested } from '@cairn/proto/cairn/repos/v1/events';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import type { AccountsClients } from '../src/accounts/transfer-candidates';
import { MIGRATIONS_DIR, transferRequestedHandler } from '../src/index';

const logger = silentLogger();
const ALICE = 2;
const BOB = 3;
const CAROL = 4;
const DAVE = 5;
const ACME = 10;

function account(id: number, login: string, type = 0): User {
  return { id, login, type } as User;
}

const ACCOUNTS: Record<number, User> = { [ALICE]: account(ALICE, 'alice'), [BOB]: account(BOB, 'bob'), [CAROL]: account(CAROL, 'carol'), [DAVE]: account(DAVE, 'dave'), [ACME]: account(ACME, 'acme', 1) };
const TEAMS: Team[] = [
  { id: 1, orgId: ACME, name: 'Owners', permission: 'owner', canCreateOrgRepo: true } as Team,
  { id: 2, orgId: ACME, name: 'builders', permission: 'write', canCreateOrgRepo: true } as Team,
  { id: 3, orgId: ACME, name: 'readers', permission: 'read', canCreateOrgRepo: false } as Team,
];
const MEMBERS: Record<number, number[]> = { 1: [ALICE, BOB], 2: [CAROL, BOB], 3: [DAVE] };

let failLookups = false;
const accounts: AccountsClients = {
  users: {
    batchGetUsers: async (request) => {
      if (failLookups) throw new Error('accounts unavailable');
      return { users: request.ids.map((id) => ACCOUNTS[id]).filter((user) => user !== undefined) };
    },
  },
  teams: {
    listTeams: async (request) => ({ teams: request.org === 'acme' && request.page!.page === 1 ? TEAMS : [], total: TEAMS.length }),
    listTeamMembers: async (request) => ({ users: request.page!.page === 1 ? (MEMBERS[request.teamId] ?? []).map((id) => ACCOUNTS[id]) : [], total: 0 }),
  },
} as AccountsClients;

let database: TestDatabase;
let db: Database;
let nextRepo = 100;

beforeAll(async () => {
  database = await createTestDatabase('notif_transfers');
  db = await openDatabase({ url: database.url, schema: 'notifications', logger, migrationsDir: MIGRATIONS_DIR });
  await prepareOutbox(db);
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

function message(repoId: number, doerId: number, recipientId: number, eventId = uuidv7()): BusMessage {
  const event = RepoTransferRequested.create({
    meta: { eventId, occurredAt: new Date(), actorId: doerId, repoId },
    repository: { id: repoId, ownerId: ALICE, ownerName: 'alice', name: `repo${repoId}` },
    doerId,
    recipientId,
    teamIds: [],
  });
  return { id: eventId, subject: 'cairn.repo.transfer_requested', data: encodeEvent(RepoTransferRequested, event), deliveryCount: 1 };
}

const handler = (mailEnabled: boolean, woken: { count: number } = { count: 0 }) =>
  transferRequestedHandler({ db, bus: {} as Bus, logger, accounts, mailEnabled, durable: 'transfers-test', onMailQueued: () => void woken.count++ });

const threadRow = z.object({ user_id: z.number(), subject_type: z.number(), status: z.number(), issue_id: z.number(), updated_by: z.number() });
const threads = (repoId: number) =>
  db.pool.any(sql.type(threadRow)`SELECT user_id, subject_type, status, issue_id, updated_by FROM notification_threads WHERE repo_id = ${repoId} ORDER BY user_id`);
const jobRow = z.object({ recipient_id: z.number(), kind: z.string(), reason: z.string(), data: z.record(z.unknown()) });
const jobs = (repoId: number) =>
  db.pool.any(sql.type(jobRow)`SELECT recipient_id, kind, reason, data FROM mail_jobs WHERE (data->>'repoId')::bigint = ${repoId} ORDER BY recipient_id`);

it('gives the recipient user a repository thread and one transfer mail job, once per event', async () => {
  const repoId = nextRepo++;
  const woken = { count: 0 };
  const delivered = message(repoId, ALICE, BOB);
  await handler(true, woken)(delivered);
  await handler(true, woken)({ ...delivered, deliveryCount: 2 });
  expect(await threads(repoId)).toEqual([{ user_id: BOB, subject_type: 4, status: 1, issue_id: 0, updated_by: ALICE }]);
  expect(await jobs(repoId)).toEqual([
    {
      recipient_id: BOB,
      kind: 'transfer',
      reason: 'transfer',
      data: { actorId: ALICE, repoId, repoFullName: `alice/repo${repoId}`, recipientOwnerId: BOB, recipientOwnerName: 'bob' },
    },
  ]);
  expect(woken.count).toBe(1);
});

it('tells the members of an organization\'s teams that may create repositories, never the doer', async () => {
  const repoId = nextRepo++;
  await handler(true)(message(repoId, ALICE, ACME));
  expect((await threads(repoId)).map((thread) => thread.user_id)).toEqual([BOB, CAROL]);
  expect((await jobs(repoId)).map((job) => [job.recipient_id, job.data.recipientOwnerName])).toEqual([
    [BOB, 'acme'],
    [CAROL, 'acme'],
  ]);
});

it('queues no mail while the mailer is off, and makes a read thread unread again on a new transfer', async () => {
  const repoId = nextRepo++;
  await handler(false)(message(repoId, ALICE, BOB));
  expect(await jobs(repoId)).toEqual([]);
  await db.pool.query(sql.unsafe`UPDATE notification_threads SET status = 2 WHERE repo_id = ${repoId}`);
  await handler(false)(message(repoId, ALICE, BOB));
  expect((await threads(repoId)).map((thread) => thread.status)).toEqual([1]);
});

it('throws when accounts cannot answer, writing nothing, and applies the event when it comes again', async () => {
  const repoId = nextRepo++;
  const delivered = message(repoId, ALICE, BOB);
  failLookups = true;
  try {
    await expect(handler(true)(delivered)).rejects.toThrow('accounts unavailable');
  } finally {
    failLookups = false;
  }
  expect(await threads(repoId)).toEqual([]);
  await handler(true)({ ...delivered, deliveryCount: 2 });
  expect((await threads(repoId)).map((thread) => thread.user_id)).toEqual([BOB]);
});
