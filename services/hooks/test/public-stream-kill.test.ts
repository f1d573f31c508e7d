/**
 * Killing the hooks process (kill -9) while it turns a burst of events into the public stream: once consumers run
 * again, every event's message is in the outbox exactly once (by id), none missing — the outbox row is written in the
 * transaction that records the event, so an event is either wholly done or done again. The child runs the built
 * consumers (services/hooks/dist: build first) with the tests' fake services.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Subscription, encodeEvent } from '@cairn/bus';
import { IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import { eventually } from '@cairn/testing';
import { startEventConsumers } from '../src/events/consumers';
import { payloadDeliveryId } from '../src/store/fan-out';
import { type FanOutHarness, issueOpened, startFanOutHarness } from './fan-out-harness';

jest.setTimeout(90_000);

const BUILT = path.join(__dirname, '..', 'dist', 'events', 'consumers.js');
const CHILD = path.join(__dirname, 'fixtures', 'stream-child.cjs');
const BURST = 120;

describe('the hooks process killed during a burst of events', () => {
  let h: FanOutHarness;
  let child: ChildProcess | undefined;
  const consumers: Subscription[] = [];

  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: build first (npx turbo run build)`);
    h = await startFanOutHarness({ consumers: false });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    await h.stop();
  });

  it('leaves every event in the outbox exactly once', async () => {
    const events = Array.from({ length: BURST }, () => issueOpened(1));
    for (const event of events) await h.bus.publish('cairn.issue.opened', event.meta!.eventId, encodeEvent(IssueEvent, event));

    child = spawn(process.execPath, [CHILD], { env: { ...process.env, DATABASE_URL: h.database.url }, stdio: ['ignore', 'pipe', 'inherit'] });
    // Killed mid-burst: some events done, the rest not yet.
    await eventually(async () => expect(await h.countRows('cairn_outbox')).toBeGreaterThanOrEqual(10), 30_000);
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    const before = await h.countRows('cairn_outbox');
    expect(before).toBeLessThan(BURST);

    // The dead process's claims lapse (in the in-process bus: its pending messages' ack wait), then a new process
    // takes over.
    await h.sql.query('UPDATE cairn_bus.pending SET available_at = now()');
    consumers.push(...(await startEventConsumers(h.context, h.bus, h.fakeDeliverer())));
    await eventually(async () => expect(await h.countRows('cairn_outbox')).toBe(BURST), 60_000);
    const { rows } = await h.sql.query<{ id: string; n: string }>('SELECT id::text, count(*) AS n FROM cairn_outbox GROUP BY id');
    expect(rows.every((row) => Number(row.n) === 1)).toBe(true);
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(events.map((event) => payloadDeliveryId(event.meta!.eventId, 'issues'))));
  });
});
