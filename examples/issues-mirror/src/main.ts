/**
 * issues-mirror: a consumer of Cairn's public event stream (docs/events.md in Cairn's repository) that keeps a JSON
 * file of the issues it sees. A durable pull consumer on `<PREFIX>_EVENTS_PUBLIC`, so after a restart it goes on where
 * it stopped; each event acknowledged only once the file holding it is written; duplicates skipped by `ce-id`.
 *
 *   node dist/main.js [--since <RFC 3339 time>]
 *
 * Environment: NATS_URL (default nats://127.0.0.1:4222), NATS_USER and NATS_PASSWORD (a team's NATS user: its replies
 * come on `_INBOX_<user>.>`, the only inbox its permissions allow), CAIRN_PREFIX (the instance's `[bus] PREFIX`,
 * default cairn), MIRROR_DURABLE (the durable consumer's name, default issues-mirror), MIRROR_FILE (default
 * issues.json).
 */
import { parseArgs } from 'node:util';
import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError, type JetStreamManager, type JsMsg, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { applyEvent, loadMirror, saveMirror } from './mirror';

const env = (name: string, fallback: string): string => process.env[name] || fallback;

const { values } = parseArgs({ options: { since: { type: 'string' } } });
const since = values.since === undefined ? undefined : new Date(values.since);
if (since !== undefined && Number.isNaN(since.getTime())) {
  console.error(`--since ${values.since}: expected an RFC 3339 time such as 2026-11-28T09:00:00Z`);
  process.exit(2);
}

const prefix = env('CAIRN_PREFIX', 'cairn');
const stream = `${prefix.toUpperCase()}_EVENTS_PUBLIC`;
const durable = env('MIRROR_DURABLE', 'issues-mirror');
const file = env('MIRROR_FILE', 'issues.json');
const user = process.env.NATS_USER;

/**
 * The durable consumer, created on first use. With `--since` it is made again to start at that time
 * (`deliver_policy: by_start_time`): a JetStream consumer's start cannot be moved once it exists.
 */
async function durableConsumer(jsm: JetStreamManager) {
  const exists = await jsm.consumers.info(stream, durable).then(
    () => true,
    (error: unknown) => {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) return false;
      throw error;
    },
  );
  if (exists && since !== undefined) await jsm.consumers.delete(stream, durable);
  if (!exists || since !== undefined) {
    await jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      // One filter covers both event types (NATS 2.9 takes one per consumer); the others are skipped and acknowledged.
      filter_subject: `${prefix}.events.v1.public.>`,
      ...(since === undefined ? { deliver_policy: DeliverPolicy.All } : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: since.toISOString() }),
      // One at a time, in stream order: events of one issue are applied in the order they happened.
      max_ack_pending: 1,
    });
  }
  return jsm.jetstream().consumers.get(stream, durable);
}

async function main(): Promise<void> {
  const nc = await connect({
    servers: env('NATS_URL', 'nats://127.0.0.1:4222').split(','),
    name: 'issues-mirror',
    ...(user === undefined ? {} : { user, pass: process.env.NATS_PASSWORD ?? '', inboxPrefix: `_INBOX_${user}` }),
  });
  // No `$JS.API.INFO` check: a team's user may call the API of its stream only.
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  const messages = await (await durableConsumer(jsm)).consume({ max_messages: 10 });
  const mirror = await loadMirror(file);

  const stop = () => void messages.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.log(`mirroring issues of ${prefix}.events.v1.public.> into ${file} (durable ${durable})`);

  for await (const msg of messages) await handle(msg);
  await nc.drain();

  async function handle(msg: JsMsg): Promise<void> {
    const id = msg.headers?.get('ce-id') ?? '';
    const eventType = msg.subject.split('.').at(-1) ?? '';
    if (id === '') {
      console.error(`skipping a message without ce-id on ${msg.subject}`);
    } else if (applyEvent(mirror, id, eventType, msg.data)) {
      await saveMirror(file, mirror);
      console.log(`applied ${id} ${msg.headers?.get('ce-type')} ${msg.headers?.get('ce-subject')}`);
    } else {
      console.log(`duplicate ${id}`);
    }
    // After the file is written: a crash before this line delivers the event again, and its id is then in the file.
    msg.ack();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
