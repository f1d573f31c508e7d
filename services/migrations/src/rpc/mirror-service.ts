/**
 * Pull mirrors' RPC (Gitea's routers/api/v1/repo/mirror.go MirrorSync): SyncMirror asks for a sync now; the
 * scheduler of whichever replica claims it first runs it. The gateway has checked code write on the repository.
 */
import { CairnError, type AsyncServiceOf } from '@cairn/rpc';
import type { MigrationServiceService } from '@cairn/proto/cairn/migrations/v1/migrations_service';
import { NOT_A_MIRROR, assertMirrorsEnabled } from '../domain/mirrors';
import { requestPullSync } from '../store/pull-mirrors';
import type { MigrationsContext } from './context';

export function createMirrorRpcs(context: MigrationsContext): Pick<AsyncServiceOf<typeof MigrationServiceService>, 'syncMirror'> {
  return {
    async syncMirror(request) {
      assertMirrorsEnabled(context.config);
      if (!(await requestPullSync(context.db.pool, request.repoId))) throw CairnError.precondition(NOT_A_MIRROR, { reason: 'not_mirror' });
      context.mirrors?.wake();
      return {};
    },
  };
}
