/**
 * An issue comment created through the API until its `issue_comment` webhook delivery reached a receiver: the
 * gateway, issues committing the comment and its event, the event over JetStream to the hooks service, the payload
 * built and its delivery task stored, the POST. The baseline is the least a pipeline with the same hops can do: a
 * JetStream publish (awaiting the stream's ack, as Cairn's outbox relay does) → a durable pull consumer in another
 * process → an HTTP POST of a JSON body as large as Cairn's delivery. JetStream rather than core NATS because
 * Cairn's events are stored by the stream before any consumer sees them; core NATS would leave out a hop Cairn
 * cannot skip. Both sides deliver to the same `node:http` receiver in the harness, which timestamps the end of the
 * body, over connections kept warm; events go one at a time.
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { basicAuth, httpRequest } from '../cairn';
import type { BenchContext, LatencyScenario, LatencySubjects, RunningBaseline, Side } from './types';

const REPOSITORY = 'webhooks';
/** A delivery later than this fails the scenario (Cairn's would then be retried, which is not what is measured). */
const DELIVERY_TIMEOUT_MS = 30_000;

/** What the receiver got for one event. */
export interface Delivery {
  /** `performance.now()` when the body had arrived whole. */
  at: number;
  bytes: number;
  headers: http.IncomingHttpHeaders;
  payload: { action?: unknown; comment?: { id?: unknown; body?: unknown }; repository?: { full_name?: unknown } };
}

export interface Receiver {
  url: string;
  /** The delivery whose `comment.body` is `marker`; register before sending, so a fast delivery is not missed. */
  expect(marker: string, signal: AbortSignal): Promise<Delivery>;
  /** Deliveries that matched no waiting event (a duplicate, a late one) since the start. */
  unexpected(): number;
  stop(): Promise<void>;
}

/** The loopback receiver both sides deliver to, answering 200 to every POST. */
export async function startReceiver(): Promise<Receiver> {
  const waiting = new Map<string, (delivery: Delivery) => void>();
  let unexpected = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200).end();
      const body = Buffer.concat(chunks);
      let payload: Delivery['payload'];
      try {
        payload = JSON.parse(body.toString('utf8')) as Delivery['payload'];
      } catch {
        unexpected++;
        return;
      }
      const marker = payload.comment?.body;
      const waiter = typeof marker === 'string' ? waiting.get(marker) : undefined;
      if (waiter === undefined || typeof marker !== 'string') {
        unexpected++;
        return;
      }
      waiting.delete(marker);
      waiter({ at, bytes: body.length, headers: req.headers, payload });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    expect: (marker, signal) =>
      new Promise((resolve, reject) => {
        const timeout = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
        const stop = (): void => {
          waiting.delete(marker);
          reject(timeout.aborted ? new Error(`no delivery of "${marker}" within ${DELIVERY_TIMEOUT_MS} ms`) : signal.reason);
        };
        const either = AbortSignal.any([signal, timeout]);
        if (either.aborted) return stop();
        either.addEventListener('abort', stop, { once: true });
        waiting.set(marker, (delivery) => {
          either.removeEventListener('abort', stop);
          resolve(delivery);
        });
      }),
    unexpected: () => unexpected,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A JSON body carrying `marker` like Cairn's payload does, padded to `size` bytes (never shorter than it needs). */
export function baselineBody(marker: string, size: number): Buffer {
  const bare = JSON.stringify({ action: 'created', comment: { body: marker }, padding: '' });
  const padding = 'x'.repeat(Math.max(0, size - Buffer.byteLength(bare)));
  return Buffer.from(JSON.stringify({ action: 'created', comment: { body: marker }, padding }));
}

