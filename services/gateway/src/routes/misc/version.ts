/** `GET /version` (routers/api/v1/misc/version.go): Cairn's version; also the readiness probe of the run contract. */
import type { ApiRegistry } from '../../api/registry';
import { json } from '../../api/types';
import { cairnVersion } from '../../version';

export function registerVersionRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/version',
    operationId: 'getVersion',
    auth: 'optional',
    handler: async () => json(200, { version: cairnVersion() }),
  });
}
