/**
 * Transfers (direct and pending, accepted and rejected), forks and deletion over gRPC on a real database, with the
 * redirects, collaborations, team links, counters, git data and events they leave.
 */
import { decodeEvent } from '@cairn/bus';
import { RepoDeleted, RepoForked, RepoTransferRequested, RepoTransferred } from '@cairn/proto/cairn/repos/v1/events';
import { Code } from '@cairn/rpc';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('transfers, forks and deletion', () => {
  let h: ReposHarness;
  let alice: number;
  let bob: number;
  let carol: number;
  let root: number;
  let acme: number;
  let acmeDevs: number;
  let other: number;
  let otherTeam: number;

  beforeAll(async () => {
    h = await startReposHarness();
    alice = h.accounts.addUser('alice');
    bob = h.accounts.addUser('bob');
    carol = h.accounts.addUser('carol');
    root = h.accounts.addUser('root', { isAdmin: true });
    acme = h.accounts.addOrg('acme', { owners: [alice] });
    acmeDevs = h.accounts.addTeam(acme, 'devs', { members: [carol] });
    other = h.accounts.addOrg('other', { owners: [bob] });
    otherTeam = h.accounts.addTeam(other, 'crew');
    h.accounts.addOrg('secretorg', { visibility: 'private', owners: [bob] });
  });

  afterAll(async () => {
    await h?.stop();
  });

  const actor = (id: number) => h.accounts.actor(id);
  const transfer = (actorId: number, id: number, newOwner: string, teamIds: number[] = []) =>
    h.repos.transferRepository({ actor: actor(actorId), id, newOwner, teamIds });
  const get = (viewerId: number, id: number) => h.repos.getRepository({ viewer: actor(viewerId), id, owner: '', name: '' });

  describe('TransferRepository', () => {
    it('moves at once into an organization the actor may create in, linking the given teams and redirecting', async () => {
      const { repository } = await h.create(alice, { name: 'to-acme', private: true });
      await h.collaborators.addCollaborator({ actor: actor(alice), repoId: repository.id, username: 'carol', permission: 'read' });
      const answer = await transfer(alice, repository.id, 'acme', [acmeDevs]);
      expect(answer.pending).toBe(false);
      expect(answer.repository?.repository).toMatchObject({ ownerId: acme, ownerName: 'acme', ownerType: 1 });
      expect(await h.repos.getRepository({ viewer: actor(alice), id: 0, owner: 'alice', name: 'to-acme' })).toEqual({
        redirect: { owner: 'acme', name: 'to-acme' },
      });
      // carol is now a member of the new owner: her collaboration goes, her team reaches the repository.
      const collaborators = await h.collaborators.listCollaborators({ viewer: actor(alice), repoId: repository.id });
      expect(collaborators.collaborators).toEqual([]);
      expect((await h.collaborators.listRepoTeams({ viewer: actor(alice), repoId: repository.id })).teamIds).toEqual([
        h.accounts.ownersTeam(acme),
        acmeDevs,
      ]);
      const event = decodeEvent(RepoTransferred, await h.lastEvent('cairn.repo.transferred'));
      expect(event).toMatchObject({ oldOwnerId: alice, oldOwnerName: 'alice', repository: { ownerName: 'acme' } });
    });

    it('records a pending transfer to another user, gives them read access, and lets them accept', async () => {
      const { repository } = await h.create(alice, { name: 'gift', private: true });
      const answer = await transfer(alice, repository.id, 'bob');
      expect(answer.pending).toBe(true);
      expect(answer.repository?.repository?.pendingTransfer).toMatchObject({ doerId: alice, recipientId: bob, teamIds: [] });
      expect(answer.repository!.repository!.pendingTransfer!.created!.getTime()).not.toBeNaN();
      expect(answer.repository?.repository?.ownerId).toBe(alice);
      const requested = decodeEvent(RepoTransferRequested, await h.lastEvent('cairn.repo.transfer_requested'));
      expect(requested).toMatchObject({ doerId: alice, recipientId: bob, repository: { id: repository.id } });
      expect((await get(bob, repository.id)).repository?.permission?.accessMode).toBe('read');
      await expect(transfer(alice, repository.id, 'carol')).rejects.toMatchObject({ code: Code.ALREADY_EXISTS, reason: 'transfer_in_progress' });
      await expect(h.repos.acceptTransfer({ actor: actor(carol), id: repository.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      const accepted = await h.repos.acceptTransfer({ actor: actor(bob), id: repository.id });
      expect(accepted.repository?.repository).toMatchObject({ ownerId: bob, ownerName: 'bob' });
      expect(accepted.repository?.repository?.pendingTransfer).toBeUndefined();
      expect(accepted.repository?.permission?.accessMode).toBe('owner');
      await expect(h.repos.acceptTransfer({ actor: actor(bob), id: repository.id })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
        reason: 'transfer_not_found',
      });
    });

    it('lets the recipient reject a pending transfer, keeping the owner', async () => {
      const { repository } = await h.create(alice, { name: 'unwanted' });
      await transfer(alice, repository.id, 'bob');
      await expect(h.repos.rejectTransfer({ actor: actor(carol), id: repository.id })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
      const rejected = await h.repos.rejectTransfer({ actor: actor(bob), id: repository.id });
      expect(rejected.repository?.repository).toMatchObject({ ownerId: alice });
      expect(rejected.repository?.repository?.pendingTransfer).toBeUndefined();
    });

    it('leaves a transfer to an organization pending when the actor may not create there; its owners accept', async () => {
      const { repository } = await h.create(alice, { name: 'to-other' });
      const answer = await transfer(alice, repository.id, 'other', [otherTeam]);
      expect(answer.pending).toBe(true);
      const accepted = await h.repos.acceptTransfer({ actor: actor(bob), id: repository.id });
      expect(accepted.repository?.repository).toMatchObject({ ownerId: other });
      expect((await h.collaborators.listRepoTeams({ viewer: actor(bob), repoId: repository.id })).teamIds).toContain(otherTeam);
    });

    it('lets site admins transfer at once', async () => {
      const { repository } = await h.create(alice, { name: 'admin-moves' });
      const answer = await transfer(root, repository.id, 'carol');
      expect(answer).toMatchObject({ pending: false, repository: { repository: { ownerId: carol } } });
    });

    it("refuses with Gitea's answers", async () => {
      const { repository } = await h.create(alice, { name: 'refusals' });
      await expect(transfer(alice, repository.id, 'nobody')).rejects.toMatchObject({
        code: Code.NOT_FOUND,
        message: 'The new owner does not exist or cannot be found',
      });
      await expect(transfer(alice, repository.id, 'secretorg')).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(transfer(alice, repository.id, 'bob', [acmeDevs])).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        message: 'Teams can only be added to organization-owned repositories',
      });
      await expect(transfer(alice, repository.id, 'acme', [999999])).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'team 999999 not found' });
      await expect(transfer(alice, repository.id, 'acme', [otherTeam])).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
      await h.create(bob, { name: 'refusals' });
      await expect(transfer(alice, repository.id, 'bob')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'repo_exists' });
      await expect(transfer(bob, repository.id, 'bob')).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    });
  });

  describe('ForkRepository', () => {
    it('forks with the fork units, the base privacy and a reference to the base, counting it', async () => {
      const base = await h.create(alice, { name: 'upstream', autoInit: true, description: 'the base' });
      const { repository } = await h.repos.forkRepository({ actor: actor(bob), id: base.repository.id, organization: '', name: '' });
      expect(repository?.repository).toMatchObject({
        ownerId: bob,
        name: 'upstream',
        fork: true,
        parentId: base.repository.id,
        description: 'the base',
        empty: false,
        defaultBranch: 'main',
        units: [{ key: 'repo.code' }, { key: 'repo.pulls' }],
      });
      expect(h.git.repo(repository!.repository!.id)?.branches).toEqual(new Set(['main']));
      expect((await get(alice, base.repository.id)).repository?.repository?.forksCount).toBe(1);
      expect(decodeEvent(RepoForked, await h.lastEvent('cairn.repo.forked'))).toMatchObject({ baseRepoId: base.repository.id });
      const forks = await h.repos.listForks({ viewer: undefined, id: base.repository.id, page: { page: 1, limit: 10 } });
      expect(forks.repositories.map((fork) => fork.repository?.id)).toEqual([repository!.repository!.id]);
      expect(forks.total).toBe(1);
    });

    it('refuses a second fork by the same owner, and a taken name', async () => {
      const base = await h.create(alice, { name: 'popular' });
      await h.repos.forkRepository({ actor: actor(bob), id: base.repository.id, organization: '', name: '' });
      await expect(h.repos.forkRepository({ actor: actor(bob), id: base.repository.id, organization: '', name: 'again' })).rejects.toMatchObject({
        code: Code.ALREADY_EXISTS,
        reason: 'fork_exists',
      });
      await h.create(carol, { name: 'popular' });
      await expect(h.repos.forkRepository({ actor: actor(carol), id: base.repository.id, organization: '', name: '' })).rejects.toMatchObject({
        code: Code.ALREADY_EXISTS,
        reason: 'repo_exists',
      });
      await expect(h.repos.forkRepository({ actor: actor(carol), id: base.repository.id, organization: '', name: 'popular-fork' })).resolves.toBeDefined();
    });

    it('forks into an organization only for members who may create there', async () => {
      const base = await h.create(alice, { name: 'for-orgs' });
      await expect(h.repos.forkRepository({ actor: actor(carol), id: base.repository.id, organization: 'other', name: '' })).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
        message: "User is no Member of Organisation 'other'",
      });
      await expect(h.repos.forkRepository({ actor: actor(carol), id: base.repository.id, organization: 'acme', name: '' })).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
      });
      await expect(h.repos.forkRepository({ actor: actor(carol), id: base.repository.id, organization: 'ghosts', name: '' })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'org_not_found',
      });
      const fork = await h.repos.forkRepository({ actor: actor(bob), id: base.repository.id, organization: 'other', name: '' });
      expect(fork.repository?.repository).toMatchObject({ ownerId: other, fork: true });
    });

    it('keeps a private base private in its forks and hides it from strangers', async () => {
      const base = await h.create(alice, { name: 'closed', private: true });
      await expect(h.repos.forkRepository({ actor: actor(bob), id: base.repository.id, organization: '', name: '' })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
      });
      await h.collaborators.addCollaborator({ actor: actor(alice), repoId: base.repository.id, username: 'bob', permission: 'read' });
      const fork = await h.repos.forkRepository({ actor: actor(bob), id: base.repository.id, organization: '', name: '' });
      expect(fork.repository?.repository?.private).toBe(true);
    });
  });

  describe('DeleteRepository', () => {
    it('deletes the repository with its git data; its forks stay, no longer forks', async () => {
      const base = await h.create(alice, { name: 'short-lived', autoInit: true });
      const { repository: fork } = await h.repos.forkRepository({ actor: actor(bob), id: base.repository.id, organization: '', name: '' });
      await h.repos.deleteRepository({ actor: actor(alice), id: base.repository.id });
      await expect(get(alice, base.repository.id)).rejects.toMatchObject({ code: Code.NOT_FOUND });
      expect(h.git.repo(base.repository.id)).toBeUndefined();
      expect((await get(bob, fork!.repository!.id)).repository?.repository).toMatchObject({ fork: false, parentId: 0 });
      expect(decodeEvent(RepoDeleted, await h.lastEvent('cairn.repo.deleted'))).toMatchObject({ repoId: base.repository.id, ownerName: 'alice' });
    });

    it('needs the owner (admins count), archived or not', async () => {
      const { repository } = await h.create(alice, { name: 'keep-me' });
      await h.collaborators.addCollaborator({ actor: actor(alice), repoId: repository.id, username: 'carol', permission: 'admin' });
      await expect(h.repos.deleteRepository({ actor: actor(carol), id: repository.id })).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
        message: 'user should be the owner of the repo',
      });
      await h.repos.updateRepository({ actor: actor(alice), id: repository.id, archived: true, units: {} });
      await h.repos.deleteRepository({ actor: actor(root), id: repository.id });
      await expect(get(root, repository.id)).rejects.toMatchObject({ code: Code.NOT_FOUND });
    });
  });
});
