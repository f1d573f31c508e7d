/**
 * The webhook-latency baseline's pipeline, without a process around it (bench/baselines/webhook-relay.ts runs it;
 * the scenario's test runs it in-process): a JetStream stream of its own, a durable pull consumer on it, and for
 * each message an HTTP POST of its bytes, as JSON, to the receiver over a kept-alive connection, acknowledged once
 * the receiver answered. The same hops as Cairn's events to a webhook (libs/bus/src/nats-bus.ts: file-stored
 * stream, durable pull consumer, explicit ack after the handler) with none of Cairn's work in between.
 */
import * as http from 'node:http';
import { AckPolicy, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

export interface RelayOptions {
  natsUrl: string;
  /** The stream created for the run (and deleted by `stop`) and the one subject it holds. */
  stream: string;
  subject: string;
  /** Where every message is POSTed. */
  receiverUrl: string;
}

export interface Relay {
  stop(): Promise<void>;
}

/** Messages pulled ahead of the handler: libs/bus's PULL_BATCH. */
const PULL_BATCH = 10;

function post(agent: http.Agent, url: string, body: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Resolves once the stream and its consumer exist and messages are being pulled. */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const nc = await connect({ servers: options.natsUrl });
  const agent = new http.Agent({ keepAlive: true });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: options.stream, subjects: [options.subject], storage: StorageType.File });
    await jsm.consumers.add(options.stream, { durable_name: 'relay', ack_policy: AckPolicy.Explicit, filter_subject: options.subject });
    const consumer = await jsm.jetstream().consumers.get(options.stream, 'relay');
    const messages = await consumer.consume({ max_messages: PULL_BATCH });
    const loop = (async () => {
      for await (const message of messages) {
        // A failed POST is left unacknowledged: the scenario sees the event missing and fails, as with Cairn.
        const status = await post(agent, options.receiverUrl, message.data).catch(() => 0);
        if (status >= 200 && status < 300) message.ack();
        else message.nak();
      }
    })();
    return {
      stop: async () => {
        await messages.close();
        await loop;
        await jsm.streams.delete(options.stream);
        await nc.close();
        agent.destroy();
      },
    };
  } catch (error) {
    await nc.close();
    agent.destroy();
    throw error;
  }
}
