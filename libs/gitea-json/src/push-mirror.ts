/** Push mirrors in Gitea's shape (services/convert/mirror.go `ToPushMirror`). */
import { goTime } from '@cairn/http';
import type { PushMirror } from '@cairn/proto/cairn/migrations/v1/migrations_service';

/** Gitea's `PushMirror`. */
export interface ApiPushMirror {
  repo_name: string;
  remote_name: string;
  remote_address: string;
  created: string;
  /** null before the first sync (Gitea's LastUpdateUnix.AsTimePtr). */
  last_update: string | null;
  last_error: string;
  interval: string;
  sync_on_commit: boolean;
}

export function toApiPushMirror(mirror: PushMirror, repoName: string): ApiPushMirror {
  return {
    repo_name: repoName,
    remote_name: mirror.remoteName,
    remote_address: mirror.remoteAddress,
    created: goTime(mirror.created),
    last_update: mirror.lastUpdate === undefined ? null : goTime(mirror.lastUpdate),
    last_error: mirror.lastError,
    interval: mirror.interval,
    sync_on_commit: mirror.syncOnCommit,
  };
}
