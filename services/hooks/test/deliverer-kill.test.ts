/**
 * Killing a deliverer's process mid-attempt (the receiver has the request, no answer yet): once the claim's lease
 * lapses another deliverer sends the task again with the same uuid and records it; no second uuid appears for that
 * hook and payload. The child runs the built deliverer (services/hooks/dist: build first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '@cairn/testing';
import { type Deliverer, startDeliverer } from '../src/delivery/deliverer';
import { type DeliveryDatabase, type Receiver, deliveryContext, openDeliveryDatabase, startReceiver } from './delivery-harness';

const BUILT = path.join(__dirname, '..', 'dist', 'delivery', 'deliverer.js');
const CHILD = path.join(__dirname, 'fixtures', 'deliver-child.cjs');

describe('a deliverer killed mid-attempt', () => {
  let store: DeliveryDatabase;
  let receiver: Receiver;
  let child: ChildProcess | undefined;
  let deliverer: Deliverer | undefined;

  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: build first (npx turbo run build)`);
    store = await openDeliveryDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await deliverer?.stop();
    await receiver.close();
    await store.close();
  });

  it('is delivered once more with the same uuid after the lease, and only that uuid exists', async () => {
    const hookId = await store.insertHook({ url: receiver.url, secret: 'k' });
    const payloadId = await store.insertPayload();
    const uuid = await store.insertTask(hookId, payloadId);
    // The first request is never answered: the child is killed while it waits.
    receiver.answers.push(0);
    child = spawn(process.execPath, [CHILD], { env: { ...process.env, DATABASE_URL: store.url, LEASE_MS: '500' }, stdio: ['ignore', 'pipe', 'inherit'] });
    await eventually(() => expect(receiver.received).toHaveLength(1));
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    expect(await store.task(uuid)).toMatchObject({ state: 'pending', attempts: 1, response_info: null });

    deliverer = startDeliverer(deliveryContext(store.db, { allowedHostList: ['loopback'] }), { pollIntervalMs: 20 });
    const task = await eventually(async () => {
      const row = await store.task(uuid);
      expect(row.state).toBe('delivered');
      return row;
    });
    expect(task.attempts).toBe(2);
    expect(receiver.received.map((request) => request.headers['x-gitea-delivery'])).toEqual([uuid, uuid]);
    // The same signed body both times.
    expect(receiver.received[1].body).toBe(receiver.received[0].body);
    expect(receiver.received[1].headers['x-gitea-signature']).toBe(receiver.received[0].headers['x-gitea-signature']);
    const uuids = await store.sql.query('SELECT DISTINCT uuid FROM hook_tasks WHERE hook_id = $1 AND payload_id = $2', [hookId, payloadId]);
    expect(uuids.rows).toEqual([{ uuid }]);
  });
});
