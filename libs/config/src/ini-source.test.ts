import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError } from './errors';
import { parseIni, readIniFile } from './ini-source';
import type { RawSections } from './raw-sections';

function plain(sections: RawSections): Record<string, Record<string, string>> {
  return Object.fromEntries(
    [...sections].map(([section, keys]) => [section, Object.fromEntries([...keys].map(([k, v]) => [k, v.value]))]),
  );
}

describe('parseIni', () => {
  it('reads top-level keys into DEFAULT and dotted sections as one flat section', () => {
    const text = [
      'APP_NAME = My Forge',
      'RUN_MODE = dev',
      '',
      '[server]',
      'HTTP_PORT = 3100',
      '',
      '[ui]',
      'EXPLORE_PAGING_NUM = 10',
      '[ui.explore]',
      'REQUIRE_SIGNIN_VIEW = true',
      '[repository.pull-request]',
      'WORK_IN_PROGRESS_PREFIXES = WIP:,[WIP]',
    ].join('\n');
    expect(plain(parseIni(text, 'app.ini'))).toEqual({
      DEFAULT: { APP_NAME: 'My Forge', RUN_MODE: 'dev' },
      server: { HTTP_PORT: '3100' },
      ui: { EXPLORE_PAGING_NUM: '10' },
      'ui.explore': { REQUIRE_SIGNIN_VIEW: 'true' },
      'repository.pull-request': { WORK_IN_PROGRESS_PREFIXES: 'WIP:,[WIP]' },
    });
  });

  it('lower-cases section names, upper-cases keys and maps [default] to DEFAULT', () => {
    const text = '[Server]\nhttp_port = 1\n[DEFAULT]\napp_name = x\n[UI.Explore]\nDisable_Users_Page = 1\n';
    expect(plain(parseIni(text, 'app.ini'))).toEqual({
      server: { HTTP_PORT: '1' },
      DEFAULT: { APP_NAME: 'x' },
      'ui.explore': { DISABLE_USERS_PAGE: '1' },
    });
  });

  it('handles comments, indentation, CRLF, a BOM and quoting as go-ini does', () => {
    const text = [
      '\uFEFF; a comment',
      '# another',
      '  [database]  ; trailing comment',
      '  NAME = gitea ; inline comment',
      'PASSWD = `p#ss;word`',
      'USER = "quoted ; user"',
      'HOST = "db.local" ; comment after quotes',
      'SSL_MODE = true',
      'SCHEMA = null',
      'EMPTY =',
      'WITH_EQUALS = a=b=c',
    ].join('\r\n');
    expect(plain(parseIni(text, 'app.ini'))).toEqual({
      database: {
        NAME: 'gitea',
        PASSWD: 'p#ss;word',
        USER: 'quoted ; user',
        HOST: 'db.local',
        SSL_MODE: 'true',
        SCHEMA: 'null',
        EMPTY: '',
        WITH_EQUALS: 'a=b=c',
      },
    });
  });

  it('lets a later duplicate key win', () => {
    expect(plain(parseIni('[server]\nHTTP_PORT = 1\nHTTP_PORT = 2\n', 'app.ini'))).toEqual({
      server: { HTTP_PORT: '2' },
    });
  });

  it.each([
    ['a key without "="', '[server]\nHTTP_PORT\n', 2],
    ['an empty key', '[server]\n= 3\n', 2],
    ['an unterminated section header', 'A = 1\n[server\n', 2],
    ['an empty section header', '[]\nA = 1\n', 1],
  ])('rejects %s with the line number', (_name, text, line) => {
    let error: unknown;
    try {
      parseIni(text, '/etc/cairn/app.ini');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe('CAIRN_CONFIG');
    expect((error as ConfigError).message).toContain(`/etc/cairn/app.ini, line ${line}`);
  });
});

describe('readIniFile', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-config-ini-'));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('returns undefined for a missing file', () => {
    expect(readIniFile(path.join(dir, 'missing.ini'))).toBeUndefined();
  });

  it('reads a file', () => {
    const file = path.join(dir, 'app.ini');
    fs.writeFileSync(file, '[server]\nHTTP_PORT = 3100\n');
    expect(readIniFile(file)?.get('server')?.get('HTTP_PORT')?.value).toBe('3100');
  });

  it('throws ConfigError for a path it cannot read', () => {
    expect(() => readIniFile(dir)).toThrow(ConfigError);
    expect(() => readIniFile(dir)).toThrow(`cannot read config file ${dir}`);
  });
});
