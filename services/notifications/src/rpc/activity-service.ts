/** ActivityService: users' activity as a viewer may see it (proto/cairn/notifications/v1/notifications_service.proto). */
import { toCairnError } from '@cairn/db';
import type { ActivityServiceService } from '@cairn/proto/cairn/notifications/v1/notifications_service';
import { type AsyncServiceOf, CairnError, isCairnError } from '@cairn/rpc';
import { ALL_REPOS, canSeeActivity, isEmptyScope, seesEveryRepository } from '../domain/activity-visibility';
import { heatmapStart } from '../domain/heatmap-buckets';
import { viewerFromActor } from '../domain/viewer';
import { heatmapRows } from '../store/activity-buckets';
import type { NotificationsContext } from './context';

export function createActivityService(context: NotificationsContext): AsyncServiceOf<typeof ActivityServiceService> {
  const { db, repoAccess } = context;
  return {
    async getHeatmap(request) {
      if (request.userId < 1) throw CairnError.invalid(`user id must be positive [uid: ${request.userId}]`, { reason: 'user_id_invalid' });
      const viewer = viewerFromActor(request.viewer);
      const owner = { id: request.userId, keepActivityPrivate: request.keepActivityPrivate };
      if (!canSeeActivity(viewer, owner)) return { buckets: [] };
      try {
        const scope = seesEveryRepository(viewer) ? ALL_REPOS : await repoAccess.readableRepos(viewer, owner.id);
        if (isEmptyScope(scope)) return { buckets: [] };
        const rows = await heatmapRows(db.pool, owner.id, heatmapStart(new Date()), scope);
        return { buckets: rows.map((row) => ({ timestamp: row.timestamp, contributions: row.contributions })) };
      } catch (error) {
        throw isCairnError(error) ? error : toCairnError(error);
      }
    },
  };
}
