/** StarService: users starring repositories (proto/cairn/social/v1/social_service.proto). */
import type { StarServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import { recordAdded, removeLink } from '../changes/link-changes';
import { requireLink, requireRepoId, requireUserId } from '../domain/ids';
import { enqueueStarAdded, enqueueStarRemoved } from '../events/outbox';
import { readCounters } from '../store/counters';
import { findLink, insertStar, listLinkedRepos, listStarredReposOf } from '../store/links';
import type { SocialContext } from './context';
import { guard } from './guard';
import { linkedUsersPage } from './link-lists';

export function createStarService({ db }: SocialContext): AsyncServiceOf<typeof StarServiceService> {
  return {
    async star(request) {
      const link = requireLink(request);
      await guard(() =>
        db.pool.transaction(async (tx) => {
          if ((await insertStar(tx, link)) !== null) await recordAdded(tx, 'stars', link, enqueueStarAdded);
        }),
      );
      return {};
    },

    async unstar(request) {
      const link = requireLink(request);
      await guard(() => removeLink(db, 'stars', link, enqueueStarRemoved));
      return {};
    },

    async isStarred(request) {
      const link = requireLink(request);
      const created = await guard(() => findLink(db.pool, 'stars', link));
      return { starred: created !== null };
    },

    async listStargazers(request) {
      const repoId = requireRepoId(request.repoId);
      return guard(() => linkedUsersPage(db, 'stars', repoId, request.page));
    },

    async listStarredRepos(request) {
      const userId = requireUserId(request.userId);
      return { repoIds: await guard(() => listLinkedRepos(db.pool, 'stars', userId)) };
    },

    async batchListStarredRepos(request) {
      const userIds = [...new Set(request.userIds.map(requireUserId))];
      if (userIds.length === 0) return { users: [] };
      const starred = await guard(() => listStarredReposOf(db.pool, userIds));
      return { users: [...starred].map(([userId, repoIds]) => ({ userId, repoIds })) };
    },

    async getRepoCounters(request) {
      const repoIds = request.repoIds.map(requireRepoId);
      const rows = await guard(() => readCounters(db.pool, [...new Set(repoIds)]));
      const byRepo = new Map(rows.map((row) => [row.repo_id, row]));
      return {
        counters: repoIds.map((repoId) => ({ repoId, stars: byRepo.get(repoId)?.stars ?? 0, watchers: byRepo.get(repoId)?.watchers ?? 0 })),
      };
    },
  };
}
