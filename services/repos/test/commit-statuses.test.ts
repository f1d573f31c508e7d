/**
 * CommitStatusService over gRPC on a real database: who may create and read statuses, per-commit indexes,
 * list orders and filters, the combined state of the latest status of every context, and the event each status
 * publishes.
 */
import { decodeEvent } from '@cairn/bus';
import { CommitStatusCreated } from '@cairn/proto/cairn/repos/v1/events';
import { Code } from '@cairn/rpc';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

const SHA = 'a'.repeat(40);
const OTHER_SHA = 'b'.repeat(40);

describe('CommitStatusService', () => {
  let h: ReposHarness;
  let owner: number;
  let writer: number;
  let reader: number;
  let stranger: number;
  let repoId: number;
  let privateRepoId: number;
  let archivedRepoId: number;

  beforeAll(async () => {
    h = await startReposHarness();
    owner = h.accounts.addUser('owner');
    writer = h.accounts.addUser('writer');
    reader = h.accounts.addUser('reader');
    stranger = h.accounts.addUser('stranger');
    repoId = await h.insertRepo({ ownerId: owner, ownerName: 'owner', name: 'app' });
    privateRepoId = await h.insertRepo({ ownerId: owner, ownerName: 'owner', name: 'secret', isPrivate: true });
    archivedRepoId = await h.insertRepo({ ownerId: owner, ownerName: 'owner', name: 'old', isArchived: true });
    await h.addCollaborator(repoId, writer, 'write');
    await h.addCollaborator(repoId, reader, 'read');
  });

  afterAll(async () => {
    await h?.stop();
  });

  const create = (actorId: number, fields: { state: string; context?: string; description?: string; targetUrl?: string }, sha = SHA, repo = repoId) =>
    h.statuses.createCommitStatus({
      actor: h.accounts.actor(actorId),
      repoId: repo,
      sha,
      state: fields.state,
      context: fields.context ?? '',
      description: fields.description ?? '',
      targetUrl: fields.targetUrl ?? '',
    });

  it('creates statuses numbered per commit, trimmed, by writers', async () => {
    const first = await create(writer, { state: 'pending', context: ' ci/build ', description: ' building ', targetUrl: ' https://ci/1 ' });
    expect(first.status).toMatchObject({
      id: 1,
      sha: SHA,
      state: 'pending',
      context: 'ci/build',
      description: 'building',
      targetUrl: 'https://ci/1',
      creatorId: writer,
    });
    expect(first.status?.created).toBeInstanceOf(Date);
    // Published in the status's transaction, for issues' scheduled merges.
    const event = decodeEvent(CommitStatusCreated, await h.lastEvent('cairn.commit_status.created'));
    expect(event).toMatchObject({ meta: { actorId: writer, repoId }, repoId, sha: SHA, context: 'ci/build', state: 'pending', index: 1, targetUrl: 'https://ci/1' });
    const second = await create(owner, { state: 'success', context: 'ci/build' });
    expect(second.status?.id).toBe(2);
    // Another commit counts from 1 again.
    expect((await create(owner, { state: 'failure' }, OTHER_SHA)).status).toMatchObject({ id: 1, context: '' });
  });

  it('refuses readers, and hides private repositories from strangers', async () => {
    await expect(create(reader, { state: 'success' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'user should have a permission to write to a repo' });
    await expect(create(stranger, { state: 'success' }, SHA, privateRepoId)).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(h.statuses.listCommitStatuses({ viewer: h.accounts.actor(stranger), repoId: privateRepoId, sha: SHA, sort: '', state: '' })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
    });
  });

  it('refuses an unknown state and a sha that is not a full commit id, recording nothing', async () => {
    await expect(create(owner, { state: 'running' }, SHA)).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'status_state_invalid' });
    await expect(create(owner, { state: 'success' }, 'main')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'sha_invalid' });
    const { total } = await h.statuses.listCommitStatuses({ viewer: h.accounts.actor(owner), repoId, sha: SHA, sort: '', state: '' });
    expect(total).toBe(2);
  });

  it('takes statuses on archived repositories, as Gitea does', async () => {
    await expect(create(owner, { state: 'success' }, SHA, archivedRepoId)).resolves.toMatchObject({ status: { id: 1 } });
  });

  describe('with several contexts', () => {
    const sha = 'c'.repeat(40);
    beforeAll(async () => {
      await create(owner, { state: 'pending', context: 'build' }, sha); // 1
      await create(owner, { state: 'pending', context: 'test' }, sha); // 2
      await create(owner, { state: 'success', context: 'build' }, sha); // 3
      await create(owner, { state: 'warning', context: 'lint' }, sha); // 4
      await create(owner, { state: 'success', context: 'test' }, sha); // 5
    });

    const list = (fields: { sort?: string; state?: string; page?: number; limit?: number }) =>
      h.statuses.listCommitStatuses({
        viewer: h.accounts.actor(reader),
        repoId,
        sha,
        sort: fields.sort ?? '',
        state: fields.state ?? '',
        page: fields.limit === undefined ? undefined : { page: fields.page ?? 1, limit: fields.limit },
      });
    const ids = async (fields: Parameters<typeof list>[0]) => (await list(fields)).statuses.map((status) => status.id);

    it('lists newest first by default, with the total', async () => {
      const answer = await list({});
      expect(answer.statuses.map((status) => status.id)).toEqual([5, 4, 3, 2, 1]);
      expect(answer.total).toBe(5);
    });

    it('pages', async () => {
      const answer = await list({ page: 2, limit: 2 });
      expect(answer.statuses.map((status) => status.id)).toEqual([3, 2]);
      expect(answer.total).toBe(5);
    });

    it("sorts as Gitea's sort names say", async () => {
      expect(await ids({ sort: 'oldest' })).toEqual([1, 2, 3, 4, 5]);
      expect(await ids({ sort: 'highestindex' })).toEqual([1, 2, 3, 4, 5]);
      expect(await ids({ sort: 'leastindex' })).toEqual([5, 4, 3, 2, 1]);
      expect(await ids({ sort: 'recentupdate' })).toEqual([5, 4, 3, 2, 1]);
      expect(await ids({ sort: 'leastupdate' })).toEqual([1, 2, 3, 4, 5]);
    });

    it('filters by state, ignoring an unknown one', async () => {
      const pending = await list({ state: 'pending' });
      expect(pending.statuses.map((status) => status.id)).toEqual([2, 1]);
      expect(pending.total).toBe(2);
      expect(await ids({ state: 'bogus' })).toHaveLength(5);
    });

    it('combines the latest status of every context', async () => {
      const combined = await h.statuses.getCombinedStatus({ viewer: h.accounts.actor(reader), repoId, sha });
      expect(combined.state).toBe('failure');
      expect(combined.totalCount).toBe(3);
      expect(combined.statuses.map((status) => [status.context, status.state])).toEqual([
        ['test', 'success'],
        ['lint', 'warning'],
        ['build', 'success'],
      ]);
      await create(owner, { state: 'success', context: 'lint' }, sha);
      expect((await h.statuses.getCombinedStatus({ viewer: h.accounts.actor(reader), repoId, sha })).state).toBe('success');
    });

    it('pages the contexts but combines all of them', async () => {
      await create(owner, { state: 'error', context: 'deploy' }, sha);
      const combined = await h.statuses.getCombinedStatus({ viewer: h.accounts.actor(reader), repoId, sha, page: { page: 2, limit: 2 } });
      expect(combined.statuses.map((status) => status.context)).toEqual(['test', 'build']);
      expect(combined.totalCount).toBe(4);
      expect(combined.state).toBe('failure');
    });
  });

  it('answers pending and nothing for a commit without statuses', async () => {
    const combined = await h.statuses.getCombinedStatus({ viewer: undefined, repoId, sha: 'd'.repeat(40) });
    expect(combined).toEqual({ state: 'pending', statuses: [], totalCount: 0 });
  });
});
