// Push mirrors' RPCs: not built yet (issue 18, the mirrors part).
import { CairnError, Code, type AsyncServiceOf } from '@cairn/rpc';
import type { MigrationServiceService } from '@cairn/proto/cairn/migrations/v1/migrations_service';
import type { MigrationsContext } from './context';

type PushMirrorRpcs = Pick<
  AsyncServiceOf<typeof MigrationServiceService>,
  'listPushMirrors' | 'addPushMirror' | 'getPushMirror' | 'deletePushMirror' | 'syncPushMirrors'
>;

export function createPushMirrorRpcs(_context: MigrationsContext): PushMirrorRpcs {
  const no = () => Promise.reject(new CairnError(Code.UNIMPLEMENTED, 'push mirrors are not built yet'));
  return { listPushMirrors: no, addPushMirror: no, getPushMirror: no, deletePushMirror: no, syncPushMirrors: no };
}
