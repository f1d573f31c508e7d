/**
 * `CAIRN__<SECTION>__<KEY>=value` environment overrides, encoded as Gitea's environment-to-ini encodes
 * `GITEA__…` (modules/setting/config_env.go): a character that cannot appear in a variable name is written
 * `_0X<hex of its UTF-8 bytes>_` (`_0X2E_` is `.`, `_0X2D_` is `-`); section and key are split at the first
 * plain `__`; `CAIRN__<SECTION>__<KEY>__FILE=/path` reads the value from a file.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from './errors';
import { DEFAULT_SECTION, type RawSections, normaliseKeyName, normaliseSectionName, setRawValue } from './raw-sections';

export const ENV_PREFIX = 'CAIRN__';
const FILE_SUFFIX = '__FILE';
const ESCAPE = /_0[xX]((?:[0-9a-fA-F]{2})+)_/g;

export interface DecodedEnvKey {
  /** Normalised section name (lower-case, or DEFAULT). */
  section: string;
  /** Upper-case key. */
  key: string;
  /** The variable ends in `__FILE`: its value is a path to read the setting from. */
  fromFile: boolean;
}

/** Decodes a `CAIRN__…` variable name; undefined when it has no prefix or names no key. */
export function decodeEnvKey(name: string): DecodedEnvKey | undefined {
  if (!name.startsWith(ENV_PREFIX)) return undefined;
  const fromFile = name.endsWith(FILE_SUFFIX);
  const encoded = name.slice(ENV_PREFIX.length, fromFile ? -FILE_SUFFIX.length : undefined);
  // As Gitea: escapes are found first, then the first plain "__" between them splits section from key.
  let section = '';
  let key = '';
  let inKey = false;
  const addPlain = (text: string): void => {
    if (inKey) {
      key += text;
      return;
    }
    const split = text.indexOf('__');
    if (split < 0) {
      section += text;
      return;
    }
    section += text.slice(0, split);
    key += text.slice(split + 2);
    inKey = true;
  };
  let last = 0;
  for (const match of encoded.matchAll(ESCAPE)) {
    addPlain(encoded.slice(last, match.index));
    const decoded = Buffer.from(match[1], 'hex').toString('utf8');
    if (inKey) key += decoded;
    else section += decoded;
    last = match.index + match[0].length;
  }
  addPlain(encoded.slice(last));
  if (key === '') return undefined;
  return { section: normaliseSectionName(section), key: normaliseKeyName(key), fromFile };
}

/** The variable name that sets `[section] KEY`: `encodeEnvKey('ui.explore', 'REQUIRE_SIGNIN_VIEW')` → `CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW`. */
export function encodeEnvKey(section: string, key: string): string {
  if (key.trim() === '') throw new TypeError('encodeEnvKey: key must not be empty');
  const sectionName = normaliseSectionName(section);
  const encodedSection = sectionName === DEFAULT_SECTION ? DEFAULT_SECTION : encodeSection(sectionName);
  return `${ENV_PREFIX}${encodedSection}__${encodeKey(normaliseKeyName(key))}`;
}

/** Environment variables that hand `{ section: { KEY: value } }` settings to a child process. */
export function serviceEnvOverrides(values: Record<string, Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [section, keys] of Object.entries(values)) {
    for (const [key, value] of Object.entries(keys)) env[encodeEnvKey(section, key)] = value;
  }
  return env;
}

/**
 * Applies every `CAIRN__…` variable over `sections` (later variables win). Names that carry no key are
 * reported in `warnings`; a `__FILE` variable whose file cannot be read is a ConfigError.
 */
export function applyEnvOverrides(sections: RawSections, env: NodeJS.ProcessEnv, warnings: string[]): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.startsWith(ENV_PREFIX)) continue;
    const decoded = decodeEnvKey(name);
    if (!decoded) {
      warnings.push(`environment variable ${name} is ignored: expected ${ENV_PREFIX}<SECTION>__<KEY>`);
      continue;
    }
    const text = decoded.fromFile ? readValueFile(name, value) : value;
    setRawValue(sections, decoded.section, decoded.key, { value: text, envVar: name });
  }
}

function readValueFile(variable: string, path: string): string {
  try {
    // Like Gitea: one trailing line break is not part of the value.
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new ConfigError(variable, `cannot read ${path} named by environment variable ${variable}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function escapeChar(char: string): string {
  return `_0X${Buffer.from(char, 'utf8').toString('hex').toUpperCase()}_`;
}

const ALPHANUMERIC = /^[A-Za-z0-9]$/;
const LOOKS_LIKE_ESCAPE = /^_0[xX][0-9a-fA-F]{2}/;

// A "_" stays literal only between two letters or digits and when it cannot be read as the start of an
// escape, so the section never contains "__" nor touches the separator.
function encodeSection(section: string): string {
  const chars = Array.from(section);
  return chars
    .map((char, index) => {
      if (ALPHANUMERIC.test(char)) return char;
      const literalUnderscore =
        char === '_' &&
        ALPHANUMERIC.test(chars[index - 1] ?? '') &&
        ALPHANUMERIC.test(chars[index + 1] ?? '') &&
        !LOOKS_LIKE_ESCAPE.test(chars.slice(index).join(''));
      return literalUnderscore ? char : escapeChar(char);
    })
    .join('');
}

// Keys may contain "_" freely (only the first "__" splits), but not the start of an escape; a key that
// begins with "0X<hex>" would form one with the separator's "_".
function encodeKey(key: string): string {
  const chars = Array.from(key);
  return chars
    .map((char, index) => {
      const rest = chars.slice(index).join('');
      if (index === 0 && /^0[xX][0-9a-fA-F]{2}/.test(rest)) return escapeChar(char);
      if (char === '_') return LOOKS_LIKE_ESCAPE.test(rest) ? escapeChar(char) : char;
      return ALPHANUMERIC.test(char) ? char : escapeChar(char);
    })
    .join('');
}
