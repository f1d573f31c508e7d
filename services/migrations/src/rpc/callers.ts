/**
 * Who may call each of migrations' RPCs (`@cairn/rpc` authorize.ts): the gateway, which has authenticated the actor
 * and, for a repository's mirrors, resolved the repository with the actor's permission; SyncMirror also this
 * service itself (its scheduler).
 */
import type { Callers } from '@cairn/rpc';
import type { MigrationServiceService } from '@cairn/proto/cairn/migrations/v1/migrations_service';

export const MIGRATION_CALLERS: Callers<typeof MigrationServiceService> = {
  migrate: ['gateway'],
  getMigration: ['gateway'],
  syncMirror: ['gateway', 'migrations'],
  listPushMirrors: ['gateway'],
  addPushMirror: ['gateway'],
  getPushMirror: ['gateway'],
  deletePushMirror: ['gateway'],
  syncPushMirrors: ['gateway'],
  // `cairn restore-repo`: the CLI, run by whoever holds the instance's keys (Gitea's restore-repo calls the private API).
  restoreRepository: ['cli'],
};
