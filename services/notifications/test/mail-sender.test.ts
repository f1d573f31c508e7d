/**
 * The mail sender on a real database (mail_jobs), with the transport and accounts faked in memory: a job is sent and
 * marked once; a failing transport leaves it pending to be retried under the same Message-ID, and after
 * SEND_ATTEMPTS it is given up; unreadable data is given up at once; a recipient who cannot receive mail, or whose
 * preference declines the reason, is skipped; an outcome of a stale claim changes nothing.
 */
import { prepareOutbox } from '@cairn/bus';
import type { CairnConfig } from '@cairn/config';
import { type Database, openDatabase, sql, z } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { createTestDatabase, eventually, type TestDatabase } from '@cairn/testing';
import { MIGRATIONS_DIR } from '../src/index';
import { type MailSender, messageIdOf, startMailSender } from '../src/mail/sender';
import type { OutgoingMail } from '../src/mail/transports';
import { claimDueMailJobs, recordMailOutcome } from '../src/store/mail-jobs';

const logger = silentLogger();

function user(id: number, fields: Partial<User> = {}): User {
  return { id, login: `u${id}`, fullName: '', email: `u${id}@example.com`, active: true, prohibitLogin: false, type: 0, emailNotificationsPreference: 'enabled', ...fields } as User;
}

const USERS: Record<number, User> = {
  1: user(1, { login: 'alice' }),
  2: user(2),
  3: user(3, { active: false }),
  4: user(4, { emailNotificationsPreference: 'onmention' }),
};

const SETTINGS = { from: 'cairn@example.com', sendAttempts: 3, retryBackoff: 20, subjectPrefix: '' } as CairnConfig['mailer'];
const SITE = { appName: 'Cairn', rootUrl: 'https://code.example.com/', subjectPrefix: '' };

let database: TestDatabase;
let db: Database;
let sender: MailSender | undefined;
const sent: OutgoingMail[] = [];
const attempted: OutgoingMail[] = [];
let transportDown = false;

