/** `GET /settings/{api,ui,repository,attachment}` (routers/api/v1/settings/settings.go): public instance settings. */
import type { ApiRegistry } from '../../api/registry';
import { json } from '../../api/types';

/**
 * What this version of Cairn serves of the features these settings advertise. A client that reads
 * `mirrors_disabled: false` or `enabled: true` for attachments goes on to call their routes, so a feature not built
 * yet reads as disabled whatever app.ini says; each later issue turns its flag on with its routes.
 */
const SERVES = { mirrors: true, migrations: true, lfs: false, attachments: true } as const;

export function registerSettingsRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/settings/api',
    operationId: 'getGeneralAPISettings',
    auth: 'optional',
    handler: async ({ services: { config } }) =>
      json(200, {
        max_response_items: config.api.maxResponseItems,
        default_paging_num: config.api.defaultPagingNum,
        default_git_trees_per_page: config.api.defaultGitTreesPerPage,
        default_max_blob_size: config.api.defaultMaxBlobSize,
        default_max_response_size: config.api.defaultMaxResponseSize,
      }),
  });

  api.route({
    method: 'get',
    path: '/settings/ui',
    operationId: 'getGeneralUISettings',
    auth: 'optional',
    handler: async ({ services: { config } }) =>
      json(200, {
        default_theme: config.ui.defaultTheme,
        allowed_reactions: config.ui.reactions,
        custom_emojis: config.ui.customEmojis,
      }),
  });

  api.route({
    method: 'get',
    path: '/settings/repository',
    operationId: 'getGeneralRepositorySettings',
    auth: 'optional',
    handler: async ({ services: { config } }) =>
      json(200, {
        mirrors_disabled: !(SERVES.mirrors && config.mirror.enabled),
        http_git_disabled: config.server.disableHttpGit,
        migrations_disabled: !SERVES.migrations || config.repository.disableMigrations,
        stars_disabled: config.repository.disableStars,
        time_tracking_disabled: !config.service.enableTimetracking,
        lfs_disabled: !(SERVES.lfs && config.server.lfsStartServer),
      }),
  });

  api.route({
    method: 'get',
    path: '/settings/attachment',
    operationId: 'getGeneralAttachmentSettings',
    auth: 'optional',
    handler: async ({ services: { config } }) =>
      json(200, {
        enabled: SERVES.attachments && config.attachment.enabled,
        allowed_types: config.attachment.allowedTypes,
        max_size: config.attachment.maxSize,
        max_files: config.attachment.maxFiles,
      }),
  });
}
