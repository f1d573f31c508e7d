/**
 * The repository lists over gRPC on a real database: SearchRepositories' filters, orders, pages and totals, and the
 * owner, "mine" and team lists — all filtered by what the viewer may read.
 */
import { sql } from '@cairn/db';
import { SearchRepositoriesRequest } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code } from '@cairn/rpc';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('repository lists', () => {
  let h: ReposHarness;
  let alice: number;
  let bob: number;
  let carol: number;
  let acme: number;
  let devs: number;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    h = await startReposHarness();
    alice = h.accounts.addUser('alice');
    bob = h.accounts.addUser('bob');
    carol = h.accounts.addUser('carol');
    acme = h.accounts.addOrg('acme', { owners: [alice] });
    devs = h.accounts.addTeam(acme, 'devs', { members: [carol] });
    const make = async (actorId: number, name: string, fields: Record<string, unknown> = {}) => {
      ids[name] = (await h.create(actorId, { name, ...fields })).repository.id;
    };
    await make(alice, 'alpha', { description: 'The first one' });
    await make(alice, 'beta-tools');
    await make(alice, 'gamma', { private: true });
    await make(alice, 'delta', { template: true });
    await make(bob, 'bob-alpha');
    await make(bob, 'bob-secret', { private: true });
    await make(alice, 'acme-web', { owner: 'acme' });
    await make(alice, 'acme-internal', { owner: 'acme', private: true });
    await make(alice, 'acme-linked', { owner: 'acme', private: true });
    await h.collaborators.addRepoTeam({ actor: h.accounts.actor(alice), repoId: ids['acme-linked'], team: 'devs' });
    await h.collaborators.addCollaborator({ actor: h.accounts.actor(bob), repoId: ids['bob-secret'], username: 'carol', permission: 'write' });
    ids['alpha-fork'] = (await h.repos.forkRepository({ actor: h.accounts.actor(carol), id: ids.alpha, organization: '', name: 'alpha-fork' })).repository!.repository!.id;
    await h.repos.updateRepository({ actor: h.accounts.actor(alice), id: ids['beta-tools'], archived: true, units: {} });
    await h.db.pool.query(sql.unsafe`UPDATE repositories SET topics = '{web,tools}' WHERE id = ${ids['acme-web']}`);
    await h.db.pool.query(sql.unsafe`UPDATE repositories SET is_mirror = true WHERE id = ${ids.delta}`);
  });

  afterAll(async () => {
    await h?.stop();
  });

  const search = async (viewerId: number | undefined, fields: Partial<SearchRepositoriesRequest> = {}) => {
    const answer = await h.repos.searchRepositories(
      SearchRepositoriesRequest.fromPartial({
        viewer: viewerId === undefined ? undefined : h.accounts.actor(viewerId),
        page: { page: 1, limit: 50 },
        ...fields,
      }),
    );
    return { names: answer.repositories.map((found) => found.repository!.name), total: answer.total };
  };

  describe('SearchRepositories', () => {
    it('lists what the viewer may read, alphabetically by default', async () => {
      expect((await search(undefined)).names).toEqual(['acme-web', 'alpha', 'alpha-fork', 'beta-tools', 'bob-alpha', 'delta']);
      expect((await search(carol)).names).toEqual(['acme-linked', 'acme-web', 'alpha', 'alpha-fork', 'beta-tools', 'bob-alpha', 'bob-secret', 'delta']);
    });

    it('matches any comma-separated keyword in names, topics and (on request) descriptions', async () => {
      expect((await search(alice, { keyword: 'ALPHA' })).names).toEqual(['alpha', 'alpha-fork', 'bob-alpha']);
      expect((await search(alice, { keyword: 'gamma,delta' })).names).toEqual(['delta', 'gamma']);
      expect((await search(alice, { keyword: 'tools' })).names).toEqual(['acme-web', 'beta-tools']);
      expect((await search(alice, { keyword: 'tools', topic: true })).names).toEqual(['acme-web']);
      expect((await search(alice, { keyword: 'first' })).names).toEqual([]);
      // The fork took its base's description.
      expect((await search(alice, { keyword: 'first', includeDescription: true })).names).toEqual(['alpha', 'alpha-fork']);
      expect((await search(alice, { keyword: 'acme/web' })).names).toEqual(['acme-web']);
      expect((await search(alice, { keyword: '%' })).names).toEqual([]);
    });

    it('filters by owner, what the owner was given, privacy, templates, archives and mode', async () => {
      expect((await search(carol, { ownerId: carol })).names).toEqual(['acme-linked', 'alpha-fork', 'bob-secret']);
      expect((await search(carol, { ownerId: carol, exclusive: true })).names).toEqual(['alpha-fork']);
      expect((await search(carol, { ownerId: carol, mode: 'collaborative' })).names).toEqual(['acme-linked', 'bob-secret']);
      expect((await search(alice, { ownerId: alice, exclusive: true, isPrivate: true })).names).toEqual(['gamma']);
      expect((await search(alice, { template: true })).names).toEqual(['delta']);
      expect((await search(alice, { archived: true })).names).toEqual(['beta-tools']);
      expect((await search(alice, { mode: 'fork' })).names).toEqual(['alpha-fork']);
      expect((await search(alice, { mode: 'mirror' })).names).toEqual(['delta']);
      expect((await search(alice, { mode: 'source', ownerId: alice, exclusive: true })).names).toEqual(['alpha', 'beta-tools', 'gamma']);
      expect((await search(alice, { restrictToIds: true, onlyIds: [ids.gamma, ids['bob-secret']] })).names).toEqual(['gamma']);
      expect((await search(alice, { teamId: devs })).names).toEqual(['acme-linked']);
      expect((await search(alice, { teamId: h.accounts.ownersTeam(acme) })).names).toEqual(['acme-internal', 'acme-linked', 'acme-web']);
    });

    it("refuses unknown modes, sorts and orders with Gitea's messages", async () => {
      await expect(search(alice, { mode: 'weird' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'Invalid search mode: "weird"' });
      await expect(search(alice, { sort: 'weird' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'Invalid sort mode: "weird"' });
      await expect(search(alice, { sort: 'id', order: 'up' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'Invalid sort order: "up"' });
    });

    it('sorts and pages, with the total of every page', async () => {
      const byIdDesc = await search(undefined, { sort: 'id', order: 'desc' });
      expect(byIdDesc.names).toEqual(['alpha-fork', 'acme-web', 'bob-alpha', 'delta', 'beta-tools', 'alpha']);
      const page2 = await search(undefined, { sort: 'alpha', page: { page: 2, limit: 4 } });
      expect(page2).toEqual({ names: ['bob-alpha', 'delta'], total: 6 });
      const page3 = await search(undefined, { sort: 'alpha', page: { page: 3, limit: 4 } });
      expect(page3).toEqual({ names: [], total: 6 });
    });
  });

  describe('the other lists', () => {
    it("lists an owner's repositories the viewer may read, in creation order", async () => {
      const list = async (viewerId: number | undefined, ownerId: number, page = { page: 1, limit: 2 }) => {
        const answer = await h.repos.listOwnerRepositories({ viewer: viewerId === undefined ? undefined : h.accounts.actor(viewerId), ownerId, page });
        return { names: answer.repositories.map((found) => found.repository!.name), total: answer.total };
      };
      expect(await list(undefined, alice)).toEqual({ names: ['alpha', 'beta-tools'], total: 3 });
      expect(await list(alice, alice, { page: 2, limit: 2 })).toEqual({ names: ['gamma', 'delta'], total: 4 });
      expect(await list(carol, acme, { page: 1, limit: 10 })).toEqual({ names: ['acme-web', 'acme-linked'], total: 2 });
    });

    it("counts an owner's repositories whoever may read them (accounts' question before deleting an owner)", async () => {
      expect(await h.reposAs('accounts').countOwnerRepositories({ ownerId: alice })).toEqual({ total: 4 });
      expect(await h.reposAs('accounts').countOwnerRepositories({ ownerId: acme })).toEqual({ total: 3 });
      expect(await h.reposAs('accounts').countOwnerRepositories({ ownerId: 999_999 })).toEqual({ total: 0 });
    });

    it('lists what the viewer owns or was given, by name', async () => {
      const mine = await h.repos.listAccessibleRepositories({ viewer: h.accounts.actor(carol), page: { page: 1, limit: 10 } });
      expect(mine.repositories.map((found) => found.repository!.name)).toEqual(['acme-linked', 'alpha-fork', 'bob-secret']);
      expect(mine.total).toBe(3);
      const anonymous = await h.repos.listAccessibleRepositories({ viewer: undefined, page: { page: 1, limit: 10 } });
      expect(anonymous).toEqual({ repositories: [], total: 0 });
    });

    it('keeps a public-only token to public repositories of public owners, in pages and totals alike', async () => {
      const names = (answer: { repositories: Array<{ repository?: { name: string } }> }) => answer.repositories.map((found) => found.repository!.name);
      const own = await h.repos.listOwnerRepositories({ viewer: h.accounts.actor(alice), ownerId: alice, page: { page: 1, limit: 2 }, publicOnly: true });
      expect([names(own), own.total]).toEqual([['alpha', 'beta-tools'], 3]);
      const mine = await h.repos.listAccessibleRepositories({ viewer: h.accounts.actor(carol), page: { page: 1, limit: 10 }, publicOnly: true });
      expect([names(mine), mine.total]).toEqual([['alpha-fork'], 1]);
      expect(await search(alice, { publicOnly: true, sort: 'id' })).toEqual(await search(undefined, { sort: 'id' }));
      const everything = Object.values(ids);
      const filtered = await h.filterReadable({ viewer: h.accounts.actor(alice), repoIds: everything, publicOnly: true });
      const publicIds = ['alpha', 'beta-tools', 'delta', 'bob-alpha', 'acme-web', 'alpha-fork'].map((name) => ids[name]);
      expect([...filtered.repoIds].sort((x, y) => x - y)).toEqual(publicIds.sort((x, y) => x - y));
      const forks = await h.repos.listForks({ viewer: h.accounts.actor(alice), id: ids.alpha, page: { page: 1, limit: 10 }, publicOnly: true });
      expect([names(forks), forks.total]).toEqual([['alpha-fork'], 1]);
    });

    it("lists a team's repositories for those who may see the team", async () => {
      const list = await h.collaborators.listTeamRepositories({ viewer: h.accounts.actor(carol), teamId: devs, page: { page: 1, limit: 10 } });
      expect(list.repositories.map((found) => found.repository!.name)).toEqual(['acme-linked']);
      expect(list.repositories[0].permission?.units['repo.code']).toBe('write');
      const owners = await h.collaborators.listTeamRepositories({ viewer: h.accounts.actor(alice), teamId: h.accounts.ownersTeam(acme), page: { page: 1, limit: 10 } });
      expect(owners.total).toBe(3);
      await expect(h.collaborators.listTeamRepositories({ viewer: h.accounts.actor(bob), teamId: devs, page: { page: 1, limit: 10 } })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
      });
    });
  });
  describe('readable repository ids (cross-repository searches)', () => {
    const readableIds = async (viewerId: number | undefined, fields: { ownerId?: number; teamId?: number } = {}) => {
      const { repoIds } = await h.repos.listReadableRepositoryIds({
        viewer: viewerId === undefined ? undefined : h.accounts.actor(viewerId),
        units: ['repo.issues'],
        ownerId: fields.ownerId ?? 0,
        teamId: fields.teamId ?? 0,
      });
      return repoIds;
    };

    it('narrows to one owner or one team, and never past what the viewer may read', async () => {
      expect(await readableIds(carol, { ownerId: acme })).toEqual([ids['acme-linked'], ids['acme-web']]);
      expect(await readableIds(carol, { teamId: devs })).toEqual([ids['acme-linked']]);
      expect(await readableIds(undefined, { ownerId: acme })).toEqual([ids['acme-web']]);
      expect(await readableIds(bob, { ownerId: alice })).not.toContain(ids.gamma);
      expect(await readableIds(alice, { ownerId: alice })).toContain(ids.gamma);
    });
  });
});
