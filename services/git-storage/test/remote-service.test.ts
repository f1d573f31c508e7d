/**
 * RemoteService against a real remote: git's own `git http-backend` served on loopback (@cairn/testing git-cgi.ts),
 * with basic auth in front of it for the credentials cases and a connection counter on every listener, so a refused
 * host is shown never contacted. git-storage runs with `[migrations] ALLOW_LOCALNETWORKS = true` and 127.0.0.2
 * blocked; a second instance with the default policy refuses loopback altogether. A relay that holds chosen requests
 * shows that a cancelled call's git is stopped before its transfer reaches the remote.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { encodeEnvKey } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { RemoteServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError, Code, type RpcClient, createRpcClient } from '@cairn/rpc';
import { gitHttpBackend } from '@cairn/testing';
import { type GitStorageHarness, PUSHER, ZERO_SHA, gitOk, repository, startGitStorage } from './harness';

interface Remote {
  /** `http://<host>:<port>/` */
  base: string;
  connections: number;
  close(): Promise<void>;
}

/** A loopback HTTP server counting its connections; `handler` answers (default: git http-backend of `root`). */
async function serve(host: string, handler: http.RequestListener): Promise<Remote> {
  const server = http.createServer(handler);
  const remote = { base: '', connections: 0, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  server.on('connection', (socket) => {
    remote.connections++;
    socket.unref();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  remote.base = `http://${host}:${(server.address() as AddressInfo).port}/`;
  return remote;
}

const USER = 'alice';
const PASSWORD = 's3cret-Pa55word';

/** git http-backend of `root`, behind basic auth when `auth` is set (401 with a challenge otherwise, as forges do). */
function backend(root: string, auth = false): http.RequestListener {
  const git = gitHttpBackend(root, 'mirror');
  const expected = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
  return (req, res) => {
    if (auth && req.headers.authorization !== expected) {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Length': 0 }).end();
      return;
    }
    git(req, res);
  };
}

interface Relay extends Remote {
  /** Requests `hold` picked, each held until released. */
  held(): number;
  /** Held requests whose client went away before they were released: never forwarded. */
  abandoned(): number;
  /** Forwards every held request whose client is still there; later ones pass at once. */
  release(): void;
}

/**
 * A loopback relay in front of `target` that holds the requests `hold` picks (by method, path and body, which git
 * gzips when large) until released, and forwards a held request only if its client is still waiting.
 */
async function startRelay(target: Remote, hold: (method: string, path: string, body: string) => boolean): Promise<Relay> {
  const upstream = new URL(target.base);
  const gates: Array<() => void> = [];
  let abandoned = 0;
  let holding = true;
  const remote = await serve('127.0.0.1', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const text = (req.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(body) : body).toString('latin1');
      const held = holding && hold(req.method ?? '', new URL(req.url ?? '/', 'http://relay').pathname, text);
      let gone = false;
      if (held) {
        res.once('close', () => {
          if (!res.headersSent && !gone) {
            gone = true;
            abandoned++;
          }
        });
      }
      const go = held ? new Promise<void>((resolve) => gates.push(resolve)) : Promise.resolve();
      void go.then(() => {
        if (gone) return;
        const headers: http.OutgoingHttpHeaders = { ...req.headers, host: upstream.host, 'content-length': String(body.length) };
        delete headers['transfer-encoding'];
        const forwarded = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        forwarded.on('error', () => res.destroy());
        forwarded.end(body);
      });
    });
  });
  return {
    ...remote,
    get connections() {
      return remote.connections;
    },
    held: () => gates.length,
    abandoned: () => abandoned,
    release() {
      holding = false;
      for (const gate of gates) gate();
    },
  };
}

async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function refsOf(gitDir: string): Promise<string> {
  return gitOk(['--git-dir', gitDir, 'for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads', 'refs/tags']);
}

async function rejection(call: Promise<unknown>): Promise<CairnError> {
  const error = await call.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof CairnError)) throw new Error(`expected a CairnError, got ${String(error)}`);
  return error;
}

let h: GitStorageHarness;
let remotes: RpcClient<typeof RemoteServiceService>;
let root: string;
let source: string;
let open: Remote;
let guarded: Remote;

