/**
 * The one contract every Bus adapter must meet. Adapter test files call `describeBusContract` with a
 * way to open a new bus on the same backing store (a "new process" as far as the bus can tell).
 */
import { METRIC_NAMES, metricValue } from '@cairn/metrics';
import { redeliveryDelayMs } from '../delivery';
import { prefixedBus } from '../namespace';
import type { Bus, BusMessage, Subscription } from '../types';
import { uuidv7 } from '../uuidv7';
import { sleep, waitFor } from './wait';

export interface BusContractHarness {
  /** Unique per test file: stream names start with it upper-cased, subjects with it lower-cased. */
  prefix: string;
  /** Opens a new bus instance on the shared backing store. */
  connect(): Promise<Bus>;
  /** Whether a broadcast subscription on one instance sees another instance's publishes. */
  broadcastAcrossInstances: boolean;
}

const encoder = new TextEncoder();
const text = (data: Uint8Array): string => new TextDecoder().decode(data);

export function describeBusContract(adapter: string, harness: BusContractHarness): void {
  describe(`Bus contract: ${adapter}`, () => {
    const opened: Bus[] = [];
    const subscriptions: Subscription[] = [];
    let counter = 0;

    /** A fresh stream per test, capturing `<subjectRoot>.>`. */
    async function freshStream(bus: Bus): Promise<{ stream: string; root: string }> {
      counter += 1;
      const stream = `${harness.prefix.toUpperCase()}_${counter}`;
      const root = `${harness.prefix.toLowerCase()}${counter}`;
      await bus.ensureStream(stream, [`${root}.>`]);
      return { stream, root };
    }

    async function open(): Promise<Bus> {
      const bus = await harness.connect();
      opened.push(bus);
      return bus;
    }

    /** A handler that records every delivery. */
    function recorder(): { received: BusMessage[]; handler: (m: BusMessage) => Promise<void> } {
      const received: BusMessage[] = [];
      return { received, handler: async (m) => void received.push(m) };
    }

    afterEach(async () => {
      await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
      await Promise.all(opened.splice(0).map((b) => b.close()));
    });

    it('delivers a published message with its id, subject and data', async () => {
      const bus = await open();
      const { stream, root } = await freshStream(bus);
      const { received, handler } = recorder();
      subscriptions.push(await bus.consume({ stream, durable: 'reader', filterSubject: `${root}.>`, handler }));
      const id = uuidv7();
      await bus.publish(`${root}.user.created`, id, encoder.encode('hello'));
      await waitFor('delivery', () => received.length === 1);
      expect(received[0]).toMatchObject({ id, subject: `${root}.user.created`, deliveryCount: 1 });
      expect(text(received[0].data)).toBe('hello');
    });

    it('stores a message published twice with one id once', async () => {
      const bus = await open();
      const { stream, root } = await freshStream(bus);
      const first = uuidv7();
      const second = uuidv7();
      await bus.publish(`${root}.a.b`, first, encoder.encode('1'));
      await bus.publish(`${root}.a.b`, first, encoder.encode('1 again'));
      await bus.publish(`${root}.a.b`, second, encoder.encode('2'));
      const { received, handler } = recorder();
      subscriptions.push(await bus.consume({ stream, durable: 'reader', filterSubject: `${root}.>`, handler }));
      // Delivery follows stream order, so a stored duplicate would arrive before `second`.
      await waitFor('second message', () => received.some((m) => m.id === second));
      expect(received.map((m) => [m.id, text(m.data)])).toEqual([[first, '1'], [second, '2']]);
    });

    it('delivers messages published before the consumer existed, in order', async () => {
      const bus = await open();
      const { stream, root } = await freshStream(bus);
      const ids = [uuidv7(), uuidv7(), uuidv7()];
      for (const id of ids) await bus.publish(`${root}.x.y`, id, encoder.encode(id));
      const { received, handler } = recorder();
      subscriptions.push(await bus.consume({ stream, durable: 'late', filterSubject: `${root}.>`, handler }));
      await waitFor('three deliveries', () => received.length === 3);
      expect(received.map((m) => m.id)).toEqual(ids);
    });

    it('redelivers a message whose handler throws, counting deliveries', async () => {
      const bus = await open();
      const { stream, root } = await freshStream(bus);
      const counts: number[] = [];
      subscriptions.push(await bus.consume({
        stream, durable: 'flaky', filterSubject: `${root}.>`,
        handler: async (m) => {
          counts.push(m.deliveryCount);
          if (counts.length < 3) throw new Error('not yet');
        },
      }));
      await bus.publish(`${root}.x.y`, uuidv7(), encoder.encode('retry me'));
      await waitFor('third delivery', () => counts.length === 3);
      expect(counts).toEqual([1, 2, 3]);
    });

    it('stops redelivering after maxDeliver deliveries', async () => {
      const bus = await open();
      const { stream, root } = await freshStream(bus);
      let deliveries = 0;
      subscriptions.push(await bus.consume({
        stream, durable: 'doomed', filterSubject: `${root}.>`, maxDeliver: 2,
        handler: async () => {
          deliveries += 1;
          throw new Error('always fails');
        },
      }));
      await bus.publish(`${root}.x.y`, uuidv7(), encoder.encode('poison'));
      await waitFor('second delivery', () => deliveries === 2);
      // A third delivery would come after the second failure's delay; wait well past it.
      await sleep(redeliveryDelayMs(2) + 1_500);
      expect(deliveries).toBe(2);
    });

    it('redelivers to a new process what a crashed consumer never acknowledged', async () => {
      const first = await open();
      const { stream, root } = await freshStream(first);
      const id = uuidv7();
      let firstGot: BusMessage | undefined;
      let release: (() => void) | undefined;
      const stuck = new Promise<void>((_, reject) => {
        release = () => reject(new Error('released after the test'));
      });
      await first.consume({
        stream, durable: 'crashy', filterSubject: `${root}.>`, ackWaitMs: 1_000,
        handler: async (m) => {
          firstGot = m;
          await stuck;
        },
      });
      await first.publish(`${root}.x.y`, id, encoder.encode('survive'));
      await waitFor('first delivery', () => firstGot !== undefined);
      // The "crash": the handler never finishes and the process goes away without acking.
      await first.close();

      const second = await open();
      const { received, handler } = recorder();
      subscriptions.push(await second.consume({ stream, durable: 'crashy', filterSubject: `${root}.>`, ackWaitMs: 1_000, handler }));
      await waitFor('redelivery', () => received.length > 0);
      // Only the id is promised: JetStream takes back a delivery that went to a vanished client, so the
      // count a crash leaves behind is not dependable there.
      expect(received.map((m) => m.id)).toEqual([id]);
      release?.();
    });

    it('does not redeliver acknowledged messages to a restarted consumer', async () => {
      const first = await open();
      const { stream, root } = await freshStream(first);
      const acked = uuidv7();
      const { received: before, handler: record } = recorder();
      const sub = await first.consume({ stream, durable: 'restart', filterSubject: `${root}.>`, handler: record });
      await first.publish(`${root}.x.y`, acked, encoder.encode('once'));
      await waitFor('first delivery', () => before.length === 1);
      await sub.stop();
      await first.close();

      const second = await open();
      const marker = uuidv7();
      await second.publish(`${root}.x.y`, marker, encoder.encode('marker'));
      const { received, handler } = recorder();
      subscriptions.push(await second.consume({ stream, durable: 'restart', filterSubject: `${root}.>`, handler }));
      await waitFor('marker', () => received.some((m) => m.id === marker));
      expect(received.map((m) => m.id)).toEqual([marker]);
    });

    it('shares one durable between consumers without handing a message to two at once', async () => {
      const a = await open();
      const b = await open();
      const { stream, root } = await freshStream(a);
      const inFlight = new Set<string>();
      const handledBy = new Map<string, string[]>();
      const overlaps: string[] = [];
      const handler = (who: string) => async (m: BusMessage) => {
        if (inFlight.has(m.id)) overlaps.push(m.id);
        inFlight.add(m.id);
        await sleep(20);
        inFlight.delete(m.id);
        handledBy.set(m.id, [...(handledBy.get(m.id) ?? []), who]);
      };
      const options = { stream, durable: 'shared', filterSubject: `${root}.>`, ackWaitMs: 30_000 };
      subscriptions.push(await a.consume({ ...options, handler: handler('a') }));
      subscriptions.push(await b.consume({ ...options, handler: handler('b') }));
      subscriptions.push(await a.consume({ ...options, handler: handler('a2') }));
      const ids = Array.from({ length: 30 }, () => uuidv7());
      for (const id of ids) await a.publish(`${root}.work.item`, id, encoder.encode(id));
      await waitFor('all handled', () => ids.every((id) => handledBy.has(id)));
      expect(overlaps).toEqual([]);
      expect(ids.filter((id) => handledBy.get(id)!.length !== 1)).toEqual([]);
      const workers = new Set([...handledBy.values()].flat());
      expect(workers.size).toBeGreaterThan(1);
    });

    it('applies subject filters with * and > wildcards', async () => {
      const bus = await open();
      const { stream, root } = await freshStream(bus);
      const star = recorder();
      const tail = recorder();
      subscriptions.push(await bus.consume({ stream, durable: 'star', filterSubject: `${root}.user.*`, handler: star.handler }));
      subscriptions.push(await bus.consume({ stream, durable: 'tail', filterSubject: `${root}.user.>`, handler: tail.handler }));
      const subjects = [`${root}.user.created`, `${root}.repo.created`, `${root}.user.email.added`, `${root}.users.created`, `${root}.user.deleted`];
      for (const subject of subjects) await bus.publish(subject, uuidv7(), encoder.encode(subject));
      await waitFor('last matching message', () =>
        star.received.some((m) => m.subject === `${root}.user.deleted`) && tail.received.some((m) => m.subject === `${root}.user.deleted`));
      expect(star.received.map((m) => m.subject)).toEqual([`${root}.user.created`, `${root}.user.deleted`]);
      expect(tail.received.map((m) => m.subject)).toEqual([`${root}.user.created`, `${root}.user.email.added`, `${root}.user.deleted`]);
    });

    it('broadcasts every matching publish to every subscriber, stored ones only once', async () => {
      const publisher = await open();
      const other = await open();
      const { root } = await freshStream(publisher);
      const first = recorder();
      const second = recorder();
      subscriptions.push(await publisher.subscribe(`${root}.user.*`, first.handler));
      // NATS subscribers see publishes from any process; the in-process bus reaches its own process.
      subscriptions.push(await (harness.broadcastAcrossInstances ? other : publisher).subscribe(`${root}.user.*`, second.handler));
      const id = uuidv7();
      await publisher.publish(`${root}.user.deleted`, id, encoder.encode('gone'));
      await publisher.publish(`${root}.repo.deleted`, uuidv7(), encoder.encode('not matched'));
      await waitFor('both subscribers', () => first.received.length === 1 && second.received.length === 1);
      expect(first.received[0]).toMatchObject({ id, subject: `${root}.user.deleted` });
      expect(text(second.received[0].data)).toBe('gone');
      const stopped = subscriptions.splice(0);
      await Promise.all(stopped.map((s) => s.stop()));
      await publisher.publish(`${root}.user.deleted`, uuidv7(), encoder.encode('after stop'));
      await sleep(100);
      expect(first.received).toHaveLength(1);
    });

    it('stop() lets the handler in flight finish and acknowledges it; what it had not started goes to a later consumer', async () => {
      const bus = await open();
      const { stream, root } = await freshStream(bus);
      const ids = Array.from({ length: 3 }, () => uuidv7());
      for (const id of ids) await bus.publish(`${root}.x.y`, id, encoder.encode(id));
      let entered: (() => void) | undefined;
      const inHandler = new Promise<void>((resolve) => (entered = resolve));
      let release: (() => void) | undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      const first: string[] = [];
      const options = { stream, durable: 'draining', filterSubject: `${root}.>`, ackWaitMs: 2_000 };
      const subscription = await bus.consume({
        ...options,
        handler: async (m) => {
          entered?.();
          await released;
          first.push(m.id);
        },
      });
      await inHandler;
      let stopped = false;
      const stopping = subscription.stop().then(() => (stopped = true));
      await sleep(100);
      expect(stopped).toBe(false);
      release?.();
      await stopping;
      expect(first).toEqual([ids[0]]);

      // At least once: JetStream may hand an unstarted message back only when its ack wait runs out, and
      // twice; the acknowledged one never comes back.
      const { received, handler } = recorder();
      subscriptions.push(await bus.consume({ ...options, handler }));
      await waitFor('the unstarted messages', () => [ids[1], ids[2]].every((id) => received.some((m) => m.id === id)));
      await sleep(500);
      expect(received.map((m) => m.id)).not.toContain(ids[0]);
    });

    it('counts handled deliveries by result and reports the consumer lag until the consumer stops', async () => {
      const bus = await open();
      const { stream, root } = await freshStream(bus);
      const durable = 'metered';
      const labels = { stream, durable };
      const ids = Array.from({ length: 5 }, () => uuidv7());
      for (const id of ids) await bus.publish(`${root}.x.y`, id, encoder.encode(id));
      let release: (() => void) | undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      let failedOnce = false;
      const handled: string[] = [];
      const subscription = await bus.consume({
        stream,
        durable,
        filterSubject: `${root}.>`,
        handler: async (m) => {
          await held;
          if (m.id === ids[1] && !failedOnce) {
            failedOnce = true;
            throw new Error('first delivery fails');
          }
          handled.push(m.id);
        },
      });
      subscriptions.push(subscription);
      // Nothing acknowledged yet: all five are lag, delivered or not.
      await waitFor('the lag of five', async () => (await metricValue(METRIC_NAMES.consumerPending, labels)) === 5);
      release?.();
      await waitFor('every message handled', () => ids.every((id) => handled.includes(id)));
      await waitFor('no lag', async () => (await metricValue(METRIC_NAMES.consumerPending, labels)) === 0);
      expect(await metricValue(METRIC_NAMES.busHandled, { ...labels, result: 'ok' })).toBe(5);
      expect(await metricValue(METRIC_NAMES.busHandled, { ...labels, result: 'retry' })).toBe(1);
      expect(await metricValue(METRIC_NAMES.busHandled, { ...labels, result: 'dropped' })).toBe(0);
      await subscription.stop();
      expect(await metricValue(METRIC_NAMES.consumerPending, labels)).toBeUndefined();
    });

    it('rejects a publish that no stream captures', async () => {
      const bus = await open();
      await expect(bus.publish(`${harness.prefix.toLowerCase()}nostream.x`, uuidv7(), encoder.encode('lost'))).rejects.toThrow();
    });

    it('binds a consumer that starts before its producer once the producer defines the stream', async () => {
      const consumerSide = await open();
      const producerSide = await open();
      counter += 1;
      const stream = `${harness.prefix.toUpperCase()}_${counter}`;
      const root = `${harness.prefix.toLowerCase()}${counter}`;
      const { received, handler } = recorder();
      // The producer has not run yet: consume resolves (the service starts) and binds later.
      subscriptions.push(await consumerSide.consume({ stream, durable: 'early', filterSubject: `${root}.x.*`, handler }));
      await producerSide.ensureStream(stream, [`${root}.x.>`]);
      const id = uuidv7();
      await producerSide.publish(`${root}.x.y`, id, encoder.encode('first'));
      await waitFor('delivery after the producer defined the stream', () => received.length === 1);
      expect(received[0]).toMatchObject({ id, subject: `${root}.x.y` });
    });

    it('binds a consumer once the producer’s stream captures its filter, and never changes the stream', async () => {
      const bus = await open();
      counter += 1;
      const stream = `${harness.prefix.toUpperCase()}_${counter}`;
      const root = `${harness.prefix.toLowerCase()}${counter}`;
      // An older producer: its stream does not capture the subject a newer consumer wants yet.
      await bus.ensureStream(stream, [`${root}.old.>`]);
      const { received, handler } = recorder();
      const waiting = await bus.consume({ stream, durable: 'newer', filterSubject: `${root}.new.>`, handler });
      subscriptions.push(waiting);
      await bus.publish(`${root}.old.thing`, uuidv7(), encoder.encode('old'));
      // The upgraded producer adds the subject; the consumer binds and sees what is published from then on.
      await bus.ensureStream(stream, [`${root}.old.>`, `${root}.new.>`]);
      const id = uuidv7();
      await bus.publish(`${root}.new.thing`, id, encoder.encode('new'));
      await waitFor('delivery on the added subject', () => received.length === 1);
      expect(received[0].id).toBe(id);
      // Both subjects still captured: binding took nothing away.
      await bus.publish(`${root}.old.thing`, uuidv7(), encoder.encode('still captured'));
    });

    it('stops a consumer still waiting for its stream', async () => {
      const bus = await open();
      counter += 1;
      const stream = `${harness.prefix.toUpperCase()}_${counter}`;
      const { received, handler } = recorder();
      const waiting = await bus.consume({ stream, durable: 'never', filterSubject: `${harness.prefix.toLowerCase()}${counter}.>`, handler });
      await waiting.stop();
      await bus.ensureStream(stream, [`${harness.prefix.toLowerCase()}${counter}.>`]);
      await bus.publish(`${harness.prefix.toLowerCase()}${counter}.a`, uuidv7(), encoder.encode('unseen'));
      await sleep(300);
      expect(received).toEqual([]);
    });

    it('updates the subjects of an existing stream', async () => {
      const bus = await open();
      const { stream, root } = await freshStream(bus);
      const other = `${root}extra`;
      await bus.ensureStream(stream, [`${root}.>`, `${other}.>`]);
      await bus.ensureStream(stream, [`${root}.>`, `${other}.>`]);
      const { received, handler } = recorder();
      subscriptions.push(await bus.consume({ stream, durable: 'both', filterSubject: `${other}.>`, handler }));
      await bus.publish(`${other}.thing.happened`, uuidv7(), encoder.encode('x'));
      await waitFor('delivery on the added subject', () => received.length === 1);
    });

    it('delivers the headers a message was published with to consumers and broadcast subscribers, and {} without', async () => {
      const bus = await open();
      const { stream, root } = await freshStream(bus);
      const consumed = recorder();
      const broadcast = recorder();
      subscriptions.push(await bus.consume({ stream, durable: 'headers', filterSubject: `${root}.>`, handler: consumed.handler }));
      subscriptions.push(await bus.subscribe(`${root}.>`, broadcast.handler));
      const headers = { 'ce-id': 'x-1', 'ce-type': 'io.cairn.issues.opened', 'ce-subject': 'alice/hello-world' };
      const [withHeaders, without] = [uuidv7(), uuidv7()];
      await bus.publish(`${root}.issues`, withHeaders, encoder.encode('{}'), headers);
      await bus.publish(`${root}.internal`, without, encoder.encode('x'));
      await waitFor('both messages, both ways', () => consumed.received.length === 2 && broadcast.received.length === 2);
      for (const received of [consumed.received, broadcast.received]) {
        // Never the id header: the id is BusMessage.id.
        expect(received.map((m) => [m.id, m.headers])).toEqual([[withHeaders, headers], [without, {}]]);
      }
    });

    it('carries headers through prefixedBus', async () => {
      const raw = await open();
      const bus = prefixedBus(raw, `${harness.prefix.toLowerCase()}p`);
      await bus.ensureStream('CAIRN_HEADERS', ['cairn.headers.>']);
      const consumed = recorder();
      const broadcast = recorder();
      subscriptions.push(await bus.consume({ stream: 'CAIRN_HEADERS', durable: 'headers', filterSubject: 'cairn.headers.>', handler: consumed.handler }));
      subscriptions.push(await bus.subscribe('cairn.headers.>', broadcast.handler));
      const id = uuidv7();
      await bus.publish('cairn.headers.pushed', id, encoder.encode('{}'), { 'ce-source': 'https://cairn.example/' });
      await waitFor('the message, both ways', () => consumed.received.length === 1 && broadcast.received.length === 1);
      for (const m of [consumed.received[0], broadcast.received[0]]) {
        expect(m).toMatchObject({ id, subject: 'cairn.headers.pushed', headers: { 'ce-source': 'https://cairn.example/' } });
      }
    });

    it.each([
      [{ 'ce type': 'x' }, /header name "ce type"/],
      [{ 'ce:type': 'x' }, /header name "ce:type"/],
      [{ 'Nats-Expected-Stream': 'X' }, /Nats-\* headers/],
      [{ 'ce-subject': 'a\r\nNats-Msg-Id: forged' }, /CR or LF/],
    ])('refuses to publish a header NATS cannot carry: %j', async (headers, error) => {
      const bus = await open();
      const { root } = await freshStream(bus);
      await expect(bus.publish(`${root}.x`, uuidv7(), encoder.encode('x'), headers)).rejects.toThrow(error);
    });

    it('with maxAckPending 1, hands out strictly in stream order over failures and consumers sharing the durable', async () => {
      const a = await open();
      const b = await open();
      const { stream, root } = await freshStream(a);
      const ids = Array.from({ length: 6 }, () => uuidv7());
      for (const id of ids.slice(0, 3)) await a.publish(`${root}.x.y`, id, encoder.encode(id));
      const started: string[] = [];
      const handled: string[] = [];
      let failures = 0;
      const handler = async (m: BusMessage) => {
        started.push(m.id);
        // The first message fails twice: nothing behind it may start while it waits for its redelivery.
        if (m.id === ids[0] && failures < 2) {
          failures += 1;
          throw new Error('not yet');
        }
        await sleep(5);
        handled.push(m.id);
      };
      const options = { stream, durable: 'ordered', filterSubject: `${root}.>`, maxAckPending: 1 };
      subscriptions.push(await a.consume({ ...options, handler }));
      subscriptions.push(await b.consume({ ...options, handler }));
      for (const id of ids.slice(3)) await b.publish(`${root}.x.y`, id, encoder.encode(id));
      await waitFor('every message handled', () => handled.length === ids.length);
      expect(handled).toEqual(ids);
      expect(started).toEqual([ids[0], ids[0], ...ids]);
    });
  });
}
