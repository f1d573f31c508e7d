/**
 * CollaboratorService over gRPC on a real database: collaborators (Gitea's rules for who may be one and with which
 * permission), permission queries, repository teams, and GetPushPolicy's gate.
 */
import { decodeEvent } from '@cairn/bus';
import { CollaboratorAdded, RepoTeamAdded, RepoTeamRemoved } from '@cairn/proto/cairn/repos/v1/events';
import { Code } from '@cairn/rpc';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('CollaboratorService', () => {
  let h: ReposHarness;
  let alice: number;
  let bob: number;
  let carol: number;
  let root: number;
  let acme: number;
  let repoId: number;
  let orgRepoId: number;

  beforeAll(async () => {
    h = await startReposHarness();
    alice = h.accounts.addUser('alice');
    bob = h.accounts.addUser('Bob');
    carol = h.accounts.addUser('carol');
    h.accounts.addUser('dan', { active: false });
    root = h.accounts.addUser('root', { isAdmin: true });
    acme = h.accounts.addOrg('acme', { owners: [alice] });
    h.accounts.addTeam(acme, 'Devs', { members: [carol] });
    h.accounts.addTeam(acme, 'all-readers', { includesAllRepositories: true, units: { 'repo.code': 'read' } });
    repoId = (await h.create(alice, { name: 'app', private: true })).repository.id;
    orgRepoId = (await h.create(alice, { owner: 'acme', name: 'site', private: true })).repository.id;
  });

  afterAll(async () => {
    await h?.stop();
  });

  const actor = (id: number) => h.accounts.actor(id);
  const add = (actorId: number, username: string, permission = '', id = repoId) =>
    h.collaborators.addCollaborator({ actor: actor(actorId), repoId: id, username, permission });

  describe('collaborators', () => {
    it('adds with write by default, changes the permission, and lists by name', async () => {
      await add(alice, 'carol');
      await add(alice, 'bob', 'read');
      expect(decodeEvent(CollaboratorAdded, await h.lastEvent('cairn.collaborator.added'))).toMatchObject({ userId: bob, permission: 'read' });
      const list = await h.collaborators.listCollaborators({ viewer: actor(carol), repoId, page: { page: 1, limit: 10 } });
      expect(list).toEqual({ collaborators: [{ userId: bob, permission: 'read' }, { userId: carol, permission: 'write' }], total: 2 });
      await add(alice, 'bob', 'admin');
      const paged = await h.collaborators.listCollaborators({ viewer: actor(alice), repoId, page: { page: 1, limit: 1 } });
      expect(paged).toEqual({ collaborators: [{ userId: bob, permission: 'admin' }], total: 2 });
    });

    it('answers whether someone is a collaborator, and NOT_FOUND user_not_found for nobody', async () => {
      expect(await h.collaborators.isCollaborator({ viewer: actor(carol), repoId, username: 'BOB' })).toEqual({ collaborator: true });
      expect(await h.collaborators.isCollaborator({ viewer: actor(alice), repoId, username: 'root' })).toEqual({ collaborator: false });
      await expect(h.collaborators.isCollaborator({ viewer: actor(alice), repoId, username: 'ghost' })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
        reason: 'user_not_found',
      });
      await expect(h.collaborators.isCollaborator({ viewer: actor(root), repoId: orgRepoId + 1000, username: 'bob' })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
        reason: 'repo_not_found',
      });
    });

    it('refuses the owner, organizations, inactive users and unknown permissions', async () => {
      await expect(add(alice, 'alice')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'collaborator_is_owner' });
      await expect(add(alice, 'acme')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'collaborator_is_org' });
      await expect(add(alice, 'dan')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'user_inactive' });
      await expect(add(alice, 'root', 'owner')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'permission_invalid' });
      await expect(add(alice, 'nobody')).rejects.toMatchObject({ code: Code.NOT_FOUND, reason: 'user_not_found' });
    });

    it('lets only repository admins change collaborators', async () => {
      await expect(add(carol, 'root')).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
        message: 'user should be an owner or a collaborator with admin write of a repository',
      });
      // bob is an admin collaborator now.
      await add(bob, 'root', 'read');
      await h.collaborators.removeCollaborator({ actor: actor(bob), repoId, username: 'root' });
      await expect(h.collaborators.removeCollaborator({ actor: actor(bob), repoId, username: 'root' })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
        reason: 'collaborator_not_found',
      });
    });

    it("answers users' permissions to admins and to the users themselves", async () => {
      expect(await h.collaborators.getUserPermission({ viewer: actor(alice), repoId, username: 'carol' })).toEqual({
        userId: carol,
        permission: 'write',
        roleName: 'write',
      });
      expect(await h.collaborators.getUserPermission({ viewer: actor(carol), repoId, username: 'carol' })).toMatchObject({ permission: 'write' });
      expect(await h.collaborators.getUserPermission({ viewer: actor(root), repoId, username: 'alice' })).toMatchObject({ permission: 'owner' });
      expect(await h.collaborators.getUserPermission({ viewer: actor(root), repoId, username: 'root' })).toMatchObject({ permission: 'owner' });
      await expect(h.collaborators.getUserPermission({ viewer: actor(carol), repoId, username: 'bob' })).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
      });
      // A team member's access is the best of their units.
      expect(await h.collaborators.getUserPermission({ viewer: actor(alice), repoId: orgRepoId, username: 'carol' })).toMatchObject({ permission: 'none' });
    });
  });

  describe('repository teams', () => {
    it('lists the teams that reach the repository, the Owners team first', async () => {
      const { teamIds } = await h.collaborators.listRepoTeams({ viewer: actor(alice), repoId: orgRepoId });
      expect(teamIds).toHaveLength(2);
      expect(teamIds[0]).toBe(h.accounts.ownersTeam(acme));
      await expect(h.collaborators.listRepoTeams({ viewer: actor(alice), repoId })).rejects.toMatchObject({
        code: Code.FAILED_PRECONDITION,
        reason: 'not_org_repo',
        message: 'repo is not owned by an organization',
      });
    });

    it("adds and removes a team by name, with Gitea's 422s", async () => {
      await h.collaborators.addRepoTeam({ actor: actor(alice), repoId: orgRepoId, team: 'devs' });
      const { teamId } = await h.collaborators.getRepoTeam({ viewer: actor(carol), repoId: orgRepoId, team: 'DEVS' });
      expect(teamId).toBeGreaterThan(0);
      // Each change is an event, so the gateway's caches forget the access it gave or took.
      const link = { meta: { actorId: alice, repoId: orgRepoId }, repoId: orgRepoId, teamId, orgId: acme };
      expect(decodeEvent(RepoTeamAdded, await h.lastEvent('cairn.repo.team_added'))).toMatchObject(link);
      expect((await h.collaborators.getUserPermission({ viewer: actor(alice), repoId: orgRepoId, username: 'carol' })).permission).toBe('write');
      await expect(h.collaborators.addRepoTeam({ actor: actor(alice), repoId: orgRepoId, team: 'Devs' })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'team_already_added',
        message: "team 'Devs' is already added to repo",
      });
      await h.collaborators.removeRepoTeam({ actor: actor(alice), repoId: orgRepoId, team: 'devs' });
      expect(decodeEvent(RepoTeamRemoved, await h.lastEvent('cairn.repo.team_removed'))).toMatchObject(link);
      await expect(h.collaborators.removeRepoTeam({ actor: actor(alice), repoId: orgRepoId, team: 'devs' })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'team_not_added',
        message: "team 'Devs' was not added to repo",
      });
      await expect(h.collaborators.getRepoTeam({ viewer: actor(alice), repoId: orgRepoId, team: 'devs' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(h.collaborators.addRepoTeam({ actor: actor(alice), repoId: orgRepoId, team: 'nope' })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
        reason: 'team_not_found',
      });
    });

    it('lets repository admins change teams only where the organization allows it', async () => {
      await add(alice, 'bob', 'admin', orgRepoId);
      await expect(h.collaborators.addRepoTeam({ actor: actor(bob), repoId: orgRepoId, team: 'devs' })).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
        message: 'user is nor repo admin nor owner',
      });
      const open = h.accounts.addOrg('open', { owners: [alice], repoAdminChangeTeamAccess: true });
      h.accounts.addTeam(open, 'crew');
      const openRepo = (await h.create(alice, { owner: 'open', name: 'tools' })).repository.id;
      await add(alice, 'bob', 'admin', openRepo);
      await expect(h.collaborators.addRepoTeam({ actor: actor(bob), repoId: openRepo, team: 'crew' })).resolves.toEqual({});
    });
  });

  describe('GetPushPolicy', () => {
    it('answers writers with the repository, hides it from strangers and refuses readers and archives', async () => {
      const policy = await h.repos.getPushPolicy({ pusher: actor(bob), id: repoId });
      expect(policy).toMatchObject({ repository: { id: repoId }, rules: [] });
      await expect(h.repos.getPushPolicy({ pusher: actor(root), id: repoId })).resolves.toBeDefined();
      const stranger = h.accounts.addUser('stranger');
      await expect(h.repos.getPushPolicy({ pusher: actor(stranger), id: repoId })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await add(alice, 'stranger', 'read');
      await expect(h.repos.getPushPolicy({ pusher: actor(stranger), id: repoId })).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
        message: 'user should have a permission to write to a repo',
      });
      await h.repos.updateRepository({ actor: actor(alice), id: repoId, archived: true, units: {} });
      await expect(h.repos.getPushPolicy({ pusher: actor(bob), id: repoId })).rejects.toMatchObject({
        code: Code.FAILED_PRECONDITION,
        reason: 'repo_archived',
      });
    });
  });
});
