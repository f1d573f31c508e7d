/**
 * Webhook delivery under faults, on the built supervisor (every service its own process, the machine's NATS):
 * a receiver that is down and then up gets the delivery later under its one delivery id; killing the hooks process
 * while a receiver holds a delivery loses nothing and never makes a second delivery id (the same id comes again once
 * the dead process's claim lapses); `[security] DISABLE_WEB_HOOKS` refuses the API, cancels what was pending, keeps
 * the definitions and makes no delivery of the events meanwhile (their public stream messages are still written);
 * under the default `ALLOWED_HOST_LIST` (external) a loopback target is refused and never connected to.
 */
import { serviceEnvOverrides } from '@cairn/config';
import { Client } from 'pg';
import type { ApiResponse } from './support/client';
import { apiClient } from './support/client';
import { type Fixture, startFixture } from './support/fixture';
import { type HookReceiver, startHookReceiver } from './support/hook-receiver';
import { type Instance, freePort, startInstance, waitFor } from './support/instance';

jest.setTimeout(240_000);

interface Delivery {
  uuid: string;
  state: string;
  attempts: number;
  is_succeed: boolean;
  payload: { issue?: { title: string } } | null;
  response: { status: number; body: string } | null;
}

async function expectOk<T>(answer: Promise<ApiResponse<T>>, status: number): Promise<T> {
  const got = await answer;
  if (got.status !== status) throw new Error(`expected ${status}, got ${got.status}: ${JSON.stringify(got.body)}`);
  return got.body;
}