beforeAll(async () => {
  h = await startGitStorage({
    [encodeEnvKey('migrations', 'ALLOW_LOCALNETWORKS')]: 'true',
    [encodeEnvKey('migrations', 'BLOCKED_DOMAINS')]: '127.0.0.2',
  });
  remotes = createRpcClient(RemoteServiceService, { target: h.target, service: 'git-storage', caller: 'migrations', logger: silentLogger(), deadlineMs: 60_000 });
  root = mkdtempSync(path.join(tmpdir(), 'cairn-remote-'));
  // The source: main and feature, an annotated tag, HEAD on main.
  const work = h.scratch('source');
  await gitOk(['init', '--quiet', '--initial-branch=main', work]);
  writeFileSync(path.join(work, 'a.txt'), 'a\n');
  await gitOk(['add', '.'], { cwd: work });
  await gitOk(['commit', '--quiet', '-m', 'first'], { cwd: work });
  await gitOk(['tag', '-a', '-m', 'one', 'v1'], { cwd: work });
  await gitOk(['checkout', '--quiet', '-b', 'feature'], { cwd: work });
  writeFileSync(path.join(work, 'b.txt'), 'b\n');
  await gitOk(['add', '.'], { cwd: work });
  await gitOk(['commit', '--quiet', '-m', 'second'], { cwd: work });
  source = path.join(root, 'source.git');
  await gitOk(['clone', '--quiet', '--bare', work, source]);
  await gitOk(['--git-dir', source, 'symbolic-ref', 'HEAD', 'refs/heads/main']);
  open = await serve('127.0.0.1', backend(root));
  guarded = await serve('127.0.0.1', backend(root, true));
});

afterAll(async () => {
  remotes.close();
  await open.close();
  await guarded.close();
  await h.stop();
  rmSync(root, { recursive: true, force: true });
});

const fetchRequest = (repoId: number, url: string, fields: Partial<Parameters<RpcClient<typeof RemoteServiceService>['fetchRemote']>[0]> = {}) => ({
  repository: repository(repoId),
  url,
  auth: undefined,
  prune: false,
  timeoutSeconds: 0,
  push: PUSHER,
  origin: 'migration',
  ...fields,
});

