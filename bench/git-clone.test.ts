/**
 * The git-clone scenario's prepare/check/run/stop against a stand-in for Cairn: a node:http server answering
 * `POST /api/v1/user/repos` and serving smart HTTP with git http-backend (pushes need the owner's password, as
 * on Cairn), so the scenario runs whole, with a small history, without the services.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitHttpBackend } from '@cairn/testing';
import { basicAuth } from './cairn';
import { listen, readBody } from './stand-in';
import { git } from './git';
import { HISTORY_BRANCH } from './git-history';
import { createGitCloneScenario } from './scenarios/git-clone';
import type { BenchContext, RunningBaseline } from './scenarios/types';

const SHAPE = { commits: 30, files: 5, filesPerCommit: 2, lines: 8 };
const OWNER = { username: 'bench', password: `pw-${randomBytes(4).toString('hex')}`, token: 'f'.repeat(40) };

/** Cairn's part in the scenario: create a repository, take a push from its owner, serve anonymous clones. */
function fakeCairn(root: string): http.RequestListener {
  const anonymous = gitHttpBackend(root);
  const owner = gitHttpBackend(root, OWNER.username);
  const authorization = basicAuth(OWNER.username, OWNER.password);
  return (req, res) => {
    const signedIn = req.headers.authorization === authorization;
    if (req.method === 'POST' && req.url === '/api/v1/user/repos') {
      void readBody(req).then(async (body) => {
        const { name, default_branch: branch } = JSON.parse(body.toString()) as { name: string; default_branch: string };
        const gitDir = path.join(root, OWNER.username, `${name}.git`);
        if (!signedIn) return res.writeHead(401).end('{}');
        if (fs.existsSync(gitDir)) return res.writeHead(409).end('{"message":"The repository with the same name already exists."}');
        await git(['init', '--bare', '--quiet', `--initial-branch=${branch}`, gitDir]);
        res.writeHead(201).end('{}');
      });
      return;
    }
    if (req.url?.includes('git-receive-pack') && !signedIn) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="Gitea"' }).end();
      return;
    }
    (signedIn ? owner : anonymous)(req, res);
  };
}

describe('git-clone scenario', () => {
  let temp: string;
  let cairn: RunningBaseline;
  const started: Array<{ name: string; env: Record<string, string>; stopped: boolean }> = [];
  const signal = new AbortController().signal;

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
      const record = { name, env, stopped: false };
      started.push(record);
      const baseline = await listen(gitHttpBackend(env.BENCH_GIT_PROJECT_ROOT));
      return { url: baseline.url, stop: () => baseline.stop().then(() => void (record.stopped = true)) };
    },
  });

  beforeAll(async () => {
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-clone-test-'));
    cairn = await listen(fakeCairn(path.join(temp, 'cairn')));
  });

  afterAll(async () => {
    await cairn.stop();
    fs.rmSync(temp, { recursive: true, force: true });
  });

  it('pushes the history to Cairn, serves the same from the baseline, and clones both', async () => {
    const scenario = createGitCloneScenario(SHAPE);
    const subjects = await scenario.prepare(context(), signal);
    const cairnRepo = path.join(temp, 'cairn', OWNER.username, 'history.git');
    const tip = (await git(['rev-parse', `refs/heads/${HISTORY_BRANCH}`], { gitDir: cairnRepo })).trim();
    try {
      expect(started.map(({ name }) => name)).toEqual(['git-http-backend']);
      expect(fs.existsSync(path.join(__dirname, 'baselines', 'git-http-backend.ts'))).toBe(true);
      await subjects.check(signal);
      for (const side of ['cairn', 'baseline'] as const) {
        const workDir = fs.mkdtempSync(path.join(temp, `${side}-`));
        await subjects.run(side, workDir, signal);
        const clone = path.join(workDir, 'clone.git');
        expect([side, (await git(['rev-parse', 'HEAD'], { gitDir: clone })).trim()]).toEqual([side, tip]);
        expect((await git(['rev-list', '--count', 'HEAD'], { gitDir: clone })).trim()).toBe(String(SHAPE.commits));
      }

      // Repositories that differ make the comparison meaningless.
      await git(['update-ref', `refs/heads/${HISTORY_BRANCH}`, `${tip}~1`], { gitDir: cairnRepo });
      await expect(subjects.check(signal)).rejects.toThrow('the two repositories differ');
    } finally {
      await subjects.stop();
    }
    expect(started[0].stopped).toBe(true);
    expect(fs.existsSync(started[0].env.BENCH_GIT_PROJECT_ROOT)).toBe(false);
  });

  it('fails, leaving nothing started, when Cairn refuses the repository', async () => {
    started.length = 0;
    // The first test created it: Cairn answers 409 now.
    await expect(createGitCloneScenario(SHAPE).prepare(context(), signal)).rejects.toThrow('creating bench/history answered 409');
    expect(started).toEqual([]);
  });
});