describe('webhook delivery under faults', () => {
  let fixture: Fixture;
  let receiver: HookReceiver;
  let instance: Instance;
  const extra: Instance[] = [];
  let alice: Record<string, string>;

  const call = <T = unknown>(method: string, route: string, body?: unknown) =>
    apiClient(instance.httpUrl).request<T>(method, `/api/v1${route}`, { headers: alice, body });
  const createHook = async (url: string) =>
    (await expectOk(call<{ id: number }>('POST', '/repos/alice/app/hooks', { type: 'gitea', config: { url, content_type: 'json' }, events: ['issues'], active: true }), 201)).id;
  // The history is Cairn's own route (docs/api.md, Departures): Gitea's description has nothing to check it against.
  const deliveries = async (hookId: number): Promise<Delivery[]> => {
    const response = await fetch(`${instance.httpUrl}/api/v1/repos/alice/app/hooks/${hookId}/deliveries`, { headers: alice });
    if (response.status !== 200) throw new Error(`deliveries: ${response.status} ${await response.text()}`);
    return (await response.json()) as Delivery[];
  };
  const openIssue = (title: string) => expectOk(call('POST', '/repos/alice/app/issues', { title }), 201);
  const ofIssue = (title: string) => (delivery: Delivery) => delivery.payload?.issue?.title === title;
  /**
   * Until hooks has handled the issue's event: its public stream message is in hooks' outbox (also with
   * DISABLE_WEB_HOOKS), written in the transaction that records the event, so a later instance will not handle it again.
   */
  const issueHandled = async (title: string) => {
    const pg = new Client({ connectionString: fixture.database.url });
    await pg.connect();
    try {
      await waitFor('hooks to handle the issue event', async () => {
        const { rows } = await pg.query(
          `SELECT 1 FROM hooks.cairn_outbox WHERE subject = 'cairn.events.v1.public.issues' AND position($1 in convert_from(data, 'UTF8')) > 0`,
          // The body is the gitea type's indented JSON.
          [`"title": ${JSON.stringify(title)}`],
        );
        return rows.length > 0 ? true : undefined;
      });
    } finally {
      await pg.end();
    }
  };
  const restart = async (settings: Record<string, string>) => {
    await instance.stop();
    instance = await startInstance(fixture.workDir, { ...fixture.env, ...settings });
    extra.push(instance);
  };

  beforeAll(async () => {
    receiver = await startHookReceiver();
    fixture = await startFixture(
      'e2e_hooks_faults',
      ['alice'],
      serviceEnvOverrides({ webhook: { ALLOWED_HOST_LIST: 'loopback', RETRY_BACKOFF: '1s', DELIVERY_ATTEMPTS: '20' } }),
    );
    instance = fixture.instance;
    alice = fixture.as('alice');
    await expectOk(call('POST', '/user/repos', { name: 'app' }), 201);
  });

  afterAll(async () => {
    for (const started of extra) await started.stop();
    await fixture?.stop();
    await receiver?.close();
  });

  it('delivers to a receiver that was down once it is up, under one delivery id', async () => {
    const port = await freePort();
    const hookId = await createHook(`http://127.0.0.1:${port}/late`);
    await openIssue('while down');
    const failedOnce = await waitFor('a failed attempt', async () => (await deliveries(hookId)).find((delivery) => delivery.attempts >= 1 && delivery.state === 'pending'));
    expect(failedOnce.is_succeed).toBe(false);
    const late = await startHookReceiver(port);
    try {
      const got = await late.waitFor('/late');
      expect(got.headers['x-gitea-delivery']).toBe(failedOnce.uuid);
      const [delivery] = await deliveries(hookId);
      expect(delivery).toMatchObject({ uuid: failedOnce.uuid, state: 'delivered', is_succeed: true });
      expect(delivery.attempts).toBeGreaterThanOrEqual(2);
      expect(new Set(late.received.map((request) => request.headers['x-gitea-delivery']))).toEqual(new Set([failedOnce.uuid]));
    } finally {
      await late.close();
    }
  });

  it('loses nothing and makes no second delivery id when the hooks process is killed mid-delivery', async () => {
    const hookId = await createHook(`${receiver.url}/held`);
    const held = receiver.hold('/held');
    await openIssue('killed mid-delivery');
    const first = await receiver.waitFor('/held');
    // The delivery is in flight (the receiver holds it): kill -9 the process hooks runs in (single-process mode: the
    // whole installation), then start it again on the same database and work directory.
    instance.child.kill('SIGKILL');
    await instance.exited;
    instance = await startInstance(fixture.workDir, fixture.env);
    extra.push(instance);
    held.release();
    // The dead process's claim lapses ([webhook] DELIVER_TIMEOUT × 2 + 5 s) and the task is sent again, same id.
    await receiver.waitFor('/held', (request) => request !== first, 60_000);
    const delivered = await waitFor('the delivery recorded', async () => (await deliveries(hookId)).find((delivery) => delivery.state === 'delivered'), 30_000);
    expect(delivered.uuid).toBe(first.headers['x-gitea-delivery']);
    expect(await deliveries(hookId)).toHaveLength(1);
    expect(new Set(receiver.received.filter((request) => request.path === '/held').map((request) => request.headers['x-gitea-delivery']))).toEqual(new Set([delivered.uuid]));
  });

  it('DISABLE_WEB_HOOKS: the API refuses, pending deliveries are cancelled, definitions stay, events meanwhile make no delivery but are still published', async () => {
    const failing = await startHookReceiver();
    extra.push({ stop: () => failing.close().then(() => ({ code: 0, signal: null })) } as unknown as Instance);
    failing.answer(500);
    const hookId = await createHook(`${failing.url}/pending`);
    const hooksBefore = await expectOk(call<unknown[]>('GET', '/repos/alice/app/hooks'), 200);
    await openIssue('before disabling');
    // Recorded, not only taken: a task is written with its first attempt counted before the POST goes out.
    await waitFor('a failed attempt', async () => (await deliveries(hookId)).find((delivery) => delivery.response?.status === 500));

    await restart({ ...serviceEnvOverrides({ security: { DISABLE_WEB_HOOKS: 'true' } }) });
    const refused = await call<{ message: string }>('GET', '/repos/alice/app/hooks');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('webhooks disabled by administrator');
    await openIssue('while disabled');
    await issueHandled('while disabled');

    await restart({});
    failing.answer(200);
    expect(await expectOk(call<unknown[]>('GET', '/repos/alice/app/hooks'), 200)).toEqual(hooksBefore);
    const cancelled = (await deliveries(hookId)).find(ofIssue('before disabling'));
    expect(cancelled?.state).toBe('cancelled');
    await openIssue('after enabling');
    await failing.waitFor('/pending', (request) => request.body.includes('after enabling'));
    const history = await deliveries(hookId);
    expect(history.filter(ofIssue('while disabled'))).toEqual([]);
    expect(failing.received.filter((request) => request.body.includes('while disabled'))).toEqual([]);
    // The cancelled delivery was not tried again after its recorded attempts.
    expect(failing.received.filter((request) => request.body.includes('before disabling'))).toHaveLength(cancelled?.attempts ?? -1);
  });

  it('refuses a loopback target under the default ALLOWED_HOST_LIST and never connects to it', async () => {
    await restart({ ...serviceEnvOverrides({ webhook: { ALLOWED_HOST_LIST: 'external' } }) });
    const guarded = await startHookReceiver();
    try {
      const hookId = await createHook(`${guarded.url}/refused`);
      await openIssue('to a refused target');
      const failed = await waitFor('the refusal recorded', async () => (await deliveries(hookId)).find((delivery) => delivery.state === 'failed'));
      expect(failed.is_succeed).toBe(false);
      expect(JSON.stringify(failed.response)).toContain('ALLOWED_HOST_LIST');
      expect(guarded.connections()).toBe(0);
    } finally {
      await guarded.close();
    }
  });
});