describe('FetchRemote', () => {
  it('imports every branch and tag, answers the remote HEAD, and publishes one cairn.git.pushed with its origin', async () => {
    const id = await h.createEmpty();
    const before = (await h.pushedEvents()).length;
    const answer = await remotes.fetchRemote(fetchRequest(id, `${open.base}source.git`));
    expect(answer.remoteHead).toBe('main');
    expect(answer.empty).toBe(false);
    expect(answer.updated.map((update) => update.ref).sort()).toEqual(['refs/heads/feature', 'refs/heads/main', 'refs/tags/v1']);
    expect(answer.updated.every((update) => update.oldSha === ZERO_SHA)).toBe(true);
    expect(await refsOf(h.gitDir(id))).toBe(await refsOf(source));
    // No staging refs are left behind.
    expect(await gitOk(['--git-dir', h.gitDir(id), 'for-each-ref', 'refs/cairn-fetch/'])).toBe('');
    const events = (await h.pushedEvents()).slice(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ repoId: id, pusherId: PUSHER.pusherId, origin: 'migration', commitCount: 2 });
    expect(events[0].refUpdates).toHaveLength(3);

    // Nothing changed: nothing to publish.
    const again = await remotes.fetchRemote(fetchRequest(id, `${open.base}source.git`, { origin: 'mirror' }));
    expect(again.updated).toEqual([]);
    expect((await h.pushedEvents()).length).toBe(before + 1);
  });

  it('removes what the remote no longer has only with prune (a mirror sync), and overwrites local changes', async () => {
    const id = await h.createEmpty();
    await remotes.fetchRemote(fetchRequest(id, `${open.base}source.git`));
    const copy = path.join(root, 'pruned.git');
    await gitOk(['clone', '--quiet', '--mirror', source, copy]);
    await gitOk(['--git-dir', copy, 'update-ref', '-d', 'refs/heads/feature']);
    // A change made meanwhile to the mirror is overwritten (forced refspecs).
    const feature = await gitOk(['--git-dir', h.gitDir(id), 'rev-parse', 'refs/heads/feature']);
    await gitOk(['--git-dir', h.gitDir(id), 'update-ref', 'refs/heads/main', feature]);

    const kept = await remotes.fetchRemote(fetchRequest(id, `${open.base}pruned.git`, { origin: 'mirror' }));
    expect(kept.updated.map((update) => update.ref)).toEqual(['refs/heads/main']);
    expect(await gitOk(['--git-dir', h.gitDir(id), 'rev-parse', 'refs/heads/feature'])).toBe(feature);

    const before = (await h.pushedEvents()).length;
    const pruned = await remotes.fetchRemote(fetchRequest(id, `${open.base}pruned.git`, { origin: 'mirror', prune: true }));
    expect(pruned.updated).toEqual([{ ref: 'refs/heads/feature', oldSha: feature, newSha: ZERO_SHA }]);
    expect(await refsOf(h.gitDir(id))).toBe(await refsOf(copy));
    const [event] = (await h.pushedEvents()).slice(before);
    expect(event).toMatchObject({ origin: 'mirror', refUpdates: [{ ref: 'refs/heads/feature', oldSha: feature, newSha: ZERO_SHA }] });
  });

  it('uses credentials for the remote only and never reports them; refused credentials are auth_failed', async () => {
    const id = await h.createEmpty();
    const url = `${guarded.base}source.git`;
    const without = await rejection(remotes.fetchRemote(fetchRequest(id, url)));
    expect(without).toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'auth_failed' });

    const wrong = await rejection(remotes.fetchRemote(fetchRequest(id, url, { auth: { username: USER, password: 'wrong-password', token: '' } })));
    expect(wrong).toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'auth_failed' });
    expect(wrong.message).not.toContain('wrong-password');

    // In the URL's userinfo, too: reported without it.
    const inUrl = await rejection(remotes.fetchRemote(fetchRequest(id, `http://${USER}:not-${PASSWORD}@${guarded.base.slice('http://'.length)}source.git`)));
    expect(inUrl.reason).toBe('auth_failed');
    expect(inUrl.message).not.toContain(`not-${PASSWORD}`);

    const missing = await rejection(remotes.fetchRemote(fetchRequest(id, `${guarded.base}missing.git`, { auth: { username: USER, password: PASSWORD, token: '' } })));
    expect(missing).toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'fetch_failed' });
    expect(missing.message).not.toContain(PASSWORD);

    const answer = await remotes.fetchRemote(fetchRequest(id, url, { auth: { username: USER, password: PASSWORD, token: '' } }));
    expect(answer.updated).toHaveLength(3);
    // Nothing of the credentials is kept in the repository.
    expect(await gitOk(['--git-dir', h.gitDir(id), 'config', '--list', '--local'])).not.toContain(PASSWORD);
  });

  it('refuses a blocked host, and a redirect to one, without contacting it', async () => {
    const blocked = await serve('127.0.0.2', backend(root));
    const redirect = await serve('127.0.0.1', (req, res) => res.writeHead(302, { Location: `${blocked.base}source.git${req.url?.replace(/^\/[^?]*?\.git/, '') ?? ''}` }).end());
    try {
      const id = await h.createEmpty();
      const direct = await rejection(remotes.fetchRemote(fetchRequest(id, `${blocked.base}source.git`)));
      expect(direct).toMatchObject({ code: Code.PERMISSION_DENIED, reason: 'host_refused', message: 'You can not import from disallowed hosts.' });
      const redirected = await rejection(remotes.fetchRemote(fetchRequest(id, `${redirect.base}source.git`)));
      expect(redirected).toMatchObject({ code: Code.PERMISSION_DENIED, reason: 'host_refused' });
      expect(redirect.connections).toBeGreaterThan(0);
      expect(blocked.connections).toBe(0);
      expect(await refsOf(h.gitDir(id))).toBe('');
    } finally {
      await blocked.close();
      await redirect.close();
    }
  });

  it('refuses what is not an http(s) URL', async () => {
    const id = await h.createEmpty();
    for (const url of ['file:///etc', `ext::sh -c touch% /tmp/x`, 'ssh://git@example.com/a.git', 'http://exa mple.com/a.git', 'not a url']) {
      expect(await rejection(remotes.fetchRemote(fetchRequest(id, url)))).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'bad_url' });
    }
  });

  it('stops a fetch that runs longer than timeout_seconds', async () => {
    const stalled = await serve('127.0.0.1', () => undefined);
    try {
      const id = await h.createEmpty();
      const started = Date.now();
      const error = await rejection(remotes.fetchRemote(fetchRequest(id, `${stalled.base}source.git`, { timeoutSeconds: 1 })));
      expect(error.code).toBe(Code.DEADLINE_EXCEEDED);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await stalled.close();
    }
  });

  it('applies and publishes nothing when its caller goes while git fetches', async () => {
    // The pack transfer (an upload-pack POST naming wants) is held at the relay.
    const relay = await startRelay(open, (method, where, body) => method === 'POST' && where.endsWith('/git-upload-pack') && body.includes('want '));
    try {
      const id = await h.createEmpty();
      const before = (await h.pushedEvents()).length;
      const caller = new AbortController();
      const call = rejection(remotes.fetchRemote(fetchRequest(id, `${relay.base}source.git`), { signal: caller.signal }));
      await waitUntil('the held pack transfer', () => relay.held() === 1);
      caller.abort();
      expect(await call).toMatchObject({ code: Code.CANCELLED });
      // git-storage stops its git: the transfer's connection goes before anything was sent to it.
      await waitUntil('the fetch to be given up', () => relay.abandoned() === 1);
      relay.release();
      expect(await refsOf(h.gitDir(id))).toBe('');
      expect(await gitOk(['--git-dir', h.gitDir(id), 'for-each-ref', 'refs/cairn-fetch/'])).toBe('');

      // The next fetch brings everything, as if the cancelled one had never been: the only event is its own.
      const answer = await remotes.fetchRemote(fetchRequest(id, `${relay.base}source.git`));
      expect(answer.updated.map((update) => [update.ref, update.oldSha]).sort()).toEqual([
        ['refs/heads/feature', ZERO_SHA],
        ['refs/heads/main', ZERO_SHA],
        ['refs/tags/v1', ZERO_SHA],
      ]);
      expect(await refsOf(h.gitDir(id))).toBe(await refsOf(source));
      const events = (await h.pushedEvents()).slice(before);
      expect(events.map((event) => event.repoId)).toEqual([id]);
      expect([relay.held(), relay.abandoned()]).toEqual([1, 1]);
    } finally {
      await relay.close();
    }
  });
});