beforeAll(async () => {
  database = await createTestDatabase('notif_mail_sender');
  db = await openDatabase({ url: database.url, schema: 'notifications', logger, migrationsDir: MIGRATIONS_DIR });
  await prepareOutbox(db);
});
afterEach(async () => {
  await sender?.stop();
  sender = undefined;
  transportDown = false;
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

function start(): MailSender {
  sender = startMailSender({
    db,
    logger,
    settings: SETTINGS,
    site: SITE,
    pollIntervalMs: 20,
    transport: {
      async send(mail) {
        attempted.push(mail);
        if (transportDown) throw new Error('connect ECONNREFUSED 127.0.0.1:25');
        sent.push(mail);
      },
      close() {},
    },
    users: { batchGetUsers: async (ids) => ids.map((id) => USERS[id]).filter((found) => found !== undefined) },
  });
  return sender;
}

const transferData = (repo: string) => ({ actorId: 1, repoId: 7, repoFullName: repo, recipientOwnerId: 2, recipientOwnerName: 'u2' });
const issueData = (title: string) => ({ action: 'comment', actorId: 1, repoId: 7, repoFullName: 'alice/tools', issueId: 9, issueIndex: 3, isPull: false, title, body: 'hi', commentId: 5 });

async function queue(key: string, kind: string, recipientId: number, reason: string, data: unknown): Promise<void> {
  await db.pool.query(sql.unsafe`INSERT INTO mail_jobs (job_key, kind, recipient_id, reason, data) VALUES (${key}, ${kind}, ${recipientId}, ${reason}, ${sql.jsonb(data as never)})`);
}

const jobRow = z.object({ state: z.number(), attempts: z.number(), last_error: z.string().nullable(), finished: z.boolean() });
const job = (key: string) =>
  db.pool.one(sql.type(jobRow)`SELECT state, attempts, last_error, finished_at IS NOT NULL AS finished FROM mail_jobs WHERE job_key = ${key}`);
const settled = (key: string) =>
  eventually(async () => {
    const row = await job(key);
    if (row.state === 0) throw new Error(`${key} still pending`);
    return row;
  });

it('sends a due job once and marks it sent', async () => {
  await queue('e1:2', 'transfer', 2, 'transfer', transferData('alice/one'));
  start().wake();
  expect(await settled('e1:2')).toEqual({ state: 1, attempts: 1, last_error: null, finished: true });
  const mails = sent.filter((mail) => mail.subject.includes('alice/one'));
  expect(mails.map((mail) => [mail.to, mail.from, mail.messageId])).toEqual([['u2@example.com', 'cairn@example.com', messageIdOf('e1:2', SITE.rootUrl)]]);
});

it('retries a failed send under the same Message-ID and sends it once the transport is back', async () => {
  transportDown = true;
  await queue('e2:2', 'transfer', 2, 'transfer', transferData('alice/two'));
  start().wake();
  await eventually(async () => {
    const row = await job('e2:2');
    if (row.attempts < 2) throw new Error('not retried yet');
    expect(row).toMatchObject({ state: 0, last_error: 'connect ECONNREFUSED 127.0.0.1:25' });
  });
  transportDown = false;
  expect(await settled('e2:2')).toMatchObject({ state: 1 });
  const tries = attempted.filter((mail) => mail.subject.includes('alice/two'));
  expect(new Set(tries.map((mail) => mail.messageId))).toEqual(new Set([messageIdOf('e2:2', SITE.rootUrl)]));
  expect(sent.filter((mail) => mail.subject.includes('alice/two'))).toHaveLength(1);
});

it('gives a job up after SEND_ATTEMPTS failures, and at once when its data cannot be read', async () => {
  transportDown = true;
  await queue('e3:2', 'transfer', 2, 'transfer', transferData('alice/three'));
  await queue('e4:2', 'transfer', 2, 'transfer', { repoFullName: 42 });
  start().wake();
  expect(await settled('e3:2')).toMatchObject({ state: 3, attempts: 3, last_error: 'connect ECONNREFUSED 127.0.0.1:25', finished: true });
  expect(await settled('e4:2')).toMatchObject({ state: 3, attempts: 1 });
});

it('skips recipients who cannot receive mail or whose preference declines the reason', async () => {
  await queue('e5:3', 'transfer', 3, 'transfer', transferData('alice/five'));
  await queue('e5:99', 'transfer', 99, 'transfer', transferData('alice/five'));
  await queue('e6:4', 'issue', 4, 'participant', issueData('Declined'));
  await queue('e7:4', 'issue', 4, 'mention', issueData('Mentioned'));
  await queue('e8:2', 'issue', 2, 'own', issueData('Own action'));
  start().wake();
  expect((await Promise.all(['e5:3', 'e5:99', 'e6:4', 'e7:4', 'e8:2'].map(settled))).map((row) => row.state)).toEqual([2, 2, 2, 1, 2]);
  expect(sent.filter((mail) => /Declined|Mentioned|Own action|alice\/five/.test(mail.subject)).map((mail) => [mail.to, mail.subject])).toEqual([
    ['u4@example.com', 'Re: [alice/tools] Mentioned (#3)'],
  ]);
});

it('ignores the outcome of a stale claim (the lease lapsed and the job was claimed again)', async () => {
  await queue('e9:2', 'transfer', 2, 'transfer', transferData('alice/nine'));
  const [first] = await claimDueMailJobs(db.pool, 10, 0);
  const [second] = await claimDueMailJobs(db.pool, 10, 60_000);
  expect([first.jobKey, second.jobKey, second.attempts]).toEqual(['e9:2', 'e9:2', 2]);
  expect(await recordMailOutcome(db.pool, first, { kind: 'sent' })).toBe(false);
  expect(await recordMailOutcome(db.pool, second, { kind: 'sent' })).toBe(true);
  expect(await job('e9:2')).toMatchObject({ state: 1, attempts: 2 });
});
