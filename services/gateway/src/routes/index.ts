/** Every REST route of the gateway, by API area. */
import type { ApiRegistry } from '../api/registry';
import { registerAdminUserRoutes } from './admin/users';
import { registerVersionRoutes } from './misc/version';
import { registerOrgMemberRoutes } from './orgs/members';
import { registerOrgRoutes } from './orgs/orgs';
import { registerTeamRoutes } from './orgs/teams';
import { registerSettingsRoutes } from './settings/settings';
import { registerCurrentUserRoutes } from './user/current';
import { registerUserSettingsRoutes } from './user/settings';
import { registerUserLookupRoutes } from './users/get';
import { registerUserHeatmapRoutes } from './users/heatmap';
import { registerUserRepoRoutes } from './users/repos';
import { registerUserSearchRoutes } from './users/search';
import { registerTokenRoutes } from './users/tokens';

export function registerRoutes(api: ApiRegistry): void {
  registerVersionRoutes(api);
  registerSettingsRoutes(api);
  registerCurrentUserRoutes(api);
  registerUserSettingsRoutes(api);
  // Before /users/{username}: express matches in registration order.
  registerUserSearchRoutes(api);
  registerUserLookupRoutes(api);
  registerUserRepoRoutes(api);
  registerUserHeatmapRoutes(api);
  registerTokenRoutes(api);
  registerAdminUserRoutes(api);
  registerOrgRoutes(api);
  registerOrgMemberRoutes(api);
  registerTeamRoutes(api);
}
