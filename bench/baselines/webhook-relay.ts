/**
 * Baseline for `webhook-latency`: the relay of ./nats-relay.ts in its own process, as the hooks service is. Its
 * HTTP port only tells the harness it is ready (the stream and consumer exist by then); it answers 404.
 */
import { startRelay } from './nats-relay';
import { requireEnv, serveBaseline } from './serve';

startRelay({
  natsUrl: requireEnv('BENCH_NATS_URL'),
  stream: requireEnv('BENCH_STREAM'),
  subject: requireEnv('BENCH_SUBJECT'),
  receiverUrl: requireEnv('BENCH_RECEIVER_URL'),
}).then(
  (relay) => serveBaseline((_req, res) => void res.writeHead(404).end(), () => relay.stop()),
  (error: unknown) => {
    process.stderr.write(`webhook-relay: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
