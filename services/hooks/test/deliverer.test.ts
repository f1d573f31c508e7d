/**
 * The delivery engine against a real loopback receiver and a test database: Gitea's headers and signatures, bodies,
 * retries with the same uuid, refused targets, the per-host breaker, DISABLE_WEB_HOOKS, lease expiry after a crash,
 * and redelivery.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { Code, isCairnError, type RpcContext } from '@cairn/rpc';
import { HookScope } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import { eventually } from '@cairn/testing';
import { type Deliverer, type DelivererOptions, type Handoff, startDeliverer } from '../src/delivery/deliverer';
import { insertTasks } from '../src/store/fan-out';
import { createHookDeliveryService } from '../src/rpc/hook-delivery-service';
import { claimDueTasks } from '../src/store/tasks';
import { type DeliveryDatabase, type Receiver, closedPort, deliveryContext, openDeliveryDatabase, startReceiver } from './delivery-harness';

/** The delivery handlers read nothing of the call. */
const CALL = {} as RpcContext;
const LOOPBACK = { allowedHostList: ['loopback'], deliverTimeout: 5 };
/** Quick retries, and a breaker that stays closed unless a test wants it. */
const FAST: Partial<DelivererOptions> = {
  pollIntervalMs: 20,
  backoffMs: 10,
  breaker: { volumeThreshold: 1_000, errorThresholdPercentage: 50, resetTimeoutMs: 60_000, rollingWindowMs: 60_000 },
};

let store: DeliveryDatabase;
let receiver: Receiver;
const running: Deliverer[] = [];

function run(webhook: Parameters<typeof deliveryContext>[1] = LOOPBACK, options: Partial<DelivererOptions> = FAST, disabled = false): Deliverer {
  const deliverer = startDeliverer(deliveryContext(store.db, webhook, disabled), options);
  running.push(deliverer);
  return deliverer;
}

beforeAll(async () => {
  store = await openDeliveryDatabase();
});
afterAll(async () => {
  await store.close();
});
beforeEach(async () => {
  receiver = await startReceiver();
  await store.sql.query('DELETE FROM hook_tasks');
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((deliverer) => deliverer.stop()));
  await receiver.close();
});

async function delivered(uuid: string) {
  return eventually(async () => {
    const task = await store.task(uuid);
    expect(task.state).toBe('delivered');
    return task;
  });
}

const hmac = (algorithm: 'sha1' | 'sha256', secret: string, body: string) => createHmac(algorithm, secret).update(body).digest('hex');

describe('a delivery', () => {
  it("sends Gitea's headers, both signatures over the exact body, and the Authorization header", async () => {
    const hookId = await store.insertHook({ url: receiver.url, secret: 's3cret', authorizationHeader: 'Bearer tok' });
    const payloadId = await store.insertPayload({ action: 'label_updated', number: 7 }, 'issues', 'issue_label');
    const uuid = await store.insertTask(hookId, payloadId);
    run();
    const task = await delivered(uuid);
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hook');
    expect(JSON.parse(request.body)).toEqual({ action: 'label_updated', number: 7 });
    // Indented as Gitea's json.MarshalIndent.
    expect(request.body).toBe(JSON.stringify({ action: 'label_updated', number: 7 }, null, 2));
    const sha256 = hmac('sha256', 's3cret', request.body);
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'GiteaServer',
      authorization: 'Bearer tok',
      'x-gitea-delivery': uuid,
      'x-gitea-event': 'issues',
      'x-gitea-event-type': 'issue_label',
      'x-gitea-signature': sha256,
      'x-gitea-hook-installation-target-type': 'repository',
      'x-gogs-delivery': uuid,
      'x-gogs-event': 'issues',
      'x-gogs-event-type': 'issue_label',
      'x-gogs-signature': sha256,
      'x-hub-signature': `sha1=${hmac('sha1', 's3cret', request.body)}`,
      'x-hub-signature-256': `sha256=${sha256}`,
      'x-github-delivery': uuid,
      'x-github-event': 'issues',
      'x-github-event-type': 'issue_label',
      'x-github-hook-installation-target-type': 'repository',
    });
    expect(task).toMatchObject({ attempts: 1, is_succeed: true });
    expect(task.request_info).toMatchObject({ url: receiver.url, http_method: 'POST' });
    // The history does not show the Authorization value.
    expect(task.request_info?.headers.Authorization).toBe('******');
    expect(task.response_info).toMatchObject({ status: 200, body: 'answer 200' });
    expect(task.response_info?.headers['x-receiver']).toBe('test');
  });

  it('sends a form body (payload=<url-encoded JSON>) and an empty X-Gitea-Signature without a secret', async () => {
    const hookId = await store.insertHook({ url: receiver.url, contentType: 'form', scope: 'organization', ownerId: 4 });
    const uuid = await store.insertTask(hookId, await store.insertPayload({ ref: 'refs/heads/main' }, 'push', 'push'));
    run();
    await delivered(uuid);
    const [request] = receiver.received;
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(request.body);
    expect(JSON.parse(form.get('payload') ?? '')).toEqual({ ref: 'refs/heads/main' });
    expect(request.headers['x-gitea-signature']).toBe('');
    expect(request.headers['x-hub-signature']).toBe('sha1=');
    expect(request.headers['x-gitea-hook-installation-target-type']).toBe('organization');
    expect(request.headers.authorization).toBeUndefined();
  });
});

