/**
 * Push mirrors' RPCs (Gitea's routers/api/v1/repo/mirror.go): list, add, get, delete and sync now. The gateway has
 * checked that the actor administers the repository; every call is refused while `[mirror] ENABLED = false`. The
 * remote's host is checked against the `[migrations]` policy when the mirror is added (Gitea's
 * migrations.IsMigrateURLAllowed) and again by the outbound guard on every push.
 */
import { checkRemoteHost, migrationPolicy, OutboundRefusedError } from '@cairn/outbound';
import { formatGoDuration } from '@cairn/config';
import type { MigrationServiceService, PushMirror } from '@cairn/proto/cairn/migrations/v1/migrations_service';
import { CairnError, type AsyncServiceOf } from '@cairn/rpc';
import { assertMirrorsEnabled, assertNewPushMirrorAllowed, newRemoteName, parsePushAddress, permissionDenied, pushMirrorInterval } from '../domain/mirrors';
import { deletePushMirror, findPushMirror, insertPushMirror, listPushMirrors, requestPushSyncs, type PushMirrorRow } from '../store/push-mirrors';
import type { MigrationsContext } from './context';

type PushMirrorRpcs = Pick<
  AsyncServiceOf<typeof MigrationServiceService>,
  'listPushMirrors' | 'addPushMirror' | 'getPushMirror' | 'deletePushMirror' | 'syncPushMirrors'
>;

/** Gitea's answer for a remote name the repository has no push mirror of. */
const NO_SUCH_MIRROR = 'push mirror does not exist';

export function createPushMirrorRpcs(context: MigrationsContext): PushMirrorRpcs {
  const { db, config } = context;
  return {
    async listPushMirrors(request) {
      assertMirrorsEnabled(config);
      const limit = request.page?.limit ?? 0;
      const page = Math.max(request.page?.page ?? 1, 1);
      const { rows, total } = await listPushMirrors(db.pool, request.repoId, { limit, offset: (page - 1) * limit });
      return { pushMirrors: rows.map(toMessage), total };
    },

    async addPushMirror(request) {
      assertNewPushMirrorAllowed(config);
      // Gitea's CreatePushMirror order: the interval, the address, the host.
      const intervalMs = pushMirrorInterval(request.interval, config.mirror.minInterval);
      const address = parsePushAddress(request.remoteAddress, request.remoteUsername, request.remotePassword);
      await checkRemoteHost(migrationPolicy(config.migrations), address.host).catch((error: unknown) => {
        if (error instanceof OutboundRefusedError) throw permissionDenied();
        throw error;
      });
      const row = await insertPushMirror(db.pool, {
        repoId: request.repoId,
        remoteName: newRemoteName(),
        remoteAddress: address.url,
        auth: { username: address.username, password: address.password },
        intervalMs,
        syncOnCommit: request.syncOnCommit,
      });
      return { pushMirror: toMessage(row) };
    },

    async getPushMirror(request) {
      assertMirrorsEnabled(config);
      const row = await findPushMirror(db.pool, request.repoId, request.remoteName);
      if (row === undefined) throw CairnError.notFound(NO_SUCH_MIRROR, { reason: 'push_mirror_not_found' });
      return { pushMirror: toMessage(row) };
    },

    async deletePushMirror(request) {
      assertMirrorsEnabled(config);
      if (!(await deletePushMirror(db.pool, request.repoId, request.remoteName))) {
        throw CairnError.notFound(NO_SUCH_MIRROR, { reason: 'push_mirror_not_found' });
      }
      return {};
    },

    async syncPushMirrors(request) {
      assertMirrorsEnabled(config);
      if ((await requestPushSyncs(db.pool, request.repoId, 'all')) > 0) context.mirrors?.wake();
      return {};
    },
  };
}

/** Gitea's convert.ToPushMirror (repo_name is the gateway's, which knows the repository). */
function toMessage(row: PushMirrorRow): PushMirror {
  return {
    repoId: row.repo_id,
    repoName: '',
    remoteName: row.remote_name,
    remoteAddress: row.remote_address,
    created: row.created_at,
    lastUpdate: row.last_update ?? undefined,
    lastError: row.last_error,
    interval: formatGoDuration(row.interval_ms),
    syncOnCommit: row.sync_on_commit,
  };
}
