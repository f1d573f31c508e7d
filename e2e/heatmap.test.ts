/**
 * The user heatmap end to end: the built supervisor with PostgreSQL and NATS (every service its own process),
 * fed a `cairn.git.pushed` event published the way git-storage will publish it (JetStream, the event id as
 * the message id), read through the gateway with the validating client: public-repository activity for
 * everyone, private-repository activity only for the user and site admins, `hide_activity` leaving others an
 * empty list, 404 for an invisible user, 307 for a renamed one — and no sign-in needed under
 * `[ui.explore] REQUIRE_SIGNIN_VIEW`.
 */
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { encodeEvent, uuidv7 } from '@cairn/bus';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { createTestDatabase, testNatsUrl, type TestDatabase } from '@cairn/testing';
import { findNatsServer, startPrivateNatsServer, type PrivateNatsServer } from '../libs/bus/src/test-support/nats-server';
import { apiClient, type ApiClient } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, waitFor, type Instance } from './support/instance';

jest.setTimeout(180_000);

const PASSWORD = 'heatmap-pass-123';
const ADMIN = basicAuth('root', PASSWORD);
const QUARTER_HOUR = 900;

interface HeatmapEntry {
  timestamp: number;
  contributions: number;
}

describe('user heatmap through the gateway, fed from NATS', () => {
  // The durable consumer notifications-activity is shared by every Cairn on a NATS server, so other e2e files
  // running instances at the same time would take this file's events: use a server of its own when possible.
  let privateNats: PrivateNatsServer | undefined;
  let natsUrl: string;
  let nats: NatsConnection;
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance | undefined;
  let api: ApiClient;
  let alice: { id: number };
  const now = Math.floor(Date.now() / 1000);
  // Two quarter hours of today, an hour apart, in the past.
  const publicAt = new Date((now - (now % QUARTER_HOUR) - 2 * 3600) * 1000 + 61_000);
  const privateAt = new Date((now - (now % QUARTER_HOUR) - 3600) * 1000 + 122_000);
  const bucket = (at: Date) => Math.floor(at.getTime() / 1000 / QUARTER_HOUR) * QUARTER_HOUR;

  async function publishPush(fields: { repoId: number; repoPrivate: boolean; pushedAt: Date }, eventId = uuidv7()): Promise<void> {
    const event = GitPushed.create({
      meta: { eventId, occurredAt: fields.pushedAt, actorId: alice.id, repoId: fields.repoId },
      pusherId: alice.id,
      repoId: fields.repoId,
      repoOwnerId: alice.id,
      repoPrivate: fields.repoPrivate,
      refUpdates: [{ ref: 'refs/heads/main', oldSha: 'a'.repeat(40), newSha: 'b'.repeat(40) }],
      commitCount: 1,
      pushedAt: fields.pushedAt,
    });
    await jetstream(nats).publish('cairn.git.pushed', encodeEvent(GitPushed, event), { msgID: eventId });
  }

  async function heatmap(username: string, headers: Record<string, string> = {}) {
    return api.request<HeatmapEntry[]>('GET', `/api/v1/users/${username}/heatmap`, { headers });
  }

  async function createUser(username: string, fields: Record<string, unknown> = {}): Promise<{ id: number }> {
    const res = await api.request<{ id: number }>('POST', '/api/v1/admin/users', {
      headers: ADMIN,
      body: { username, email: `${username}@example.com`, password: PASSWORD, must_change_password: false, ...fields },
    });
    expect(res.status).toBe(201);
    return res.body;
  }

  beforeAll(async () => {
    const binary = findNatsServer();
    privateNats = binary === undefined ? undefined : await startPrivateNatsServer(binary);
    natsUrl = privateNats?.url ?? testNatsUrl();
    nats = await connect({ servers: natsUrl });
    database = await createTestDatabase('e2e_heatmap');
    workDir = makeWorkDir();
    const env = baseEnv(workDir, {
      CAIRN__database__URL: database.url,
      CAIRN__bus__URL: natsUrl,
      CAIRN__server__HTTP_PORT: '0',
      CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW: 'true',
    });
    instance = await startInstance(workDir, env);
    expect(instance.runtime.mode).toBe('processes');
    expect(instance.runtime.services.notifications?.process?.pid).toBeGreaterThan(0);
    const created = await runCli(['admin', 'user', 'create', '--username', 'root', '--password', PASSWORD, '--email', 'root@example.com', '--admin'], env);
    expect(created.code).toBe(0);
    api = apiClient(instance.httpUrl);
    alice = await createUser('alice');
    await createUser('bob');
    await createUser('hidden', { visibility: 'private' });
    await createUser('carol');
  });

  afterAll(async () => {
    if (workDir !== undefined) await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
    await nats?.close();
    await privateNats?.dispose();
  });

  const viewers: Record<string, Record<string, string>> = {
    anonymous: {},
    bob: basicAuth('bob', PASSWORD),
    alice: basicAuth('alice', PASSWORD),
    'site admin': ADMIN,
  };

  it('counts a push once, even published twice under one id, and shows a private repository’s only to the user and admins', async () => {
    const publicPush = uuidv7();
    await publishPush({ repoId: 1, repoPrivate: false, pushedAt: publicAt }, publicPush);
    await publishPush({ repoId: 1, repoPrivate: false, pushedAt: publicAt }, publicPush);
    await publishPush({ repoId: 2, repoPrivate: true, pushedAt: privateAt });

    const everything = [
      { timestamp: bucket(publicAt), contributions: 1 },
      { timestamp: bucket(privateAt), contributions: 1 },
    ];
    await waitFor('the pushes to reach the heatmap', async () => {
      const res = await heatmap('alice', viewers.alice);
      return res.body.length === 2 ? res : undefined;
    });
    for (const [name, expected] of [
      ['anonymous', [everything[0]]],
      ['bob', [everything[0]]],
      ['alice', everything],
      ['site admin', everything],
    ] as const) {
      const res = await heatmap('alice', viewers[name]);
      expect({ name, status: res.status, body: res.body }).toEqual({ name, status: 200, body: expected });
    }
  });

  it('hide_activity: others get an empty list, the user and admins still see everything', async () => {
    const hidden = await api.request('PATCH', '/api/v1/user/settings', { headers: viewers.alice, body: { hide_activity: true } });
    expect(hidden.status).toBe(200);
    for (const [name, count] of [
      ['anonymous', 0],
      ['bob', 0],
      ['alice', 2],
      ['site admin', 2],
    ] as const) {
      const res = await heatmap('alice', viewers[name]);
      expect({ name, status: res.status, buckets: res.body.length }).toEqual({ name, status: 200, buckets: count });
    }
  });

  it('answers 404 for a user the caller may not see', async () => {
    for (const name of ['anonymous', 'bob'] as const) {
      const res = await heatmap('hidden', viewers[name]);
      expect({ name, status: res.status }).toEqual({ name, status: 404 });
    }
    expect(await heatmap('hidden', ADMIN)).toMatchObject({ status: 200, body: [] });
    expect((await heatmap('nobody')).status).toBe(404);
  });

  it('answers 307 from a renamed user’s old name', async () => {
    const renamed = await api.request('POST', '/api/v1/admin/users/carol/rename', { headers: ADMIN, body: { new_username: 'caroline' } });
    expect(renamed.status).toBe(204);
    const res = await heatmap('carol');
    expect([res.status, res.headers.get('location')]).toEqual([307, '/api/v1/users/caroline/heatmap']);
    expect(await heatmap('caroline')).toMatchObject({ status: 200, body: [] });
  });

  it('keeps /users/{username} itself behind the explore sign-in', async () => {
    expect((await api.request('GET', '/api/v1/users/alice')).status).toBe(401);
  });

  it('stops every service, notifications included, cleanly on SIGTERM', async () => {
    expect(await instance?.stop()).toEqual({ code: 0, signal: null });
  });
});