async function apiCall<T>(context: BenchContext, authorization: string, method: string, apiPath: string, body: unknown, expected: number): Promise<T> {
  const answer = await httpRequest(`${context.cairnUrl}/api/v1${apiPath}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (answer.status !== expected) throw new Error(`${method} ${apiPath} answered ${answer.status}: ${answer.body}`);
  return JSON.parse(answer.body) as T;
}

async function prepare(context: BenchContext, signal: AbortSignal): Promise<LatencySubjects> {
  const run = randomBytes(4).toString('hex');
  const stream = `cairn_bench_hooks_${run}`;
  const subject = `${stream}.event`;
  let receiver: Receiver | undefined;
  let baseline: RunningBaseline | undefined;
  let nc: NatsConnection | undefined;
  const stop = async (): Promise<void> => {
    await baseline?.stop();
    await nc?.close();
    await receiver?.stop();
  };
  try {
    const owner = await context.benchUser();
    // A token, not the password, for the measured requests: the gateway caches tokens, a password is hashed each time.
    // Scopes as Gitea requires them: write:user to create a repository of one's own, then repository and issue.
    const token = await apiCall<{ sha1: string }>(context, basicAuth(owner.username, owner.password), 'POST', `/users/${owner.username}/tokens`, {
      name: `bench-hooks-${run}`,
      scopes: ['write:user', 'write:repository', 'write:issue'],
    }, 201);
    const auth = `token ${token.sha1}`;
    const fullName = `${owner.username}/${REPOSITORY}`;
    await apiCall(context, auth, 'POST', '/user/repos', { name: REPOSITORY, private: false }, 201);
    const issue = await apiCall<{ number: number }>(context, auth, 'POST', `/repos/${fullName}/issues`, { title: 'webhook latency' }, 201);
    const deliveries = await startReceiver();
    receiver = deliveries;
    const receiverUrl = deliveries.url;
    await apiCall(context, auth, 'POST', `/repos/${fullName}/hooks`, {
      type: 'gitea',
      config: { url: `${receiverUrl}/cairn`, content_type: 'json' },
      events: ['issue_comment'],
      active: true,
    }, 201);
    baseline = await context.startBaseline('webhook-relay', {
      BENCH_NATS_URL: context.natsUrl,
      BENCH_STREAM: stream,
      BENCH_SUBJECT: subject,
      BENCH_RECEIVER_URL: `${receiverUrl}/baseline`,
    });
    signal.throwIfAborted();
    nc = await connect({ servers: context.natsUrl });
    const js = jetstream(nc);
    const comments = `${context.cairnUrl}/api/v1/repos/${fullName}/issues/${issue.number}/comments`;
    // Until check() measured Cairn's first delivery; the baseline's bodies are as large.
    let payloadSize = 0;
    let sequence = 0;
    // Unexpected deliveries already reported; one arriving between two events fails the next.
    let unexpectedSeen = 0;

    /** Sends one event on `side`; answers the delivery, and Cairn's comment id. */
    const send = async (side: Side, eventSignal: AbortSignal): Promise<{ sentAt: number; delivery: Delivery; commentId?: number; sentBytes?: number }> => {
      const marker = `bench-${run}-${side}-${++sequence}`;
      const abandon = new AbortController();
      const arrival = deliveries.expect(marker, AbortSignal.any([eventSignal, abandon.signal]));
      const sentAt = performance.now();
      const sending =
        side === 'cairn'
          ? httpRequest(comments, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ body: marker }) }).then(
              (answer) => {
                if (answer.status !== 201) throw new Error(`creating the comment answered ${answer.status}: ${answer.body}`);
                return { commentId: (JSON.parse(answer.body) as { id: number }).id };
              },
            )
          : (async () => {
              const body = baselineBody(marker, payloadSize);
              await js.publish(subject, body);
              return { sentBytes: body.length };
            })();
      const sendingOrAbandon = sending.catch((error: unknown) => {
        abandon.abort();
        throw error;
      });
      const [sent, delivery] = await Promise.all([sendingOrAbandon, arrival]);
      const unexpected = deliveries.unexpected() - unexpectedSeen;
      unexpectedSeen += unexpected;
      if (unexpected > 0) throw new Error(`the receiver got ${unexpected} delivery(ies) of no waiting event (duplicates?)`);
      return { sentAt, delivery, ...sent };
    };

    return {
      event: async (side, eventSignal) => {
        const { sentAt, delivery } = await send(side, eventSignal);
        return delivery.at - sentAt;
      },
      check: async (checkSignal) => {
        const cairn = await send('cairn', checkSignal);
        const { headers, payload } = cairn.delivery;
        const event = headers['x-gitea-event'];
        if (event !== 'issue_comment') throw new Error(`Cairn's delivery carries X-Gitea-Event ${JSON.stringify(event)}, not "issue_comment"`);
        if (payload.action !== 'created' || payload.comment?.id !== cairn.commentId || payload.repository?.full_name !== fullName) {
          throw new Error(`Cairn's delivery is not the created comment ${cairn.commentId} of ${fullName}: ${JSON.stringify(payload).slice(0, 300)}`);
        }
        payloadSize = cairn.delivery.bytes;
        const base = await send('baseline', checkSignal);
        if (base.delivery.bytes !== base.sentBytes) throw new Error(`the baseline delivered ${base.delivery.bytes} bytes, not the ${base.sentBytes} published`);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export const webhookLatencyScenario: LatencyScenario = {
  kind: 'latency',
  name: 'webhook-latency',
  description: 'issue comment → its gitea webhook delivery on a loopback receiver; baseline: JetStream publish → pull consumer → HTTP POST',
  event: 'POST /api/v1/repos/{o}/{r}/issues/{n}/comments until the issue_comment delivery arrived',
  prepare,
  // The issue's target: p99 at most 3× the bare pipeline's.
  targets: { maxP99Ratio: 3 },
};
