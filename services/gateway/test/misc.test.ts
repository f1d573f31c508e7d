import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expectExactGiteaShape } from './support/gitea-schema';
import { type TestGateway, startTestGateway } from './support/harness';

const ROOT_VERSION = (JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
/** The Gitea API level of the vendored description Cairn implements. */
const GITEA_LEVEL = (JSON.parse(readFileSync(path.join(__dirname, '..', 'api', 'gitea-api-v1.json'), 'utf8')) as { info: { version: string } }).info.version;

describe('version and settings', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      env: {
        CAIRN__api__MAX_RESPONSE_ITEMS: '40',
        CAIRN__ui__REACTIONS: '+1, heart',
        CAIRN__repository__DISABLE_MIGRATIONS: 'true',
        CAIRN__mirror__ENABLED: 'false',
      },
    });
  });
  afterAll(() => gw.close());

  it("GET /version answers the Gitea API level, with the root package.json's version as build metadata", async () => {
    const res = await gw.fetch('/api/v1/version');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json;charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const body = await res.json();
    expect(body).toEqual({ version: `${GITEA_LEVEL}+cairn-${ROOT_VERSION}` });
    // A client comparing versions reads the Gitea level (1.26.3 today), not Cairn's 0.x.
    expect(GITEA_LEVEL).toMatch(/^1\.\d+\.\d+$/);
    expectExactGiteaShape('ServerVersion', body);
  });

  it('GET /settings/api', async () => {
    const body = await (await gw.fetch('/api/v1/settings/api')).json();
    expect(body).toEqual({
      max_response_items: 40,
      default_paging_num: 30,
      default_git_trees_per_page: 1000,
      default_max_blob_size: 10485760,
      default_max_response_size: 104857600,
    });
    expectExactGiteaShape('GeneralAPISettings', body);
  });

  it('GET /settings/ui', async () => {
    const body = await (await gw.fetch('/api/v1/settings/ui')).json();
    expect(body).toEqual({
      default_theme: gw.config.ui.defaultTheme,
      allowed_reactions: ['+1', 'heart'],
      custom_emojis: ['git', 'gitea', 'codeberg', 'gitlab', 'github', 'gogs'],
    });
    expectExactGiteaShape('GeneralUISettings', body);
  });

  it('GET /settings/repository', async () => {
    const body = await (await gw.fetch('/api/v1/settings/repository')).json();
    expect(body).toEqual({
      mirrors_disabled: !gw.config.mirror.enabled,
      http_git_disabled: false,
      migrations_disabled: gw.config.repository.disableMigrations,
      stars_disabled: false,
      time_tracking_disabled: false,
      lfs_disabled: true,
    });
    expectExactGiteaShape('GeneralRepoSettings', body);
  });

  it('advertises LFS as disabled while Cairn does not serve it, whatever app.ini says; mirrors as [mirror] ENABLED and migrations as [repository] DISABLE_MIGRATIONS say', async () => {
    const defaults = await startTestGateway();
    try {
      expect(defaults.config.mirror.enabled).toBe(true);
      expect(defaults.config.repository.disableMigrations).toBe(false);
      const repository = await (await defaults.fetch('/api/v1/settings/repository')).json();
      expect(repository).toMatchObject({ mirrors_disabled: false, migrations_disabled: false, lfs_disabled: true });
    } finally {
      await defaults.close();
    }
  });

  it('GET /settings/attachment reports [attachment] as configured', async () => {
    const body = await (await gw.fetch('/api/v1/settings/attachment')).json();
    expect(body).toEqual({
      enabled: true,
      allowed_types: gw.config.attachment.allowedTypes,
      max_size: gw.config.attachment.maxSize,
      max_files: gw.config.attachment.maxFiles,
    });
    expectExactGiteaShape('GeneralAttachmentSettings', body);
    const configured = await startTestGateway({ env: { CAIRN__attachment__ENABLED: 'false', CAIRN__attachment__MAX_SIZE: '7', CAIRN__attachment__ALLOWED_TYPES: 'image/*' } });
    try {
      const answer = await (await configured.fetch('/api/v1/settings/attachment')).json();
      expect(answer).toEqual({ enabled: false, allowed_types: 'image/*', max_size: 7, max_files: gw.config.attachment.maxFiles });
    } finally {
      await configured.close();
    }
  });
});
