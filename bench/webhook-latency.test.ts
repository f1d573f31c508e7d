/**
 * The webhook-latency scenario's prepare/check/event/stop against a node:http "Cairn" that answers the calls the
 * scenario makes and delivers each comment to the hook's URL as Gitea would, and the real baseline relay
 * (bench/baselines/nats-relay.ts, in-process) on the test NATS server.
 */
import * as http from 'node:http';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { testNatsUrl } from '@cairn/testing';
import { basicAuth } from './cairn';
import { startRelay } from './baselines/nats-relay';
import { listen, readBody } from './stand-in';
import { baselineBody, webhookLatencyScenario } from './scenarios/webhook-latency';
import type { BenchContext, RunningBaseline } from './scenarios/types';

const OWNER = { username: 'bench', password: 'pw-hooks', token: 'f'.repeat(40) };
const TOKEN = 'a'.repeat(40);

/** What the fake Cairn saw; `event` is the X-Gitea-Event it sends, `copies` how many times it delivers each comment. */
interface CairnState {
  calls: string[];
  hookUrl?: string;
  event: string;
  copies: number;
}

function deliver(url: string, event: string, payload: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gitea-event': event } }, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    request.on('error', reject);
    request.end(JSON.stringify(payload));
  });
}

function fakeCairn(state: CairnState): http.RequestListener {
  let nextComment = 100;
  return (req, res) => {
    void readBody(req).then(async (raw) => {
      const url = new URL(req.url ?? '/', 'http://x');
      state.calls.push(`${req.method} ${url.pathname}`);
      const body = (raw.length > 0 ? JSON.parse(raw.toString('utf8')) : {}) as Record<string, unknown>;
      if (req.method === 'POST' && url.pathname === '/api/v1/users/bench/tokens') {
        if (req.headers.authorization !== basicAuth(OWNER.username, OWNER.password)) return res.writeHead(401).end('{}');
        expect(body.scopes).toEqual(['write:user', 'write:repository', 'write:issue']);
        return res.writeHead(201).end(JSON.stringify({ sha1: TOKEN }));
      }
      if (req.headers.authorization !== `token ${TOKEN}`) return res.writeHead(401).end('{}');
      if (req.method === 'POST' && url.pathname === '/api/v1/user/repos') return res.writeHead(201).end('{}');
      if (req.method === 'POST' && url.pathname === '/api/v1/repos/bench/webhooks/issues') return res.writeHead(201).end('{"number":3}');
      if (req.method === 'POST' && url.pathname === '/api/v1/repos/bench/webhooks/hooks') {
        expect(body).toMatchObject({ type: 'gitea', config: { content_type: 'json' }, events: ['issue_comment'], active: true });
        state.hookUrl = (body.config as { url: string }).url;
        return res.writeHead(201).end('{"id":1}');
      }
      if (req.method === 'POST' && url.pathname === '/api/v1/repos/bench/webhooks/issues/3/comments') {
        const comment = { id: nextComment++, body: body.body };
        const payload = { action: 'created', issue: { number: 3 }, comment, repository: { full_name: 'bench/webhooks' }, is_pull: false };
        // Delivered before the answer (Cairn may be that fast), so every copy has arrived when the event resolves.
        for (let i = 0; i < state.copies; i++) await deliver(state.hookUrl ?? '', state.event, payload);
        return res.writeHead(201).end(JSON.stringify(comment));
      }
      res.writeHead(404).end('{}');
    });
  };
}

async function streamExists(stream: string): Promise<boolean> {
  const nc = await connect({ servers: testNatsUrl() });
  try {
    const jsm = await jetstreamManager(nc);
    return await jsm.streams.info(stream).then(
      () => true,
      () => false,
    );
  } finally {
    await nc.close();
  }
}

