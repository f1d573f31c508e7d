/**
 * Where one kind of object (attachments) is stored, as Gitea's modules/setting/storage.go resolves it: the kind's
 * own section (`[attachment]`) names a STORAGE_TYPE, which is `local`, `minio`, or the name of a
 * `[storage.<name>]` section; without one, `[storage.<kind>]` (e.g. `[storage.attachments]`) or `[storage]` apply.
 * `[storage]` gives the defaults every storage shares.
 *
 * One departure, so that a setting never silently does nothing: Gitea reads only PATH, MINIO_BASE_PATH and
 * MINIO_BUCKET from `[attachment]` once the type comes from a `[storage…]` section; Cairn lets every `[attachment]`
 * key override (then the target section, then `[storage]`, then Gitea's default).
 */
import * as path from 'node:path';
import { ConfigError } from './errors';
import type { SettingsReader } from './settings-reader';
import type { ObjectStoreSettings } from './types';
import { parseHost, parseHostPort } from './values';

export const STORAGE_TYPES = ['local', 'minio'] as const;
type StorageType = (typeof STORAGE_TYPES)[number];
/** Types Gitea knows that Cairn has no driver for. */
const GITEA_ONLY_TYPES: readonly string[] = ['azureblob'];

const STORAGE_SECTION = 'storage';

/** `storage.go`'s targetSecType: which section the storage's settings come from. */
type TargetKind =
  /** `[storage.<STORAGE_TYPE>]`, named by the kind's STORAGE_TYPE */
  | 'typed'
  /** `[storage.<kind>]` (`[storage.attachments]`) */
  | 'named'
  /** `[storage]` */
  | 'default'
  /** the kind's own section, when its STORAGE_TYPE is `local` or `minio` and no `[storage.local]`/`[storage.minio]` exists */
  | 'own';

interface Target {
  section: string;
  kind: TargetKind;
  type: StorageType;
}

/**
 * The object store of `name` (`attachments`: the default local directory's name and the default key prefix)
 * configured by `[own]` (`attachment`) over `[storage…]`; relative paths resolve against the work directory.
 */
export function readObjectStorage(reader: SettingsReader, workDir: string, name: string, own: string): ObjectStoreSettings {
  const target = targetOf(reader, name, own);
  // Where each key is looked up, first hit wins.
  const sections = [...new Set([own, target.section, STORAGE_SECTION])];
  const from = (key: string): string => sections.find((section) => reader.raw(section, key) !== undefined) ?? STORAGE_SECTION;

  if (target.type === 'local') return { type: 'local', path: localPath(reader, workDir, name, own, target) };

  const settings = {
    type: 'minio' as const,
    endpoint: reader.parse(
      from('MINIO_ENDPOINT'),
      'MINIO_ENDPOINT',
      'localhost:9000',
      (text) => (parseHostPort(text) ? text : parseHost(text)),
      'expected host or host:port, without scheme (MINIO_USE_SSL selects https)',
    ),
    accessKeyId: reader.string(from('MINIO_ACCESS_KEY_ID'), 'MINIO_ACCESS_KEY_ID', ''),
    secretAccessKey: '',
    bucket: reader.string(from('MINIO_BUCKET'), 'MINIO_BUCKET', 'gitea'),
    location: reader.string(from('MINIO_LOCATION'), 'MINIO_LOCATION', 'us-east-1'),
    basePath: basePath(reader, name, own, target),
    useSsl: reader.boolean(from('MINIO_USE_SSL'), 'MINIO_USE_SSL', false),
    insecureSkipVerify: reader.boolean(from('MINIO_INSECURE_SKIP_VERIFY'), 'MINIO_INSECURE_SKIP_VERIFY', false),
  };
  // Not enumerable, so no dump of the configuration (JSON, a logged object, util.inspect) carries the secret.
  Object.defineProperty(settings, 'secretAccessKey', {
    value: reader.string(from('MINIO_SECRET_ACCESS_KEY'), 'MINIO_SECRET_ACCESS_KEY', ''),
    enumerable: false,
  });
  return settings;
}

