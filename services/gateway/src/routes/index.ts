/** Every REST route of the gateway, by API area. */
import type { ApiRegistry } from '../api/registry';
import { registerAdminUserRoutes } from './admin/users';
import { registerVersionRoutes } from './misc/version';
import { registerSettingsRoutes } from './settings/settings';
import { registerCurrentUserRoutes } from './user/current';
import { registerUserLookupRoutes } from './users/get';
import { registerTokenRoutes } from './users/tokens';

export function registerRoutes(api: ApiRegistry): void {
  registerVersionRoutes(api);
  registerSettingsRoutes(api);
  registerCurrentUserRoutes(api);
  registerUserLookupRoutes(api);
  registerTokenRoutes(api);
  registerAdminUserRoutes(api);
}
