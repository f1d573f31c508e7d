/**
 * The access matrix over gRPC on a real database: every kind of viewer (anonymous, plain, restricted, owner,
 * collaborators, organization owner, team members with unit modes, site admin) against public and private
 * repositories of public, limited and private users and organizations. Single lookups (GetRepository), batch
 * lookups (FilterReadable, BatchGetRepositories) and the SQL-filtered lists (SearchRepositories) must agree.
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { Code } from '@cairn/rpc';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

type Visibility = 'public' | 'limited' | 'private';
const VISIBILITIES: Visibility[] = ['public', 'limited', 'private'];

interface Fixture {
  id: number;
  name: string;
  ownerName: string;
  ownerIsOrg: boolean;
  ownerVisibility: Visibility;
  isPrivate: boolean;
}

describe('repository access', () => {
  let h: ReposHarness;
  const ids: Record<string, number> = {};
  const repos: Fixture[] = [];

  beforeAll(async () => {
    h = await startReposHarness();
    const a = h.accounts;
    for (const name of ['plain', 'collabRead', 'collabWrite', 'collabAdmin', 'orgOwner', 'teamWriter', 'issuesReader', 'allReader']) {
      ids[name] = a.addUser(name);
    }
    ids.restricted = a.addUser('restricted', { restricted: true });
    ids.restrictedMember = a.addUser('restrictedMember', { restricted: true });
    ids.admin = a.addUser('admin', { isAdmin: true });

    for (const visibility of VISIBILITIES) {
      const userId = a.addUser(`u_${visibility}`, { visibility });
      ids[`u_${visibility}`] = userId;
      const orgId = a.addOrg(`o_${visibility}`, { visibility, owners: [ids.orgOwner] });
      ids[`o_${visibility}`] = orgId;
      const writers = a.addTeam(orgId, 'writers', { units: { 'repo.code': 'write' }, members: [ids.teamWriter, ids.restrictedMember] });
      const issues = a.addTeam(orgId, 'issues', { units: { 'repo.issues': 'read' }, members: [ids.issuesReader] });
      a.addTeam(orgId, 'everything', { includesAllRepositories: true, units: { 'repo.code': 'read' }, members: [ids.allReader] });
      for (const isPrivate of [false, true]) {
        const name = isPrivate ? 'secret' : 'open';
        const userRepo = await h.create(userId, { name, private: isPrivate });
        const orgRepo = await h.create(ids.orgOwner, { owner: `o_${visibility}`, name, private: isPrivate });
        repos.push(
          { id: userRepo.repository.id, name, ownerName: `u_${visibility}`, ownerIsOrg: false, ownerVisibility: visibility, isPrivate },
          { id: orgRepo.repository.id, name, ownerName: `o_${visibility}`, ownerIsOrg: true, ownerVisibility: visibility, isPrivate },
        );
        for (const [collaborator, permission] of [
          ['collabRead', 'read'],
          ['collabWrite', 'write'],
          ['collabAdmin', 'admin'],
        ] as const) {
          for (const [repoId, actorId] of [
            [userRepo.repository.id, userId],
            [orgRepo.repository.id, ids.orgOwner],
          ]) {
            await h.collaborators.addCollaborator({ actor: a.actor(actorId), repoId, username: collaborator, permission });
          }
        }
        for (const team of ['writers', 'issues']) {
          await h.collaborators.addRepoTeam({ actor: a.actor(ids.orgOwner), repoId: orgRepo.repository.id, team });
        }
        expect([writers, issues].length).toBe(2);
      }
    }
  });

  afterAll(async () => {
    await h?.stop();
  });

  const actorOf = (viewer: string): Actor | undefined => (viewer === 'anonymous' ? undefined : h.accounts.actor(ids[viewer]));

  /** What Gitea lets each viewer read, written out rule by rule. */
  function expectedReadable(viewer: string, repo: Fixture): boolean {
    const publicView = !repo.isPrivate && repo.ownerVisibility !== 'private';
    switch (viewer) {
      case 'admin':
      case 'collabRead':
      case 'collabWrite':
      case 'collabAdmin':
        return true;
      case 'anonymous':
        return !repo.isPrivate && repo.ownerVisibility === 'public';
      case 'plain':
        return publicView;
      case 'restricted':
        return false;
      case 'restrictedMember':
        return repo.ownerIsOrg;
      case 'orgOwner':
      case 'teamWriter':
      case 'issuesReader':
      case 'allReader':
        return repo.ownerIsOrg || publicView;
      default:
        return repo.ownerName === viewer || publicView;
    }
  }

  const VIEWERS = [
    'anonymous',
    'plain',
    'restricted',
    'restrictedMember',
    'admin',
    'collabRead',
    'collabWrite',
    'collabAdmin',
    'orgOwner',
    'teamWriter',
    'issuesReader',
    'allReader',
    'u_public',
    'u_private',
  ];

  it.each(VIEWERS)('%s reads exactly what Gitea lets them, by id and by name', async (viewer) => {
    for (const repo of repos) {
      const expected = expectedReadable(viewer, repo);
      const byId = () => h.repos.getRepository({ viewer: actorOf(viewer), id: repo.id, owner: '', name: '' });
      const byName = () => h.repos.getRepository({ viewer: actorOf(viewer), id: 0, owner: repo.ownerName.toUpperCase(), name: repo.name.toUpperCase() });
      const where = `${repo.ownerName}/${repo.name}`;
      if (expected) {
        expect([where, await byId()]).toMatchObject([where, { repository: { repository: { id: repo.id } } }]);
        expect([where, await byName()]).toMatchObject([where, { repository: { repository: { id: repo.id } } }]);
      } else {
        await expect(byId()).rejects.toMatchObject({ code: Code.NOT_FOUND });
        await expect(byName()).rejects.toMatchObject({ code: Code.NOT_FOUND });
      }
    }
  });

  it.each(VIEWERS)('%s: searches, batch lookups and FilterReadable agree with the single lookups', async (viewer) => {
    const expected = repos.filter((repo) => expectedReadable(viewer, repo)).map((repo) => repo.id).sort((x, y) => x - y);
    const all = repos.map((repo) => repo.id);
    const search = await h.repos.searchRepositories({
      viewer: actorOf(viewer),
      page: { page: 1, limit: 50 },
      keyword: '',
      includeDescription: false,
      ownerId: 0,
      exclusive: false,
      onlyIds: [],
      restrictToIds: false,
      mode: '',
      sort: 'id',
      order: 'asc',
      topic: false,
      teamId: 0,
    });
    expect(search.repositories.map((found) => found.repository!.id)).toEqual(expected);
    expect(search.total).toBe(expected.length);
    const filtered = await h.filterReadable({ viewer: actorOf(viewer), repoIds: [...all].reverse() });
    expect([...filtered.repoIds].sort((x, y) => x - y)).toEqual(expected);
    const batch = await h.repos.batchGetRepositories({ viewer: actorOf(viewer), ids: all });
    expect(batch.repositories.map((found) => found.repository!.id).sort((x, y) => x - y)).toEqual(expected);
    const listed = await h.repos.listReadableRepositoryIds({ viewer: actorOf(viewer), units: ['repo.issues'], ownerId: 0, teamId: 0 });
    expect(listed.repoIds).toEqual([...expected].reverse());
    const none = await h.repos.listReadableRepositoryIds({ viewer: actorOf(viewer), units: ['repo.no_such_unit'], ownerId: 0, teamId: 0 });
    expect(none.repoIds).toEqual([]);
  });

  const permissionOf = async (viewer: string, ownerName: string, name: string) => {
    const { repository } = await h.repos.getRepository({ viewer: actorOf(viewer), id: 0, owner: ownerName, name });
    return repository!.permission!;
  };

  it('answers each kind of viewer with Gitea modes', async () => {
    expect(await permissionOf('admin', 'u_private', 'secret')).toMatchObject({ accessMode: 'owner' });
    expect(await permissionOf('u_private', 'u_private', 'secret')).toMatchObject({ accessMode: 'owner' });
    expect(await permissionOf('orgOwner', 'o_private', 'secret')).toMatchObject({ accessMode: 'owner' });
    expect(await permissionOf('collabRead', 'u_public', 'secret')).toMatchObject({ accessMode: 'read' });
    expect(await permissionOf('collabWrite', 'o_private', 'secret')).toMatchObject({
      accessMode: 'write',
      units: expect.objectContaining({ 'repo.code': 'write', 'repo.issues': 'write' }),
    });
    expect(await permissionOf('collabAdmin', 'u_limited', 'secret')).toMatchObject({ accessMode: 'admin' });
    expect(await permissionOf('plain', 'u_limited', 'open')).toMatchObject({ accessMode: 'read', units: expect.objectContaining({ 'repo.code': 'read' }) });
    expect(await permissionOf('anonymous', 'o_public', 'open')).toMatchObject({ accessMode: 'read' });
  });

  it('gives team members the modes of their units, and nothing on other units of a private repository', async () => {
    const writer = await permissionOf('teamWriter', 'o_public', 'secret');
    expect(writer.accessMode).toBe('none');
    expect(writer.units).toMatchObject({ 'repo.code': 'write', 'repo.issues': 'none', 'repo.pulls': 'none' });
    const issues = await permissionOf('issuesReader', 'o_limited', 'secret');
    expect(issues.units).toMatchObject({ 'repo.code': 'none', 'repo.issues': 'read' });
    // On a public repository the other units stay readable.
    const open = await permissionOf('issuesReader', 'o_public', 'open');
    expect(open.units).toMatchObject({ 'repo.code': 'read', 'repo.issues': 'read' });
    const everything = await permissionOf('allReader', 'o_private', 'secret');
    expect(everything.units).toMatchObject({ 'repo.code': 'read', 'repo.issues': 'none' });
  });

  it('lets restricted team members work through their team only', async () => {
    const member = await permissionOf('restrictedMember', 'o_public', 'open');
    expect(member.units).toMatchObject({ 'repo.code': 'write', 'repo.issues': 'none' });
  });

  it('keeps a repository the viewer may not read indistinguishable from a missing one', async () => {
    const missing = h.repos.getRepository({ viewer: actorOf('plain'), id: 0, owner: 'u_private', name: 'nothing-here' });
    await expect(missing).rejects.toMatchObject({ code: Code.NOT_FOUND, message: 'not found' });
    const hidden = h.repos.getRepository({ viewer: actorOf('plain'), id: 0, owner: 'u_private', name: 'secret' });
    await expect(hidden).rejects.toMatchObject({ code: Code.NOT_FOUND, message: 'not found' });
  });
});
