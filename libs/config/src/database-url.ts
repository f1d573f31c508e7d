/**
 * `[database] URL`: a PostgreSQL URL, or empty for the embedded database. A Gitea app.ini names its
 * PostgreSQL server with DB_TYPE/HOST/NAME/USER/PASSWD/SSL_MODE instead; those build the URL when URL is empty.
 */
import type { SettingsReader } from './settings-reader';
import { parseHost, parseHostPort, parseUrl } from './values';

const SECTION = 'database';
const POSTGRES_PROTOCOLS = ['postgres:', 'postgresql:'];
// The sslmode values slonik understands; Gitea's default "disable" adds nothing to the URL.
const SSL_MODES = ['disable', 'require', 'no-verify'] as const;

export function readDatabaseUrl(reader: SettingsReader, warnings: string[]): string {
  const url = reader.parse(
    SECTION,
    'URL',
    '',
    (text) => (parseUrl(text, POSTGRES_PROTOCOLS) ? text : undefined),
    'expected a postgres:// or postgresql:// URL (empty selects the embedded database)',
  );
  if (url !== '') return url;

  const dbType = reader.string(SECTION, 'DB_TYPE', '').toLowerCase();
  if (dbType === '') return '';
  if (dbType !== 'postgres') {
    warnings.push(
      `[database] DB_TYPE = ${dbType} is ignored: Cairn stores data in PostgreSQL (set [database] URL, or leave it empty for the embedded database)`,
    );
    return '';
  }
  return urlFromGiteaKeys(reader, warnings);
}

function urlFromGiteaKeys(reader: SettingsReader, warnings: string[]): string {
  const hostRaw = reader.raw(SECTION, 'HOST');
  if (!hostRaw) {
    warnings.push('[database] DB_TYPE = postgres without HOST is ignored: using the embedded database');
    return '';
  }
  const host = parseHostPort(hostRaw.value) ? hostRaw.value : parseHost(hostRaw.value);
  if (!host) {
    throw reader.invalid(SECTION, 'HOST', hostRaw, 'expected host or host:port (for a Unix socket set [database] URL)');
  }
  const user = reader.string(SECTION, 'USER', '');
  const password = reader.string(SECTION, 'PASSWD', '');
  const name = reader.string(SECTION, 'NAME', 'gitea');
  const sslMode = reader.choice(SECTION, 'SSL_MODE', 'disable', SSL_MODES);
  const credentials =
    user === '' ? '' : `${encodeURIComponent(user)}${password === '' ? '' : `:${encodeURIComponent(password)}`}@`;
  const query = sslMode === 'disable' ? '' : `?sslmode=${sslMode}`;
  return `postgres://${credentials}${host}/${encodeURIComponent(name)}${query}`;
}
