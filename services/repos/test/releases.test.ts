/**
 * ReleaseService over gRPC on a real database, with git-storage in memory: tags made or attached to, who sees
 * drafts, edits and deletions, the release counter, the cairn.release.* events written in the change's transaction
 * (drafts write none), a retry after a crash between the tag and the row, and a push deleting a release's tag.
 */
import { decodeEvent, encodeEvent, uuidv7 } from '@cairn/bus';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { ReleaseDeleted, ReleasePublished, ReleaseUpdated } from '@cairn/proto/cairn/repos/v1/events';
import type { CreateReleaseRequest, Release, UpdateReleaseRequest } from '@cairn/proto/cairn/repos/v1/releases_service';
import { Code } from '@cairn/rpc';
import { sql, z } from '@cairn/db';
import { gitPushedHandler } from '../src/events/git-consumer';
import { branchSha } from './support/git-memory';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('releases', () => {
  let h: ReposHarness;
  let alice: number;
  let reader: number;
  let writer: number;
  let stranger: number;

  beforeAll(async () => {
    h = await startReposHarness();
    alice = h.accounts.addUser('alice');
    reader = h.accounts.addUser('reader');
    writer = h.accounts.addUser('writer');
    stranger = h.accounts.addUser('stranger');
  });

  afterAll(async () => {
    await h?.stop();
  });

  const actor = (id: number) => h.accounts.actor(id);
  /** A repository of alice's with one commit on main, a `reader` and a `writer` collaborator. */
  async function repoWithCommits(name: string, isPrivate = false): Promise<number> {
    const { repository } = await h.create(alice, { name, autoInit: true, private: isPrivate });
    await h.addCollaborator(repository.id, reader, 'read');
    await h.addCollaborator(repository.id, writer, 'write');
    return repository.id;
  }
  const create = (repoId: number, fields: Partial<CreateReleaseRequest> & { tagName: string }, by = alice) =>
    h.releases.createRelease({
      actor: actor(by),
      repoId,
      targetCommitish: '',
      name: '',
      body: '',
      draft: false,
      prerelease: false,
      tagMessage: '',
      tagger: { name: 'Alice', email: 'alice@example.com' },
      ...fields,
    });
  const releaseOf = async (reply: Promise<{ release?: Release }>): Promise<Release> => {
    const { release } = await reply;
    if (release === undefined) throw new Error('answered without the release');
    return release;
  };
  const count = async (repoId: number) =>
    h.db.pool.oneFirst(sql.type(z.object({ num_releases: z.number() }))`SELECT num_releases FROM repositories WHERE id = ${repoId}`);

  it('creates the tag on the default branch, annotated with the tagger when a message is given, and publishes the release', async () => {
    const repoId = await repoWithCommits('made');
    const before = (await h.subjects()).length;
    const release = await releaseOf(create(repoId, { tagName: 'v1', name: 'One', body: 'notes', tagMessage: 'tagged' }));
    expect(release).toMatchObject({ repoId, tagName: 'v1', targetCommitish: 'main', name: 'One', body: 'notes', draft: false, publisherId: alice, sha: branchSha('main'), assets: [] });
    expect(h.git.tagRequests.at(-1)).toMatchObject({ name: 'v1', target: 'main', message: 'tagged', tagger: { name: 'Alice', email: 'alice@example.com' }, push: { pusherId: alice, pusherName: 'alice' } });
    expect((await h.subjects()).slice(before)).toEqual(['cairn.release.published']);
    expect(decodeEvent(ReleasePublished, await h.lastEvent('cairn.release.published'))).toMatchObject({ meta: { actorId: alice, repoId }, release: { id: release.id, tagName: 'v1' } });
    expect(await count(repoId)).toBe(1);
  });

  it('attaches to an existing tag, refuses a second release of a tag (any case), an unknown target and an empty repository', async () => {
    const repoId = await repoWithCommits('attach');
    h.git.pushTag(repoId, 'plain', 'c'.repeat(40));
    const asked = h.git.tagRequests.length;
    expect(await releaseOf(create(repoId, { tagName: 'plain' }))).toMatchObject({ tagName: 'plain', sha: 'c'.repeat(40) });
    expect(h.git.tagRequests).toHaveLength(asked);
    await expect(create(repoId, { tagName: 'PLAIN' })).rejects.toMatchObject({ code: Code.ALREADY_EXISTS, message: 'Release is has no Tag' });
    await expect(create(repoId, { tagName: 'v2', targetCommitish: 'nowhere' })).rejects.toMatchObject({ code: Code.NOT_FOUND, reason: 'target_not_found' });
    // Nothing was recorded for the refused ones.
    expect((await h.releases.listReleases({ viewer: actor(alice), repoId })).total).toBe(1);

    const { repository: empty } = await h.create(alice, { name: 'nothing-yet' });
    await expect(create(empty.id, { tagName: 'v1' })).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, message: 'repo is empty' });
  });

  it('after a crash between the tag and the row, a retry attaches to the tag it made', async () => {
    const repoId = await repoWithCommits('retry');
    // What the first attempt left: the tag, but no release.
    h.git.pushTag(repoId, 'v1', branchSha('main'));
    expect(await releaseOf(create(repoId, { tagName: 'v1' }))).toMatchObject({ tagName: 'v1', sha: branchSha('main') });
  });

  it('shows drafts to writers only, and filters and pages lists newest first', async () => {
    const repoId = await repoWithCommits('lists');
    const before = (await h.subjects()).length;
    const draft = await releaseOf(create(repoId, { tagName: 'v0-draft', draft: true }));
    // A draft has no tag and publishes nothing.
    expect(draft).toMatchObject({ draft: true, sha: '' });
    expect(h.git.repo(repoId)?.tags.has('v0-draft')).toBe(false);
    expect((await h.subjects()).slice(before)).toEqual([]);
    const pre = await releaseOf(create(repoId, { tagName: 'v1-rc', prerelease: true }));
    const stable = await releaseOf(create(repoId, { tagName: 'v1' }));

    const ids = async (viewerId: number | undefined, filter: { draft?: boolean; prerelease?: boolean } = {}, page?: { page: number; limit: number }) => {
      const reply = await h.releases.listReleases({ viewer: viewerId === undefined ? undefined : actor(viewerId), repoId, ...filter, page });
      return { ids: reply.releases.map((release) => release.id), total: reply.total };
    };
    expect(await ids(writer)).toEqual({ ids: [stable.id, pre.id, draft.id], total: 3 });
    expect(await ids(reader)).toEqual({ ids: [stable.id, pre.id], total: 2 });
    expect(await ids(undefined)).toEqual({ ids: [stable.id, pre.id], total: 2 });
    expect(await ids(reader, { draft: true })).toEqual({ ids: [], total: 0 });
    expect(await ids(writer, { draft: true })).toEqual({ ids: [draft.id], total: 1 });
    expect(await ids(writer, { prerelease: false })).toEqual({ ids: [stable.id, draft.id], total: 2 });
    expect(await ids(writer, {}, { page: 2, limit: 2 })).toEqual({ ids: [draft.id], total: 3 });

    await expect(h.releases.getRelease({ viewer: actor(reader), repoId, id: draft.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(h.releases.getReleaseByTag({ viewer: undefined, repoId, tagName: 'v0-draft' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect(await releaseOf(h.releases.getReleaseByTag({ viewer: actor(writer), repoId, tagName: 'V0-DRAFT' }))).toMatchObject({ id: draft.id });
    expect(await releaseOf(h.releases.getLatestRelease({ viewer: undefined, repoId }))).toMatchObject({ id: stable.id });
    expect(await count(repoId)).toBe(2);
  });

  it('lets only writers change releases, and nobody without access see them', async () => {
    const repoId = await repoWithCommits('guarded', true);
    const release = await releaseOf(create(repoId, { tagName: 'v1' }));
    await expect(create(repoId, { tagName: 'v2' }, reader)).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(h.releases.deleteRelease({ actor: actor(reader), repoId, id: release.id, tagName: '' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(h.releases.getRelease({ viewer: actor(stranger), repoId, id: release.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(h.releases.listReleases({ viewer: undefined, repoId })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect(await releaseOf(create(repoId, { tagName: 'v2' }, writer))).toMatchObject({ publisherId: writer });
  });

  it('publishing a draft creates its tag, sets `created` again and publishes; other edits publish an update', async () => {
    const repoId = await repoWithCommits('edits');
    const draft = await releaseOf(create(repoId, { tagName: 'v3', draft: true, name: 'Three' }));
    /** An edit of the named fields (UpdateReleaseRequest.fields) to the values given. */
    const update = (id: number, fields: string[], values: Partial<UpdateReleaseRequest>) =>
      releaseOf(
        h.releases.updateRelease({
          actor: actor(alice),
          repoId,
          id,
          tagName: '',
          targetCommitish: '',
          name: '',
          body: '',
          draft: false,
          prerelease: false,
          ...values,
          fields,
        }),
      );

    const before = (await h.subjects()).length;
    const renamed = await update(draft.id, ['body'], { body: 'still a draft' });
    expect(renamed).toMatchObject({ draft: true, body: 'still a draft', name: 'Three' });
    expect((await h.subjects()).slice(before)).toEqual([]);

    const published = await update(draft.id, ['draft'], { draft: false });
    expect(published).toMatchObject({ draft: false, sha: branchSha('main'), body: 'still a draft' });
    expect(h.git.repo(repoId)?.tags.get('v3')).toBe(branchSha('main'));
    expect(published.created?.getTime()).toBeGreaterThanOrEqual(renamed.created?.getTime() ?? Infinity);
    expect((await h.subjects()).slice(before)).toEqual(['cairn.release.published']);

    const edited = await update(draft.id, ['name', 'prerelease'], { name: 'Three, final', prerelease: true });
    expect(edited).toMatchObject({ name: 'Three, final', prerelease: true, created: published.created });
    expect((await h.subjects()).slice(before)).toEqual(['cairn.release.published', 'cairn.release.updated']);
    expect(decodeEvent(ReleaseUpdated, await h.lastEvent('cairn.release.updated')).release).toMatchObject({ name: 'Three, final', prerelease: true });

    // Another release's tag is taken.
    await releaseOf(create(repoId, { tagName: 'v4' }));
    await expect(update(draft.id, ['tag_name'], { tagName: 'v4' })).rejects.toMatchObject({ code: Code.ALREADY_EXISTS, message: 'release tag already exist [tag_name: v4]' });
  });

  it('deletes by id or tag, keeping the tag, and publishes the deletion of published releases only', async () => {
    const repoId = await repoWithCommits('deletes');
    const first = await releaseOf(create(repoId, { tagName: 'v1' }));
    await releaseOf(create(repoId, { tagName: 'v2', draft: true }));
    expect(await count(repoId)).toBe(1);
    const before = (await h.subjects()).length;

    await h.releases.deleteRelease({ actor: actor(alice), repoId, id: first.id, tagName: '' });
    expect(h.git.repo(repoId)?.tags.has('v1')).toBe(true);
    expect(decodeEvent(ReleaseDeleted, await h.lastEvent('cairn.release.deleted')).release).toMatchObject({ id: first.id, tagName: 'v1' });
    await expect(h.releases.deleteRelease({ actor: actor(alice), repoId, id: first.id, tagName: '' })).rejects.toMatchObject({ code: Code.NOT_FOUND });

    await h.releases.deleteRelease({ actor: actor(alice), repoId, id: 0, tagName: 'v2' });
    await expect(h.releases.deleteRelease({ actor: actor(alice), repoId, id: 0, tagName: 'v2' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect((await h.subjects()).slice(before)).toEqual(['cairn.release.deleted']);
    expect(await count(repoId)).toBe(0);
  });

  it('makes a release a draft when a push deletes its tag (and the tag is still gone)', async () => {
    const repoId = await repoWithCommits('pushed');
    const gone = await releaseOf(create(repoId, { tagName: 'v1' }));
    const back = await releaseOf(create(repoId, { tagName: 'v2' }));
    h.git.pushTag(repoId, 'v1', undefined);
    // v2 was deleted and pushed again before the event was handled.
    const refUpdates = ['v1', 'v2'].map((tag) => ({ ref: `refs/tags/${tag}`, oldSha: branchSha('main'), newSha: '0'.repeat(40) }));
    const event = GitPushed.fromPartial({ meta: { eventId: uuidv7(), occurredAt: new Date(), actorId: alice, repoId }, pusherId: alice, repoId, refUpdates });
    await gitPushedHandler(h.context)({ id: uuidv7(), subject: 'cairn.git.pushed', data: encodeEvent(GitPushed, event), deliveryCount: 1 });

    expect(await releaseOf(h.releases.getRelease({ viewer: actor(alice), repoId, id: gone.id }))).toMatchObject({ draft: true, sha: '' });
    expect(await releaseOf(h.releases.getRelease({ viewer: actor(alice), repoId, id: back.id }))).toMatchObject({ draft: false, sha: branchSha('main') });
    await expect(h.releases.getRelease({ viewer: undefined, repoId, id: gone.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect(await count(repoId)).toBe(1);
  });
});
