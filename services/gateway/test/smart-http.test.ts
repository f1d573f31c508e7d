/**
 * git smart HTTP through the gateway against in-memory repos and git-storage streams: who may fetch and push
 * (Gitea's httpBase answers, in plain text), what reaches git-storage (repository, Git-Protocol, push context,
 * protection rules, the decompressed body in chunks), the answer's headers, redirects of renamed repositories,
 * and cancellation when the client goes away.
 */
import { gzipSync } from 'node:zlib';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { FakeAccounts } from './support/fake-accounts';
import { FakeGitHosting, permission, repository } from './support/fake-git-hosting';
import { type TestGateway, basic, startTestGateway } from './support/harness';

const UPLOAD_REQUEST = 'application/x-git-upload-pack-request';
const RECEIVE_REQUEST = 'application/x-git-receive-pack-request';

function seed() {
  const accounts = new FakeAccounts();
  const alice = accounts.addUser('alice', { password: 'alice-password' });
  const bob = accounts.addUser('bob', { password: 'bob-password' });
  const carol = accounts.addUser('carol', { password: 'carol-password' });
  const dave = accounts.addUser('dave', { password: 'dave-password', prohibitLogin: true });
  const tokens = {
    aliceAll: accounts.addToken(alice.id, 'all', ['all']).secret,
    aliceRead: accounts.addToken(alice.id, 'read', ['read:repository']).secret,
    aliceUser: accounts.addToken(alice.id, 'user', ['read:user']).secret,
    alicePublicOnly: accounts.addToken(alice.id, 'public', ['public-only', 'write:repository']).secret,
  };
  const git = new FakeGitHosting();
  /** alice owns and writes everything; bob reads; dave writes but may not sign in; carol sees only public ones. */
  const access =
    (isPublic: boolean) =>
    (viewer: Actor | undefined) => {
      if (viewer?.userId === alice.id || viewer?.userId === dave.id) return permission('owner');
      if (viewer?.userId === bob.id) return permission('read');
      return isPublic ? permission('read') : undefined;
    };
  git.add('alice', 'pub', { repository: repository({ id: 1, ownerId: alice.id, ownerName: 'alice', name: 'pub' }), permissionFor: access(true), formerNames: ['alice/old-pub'] });
  git.add('alice', 'priv', {
    repository: repository({ id: 2, ownerId: alice.id, ownerName: 'alice', name: 'priv', private: true }),
    permissionFor: access(false),
    rules: [{ ruleName: 'main', canPush: false, canForcePush: false, canDelete: false, requireSignedCommits: true, protectedFilePatterns: '', unprotectedFilePatterns: 'docs/**' }],
  });
  git.add('alice', 'arch', { repository: repository({ id: 3, ownerId: alice.id, ownerName: 'alice', name: 'arch', archived: true }), permissionFor: access(true) });
  git.add('alice', 'mirror', { repository: repository({ id: 4, ownerId: alice.id, ownerName: 'alice', name: 'mirror', mirror: true }), permissionFor: access(true) });
  git.add('alice', 'nocode', { repository: repository({ id: 5, ownerId: alice.id, ownerName: 'alice', name: 'nocode', units: [{ key: 'repo.issues' }] }), permissionFor: access(true) });
  git.install(accounts.clients);
  return { accounts, git, alice, bob, carol, dave, tokens };
}

async function answer(res: Response): Promise<{ status: number; body: string; authenticate: string | null }> {
  return { status: res.status, body: await res.text(), authenticate: res.headers.get('www-authenticate') };
}

