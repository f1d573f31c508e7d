/** Reads app.ini with the `ini` package, smoothing the differences from Gitea's go-ini reader. */
import { readFileSync } from 'node:fs';
import { decode } from 'ini';
import { ConfigError } from './errors';
import { type RawSections, setRawValue } from './raw-sections';

/** Environment variable that names the config file; the `.key` of file-level ConfigErrors. */
export const CONFIG_PATH_VARIABLE = 'CAIRN_CONFIG';

/** The file's settings, or undefined when the file does not exist (then every setting has its default). */
export function readIniFile(path: string): RawSections | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(CONFIG_PATH_VARIABLE, `cannot read config file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return parseIni(text, path);
}

/** Parses app.ini text; `source` names the file in error messages. */
export function parseIni(text: string, source: string): RawSections {
  const parsed = decode(prepareForIniPackage(text, source));
  const sections: RawSections = new Map();
  for (const [name, entry] of Object.entries(parsed)) {
    if (isSection(entry)) {
      for (const [key, value] of Object.entries(entry)) setRawValue(sections, name, key, { value: asText(value) });
    } else {
      setRawValue(sections, '', name, { value: asText(entry) });
    }
  }
  return sections;
}

function isSection(entry: unknown): entry is Record<string, unknown> {
  return typeof entry === 'object' && entry !== null && !Array.isArray(entry);
}

// `ini` turns true/false/null into JSON values and `KEY[]` lines into arrays; settings are text.
function asText(value: unknown): string {
  return Array.isArray(value) ? value.map(asText).join(',') : String(value);
}

/**
 * Rewrites the text line by line so the `ini` package reads it as go-ini would: indented lines and a comment
 * after a section header are allowed, dots in section names do not nest sections (`[ui.explore]` stays one
 * section), and a quoted or backquoted value (go-ini's quoting for passwords with `#` or `;`) is kept verbatim.
 * A line that is neither a comment, a `[section]` nor `KEY = value` is an error, as in go-ini.
 */
function prepareForIniPackage(text: string, source: string): string {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  return lines
    .map((line, index) => {
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith(';') || trimmed.startsWith('#')) return trimmed;
      if (trimmed.startsWith('[')) {
        const header = /^\[([^\]]*)\]\s*(?:[;#].*)?$/.exec(trimmed);
        const name = header?.[1].trim();
        if (!name) throw parseError(source, index, 'expected a section header such as [server]');
        return `[${name.replace(/\./g, '\\.')}]`;
      }
      const equals = trimmed.indexOf('=');
      const key = equals > 0 ? trimmed.slice(0, equals).trim() : '';
      if (key === '') throw parseError(source, index, 'expected KEY = value');
      const value = trimmed.slice(equals + 1).trim();
      const backquoted = /^`([^`]*)`(?:\s*[;#].*)?$/.exec(value);
      if (backquoted) return `${key}=${JSON.stringify(backquoted[1])}`;
      // `ini` unquotes "…" only when the quote ends the line, so drop a comment that follows it.
      const quoted = /^("[^"]*")\s*[;#].*$/.exec(value);
      return `${key}=${quoted ? quoted[1] : value}`;
    })
    .join('\n');
}

function parseError(source: string, lineIndex: number, expected: string): ConfigError {
  return new ConfigError(CONFIG_PATH_VARIABLE, `cannot parse config file ${source}, line ${lineIndex + 1}: ${expected}`);
}
