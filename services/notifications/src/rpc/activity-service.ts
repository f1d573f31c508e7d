/** ActivityService: users' activity as a viewer may see it (proto/cairn/notifications/v1/notifications_service.proto). */
import { toCairnError } from '@cairn/db';
import type { ActivityServiceService } from '@cairn/proto/cairn/notifications/v1/notifications_service';
import { type AsyncServiceOf, CairnError, isCairnError } from '@cairn/rpc';
import { ALL_REPOS, type RepoScope, canSeeActivity, isEmptyScope, seesEveryRepository } from '../domain/activity-visibility';
import { heatmapStart } from '../domain/heatmap-buckets';
import { type Viewer, viewerFromActor } from '../domain/viewer';
import { readableRepoIds } from '../repos/repo-access';
import { activityRepoIds, heatmapRows } from '../store/activity-buckets';
import type { NotificationsContext } from './context';

export function createActivityService(context: NotificationsContext): AsyncServiceOf<typeof ActivityServiceService> {
  const { db, repoAccess } = context;

  /** The repositories of the user's activity since `since` that the viewer is shown: one repos call at most. */
  async function scopeFor(viewer: Viewer, publicOnly: boolean, userId: number, since: number): Promise<RepoScope> {
    if (seesEveryRepository(viewer, publicOnly)) return ALL_REPOS;
    const repoIds = await activityRepoIds(db.pool, userId, since);
    return { kind: 'repos', repoIds: await readableRepoIds(repoAccess, viewer, repoIds, publicOnly) };
  }

  return {
    async getHeatmap(request) {
      if (request.userId < 1) throw CairnError.invalid(`user id must be positive [uid: ${request.userId}]`, { reason: 'user_id_invalid' });
      const viewer = viewerFromActor(request.viewer);
      const owner = { id: request.userId, keepActivityPrivate: request.keepActivityPrivate };
      if (!canSeeActivity(viewer, owner)) return { buckets: [] };
      try {
        const since = heatmapStart(new Date());
        const scope = await scopeFor(viewer, request.publicOnly ?? false, owner.id, since);
        if (isEmptyScope(scope)) return { buckets: [] };
        const rows = await heatmapRows(db.pool, owner.id, since, scope);
        return { buckets: rows.map((row) => ({ timestamp: row.timestamp, contributions: row.contributions })) };
      } catch (error) {
        throw isCairnError(error) ? error : toCairnError(error);
      }
    },
  };
}
