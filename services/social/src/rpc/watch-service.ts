/** WatchService: users watching repositories, Gitea's repository subscriptions (proto/cairn/social/v1/social_service.proto). */
import type { WatchServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import { recordAdded, removeLink } from '../changes/link-changes';
import { requireLink, requireRepoId, requireUserId } from '../domain/ids';
import { enqueueWatchAdded, enqueueWatchRemoved } from '../events/outbox';
import { chooseWatch, findLink, insertWatch, listLinkedRepos } from '../store/links';
import type { SocialContext } from './context';
import { guard } from './guard';
import { linkedUsersPage } from './link-lists';

export function createWatchService({ db }: SocialContext): AsyncServiceOf<typeof WatchServiceService> {
  return {
    async watch(request) {
      const link = requireLink(request);
      const created = await guard(() =>
        db.pool.transaction(async (tx) => {
          for (;;) {
            const added = await insertWatch(tx, link, 'normal');
            if (added !== null) {
              await recordAdded(tx, 'watches', link, enqueueWatchAdded);
              return added;
            }
            const existing = await chooseWatch(tx, link);
            if (existing !== null) return existing;
            // Unwatched by a concurrent call between the two statements: add it after all.
          }
        }),
      );
      return { created };
    },

    async unwatch(request) {
      const link = requireLink(request);
      await guard(() => removeLink(db, 'watches', link, enqueueWatchRemoved));
      return {};
    },

    async getWatch(request) {
      const link = requireLink(request);
      const created = await guard(() => findLink(db.pool, 'watches', link));
      return created === null ? { watching: false } : { watching: true, created };
    },

    async listWatchers(request) {
      const repoId = requireRepoId(request.repoId);
      return guard(() => linkedUsersPage(db, 'watches', repoId, request.page));
    },

    async listWatchedRepos(request) {
      const userId = requireUserId(request.userId);
      return { repoIds: await guard(() => listLinkedRepos(db.pool, 'watches', userId)) };
    },
  };
}
