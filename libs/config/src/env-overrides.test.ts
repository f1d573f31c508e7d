import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyEnvOverrides, decodeEnvKey, encodeEnvKey, serviceEnvOverrides } from './env-overrides';
import { ConfigError } from './errors';
import type { RawSections } from './raw-sections';

describe('decodeEnvKey', () => {
  it.each([
    ['CAIRN__server__HTTP_PORT', 'server', 'HTTP_PORT'],
    ['CAIRN__SERVER__HTTP_PORT', 'server', 'HTTP_PORT'],
    ['CAIRN__server__http_port', 'server', 'HTTP_PORT'],
    ['CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW', 'ui.explore', 'REQUIRE_SIGNIN_VIEW'],
    ['CAIRN__UI_0x2E_EXPLORE__DISABLE_USERS_PAGE', 'ui.explore', 'DISABLE_USERS_PAGE'],
    ['CAIRN__repository_0X2E_pull_0X2D_request__X', 'repository.pull-request', 'X'],
    ['CAIRN__services_0X2E_accounts__LISTEN', 'services.accounts', 'LISTEN'],
    ['CAIRN__DEFAULT__APP_NAME', 'DEFAULT', 'APP_NAME'],
    ['CAIRN__default__RUN_MODE', 'DEFAULT', 'RUN_MODE'],
    ['CAIRN__cron_0X2E_update_mirrors__ENABLED', 'cron.update_mirrors', 'ENABLED'],
    ['CAIRN__a_0XE282AC_b__K', 'a€b', 'K'],
    ['CAIRN__server__KEY__WITH__UNDERSCORES', 'server', 'KEY__WITH__UNDERSCORES'],
    ['CAIRN__section__KEY_0X2E_DOT', 'section', 'KEY.DOT'],
  ])('%s → [%s] %s', (name, section, key) => {
    expect(decodeEnvKey(name)).toEqual({ section, key, fromFile: false });
  });

  it('recognises the __FILE suffix', () => {
    expect(decodeEnvKey('CAIRN__database__PASSWD__FILE')).toEqual({ section: 'database', key: 'PASSWD', fromFile: true });
  });

  it.each(['CAIRN_WORK_DIR', 'CAIRN__server', 'CAIRN__server__', 'GITEA__server__HTTP_PORT', 'cairn__server__X'])(
    'returns undefined for %s',
    (name) => {
      expect(decodeEnvKey(name)).toBeUndefined();
    },
  );
});

describe('encodeEnvKey', () => {
  it('encodes dots and dashes as Gitea does', () => {
    expect(encodeEnvKey('ui.explore', 'REQUIRE_SIGNIN_VIEW')).toBe('CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW');
    expect(encodeEnvKey('server', 'HTTP_PORT')).toBe('CAIRN__server__HTTP_PORT');
    expect(encodeEnvKey('repository.pull-request', 'X')).toBe('CAIRN__repository_0X2E_pull_0X2D_request__X');
    expect(encodeEnvKey('', 'APP_NAME')).toBe('CAIRN__DEFAULT__APP_NAME');
    expect(encodeEnvKey('Default', 'APP_NAME')).toBe('CAIRN__DEFAULT__APP_NAME');
    expect(encodeEnvKey('cron.update_mirrors', 'ENABLED')).toBe('CAIRN__cron_0X2E_update_mirrors__ENABLED');
  });

  it.each([
    ['ui.explore', 'REQUIRE_SIGNIN_VIEW'],
    ['services.accounts', 'ADDR'],
    ['a_', 'K'],
    ['_a', 'K'],
    ['a__b', 'K'],
    ['a_0x2e_b', 'K'],
    ['x', '0X41_B'],
    ['x', 'A_0X41_B'],
    ['x', 'KEY.WITH-PUNCT'],
    ['sp ace€', 'K'],
    ['DEFAULT', 'APP_NAME'],
  ])('round-trips [%s] %s', (section, key) => {
    const decoded = decodeEnvKey(encodeEnvKey(section, key));
    expect(decoded).toEqual({
      section: section.toLowerCase() === 'default' ? 'DEFAULT' : section.toLowerCase(),
      key: key.toUpperCase(),
      fromFile: false,
    });
  });

  it('rejects an empty key', () => {
    expect(() => encodeEnvKey('server', '')).toThrow(TypeError);
  });
});

describe('serviceEnvOverrides', () => {
  it('builds one variable per setting', () => {
    expect(
      serviceEnvOverrides({
        'services.accounts': { LISTEN: '127.0.0.1:0', ADDR: '127.0.0.1:5005' },
        server: { HTTP_PORT: '3100' },
      }),
    ).toEqual({
      CAIRN__services_0X2E_accounts__LISTEN: '127.0.0.1:0',
      CAIRN__services_0X2E_accounts__ADDR: '127.0.0.1:5005',
      CAIRN__server__HTTP_PORT: '3100',
    });
  });
});

describe('applyEnvOverrides', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-config-env-'));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sets values over the file ones, remembering the variable', () => {
    const sections: RawSections = new Map([['server', new Map([['HTTP_PORT', { value: '3000' }]])]]);
    const warnings: string[] = [];
    applyEnvOverrides(
      sections,
      { CAIRN__server__HTTP_PORT: '3100', CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW: 'true', PATH: '/bin' },
      warnings,
    );
    expect(sections.get('server')?.get('HTTP_PORT')).toEqual({ value: '3100', envVar: 'CAIRN__server__HTTP_PORT' });
    expect(sections.get('ui.explore')?.get('REQUIRE_SIGNIN_VIEW')?.value).toBe('true');
    expect(warnings).toEqual([]);
  });

  it('warns about CAIRN__ variables that name no key', () => {
    const warnings: string[] = [];
    applyEnvOverrides(new Map(), { CAIRN__server: 'x' }, warnings);
    expect(warnings).toEqual([expect.stringContaining('CAIRN__server')]);
  });

  it('reads __FILE values from the file without the final line break', () => {
    const file = path.join(dir, 'secret');
    fs.writeFileSync(file, 'pa$$word\n');
    const sections: RawSections = new Map();
    applyEnvOverrides(sections, { CAIRN__database__PASSWD__FILE: file }, []);
    expect(sections.get('database')?.get('PASSWD')?.value).toBe('pa$$word');
  });

  it('throws ConfigError naming the variable when a __FILE cannot be read', () => {
    const missing = path.join(dir, 'missing');
    let error: unknown;
    try {
      applyEnvOverrides(new Map(), { CAIRN__database__PASSWD__FILE: missing }, []);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe('CAIRN__database__PASSWD__FILE');
    expect((error as ConfigError).message).toContain(missing);
  });
});