function targetOf(reader: SettingsReader, name: string, own: string): Target {
  const ownType = reader.raw(own, 'STORAGE_TYPE');
  if (ownType) {
    const typ = ownType.value.toLowerCase();
    if (isStorageType(typ) && !reader.hasSection(`${STORAGE_SECTION}.${typ}`)) return { section: own, kind: 'own', type: typ };
    return typedTarget(reader, typ, own);
  }
  const named = `${STORAGE_SECTION}.${name}`;
  if (reader.hasSection(named)) {
    const namedType = reader.raw(named, 'STORAGE_TYPE')?.value.toLowerCase();
    if (namedType === undefined) {
      // Gitea: a [storage.<kind>] with neither type nor path is as good as absent.
      if (reader.raw(named, 'PATH') === undefined) return defaultTarget(reader);
      return { section: named, kind: 'named', type: 'local' };
    }
    if (reader.hasSection(`${STORAGE_SECTION}.${namedType}`)) return typedTarget(reader, namedType, named);
    return { section: named, kind: 'named', type: supported(reader, namedType, named) };
  }
  return defaultTarget(reader);
}

/** `[storage.<typ>]`, which `[origin] STORAGE_TYPE` names. */
function typedTarget(reader: SettingsReader, typ: string, origin: string): Target {
  const section = `${STORAGE_SECTION}.${typ}`;
  if (!reader.hasSection(section)) {
    if (GITEA_ONLY_TYPES.includes(typ)) supported(reader, typ, origin);
    throw new ConfigError(
      `${origin}.STORAGE_TYPE`,
      `[${origin}] STORAGE_TYPE ${JSON.stringify(typ)} names neither a storage type (${STORAGE_TYPES.join(', ')}) nor a [${section}] section`,
    );
  }
  const type = reader.raw(section, 'STORAGE_TYPE')?.value.toLowerCase() ?? typ;
  return { section, kind: 'typed', type: supported(reader, type, reader.raw(section, 'STORAGE_TYPE') ? section : origin) };
}

function defaultTarget(reader: SettingsReader): Target {
  const type = reader.raw(STORAGE_SECTION, 'STORAGE_TYPE')?.value.toLowerCase() ?? 'local';
  return { section: STORAGE_SECTION, kind: 'default', type: supported(reader, type, STORAGE_SECTION) };
}

function supported(reader: SettingsReader, type: string, section: string): StorageType {
  if (isStorageType(type)) return type;
  const known = GITEA_ONLY_TYPES.includes(type) ? ` (Gitea's ${type} storage is not supported by Cairn)` : '';
  throw new ConfigError(`${section}.STORAGE_TYPE`, `[${section}] STORAGE_TYPE ${JSON.stringify(type)} is not a storage type Cairn supports${known}: expected one of ${STORAGE_TYPES.join(', ')}`);
}

function isStorageType(type: string): type is StorageType {
  return (STORAGE_TYPES as readonly string[]).includes(type);
}

/** Gitea's getStorageForLocal: `[storage] PATH` is a root holding `<name>`, a more specific section's PATH is the directory itself. */
function localPath(reader: SettingsReader, workDir: string, name: string, own: string, target: Target): string {
  const targetPath = reader.raw(target.section, 'PATH')?.value;
  const base = targetPath === undefined ? workDir : path.resolve(workDir, targetPath);
  const fallback = targetPath === undefined || target.kind === 'default' ? path.join(base, name) : base;
  const ownPath = target.kind === 'own' ? undefined : reader.raw(own, 'PATH')?.value;
  return ownPath === undefined ? fallback : path.resolve(base, ownPath);
}

/** Gitea's getStorageForMinio: `[storage] MINIO_BASE_PATH` is a prefix holding `<name>/`, a more specific one is the prefix itself. */
function basePath(reader: SettingsReader, name: string, own: string, target: Target): string {
  const specific = reader.raw(own, 'MINIO_BASE_PATH') ?? (target.kind === 'default' ? undefined : reader.raw(target.section, 'MINIO_BASE_PATH'));
  if (specific) return specific.value;
  const shared = reader.raw(STORAGE_SECTION, 'MINIO_BASE_PATH');
  return shared ? `${shared.value.replace(/\/+$/, '')}/${name}/` : `${name}/`;
}
