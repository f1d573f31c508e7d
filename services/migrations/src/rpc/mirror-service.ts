// Pull mirrors' RPC (SyncMirror): not built yet (issue 18, the mirrors part).
import { CairnError, Code, type AsyncServiceOf } from '@cairn/rpc';
import type { MigrationServiceService } from '@cairn/proto/cairn/migrations/v1/migrations_service';
import type { MigrationsContext } from './context';

export function createMirrorRpcs(_context: MigrationsContext): Pick<AsyncServiceOf<typeof MigrationServiceService>, 'syncMirror'> {
  return { syncMirror: () => Promise.reject(new CairnError(Code.UNIMPLEMENTED, 'pull mirrors are not built yet')) };
}