describe('retries', () => {
  it('delivers after a 500 with the same uuid, counting the attempts', async () => {
    receiver.answers.push(500);
    const hookId = await store.insertHook({ url: receiver.url });
    const uuid = await store.insertTask(hookId, await store.insertPayload());
    run();
    const task = await delivered(uuid);
    expect(task.attempts).toBe(2);
    expect(receiver.received.map((request) => request.headers['x-gitea-delivery'])).toEqual([uuid, uuid]);
  });

  it('delivers to a receiver that was down and came up, with one uuid', async () => {
    const port = await closedPort();
    const hookId = await store.insertHook({ url: `http://127.0.0.1:${port}/hook` });
    const uuid = await store.insertTask(hookId, await store.insertPayload());
    run(LOOPBACK, { ...FAST, attempts: 1_000 });
    await eventually(async () => {
      const task = await store.task(uuid);
      expect(task.attempts).toBeGreaterThanOrEqual(2);
      expect(task.state).toBe('pending');
      expect(task.response_info?.body).toMatch(/^Delivery: .*ECONNREFUSED/);
    });
    const late = await startReceiver(port);
    try {
      await delivered(uuid);
      expect(late.received.map((request) => request.headers['x-gitea-delivery'])).toEqual([uuid]);
    } finally {
      await late.close();
    }
  });

  it('fails a task after the last attempt', async () => {
    receiver.answers.push(500, 502, 503);
    const hookId = await store.insertHook({ url: receiver.url });
    const uuid = await store.insertTask(hookId, await store.insertPayload());
    run(LOOPBACK, { ...FAST, attempts: 3 });
    const task = await eventually(async () => {
      const row = await store.task(uuid);
      expect(row.state).toBe('failed');
      return row;
    });
    expect(task).toMatchObject({ attempts: 3, is_succeed: false });
    expect(task.response_info?.status).toBe(503);
    expect(receiver.received).toHaveLength(3);
  });
});

describe('the outbound guard', () => {
  it('refuses a loopback target under the default policy (external) without connecting, and does not retry', async () => {
    const hookId = await store.insertHook({ url: receiver.url });
    const uuid = await store.insertTask(hookId, await store.insertPayload());
    run({ allowedHostList: ['external'] });
    const task = await eventually(async () => {
      const row = await store.task(uuid);
      expect(row.state).toBe('failed');
      return row;
    });
    expect(task.attempts).toBe(1);
    expect(task.response_info?.status).toBe(0);
    expect(task.response_info?.body).toContain('webhook can only call allowed HTTP servers (check your webhook.ALLOWED_HOST_LIST setting)');
    expect(receiver.connections).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });
});