describe('git smart HTTP: who may fetch and push', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());

  const infoRefs = (repo: string, service: string, headers: Record<string, string> = {}) =>
    gw.fetch(`/alice/${repo}/info/refs?service=${service}`, { headers }).then(answer);

  it('lets anyone fetch a public repository of a public owner, with or without .git', async () => {
    for (const path of ['pub.git', 'pub']) expect((await infoRefs(path, 'git-upload-pack')).status).toBe(200);
  });

  it('asks for credentials (401 + WWW-Authenticate) for a private repository and for any push', async () => {
    const asked = { status: 401, body: 'Unauthorized\n', authenticate: 'Basic realm="Gitea"' };
    expect(await infoRefs('priv.git', 'git-upload-pack')).toEqual(asked);
    expect(await infoRefs('pub.git', 'git-receive-pack')).toEqual(asked);
    // A repository that does not exist looks the same to an anonymous caller.
    expect(await infoRefs('missing.git', 'git-upload-pack')).toEqual(asked);
  });

  it('answers bad credentials with 401, whatever the repository', async () => {
    const r = await infoRefs('pub.git', 'git-upload-pack', { Authorization: basic('alice', 'wrong-password') });
    expect(r).toEqual({ status: 401, body: 'invalid username, password or token', authenticate: 'Basic realm="Gitea"' });
  });

  it('hides a repository the signed-in caller may not read (404), and one without the code unit', async () => {
    expect(await infoRefs('priv.git', 'git-upload-pack', { Authorization: basic('carol', 'carol-password') })).toEqual({
      status: 404,
      body: 'Repository not found',
      authenticate: null,
    });
    expect((await infoRefs('nocode.git', 'git-upload-pack')).status).toBe(404);
  });

  it('lets readers fetch private repositories but refuses their pushes with Gitea\'s words', async () => {
    const bob = { Authorization: basic('bob', 'bob-password') };
    expect((await infoRefs('priv.git', 'git-upload-pack', bob)).status).toBe(200);
    expect(await infoRefs('priv.git', 'git-receive-pack', bob)).toEqual({ status: 403, body: 'User permission denied for writing.', authenticate: null });
  });

  it('takes a token as the Basic password, within its scope', async () => {
    const as = (token: string) => ({ Authorization: basic('alice', token) });
    expect((await infoRefs('priv.git', 'git-upload-pack', as(s.tokens.aliceRead))).status).toBe(200);
    expect((await infoRefs('priv.git', 'git-receive-pack', as(s.tokens.aliceAll))).status).toBe(200);
    expect(await infoRefs('priv.git', 'git-receive-pack', as(s.tokens.aliceRead))).toEqual({ status: 403, body: 'Forbidden\n', authenticate: null });
    expect((await infoRefs('priv.git', 'git-upload-pack', as(s.tokens.aliceUser))).status).toBe(403);
    // Public-only tokens stop at private repositories.
    expect((await infoRefs('priv.git', 'git-upload-pack', as(s.tokens.alicePublicOnly))).status).toBe(403);
    expect((await infoRefs('pub.git', 'git-receive-pack', as(s.tokens.alicePublicOnly))).status).toBe(200);
  });

  it('refuses pushes to archived and mirror repositories, and accounts that may not sign in', async () => {
    const alice = { Authorization: basic('alice', 'alice-password') };
    expect(await infoRefs('arch.git', 'git-receive-pack', alice)).toMatchObject({
      status: 403,
      body: 'This repo is archived. You can view files and clone it, but cannot push or open issues/pull-requests.',
    });
    expect((await infoRefs('arch.git', 'git-upload-pack')).status).toBe(200);
    expect(await infoRefs('mirror.git', 'git-receive-pack', alice)).toMatchObject({ status: 403, body: 'mirror repository is read-only' });
    expect(await infoRefs('pub.git', 'git-receive-pack', { Authorization: basic('dave', 'dave-password') })).toMatchObject({
      status: 403,
      body: 'Your account is disabled.',
    });
  });

  it('redirects a former name permanently, keeping the rest of the path and the query', async () => {
    const res = await gw.fetch('/alice/old-pub.git/info/refs?service=git-upload-pack', { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/alice/pub.git/info/refs?service=git-upload-pack');
  });

  it('serves only the smart protocol', async () => {
    expect((await gw.fetch('/alice/pub.git/info/refs')).status).toBe(403);
    expect((await infoRefs('pub.git', 'git-upload-archive')).status).toBe(403);
  });
});