describe('webhook-latency scenario', () => {
  const signal = new AbortController().signal;
  const state: CairnState = { calls: [], event: 'issue_comment', copies: 1 };
  const relays: Array<{ env: Record<string, string> }> = [];
  let cairn: RunningBaseline;

  beforeAll(async () => {
    cairn = await listen(fakeCairn(state));
  });
  afterAll(() => cairn.stop());
  beforeEach(() => {
    state.calls = [];
    state.event = 'issue_comment';
    state.copies = 1;
  });

  const context = (): BenchContext => ({
    cairnUrl: cairn.url,
    rootUrl: 'http://localhost:3000/',
    version: '1.2.3',
    databaseUrl: 'postgres://unused',
    natsUrl: testNatsUrl(),
    poolSize: 10,
    servicePid: () => process.pid,
    serviceNames: () => [],
    benchUser: async () => OWNER,
    startBaseline: async (name, env) => {
      expect(name).toBe('webhook-relay');
      relays.push({ env });
      const relay = await startRelay({ natsUrl: env.BENCH_NATS_URL, stream: env.BENCH_STREAM, subject: env.BENCH_SUBJECT, receiverUrl: env.BENCH_RECEIVER_URL });
      return { url: 'http://127.0.0.1:1', stop: () => relay.stop() };
    },
  });

  it('seeds a repository, an issue and its hook, then measures comments and relayed messages to the same receiver', async () => {
    expect(webhookLatencyScenario.targets).toEqual({ maxP99Ratio: 3 });
    const subjects = await webhookLatencyScenario.prepare(context(), signal);
    const relay = relays[relays.length - 1].env;
    try {
      expect(state.hookUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cairn$/);
      expect(relay.BENCH_RECEIVER_URL).toBe(state.hookUrl?.replace(/cairn$/, 'baseline'));
      expect(relay.BENCH_SUBJECT.startsWith(`${relay.BENCH_STREAM}.`)).toBe(true);
      await subjects.check(signal);
      for (const side of ['cairn', 'baseline', 'baseline', 'cairn'] as const) {
        const ms = await subjects.event(side, signal);
        expect([side, Number.isFinite(ms) && ms >= 0]).toEqual([side, true]);
      }
      expect(state.calls).toEqual([
        'POST /api/v1/users/bench/tokens',
        'POST /api/v1/user/repos',
        'POST /api/v1/repos/bench/webhooks/issues',
        'POST /api/v1/repos/bench/webhooks/hooks',
        // check() and two measured events on Cairn's side.
        ...Array(3).fill('POST /api/v1/repos/bench/webhooks/issues/3/comments'),
      ]);
      expect(await streamExists(relay.BENCH_STREAM)).toBe(true);
    } finally {
      await subjects.stop();
    }
    expect(await streamExists(relay.BENCH_STREAM)).toBe(false);
  });

  it('refuses a delivery that is not the issue_comment event', async () => {
    state.event = 'issues';
    const subjects = await webhookLatencyScenario.prepare(context(), signal);
    try {
      await expect(subjects.check(signal)).rejects.toThrow('X-Gitea-Event "issues", not "issue_comment"');
    } finally {
      await subjects.stop();
    }
  });

  it('fails an event when a delivery comes twice', async () => {
    const subjects = await webhookLatencyScenario.prepare(context(), signal);
    try {
      await subjects.check(signal);
      state.copies = 2;
      await expect(subjects.event('cairn', signal)).rejects.toThrow('the receiver got 1 delivery(ies) of no waiting event');
    } finally {
      await subjects.stop();
    }
  });
});

describe('baselineBody', () => {
  it('carries the marker where Cairn carries the comment body, padded to the size asked', () => {
    const body = baselineBody('bench-x-baseline-1', 4321);
    expect(body.length).toBe(4321);
    expect(JSON.parse(body.toString('utf8'))).toMatchObject({ action: 'created', comment: { body: 'bench-x-baseline-1' } });
    expect(JSON.parse(baselineBody('m', 0).toString('utf8'))).toEqual({ action: 'created', comment: { body: 'm' }, padding: '' });
  });
});