describe('the circuit breaker', () => {
  it("opens after failures to one host and postpones that host's tasks while another host's are delivered", async () => {
    const healthy = await startReceiver();
    try {
      receiver.answers.push(...Array<number>(20).fill(500));
      const failing = await store.insertHook({ url: receiver.url });
      const working = await store.insertHook({ url: healthy.url });
      const payloadId = await store.insertPayload();
      const failingTasks = [await store.insertTask(failing, payloadId), await store.insertTask(failing, await store.insertPayload()), await store.insertTask(failing, await store.insertPayload())];
      const workingTasks = [await store.insertTask(working, payloadId), await store.insertTask(working, await store.insertPayload())];
      // One at a time so that the order is the tasks' order: two failures open the circuit.
      const deliverer = run(LOOPBACK, { ...FAST, concurrency: 1, attempts: 100, breaker: { volumeThreshold: 2, errorThresholdPercentage: 50, resetTimeoutMs: 600_000, rollingWindowMs: 600_000 } });
      for (const uuid of workingTasks) await delivered(uuid);
      // Stopped first: a task claimed at this moment counts its attempt until it is postponed.
      await deliverer.stop();
      const rows = [];
      for (const uuid of failingTasks) rows.push(await store.task(uuid));
      expect(receiver.received).toHaveLength(2);
      expect(rows.map((row) => row.state)).toEqual(['pending', 'pending', 'pending']);
      // Postponed tasks spend no attempt: only the two sent count — besides a retry the loop had just claimed when it
      // stopped, whose attempt is counted at the claim and which was never sent (its claim lapses for another replica).
      const heldClaims = rows.filter((row) => row.claimed_until !== null && row.claimed_until.getTime() > Date.now()).length;
      expect(rows.reduce((sum, row) => sum + row.attempts, 0) - heldClaims).toBe(2);
      // The third was never sent: postponed until the circuit may close.
      expect(rows[2].attempts).toBe(0);
      expect(rows[2].next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 60_000);
    } finally {
      await healthy.close();
    }
  });
});

describe('DISABLE_WEB_HOOKS', () => {
  it('cancels every pending task and delivers nothing', async () => {
    const hookId = await store.insertHook({ url: receiver.url });
    const uuids = [await store.insertTask(hookId, await store.insertPayload()), await store.insertTask(hookId, await store.insertPayload())];
    const deliverer = run(LOOPBACK, FAST, true);
    deliverer.wake();
    await deliverer.stop();
    for (const uuid of uuids) expect((await store.task(uuid)).state).toBe('cancelled');
    expect(receiver.connections).toBe(0);
  });
});

describe('a replica that dies mid-attempt', () => {
  it("lets the task go when its lease lapses: delivered once more with the same uuid, never a second uuid", async () => {
    const hookId = await store.insertHook({ url: receiver.url });
    const payloadId = await store.insertPayload();
    const uuid = await store.insertTask(hookId, payloadId);
    // The dead replica's claim: attempt 1 taken, never recorded; its lease lapses at once.
    const [claimed] = await claimDueTasks(store.db.pool, 10, 1);
    expect(claimed.uuid).toBe(uuid);
    run();
    const task = await delivered(uuid);
    expect(task.attempts).toBe(2);
    expect(receiver.received.map((request) => request.headers['x-gitea-delivery'])).toEqual([uuid]);
    const uuids = await store.sql.query('SELECT DISTINCT uuid FROM hook_tasks WHERE hook_id = $1 AND payload_id = $2', [hookId, payloadId]);
    expect(uuids.rows).toEqual([{ uuid }]);
  });

  it('keeps a live claim: another deliverer does not take the task', async () => {
    const hookId = await store.insertHook({ url: receiver.url });
    const uuid = await store.insertTask(hookId, await store.insertPayload());
    await claimDueTasks(store.db.pool, 10, 600_000);
    const deliverer = run();
    deliverer.wake();
    await deliverer.stop();
    expect(await store.task(uuid)).toMatchObject({ state: 'pending', attempts: 1 });
    expect(receiver.connections).toBe(0);
  });
});

describe('tasks handed over by the fan-out', () => {
  /** Writes a task for the hook as the fan-out does, claimed when the handoff grants a slot. */
  async function writeThroughHandoff(handoff: Handoff, hookId: number) {
    const payloadId = await store.insertPayload();
    return store.db.pool.transaction((tx) =>
      insertTasks(tx, { id: payloadId, deliveryId: randomUUID(), event: 'issues', eventType: 'issues', body: { action: 'opened', number: 1 } }, [hookId], {
        count: handoff.take(1),
        leaseMs: handoff.leaseMs,
      }),
    );
  }

  it('go out at once, without the claim loop, and are recorded as their first attempt', async () => {
    const hookId = await store.insertHook({ url: receiver.url });
    // No poll during the test: only a handoff can start the delivery.
    const deliverer = run(LOOPBACK, { ...FAST, pollIntervalMs: 3_600_000 });
    const handoff = deliverer.handoff();
    const { claimed } = await writeThroughHandoff(handoff, hookId);
    expect(claimed).toHaveLength(1);
    handoff.deliver(claimed);
    const task = await delivered(claimed[0].uuid);
    expect(task.attempts).toBe(1);
    expect(receiver.received.map((request) => request.headers['x-gitea-delivery'])).toEqual([claimed[0].uuid]);
  });

  it('take no more slots than the deliverer has room for; a release frees them', async () => {
    const deliverer = run(LOOPBACK, { ...FAST, concurrency: 2 });
    const first = deliverer.handoff();
    expect(first.take(3)).toBe(2);
    expect(deliverer.handoff().take(1)).toBe(0);
    first.release();
    expect(deliverer.handoff().take(1)).toBe(1);
  });

  it('written claimed but never handed over (the process died after commit): delivered once its lease lapses', async () => {
    const hookId = await store.insertHook({ url: receiver.url });
    const dead = { leaseMs: 300, take: (wanted: number) => wanted, deliver() {}, release() {} };
    const { claimed } = await writeThroughHandoff(dead, hookId);
    run();
    const task = await delivered(claimed[0].uuid);
    expect(task.attempts).toBe(2);
    expect(receiver.received.map((request) => request.headers['x-gitea-delivery'])).toEqual([claimed[0].uuid]);
  });
});