describe('git smart HTTP: the streams', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());
  const alice = { Authorization: basic('alice', 'alice-password') };

  it('streams info/refs with git\'s content type, no caching, and the client\'s Git-Protocol', async () => {
    s.git.script = async function* () {
      yield Buffer.from('001e# service=git-upload-pack\n');
      yield Buffer.from('0000');
    };
    const res = await gw.fetch('/alice/pub.git/info/refs?service=git-upload-pack', { headers: { 'Git-Protocol': 'version=2' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
    expect(res.headers.get('cache-control')).toBe('no-cache, max-age=0, must-revalidate');
    expect(res.headers.get('expires')).toBe('Fri, 01 Jan 1980 00:00:00 GMT');
    expect(await res.text()).toBe('001e# service=git-upload-pack\n0000');
    const call = s.git.infoRefsCalls.at(-1);
    expect(call?.request).toEqual({ repository: { storage: 'default', repoId: 1 }, service: 'git-upload-pack', gitProtocol: 'version=2' });
  });

  it('drops a Git-Protocol header git would not send', async () => {
    await gw.fetch('/alice/pub.git/info/refs?service=git-upload-pack', { headers: { 'Git-Protocol': 'version=2 --upload-pack=evil' } });
    expect(s.git.infoRefsCalls.at(-1)?.request.gitProtocol).toBe('');
  });

  it('pipes upload-pack: the repository first, then the body chunk by chunk, gzip undone', async () => {
    s.git.script = async function* () {
      yield Buffer.from('0008NAK\n');
      yield Buffer.from('PACK-DATA');
    };
    const body = Buffer.alloc(3 * 1024 * 1024, 'a');
    const res = await gw.fetch('/alice/pub.git/git-upload-pack', {
      method: 'POST',
      headers: { 'Content-Type': UPLOAD_REQUEST, 'Content-Encoding': 'gzip' },
      body: gzipSync(body),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    expect(await res.text()).toBe('0008NAK\nPACK-DATA');
    const upload = s.git.uploads.at(-1);
    expect(upload?.requests[0]).toMatchObject({ repository: { storage: 'default', repoId: 1 }, data: Buffer.alloc(0) });
    expect(upload?.bodyBytes).toBe(body.length);
    // Streamed, not gathered: the body reached git-storage in many messages.
    expect(upload?.requests.length).toBeGreaterThan(3);
  });

  it('answers a body that does not decompress with 400, before git-storage answers', async () => {
    const res = await gw.fetch('/alice/pub.git/git-upload-pack', {
      method: 'POST',
      headers: { 'Content-Type': UPLOAD_REQUEST, 'Content-Encoding': 'gzip' },
      body: Buffer.from('definitely not gzip'),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/^request body is not valid gzip/);
  });

  it('answers a POST without git\'s request content type with a bare 401, as Gitea', async () => {
    const res = await gw.fetch('/alice/pub.git/git-upload-pack', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' });
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('');
  });

  it('pushes with the pusher, the repository and its protection rules in the first message', async () => {
    s.git.script = async function* () {
      yield Buffer.from('000eunpack ok\n');
    };
    const res = await gw.fetch('/alice/priv.git/git-receive-pack', {
      method: 'POST',
      headers: { ...alice, 'Content-Type': RECEIVE_REQUEST },
      body: 'commands-and-pack',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-receive-pack-result');
    expect(await res.text()).toBe('000eunpack ok\n');
    expect(s.git.pushPolicyCalls.at(-1)).toEqual({ pusher: { userId: s.alice.id, isAdmin: false, isRestricted: false }, id: 2 });
    const first = s.git.receives.at(-1)?.requests[0];
    expect(first).toMatchObject({
      repository: { storage: 'default', repoId: 2 },
      push: { pusherId: s.alice.id, pusherName: 'alice', repoOwnerId: s.alice.id, repoPrivate: true },
      rules: [{ ruleName: 'main', canPush: false, requireSignedCommits: true, unprotectedFilePatterns: 'docs/**' }],
    });
    expect(s.git.receives.at(-1)?.bodyBytes).toBe('commands-and-pack'.length);
  });

  it('refuses a push without credentials before reading the body', async () => {
    const before = s.git.receives.length;
    const res = await gw.fetch('/alice/pub.git/git-receive-pack', { method: 'POST', headers: { 'Content-Type': RECEIVE_REQUEST }, body: 'x' });
    expect(res.status).toBe(401);
    expect(s.git.receives.length).toBe(before);
  });

  it('cancels the git-storage call when the client goes away mid-answer', async () => {
    s.git.script = async function* (signal) {
      while (signal?.aborted !== true) {
        yield Buffer.alloc(64 * 1024, 'p');
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    };
    const controller = new AbortController();
    const res = await gw.fetch('/alice/pub.git/git-upload-pack', {
      method: 'POST',
      headers: { 'Content-Type': UPLOAD_REQUEST },
      body: '0000',
      signal: controller.signal,
    });
    const reader = res.body?.getReader();
    await reader?.read();
    controller.abort();
    const upload = s.git.uploads.at(-1);
    for (let i = 0; i < 200 && !(upload?.aborted && upload.done); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(upload?.aborted).toBe(true);
    expect(upload?.done).toBe(true);
  });

  it('reads from git-storage only as fast as the client takes the answer', async () => {
    let produced = 0;
    const total = 2000;
    s.git.script = async function* () {
      for (; produced < total; produced += 1) yield Buffer.alloc(64 * 1024, 'p');
    };
    const controller = new AbortController();
    const res = await gw.fetch('/alice/pub.git/git-upload-pack', {
      method: 'POST',
      headers: { 'Content-Type': UPLOAD_REQUEST },
      body: '0000',
      signal: controller.signal,
    });
    const reader = res.body?.getReader();
    await reader?.read();
    // The client stops reading: the gateway must stop pulling well before the 125 MiB the source could give.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(produced).toBeLessThan(total / 5);
    controller.abort();
  });

  it('answers 403 when HTTP git is switched off', async () => {
    const off = await startTestGateway({ accounts: s.accounts, env: { CAIRN__repository__DISABLE_HTTP_GIT: 'true' } });
    try {
      const res = await off.fetch('/alice/pub.git/info/refs?service=git-upload-pack');
      expect(await answer(res)).toEqual({ status: 403, body: 'Interacting with repositories by HTTP protocol is not allowed', authenticate: null });
    } finally {
      await off.close();
    }
  });
});
