/** Push mirrors in Gitea's shape (services/convert/mirror.go `ToPushMirror`). */
import { goTime } from '@cairn/http';
import type { PushMirror } from '@cairn/proto/cairn/migrations/v1/migrations_service';

/** Gitea's `PushMirror`. */
export interface ApiPushMirror {
  repo_name: string;
  remote_name: string;
  remote_address: string;
  created: string;
  /** The Unix epoch before the first sync (Gitea's LastUpdateUnix.AsTimePtr of 0). */
  last_update: string;
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
    last_update: goTime(mirror.lastUpdate ?? new Date(0)),
    last_error: mirror.lastError,
    interval: mirror.interval,
    sync_on_commit: mirror.syncOnCommit,
  };
}