describe('HookDeliveryService', () => {
  it('redelivers as a new uuid pointing at the old one, and lists the deliveries newest first', async () => {
    const hookId = await store.insertHook({ url: receiver.url, repoId: 9 });
    const uuid = await store.insertTask(hookId, await store.insertPayload({ action: 'opened' }, 'issues', 'issues'));
    const context = deliveryContext(store.db, LOOPBACK);
    const deliverer = startDeliverer(context, FAST);
    context.deliverer = deliverer;
    running.push(deliverer);
    await delivered(uuid);
    const service = createHookDeliveryService(context);
    const owner = { scope: HookScope.HOOK_SCOPE_REPOSITORY, repoId: 9, ownerId: 0 };
    const { delivery } = await service.redeliverHookDelivery({ owner, hookId, uuid }, CALL);
    expect(delivery?.uuid).not.toBe(uuid);
    expect(delivery).toMatchObject({ hookId, redeliveryOf: uuid, state: 'pending', event: 'issues', eventType: 'issues' });
    const again = await delivered(delivery!.uuid);
    expect(again.redelivery_of).toBe(uuid);
    expect(receiver.received.map((request) => request.headers['x-gitea-delivery'])).toEqual([uuid, delivery!.uuid]);
    const listed = await service.listHookDeliveries({ owner, hookId, page: 1, limit: 10 }, CALL);
    expect(listed.total).toBe(2);
    expect(listed.deliveries.map((entry) => entry.uuid)).toEqual([delivery!.uuid, uuid]);
    expect(JSON.parse(listed.deliveries[1].payloadJson)).toEqual({ action: 'opened' });
    expect(JSON.parse(listed.deliveries[1].requestJson)).toMatchObject({ http_method: 'POST', url: receiver.url });
    expect(JSON.parse(listed.deliveries[1].responseJson)).toMatchObject({ status: 200 });
  });

  it("answers NOT_FOUND for another repository's hook or an unknown delivery", async () => {
    const hookId = await store.insertHook({ url: receiver.url, repoId: 9 });
    const uuid = await store.insertTask(hookId, await store.insertPayload());
    const service = createHookDeliveryService(deliveryContext(store.db, LOOPBACK));
    const code = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => (isCairnError(error) ? error.code : error));
    const other = { scope: HookScope.HOOK_SCOPE_REPOSITORY, repoId: 10, ownerId: 0 };
    expect(await code(service.redeliverHookDelivery({ owner: other, hookId, uuid }, CALL))).toBe(Code.NOT_FOUND);
    expect(await code(service.listHookDeliveries({ owner: other, hookId, page: 1, limit: 10 }, CALL))).toBe(Code.NOT_FOUND);
    expect(await code(service.listHookDeliveries({ owner: { scope: HookScope.HOOK_SCOPE_USER, repoId: 0, ownerId: 9 }, hookId, page: 1, limit: 10 }, CALL))).toBe(Code.NOT_FOUND);
    const owner = { scope: HookScope.HOOK_SCOPE_REPOSITORY, repoId: 9, ownerId: 0 };
    expect(await code(service.redeliverHookDelivery({ owner, hookId, uuid: 'not-a-uuid' }, CALL))).toBe(Code.NOT_FOUND);
    expect(await code(service.redeliverHookDelivery({ owner, hookId, uuid: '00000000-0000-4000-8000-000000000000' }, CALL))).toBe(Code.NOT_FOUND);
  });
});