describe('PushRemote', () => {
  it('makes the remote’s branches and tags exactly the repository’s', async () => {
    const id = await h.createEmpty();
    await remotes.fetchRemote(fetchRequest(id, `${open.base}source.git`));
    const mirror = path.join(root, 'mirror.git');
    await gitOk(['init', '--quiet', '--bare', mirror]);
    await gitOk(['--git-dir', mirror, 'config', 'http.receivepack', 'true']);
    // Something the repository does not have: removed by the push.
    await gitOk(['--git-dir', mirror, 'fetch', '--quiet', source, 'refs/heads/feature:refs/heads/stale']);

    await remotes.pushRemote({ repository: repository(id), url: `${guarded.base}mirror.git`, auth: { username: USER, password: PASSWORD, token: '' }, timeoutSeconds: 0 });
    expect(await refsOf(mirror)).toBe(await refsOf(h.gitDir(id)));

    const refused = await rejection(remotes.pushRemote({ repository: repository(id), url: `${guarded.base}mirror.git`, auth: undefined, timeoutSeconds: 0 }));
    expect(refused).toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'auth_failed' });
    const blocked = await rejection(remotes.pushRemote({ repository: repository(id), url: 'http://127.0.0.2:9/mirror.git', auth: undefined, timeoutSeconds: 0 }));
    expect(blocked).toMatchObject({ code: Code.PERMISSION_DENIED, reason: 'host_refused' });
  });

  it('stops its git when its caller goes: nothing reaches the remote', async () => {
    const id = await h.createEmpty();
    await remotes.fetchRemote(fetchRequest(id, `${open.base}source.git`));
    const mirror = path.join(root, 'cancelled-mirror.git');
    await gitOk(['init', '--quiet', '--bare', mirror]);
    await gitOk(['--git-dir', mirror, 'config', 'http.receivepack', 'true']);
    await gitOk(['--git-dir', mirror, 'fetch', '--quiet', source, 'refs/heads/feature:refs/heads/stale']);
    const remoteBefore = await refsOf(mirror);
    // The push itself (the receive-pack POST carrying the ref updates and the pack) is held at the relay.
    const relay = await startRelay(open, (method, where) => method === 'POST' && where.endsWith('/git-receive-pack'));
    try {
      const url = `${relay.base}cancelled-mirror.git`;
      const caller = new AbortController();
      const call = rejection(remotes.pushRemote({ repository: repository(id), url, auth: undefined, timeoutSeconds: 0 }, { signal: caller.signal }));
      await waitUntil('the held push', () => relay.held() === 1);
      caller.abort();
      expect(await call).toMatchObject({ code: Code.CANCELLED });
      await waitUntil('the push to be given up', () => relay.abandoned() === 1);
      relay.release();
      expect(await refsOf(mirror)).toBe(remoteBefore);

      // Through the same relay, a push nobody cancels goes through.
      await remotes.pushRemote({ repository: repository(id), url, auth: undefined, timeoutSeconds: 0 });
      expect(await refsOf(mirror)).toBe(await refsOf(h.gitDir(id)));
      expect([relay.held(), relay.abandoned()]).toEqual([1, 1]);
    } finally {
      await relay.close();
    }
  });
});

describe('the default [migrations] policy', () => {
  let strict: GitStorageHarness;
  beforeAll(async () => {
    strict = await startGitStorage();
  });
  afterAll(async () => {
    await strict.stop();
  });

  it('refuses loopback without contacting it', async () => {
    const counted = await serve('127.0.0.1', backend(root));
    const client = createRpcClient(RemoteServiceService, { target: strict.target, service: 'git-storage', caller: 'migrations', logger: silentLogger() });
    try {
      const id = await strict.createEmpty();
      const error = await rejection(client.fetchRemote(fetchRequest(id, `${counted.base}source.git`)));
      expect(error).toMatchObject({ code: Code.PERMISSION_DENIED, reason: 'host_refused' });
      expect(counted.connections).toBe(0);
    } finally {
      client.close();
      await counted.close();
    }
  });
});
