/**
 * UpdateRepository over gRPC on a real database: renames and their redirects, the default branch rules, archiving,
 * units, pull-request and tracker settings, mirror intervals, privacy (with forks) and who may change what.
 */
import { decodeEvent } from '@cairn/bus';
import { sql } from '@cairn/db';
import { RepoRenamed, RepoUpdated } from '@cairn/proto/cairn/repos/v1/events';
import { UpdateRepositoryRequest, type RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code } from '@cairn/rpc';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('UpdateRepository', () => {
  let h: ReposHarness;
  let alice: number;
  let bob: number;
  let writer: number;
  let root: number;

  beforeAll(async () => {
    h = await startReposHarness();
    alice = h.accounts.addUser('alice');
    bob = h.accounts.addUser('bob');
    writer = h.accounts.addUser('writer');
    root = h.accounts.addUser('root', { isAdmin: true });
  });

  afterAll(async () => {
    await h?.stop();
  });

  const update = async (actorId: number, id: number, fields: Partial<UpdateRepositoryRequest>) => {
    const { repository } = await h.repos.updateRepository(UpdateRepositoryRequest.fromPartial({ actor: h.accounts.actor(actorId), id, ...fields }));
    return repository as Required<RepositoryWithPermission>;
  };
  const byName = (viewerId: number | undefined, owner: string, name: string) =>
    h.repos.getRepository({ viewer: viewerId === undefined ? undefined : h.accounts.actor(viewerId), id: 0, owner, name });

  describe('renames', () => {
    it('renames, keeps the old name as a redirect and publishes cairn.repo.renamed', async () => {
      const { repository } = await h.create(alice, { name: 'old-name' });
      const renamed = await update(alice, repository.id, { name: 'new-name' });
      expect(renamed.repository.name).toBe('new-name');
      expect(await byName(bob, 'alice', 'OLD-NAME')).toEqual({ redirect: { owner: 'alice', name: 'new-name' } });
      expect(await byName(bob, 'alice', 'new-name')).toMatchObject({ repository: { repository: { id: repository.id } } });
      const event = decodeEvent(RepoRenamed, await h.lastEvent('cairn.repo.renamed'));
      expect(event).toMatchObject({ oldName: 'old-name', repository: { name: 'new-name' } });
      expect(decodeEvent(RepoUpdated, await h.lastEvent('cairn.repo.updated')).changed).toEqual(['name']);
    });

    it('hides the redirect of a repository the viewer may not read', async () => {
      const { repository } = await h.create(alice, { name: 'quiet', private: true });
      await update(alice, repository.id, { name: 'quieter' });
      await expect(byName(bob, 'alice', 'quiet')).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(byName(alice, 'alice', 'quiet')).resolves.toEqual({ redirect: { owner: 'alice', name: 'quieter' } });
    });

    it('lets a new repository take a former name, which then stops redirecting', async () => {
      const { repository } = await h.create(alice, { name: 'first' });
      await update(alice, repository.id, { name: 'second' });
      const taker = await h.create(alice, { name: 'first' });
      expect(await byName(bob, 'alice', 'first')).toMatchObject({ repository: { repository: { id: taker.repository.id } } });
    });

    it("refuses a name the owner already has with Gitea's 422 message, and a bad name", async () => {
      const { repository } = await h.create(alice, { name: 'taken-a' });
      await h.create(alice, { name: 'taken-b' });
      await expect(update(alice, repository.id, { name: 'Taken-B' })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'repo_exists',
        message: 'repository already exists [uname: alice, name: Taken-B]',
      });
      await expect(update(alice, repository.id, { name: 'x.git' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'repo_name_invalid' });
      // A change of case needs no redirect.
      await expect(update(alice, repository.id, { name: 'TAKEN-A' })).resolves.toMatchObject({ repository: { name: 'TAKEN-A' } });
    });
  });

  describe('the default branch', () => {
    it('takes any name on an empty repository, and points HEAD at it', async () => {
      const { repository } = await h.create(alice, { name: 'empty-default' });
      const updated = await update(alice, repository.id, { defaultBranch: 'develop' });
      expect(updated.repository.defaultBranch).toBe('develop');
      expect(h.git.repo(repository.id)?.head).toBe('develop');
    });

    it('takes an existing branch, and silently ignores a missing one, on a repository with branches', async () => {
      const { repository } = await h.create(alice, { name: 'has-branches', autoInit: true });
      h.git.push(repository.id, 'release');
      expect((await update(alice, repository.id, { defaultBranch: 'release' })).repository.defaultBranch).toBe('release');
      expect(h.git.repo(repository.id)?.head).toBe('release');
      expect((await update(alice, repository.id, { defaultBranch: 'nope', description: 'still saved' })).repository).toMatchObject({
        defaultBranch: 'release',
        description: 'still saved',
      });
    });
  });

  describe('archiving', () => {
    it('archives, then refuses changes until un-archived, which may come with other changes', async () => {
      const { repository } = await h.create(alice, { name: 'museum' });
      const archived = await update(alice, repository.id, { archived: true });
      expect(archived.repository.archived).toBe(true);
      expect(archived.repository.archivedAt).toBeInstanceOf(Date);
      await expect(update(alice, repository.id, { description: 'nope' })).rejects.toMatchObject({
        code: Code.FAILED_PRECONDITION,
        reason: 'repo_archived',
        message: 'alice/museum is archived',
      });
      const reopened = await update(alice, repository.id, { archived: false, description: 'open again' });
      expect(reopened.repository).toMatchObject({ archived: false, description: 'open again' });
      expect(reopened.repository.archivedAt).toBeUndefined();
    });
  });

  describe('units and settings', () => {
    it('switches units off and on; settings of a unit that is off do not show', async () => {
      const { repository } = await h.create(alice, { name: 'units' });
      const off = await update(alice, repository.id, { units: { 'repo.issues': false, 'repo.pulls': false } });
      const keys = off.repository.units.map((unit) => unit.key);
      expect(keys).not.toContain('repo.issues');
      expect(keys).not.toContain('repo.pulls');
      expect(off.repository).toMatchObject({ allowMergeCommits: false, defaultMergeStyle: '', enableTimeTracker: false });
      expect(off.permission.units['repo.issues']).toBeUndefined();
      // Pull-request settings need the unit on.
      await update(alice, repository.id, { allowRebase: false });
      const on = await update(alice, repository.id, { units: { 'repo.pulls': true }, allowSquashMerge: false, defaultMergeStyle: 'squash' });
      expect(on.repository).toMatchObject({ allowMergeCommits: true, allowRebase: true, allowSquashMerge: false, defaultMergeStyle: 'squash' });
    });

    it('ignores globally disabled units and refuses unknown or external ones', async () => {
      const { repository } = await h.create(alice, { name: 'units-config' });
      const settings = h.context.config.repository;
      const saved = [...settings.disabledRepoUnits];
      settings.disabledRepoUnits = ['repo.wiki'];
      try {
        const same = await update(alice, repository.id, { units: { 'repo.wiki': false } });
        expect(same.repository.units.map((unit) => unit.key)).toContain('repo.wiki');
      } finally {
        settings.disabledRepoUnits = saved;
      }
      await expect(update(alice, repository.id, { units: { 'repo.nope': true } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'unit_invalid' });
      await expect(update(alice, repository.id, { units: { 'repo.ext_wiki': true } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    });

    it('refuses an unknown merge style or projects mode', async () => {
      const { repository } = await h.create(alice, { name: 'styles' });
      await expect(update(alice, repository.id, { defaultMergeStyle: 'octopus' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
      await expect(update(alice, repository.id, { projectsMode: 'some' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
      expect((await update(alice, repository.id, { projectsMode: 'repo', enableTimeTracker: false })).repository).toMatchObject({
        projectsMode: 'repo',
        enableTimeTracker: false,
      });
    });
  });

  describe('mirror interval', () => {
    it('applies only to mirrors and follows [mirror] MIN_INTERVAL', async () => {
      const { repository } = await h.create(alice, { name: 'mirrored' });
      await expect(update(alice, repository.id, { mirrorInterval: '1h' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'not_mirror' });
      await h.db.pool.query(sql.unsafe`UPDATE repositories SET is_mirror = true, mirror_interval = '8h0m0s' WHERE id = ${repository.id}`);
      await expect(update(alice, repository.id, { mirrorInterval: '5m' })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'mirror_interval_invalid',
        message: 'invalid mirror interval: 5m0s is below minimum interval: 10m0s',
      });
      await expect(update(alice, repository.id, { mirrorInterval: 'soon' })).rejects.toMatchObject({ reason: 'mirror_interval_invalid' });
      expect((await update(alice, repository.id, { mirrorInterval: '90m' })).repository.mirrorInterval).toBe('1h30m0s');
      expect((await update(alice, repository.id, { mirrorInterval: '0' })).repository.mirrorInterval).toBe('0s');
      await expect(update(alice, repository.id, { archived: true })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'repo_is_mirror' });
    });
  });

  describe('privacy', () => {
    it('makes forks follow their base, and refuses going public under FORCE_PRIVATE for non-admins', async () => {
      const base = await h.create(alice, { name: 'base' });
      const { repository: fork } = await h.repos.forkRepository({ actor: h.accounts.actor(bob), id: base.repository.id, organization: '', name: '' });
      await update(alice, base.repository.id, { private: true });
      const forkNow = await h.repos.getRepository({ viewer: h.accounts.actor(bob), id: fork!.repository!.id, owner: '', name: '' });
      expect(forkNow.repository?.repository?.private).toBe(true);
      // A fork's own setting follows the base whatever is asked.
      expect((await update(bob, fork!.repository!.id, { private: false })).repository.private).toBe(true);

      h.context.config.repository.forcePrivate = true;
      try {
        await expect(update(alice, base.repository.id, { private: false })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
        expect((await update(root, base.repository.id, { private: false })).repository.private).toBe(false);
      } finally {
        h.context.config.repository.forcePrivate = false;
      }
    });
  });

  describe('permissions', () => {
    it('needs repository admin; readers and writers are refused, strangers learn nothing', async () => {
      const { repository } = await h.create(alice, { name: 'guarded', private: true });
      await expect(update(bob, repository.id, { description: 'x' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await h.collaborators.addCollaborator({ actor: h.accounts.actor(alice), repoId: repository.id, username: 'writer', permission: 'write' });
      await expect(update(writer, repository.id, { description: 'x' })).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
        message: 'user should be an owner or a collaborator with admin write of a repository',
      });
      await expect(update(root, repository.id, { description: 'by admin' })).resolves.toMatchObject({ repository: { description: 'by admin' } });
    });
  });
});
