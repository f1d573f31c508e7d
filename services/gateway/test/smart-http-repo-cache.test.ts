/**
 * The smart HTTP repository cache (src/git/repo-cache.ts): a clone's requests ask repos once; entries are per
 * viewer, live for the TTL and go at once on any repository, collaborator, organization, team or user event;
 * pushes, unknown names and redirects always ask repos.
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { GitRepoCache } from '../src/git/repo-cache';
import { GIT_REPO_CACHE_SUBJECTS } from '../src/git/repo-cache-invalidation';
import { FakeAccounts } from './support/fake-accounts';
import { FakeBroadcastBus, subjectMatches } from './support/fake-bus';
import { FakeGitHosting, permission, repository } from './support/fake-git-hosting';
import { type TestGateway, basic, startTestGateway } from './support/harness';

const UPLOAD_REQUEST = 'application/x-git-upload-pack-request';

function seed() {
  const accounts = new FakeAccounts();
  const alice = accounts.addUser('alice', { password: 'alice-password' });
  const bob = accounts.addUser('bob', { password: 'bob-password' });
  const git = new FakeGitHosting();
  /** Who reads alice/priv besides alice: a test revokes bob behind the gateway's back. */
  const readers = new Set<number>([bob.id]);
  git.add('alice', 'pub', {
    repository: repository({ id: 1, ownerId: alice.id, ownerName: 'alice', name: 'pub' }),
    permissionFor: (viewer: Actor | undefined) => permission(viewer?.userId === alice.id ? 'owner' : 'read'),
    formerNames: ['alice/old-pub'],
  });
  git.add('alice', 'priv', {
    repository: repository({ id: 2, ownerId: alice.id, ownerName: 'alice', name: 'priv', private: true }),
    permissionFor: (viewer: Actor | undefined) =>
      viewer?.userId === alice.id ? permission('owner') : viewer !== undefined && readers.has(viewer.userId) ? permission('read') : undefined,
  });
  git.install(accounts.clients);
  return { accounts, git, alice, bob, readers };
}

const BOB = { Authorization: basic('bob', 'bob-password') };
const ALICE = { Authorization: basic('alice', 'alice-password') };

describe('git smart HTTP: the repository cache', () => {
  let s: ReturnType<typeof seed>;
  let bus: FakeBroadcastBus;
  let now: number;
  let gw: TestGateway;

  beforeEach(async () => {
    s = seed();
    bus = new FakeBroadcastBus();
    now = 1_000_000;
    gw = await startTestGateway({ accounts: s.accounts, bus, gitRepoCache: new GitRepoCache({ ttlMs: 2000, now: () => now }) });
  });
  afterEach(() => gw.close());

  const infoRefs = (repo: string, service = 'git-upload-pack', headers: Record<string, string> = {}) =>
    gw.fetch(`/alice/${repo}/info/refs?service=${service}`, { headers, redirect: 'manual' });
  const uploadPack = (repo: string, headers: Record<string, string> = {}) =>
    gw.fetch(`/alice/${repo}/git-upload-pack`, { method: 'POST', headers: { 'Content-Type': UPLOAD_REQUEST, 'Git-Protocol': 'version=2', ...headers }, body: '0000' });
  const lookups = () => s.git.getRepositoryCalls.length;

  it('asks repos once for the three requests of a clone', async () => {
    expect((await infoRefs('pub.git')).status).toBe(200);
    expect((await uploadPack('pub.git')).status).toBe(200); // ls-refs
    expect((await uploadPack('pub.git')).status).toBe(200); // fetch
    expect(lookups()).toBe(1);
    expect(s.git.infoRefsCalls).toHaveLength(1);
    expect(s.git.uploads).toHaveLength(2);
    expect(s.git.uploads.map((upload) => upload.requests[0].repository)).toEqual([
      { storage: 'default', repoId: 1 },
      { storage: 'default', repoId: 1 },
    ]);
  });

  it('keeps one entry per viewer: another caller asks repos for their own permission', async () => {
    await infoRefs('pub.git');
    await infoRefs('pub.git', 'git-upload-pack', BOB);
    await infoRefs('pub.git', 'git-upload-pack', ALICE);
    await infoRefs('pub.git', 'git-upload-pack', BOB);
    expect(s.git.getRepositoryCalls.map((call) => call.viewer?.userId)).toEqual([undefined, s.bob.id, s.alice.id]);
  });

  it('answers from memory for the TTL, then asks repos again', async () => {
    await infoRefs('pub.git');
    now += 1999;
    await uploadPack('pub.git');
    expect(lookups()).toBe(1);
    now += 1;
    await uploadPack('pub.git');
    expect(lookups()).toBe(2);
  });

  it('lets a revoked reader fetch only until the event arrives (or the TTL passes)', async () => {
    expect((await infoRefs('priv.git', 'git-upload-pack', BOB)).status).toBe(200);
    s.readers.delete(s.bob.id);
    // Behind the gateway's back: the entry still answers…
    expect((await uploadPack('priv.git', BOB)).status).toBe(200);
    // …until repos says a collaborator went.
    await bus.publishEvent('cairn.collaborator.removed', new Uint8Array());
    expect((await uploadPack('priv.git', BOB)).status).toBe(404);

    // Without an event, the TTL bounds it.
    s.readers.add(s.bob.id);
    now += 2000;
    expect((await uploadPack('priv.git', BOB)).status).toBe(200);
    s.readers.delete(s.bob.id);
    now += 2000;
    expect((await uploadPack('priv.git', BOB)).status).toBe(404);
  });

  it.each(['cairn.repo.updated', 'cairn.repo.renamed', 'cairn.repo.transferred', 'cairn.repo.deleted', 'cairn.repo.team_added', 'cairn.repo.team_removed', 'cairn.collaborator.added', 'cairn.org.updated', 'cairn.org_member.removed', 'cairn.team.updated', 'cairn.team_member.removed', 'cairn.user.updated', 'cairn.user.deleted'])(
    'forgets everything on %s',
    async (subject) => {
      await infoRefs('pub.git');
      await infoRefs('priv.git', 'git-upload-pack', BOB);
      expect(gw.gateway.gitRepoCache.size).toBe(2);
      await bus.publishEvent(subject, new Uint8Array([1, 2, 3]));
      expect(gw.gateway.gitRepoCache.size).toBe(0);
      await infoRefs('pub.git');
      expect(lookups()).toBe(3);
    },
  );

  it('keeps its entries on events that change no access (a push, an issue)', async () => {
    await infoRefs('pub.git');
    await bus.publishEvent('cairn.git.pushed', new Uint8Array());
    await bus.publishEvent('cairn.issue.created', new Uint8Array());
    await bus.publishEvent('cairn.access_token.deleted', new Uint8Array());
    expect(gw.gateway.gitRepoCache.size).toBe(1);
  });

  it('listens to every family of subjects that can change access', () => {
    for (const subject of ['cairn.repo.created', 'cairn.collaborator.removed', 'cairn.team.deleted', 'cairn.team_member.added', 'cairn.org.renamed', 'cairn.org_member.added', 'cairn.user.renamed']) {
      expect(GIT_REPO_CACHE_SUBJECTS.some((filter) => subjectMatches(filter, subject))).toBe(true);
    }
  });

  it('never answers a push from memory', async () => {
    await infoRefs('pub.git', 'git-upload-pack', ALICE);
    expect(lookups()).toBe(1);
    expect((await infoRefs('pub.git', 'git-receive-pack', ALICE)).status).toBe(200);
    expect((await infoRefs('pub.git', 'git-receive-pack', ALICE)).status).toBe(200);
    expect(lookups()).toBe(3);
    expect(gw.gateway.gitRepoCache.size).toBe(1);
  });

  it('keeps neither unknown names nor redirects', async () => {
    expect((await infoRefs('missing.git', 'git-upload-pack', BOB)).status).toBe(404);
    expect((await infoRefs('missing.git', 'git-upload-pack', BOB)).status).toBe(404);
    const moved = await infoRefs('old-pub.git');
    expect(moved.status).toBe(301);
    expect((await infoRefs('old-pub.git')).status).toBe(301);
    expect(lookups()).toBe(4);
    expect(gw.gateway.gitRepoCache.size).toBe(0);
  });
});

