/**
 * CreateRepository over gRPC on a real database: where a user may create repositories, Gitea's name rules and
 * messages, instance settings (FORCE_PRIVATE, limits, units, default branch), the git repository and the event —
 * and that a failure leaves nothing behind.
 */
import { decodeEvent } from '@cairn/bus';
import { sql, z } from '@cairn/db';
import { RepoCreated } from '@cairn/proto/cairn/repos/v1/events';
import { CreateRepositoryRequest } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code } from '@cairn/rpc';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('CreateRepository', () => {
  let h: ReposHarness;
  let alice: number;
  let bob: number;
  let carol: number;
  let root: number;
  let org: number;

  beforeAll(async () => {
    h = await startReposHarness();
    alice = h.accounts.addUser('alice', { fullName: 'Alice A.' });
    bob = h.accounts.addUser('bob');
    carol = h.accounts.addUser('carol');
    root = h.accounts.addUser('root', { isAdmin: true });
    org = h.accounts.addOrg('acme', { owners: [alice] });
    h.accounts.addTeam(org, 'creators', { canCreateOrgRepo: true, units: { 'repo.code': 'read' }, members: [bob] });
    h.accounts.addTeam(org, 'readers', { units: { 'repo.code': 'read' }, members: [carol] });
  });

  afterAll(async () => {
    await h?.stop();
  });

  const rowCount = (name: string) =>
    h.db.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM repositories WHERE lower_name = ${name}`);

  it('creates a repository for the actor with the default units, branch and an empty git repository', async () => {
    const created = await h.create(alice, { name: 'Hello', description: 'first' });
    expect(created.repository).toMatchObject({
      ownerId: alice,
      ownerName: 'alice',
      ownerType: 0,
      ownerVisibility: 'public',
      name: 'Hello',
      description: 'first',
      private: false,
      empty: true,
      defaultBranch: 'main',
      fork: false,
      parentId: 0,
      objectFormatName: 'sha1',
      units: h.context.config.repository.defaultRepoUnits.map((key) => ({ key })),
      allowMergeCommits: true,
      defaultMergeStyle: 'merge',
      enableTimeTracker: true,
      projectsMode: 'all',
    });
    expect(created.permission.accessMode).toBe('owner');
    expect(h.git.repo(created.repository.id)).toEqual({ branches: new Set(), head: 'main', licenses: [], tags: new Map() });
    const event = decodeEvent(RepoCreated, await h.lastEvent('cairn.repo.created'));
    expect(event.repository).toMatchObject({ id: created.repository.id, name: 'Hello' });
    expect(event.meta).toMatchObject({ actorId: alice, repoId: created.repository.id });
  });

  it('auto-initialises on the requested branch and records that it is not empty', async () => {
    const created = await h.create(alice, { name: 'inited', autoInit: true, defaultBranch: 'trunk' });
    expect(created.repository).toMatchObject({ empty: false, defaultBranch: 'trunk', branchCount: 1 });
    expect(h.git.repo(created.repository.id)?.branches).toEqual(new Set(['trunk']));
  });

  it("refuses a name the owner already has, in any case, with Gitea's message", async () => {
    await expect(h.create(alice, { name: 'HELLO' })).rejects.toMatchObject({
      code: Code.ALREADY_EXISTS,
      message: 'The repository with the same name already exists.',
    });
    expect(await rowCount('hello')).toBe(1);
    // Another owner may have it.
    await expect(h.create(bob, { name: 'hello' })).resolves.toMatchObject({ repository: { ownerName: 'bob' } });
  });

  it.each([
    ['bad name', 'name is invalid [bad name]: must be valid alpha or numeric or dash(-_) or dot characters'],
    ['..', 'name is reserved [name: ..]'],
    ['-', 'name is reserved [name: -]'],
    ['x.git', 'name pattern is not allowed [pattern: *.git]'],
    ['notes.wiki', 'name pattern is not allowed [pattern: *.wiki]'],
    ['', 'name is empty'],
    ['a'.repeat(101), `name is too long [${'a'.repeat(101)}]: at most 100 characters`],
  ])('refuses the name %j', async (name, message) => {
    await expect(h.create(alice, { name })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message, reason: 'repo_name_invalid' });
  });

  it('lets organization owners and can_create_org_repo teams create, and refuses other members', async () => {
    const byOwner = await h.create(alice, { owner: 'acme', name: 'by-owner' });
    expect(byOwner.repository).toMatchObject({ ownerId: org, ownerName: 'acme', ownerType: 1 });
    expect(byOwner.permission.accessMode).toBe('owner');
    // The organization, not the creator, is the licence's copyright holder.
    expect(h.git.createRequests.at(-1)).toMatchObject({ repository: { repoId: byOwner.repository.id }, ownerName: 'acme' });
    await expect(h.create(carol, { owner: 'acme', name: 'by-reader' })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: 'User is not allowed to create repositories in this organization.',
    });
    expect(await rowCount('by-reader')).toBe(0);
  });

  it('makes a creator allowed through can_create_org_repo an admin collaborator', async () => {
    const created = await h.create(bob, { owner: 'acme', name: 'by-creator', private: true });
    expect(created.permission.accessMode).toBe('admin');
    const collaborators = await h.collaborators.listCollaborators({ viewer: h.accounts.actor(alice), repoId: created.repository.id });
    expect(collaborators.collaborators).toEqual([{ userId: bob, permission: 'admin' }]);
    // The Owners team needs no collaboration.
    const byOwner = await h.repos.getRepository({ viewer: h.accounts.actor(alice), id: 0, owner: 'acme', name: 'by-owner' });
    const owned = await h.collaborators.listCollaborators({ viewer: h.accounts.actor(alice), repoId: byOwner.repository!.repository!.id });
    expect(owned.collaborators).toEqual([]);
  });

  it('lets only site admins create in another user’s account', async () => {
    await expect(h.create(bob, { owner: 'alice', name: 'sneaky' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    const created = await h.create(root, { owner: 'alice', name: 'gift' });
    expect(created.repository).toMatchObject({ ownerId: alice });
  });

  it('answers NOT_FOUND for an owner the actor may not see', async () => {
    h.accounts.addOrg('hidden', { visibility: 'private' });
    await expect(h.create(bob, { owner: 'hidden', name: 'x' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(h.create(bob, { owner: 'nobody', name: 'x' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('makes every repository private under FORCE_PRIVATE', async () => {
    h.context.config.repository.forcePrivate = true;
    try {
      await expect(h.create(alice, { name: 'forced' })).resolves.toMatchObject({ repository: { private: true } });
    } finally {
      h.context.config.repository.forcePrivate = false;
    }
  });

  it("honours MAX_CREATION_LIMIT and a user's own limit, except for site admins", async () => {
    const dave = h.accounts.addUser('dave', { maxRepoCreation: 1 });
    await h.create(dave, { name: 'one' });
    await expect(h.create(dave, { name: 'two' })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: 'user has reached maximum limit of repositories [limit: 1]',
    });
    h.context.config.repository.maxCreationLimit = 0;
    try {
      const erin = h.accounts.addUser('erin');
      await expect(h.create(erin, { name: 'one' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
      await expect(h.create(root, { owner: 'erin', name: 'one' })).resolves.toBeDefined();
    } finally {
      h.context.config.repository.maxCreationLimit = -1;
    }
  });

  it('leaves out units disabled by DISABLED_REPO_UNITS', async () => {
    const { repository } = h.context.config;
    const saved = [...repository.disabledRepoUnits];
    repository.disabledRepoUnits = ['repo.wiki', 'repo.issues'];
    try {
      const created = await h.create(alice, { name: 'fewer-units' });
      const keys = created.repository.units.map((unit) => unit.key);
      expect(keys).toContain('repo.code');
      expect(keys).not.toContain('repo.wiki');
      expect(keys).not.toContain('repo.issues');
    } finally {
      repository.disabledRepoUnits = saved;
    }
  });

  it('leaves nothing behind when git-storage fails', async () => {
    h.git.failNext('createRepository');
    await expect(h.create(alice, { name: 'doomed' })).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    expect(await rowCount('doomed')).toBe(0);
    await expect(h.create(alice, { name: 'doomed' })).resolves.toBeDefined();
  });

  it('refuses an invalid default branch without keeping a row', async () => {
    await expect(h.create(alice, { name: 'bad-branch', defaultBranch: 'a..b' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    expect(await rowCount('bad-branch')).toBe(0);
  });

  it('refuses an object format git-storage cannot make', async () => {
    await expect(h.create(alice, { name: 'sha256', objectFormatName: 'sha256' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });

  it('refuses anonymous callers', async () => {
    const anonymous = CreateRepositoryRequest.fromPartial({ name: 'anon' });
    await expect(h.repos.createRepository(anonymous)).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    expect(await rowCount('anon')).toBe(0);
  });
});
