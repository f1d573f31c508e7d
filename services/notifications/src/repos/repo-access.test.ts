import type { FilterReadableRequest } from '@cairn/proto/cairn/repos/v1/repos_service';
import { ANONYMOUS, type Viewer } from '../domain/viewer';
import { type RepoAccess, readableRepoIds } from './repo-access';

/** An in-memory FilterReadable: viewer id (0: anonymous) → readable repository ids; records every request. */
function fakeRepoAccess(readable: Record<number, number[]>): RepoAccess & { calls: FilterReadableRequest[] } {
  const calls: FilterReadableRequest[] = [];
  return {
    calls,
    async filterReadable(request) {
      calls.push(request);
      const mine = new Set(readable[request.viewer?.userId ?? 0] ?? []);
      return { repoIds: request.repoIds.filter((id) => mine.has(id)) };
    },
  };
}

describe('readableRepoIds', () => {
  it('answers what repos answers, asking once for all the ids', async () => {
    const repos = fakeRepoAccess({ 7: [1, 3] });
    const viewer: Viewer = { id: 7, isAdmin: false, isRestricted: true };
    expect(await readableRepoIds(repos, viewer, [1, 2, 3], false)).toEqual([1, 3]);
    expect(repos.calls).toEqual([{ viewer: { userId: 7, isAdmin: false, isRestricted: true }, repoIds: [1, 2, 3], publicOnly: false }]);
  });

  it('asks for an anonymous viewer without an actor', async () => {
    const repos = fakeRepoAccess({ 0: [2] });
    expect(await readableRepoIds(repos, ANONYMOUS, [1, 2], false)).toEqual([2]);
    expect(repos.calls).toEqual([{ viewer: undefined, repoIds: [1, 2], publicOnly: false }]);
  });

  it('passes a public-only token on, for repos to decide', async () => {
    const repos = fakeRepoAccess({ 7: [1, 3] });
    await readableRepoIds(repos, { id: 7, isAdmin: false, isRestricted: false }, [1, 3], true);
    expect(repos.calls.map((call) => call.publicOnly)).toEqual([true]);
  });

  it('does not ask about no repositories', async () => {
    const repos = fakeRepoAccess({});
    expect(await readableRepoIds(repos, ANONYMOUS, [], false)).toEqual([]);
    expect(repos.calls).toEqual([]);
  });
});
