/**
 * The release-asset scenario's prepare/check/run/stop against stand-ins: a node:http "Cairn" answering the
 * repository, release and asset calls the scenario makes (keeping the bytes in memory) and a node:http file server
 * for the baseline, so the scenario runs whole on a small file without the services.
 */
import * as http from 'node:http';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { basicAuth } from './cairn';
import { listen, readBody } from './stand-in';
import { createReleaseAssetScenario } from './scenarios/release-asset';
import type { BenchContext, RunningBaseline } from './scenarios/types';

const SIZE = 3_000_001;
const OWNER = { username: 'bench', password: 'pw-asset', token: 'f'.repeat(40) };

/** What the fake Cairn saw and holds; `corrupt` flips a byte of what it serves. */
interface CairnState {
  calls: string[];
  assets: Map<string, Buffer>;
  corrupt: boolean;
}

function fakeCairn(state: CairnState, rootUrl: string): http.RequestListener {
  const authorization = basicAuth(OWNER.username, OWNER.password);
  let nextId = 1;
  return (req, res) => {
    void readBody(req).then((body) => {
      const url = new URL(req.url ?? '/', 'http://x');
      state.calls.push(`${req.method} ${url.pathname}`);
      const signedIn = req.headers.authorization === authorization;
      if (url.pathname.startsWith('/attachments/') && req.method === 'GET') {
        const bytes = state.assets.get(url.pathname.slice('/attachments/'.length));
        if (bytes === undefined) return res.writeHead(404).end();
        const served = Buffer.from(bytes);
        if (state.corrupt) served[0] ^= 1;
        return res.writeHead(200, { 'content-length': served.length }).end(served);
      }
      if (!signedIn) return res.writeHead(401).end('{}');
      if (req.method === 'POST' && url.pathname === '/api/v1/user/repos') return res.writeHead(201).end('{}');
      if (req.method === 'POST' && url.pathname === '/api/v1/repos/bench/assets/releases') return res.writeHead(201).end('{"id":7}');
      if (req.method === 'POST' && url.pathname === '/api/v1/repos/bench/assets/releases/7/assets') {
        const uuid = `uuid-${nextId}`;
        state.assets.set(uuid, body);
        return res.writeHead(201).end(JSON.stringify({ id: nextId++, size: body.length, name: url.searchParams.get('name'), browser_download_url: `${rootUrl}attachments/${uuid}` }));
      }
      const deleted = /^\/api\/v1\/repos\/bench\/assets\/releases\/7\/assets\/(\d+)$/.exec(url.pathname);
      if (req.method === 'DELETE' && deleted !== null) {
        state.assets.delete(`uuid-${deleted[1]}`);
        return res.writeHead(204).end();
      }
      res.writeHead(404).end('{}');
    });
  };
}

function fakeFileServer(directory: string): http.RequestListener {
  return (req, res) => {
    const file = path.join(directory, path.basename(req.url ?? ''));
    void readBody(req).then((body) => {
      if (req.method === 'PUT') return fs.writeFileSync(file, body), res.writeHead(201).end();
      if (req.method === 'GET') return res.writeHead(200).end(fs.readFileSync(file));
      if (req.method === 'DELETE') return fs.rmSync(file, { force: true }), res.writeHead(204).end();
      res.writeHead(405).end();
    });
  };
}

describe('release-asset scenario', () => {
  const signal = new AbortController().signal;
  const state: CairnState = { calls: [], assets: new Map(), corrupt: false };
  const baselines: Array<{ env: Record<string, string>; stopped: boolean }> = [];
  let cairn: RunningBaseline;
  let scratch: string;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-asset-test-'));
    cairn = await listen(fakeCairn(state, 'http://localhost:3000/'));
  });
  afterAll(async () => {
    await cairn.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const context = (): BenchContext => ({
    cairnUrl: cairn.url,
    rootUrl: 'http://localhost:3000/',
    version: '1.2.3',
    databaseUrl: 'postgres://unused',
    natsUrl: 'nats://unused',
    poolSize: 10,
    servicePid: () => process.pid,
    serviceNames: () => [],
    benchUser: async () => OWNER,
    startBaseline: async (name, env) => {
      expect(name).toBe('file-server');
      const record = { env, stopped: false };
      baselines.push(record);
      const server = await listen(fakeFileServer(env.BENCH_FILES_DIR));
      return { url: server.url, stop: () => server.stop().then(() => void (record.stopped = true)) };
    },
  });

  it('uploads, downloads and deletes the same bytes on both sides, and refuses sides that differ', async () => {
    const scenario = createReleaseAssetScenario(SIZE);
    expect(scenario).toMatchObject({ memoryOf: 'gateway', targets: { maxTimeRatio: 1.25, maxRssGrowthMiB: 64 } });
    const subjects = await scenario.prepare(context(), signal);
    try {
      await subjects.check(signal);
      for (const side of ['cairn', 'baseline'] as const) await subjects.run(side, scratch, signal);
      expect(state.assets.size).toBe(0);
      expect(fs.readdirSync(baselines[0].env.BENCH_FILES_DIR)).toEqual([]);
      expect(state.calls).toEqual([
        'POST /api/v1/user/repos',
        'POST /api/v1/repos/bench/assets/releases',
        // check(), then one run on Cairn's side: each an upload, its download and its deletion.
        ...[1, 2].flatMap((n) => [
          'POST /api/v1/repos/bench/assets/releases/7/assets',
          `GET /attachments/uuid-${n}`,
          `DELETE /api/v1/repos/bench/assets/releases/7/assets/${n}`,
        ]),
      ]);

      state.corrupt = true;
      await expect(subjects.check(signal)).rejects.toThrow('cairn gave back other bytes');
    } finally {
      await subjects.stop();
    }
    expect(baselines[0].stopped).toBe(true);
    expect(fs.existsSync(baselines[0].env.BENCH_FILES_DIR)).toBe(false);
  });
});