describe('GitRepoCache', () => {
  const found = (id: number) => ({ kind: 'found' as const, value: { repository: repository({ id }), permission: permission('read') } });

  it('does not keep what a lookup under way brings back after an event', async () => {
    const cache = new GitRepoCache();
    let finish: (value: ReturnType<typeof found>) => void = () => undefined;
    const pending = cache.lookUp('k', () => new Promise((resolve) => (finish = resolve)));
    cache.clear();
    finish(found(1));
    expect(await pending).toEqual(found(1));
    expect(cache.get('k')).toBeUndefined();
    // The next lookup is kept again.
    await cache.lookUp('k', async () => found(2));
    expect(cache.get('k')?.repository.id).toBe(2);
  });

  it('keeps at most maxEntries, dropping the oldest first, and drops expired entries as new ones come', async () => {
    let now = 0;
    const cache = new GitRepoCache({ maxEntries: 2, ttlMs: 100, now: () => now });
    cache.set('a', found(1).value);
    cache.set('b', found(2).value);
    cache.set('c', found(3).value);
    expect([cache.get('a'), cache.get('b')?.repository.id, cache.get('c')?.repository.id]).toEqual([undefined, 2, 3]);
    now = 100;
    cache.set('d', found(4).value);
    expect(cache.size).toBe(1);
    expect(cache.get('d')?.repository.id).toBe(4);
  });

  it('keys on every field of the viewer repos decides with, and on the name as asked', () => {
    const keys = new Set([
      GitRepoCache.key(undefined, 'alice', 'pub'),
      GitRepoCache.key({ userId: 7, isAdmin: false, isRestricted: false }, 'alice', 'pub'),
      GitRepoCache.key({ userId: 7, isAdmin: true, isRestricted: false }, 'alice', 'pub'),
      GitRepoCache.key({ userId: 7, isAdmin: false, isRestricted: true }, 'alice', 'pub'),
      GitRepoCache.key({ userId: 8, isAdmin: false, isRestricted: false }, 'alice', 'pub'),
      GitRepoCache.key(undefined, 'alice', 'Pub'),
      GitRepoCache.key(undefined, 'alice/pub', ''),
    ]);
    expect(keys.size).toBe(7);
  });
});
