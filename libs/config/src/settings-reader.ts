/**
 * Typed access to the raw settings. A blank value counts as unset (the default applies), as in Gitea;
 * a value that does not parse is a ConfigError naming the setting, the value, what is expected and, when
 * it came from the environment, the variable.
 */
import { ConfigError, redactSecrets } from './errors';
import { isKnownSetting } from './known-keys';
import { DEFAULT_SECTION, type RawSections, type RawValue, describeSetting } from './raw-sections';
import { parseBoolean, parseDuration, parseInteger, parseList } from './values';

// go-ini expands `%(KEY)s` from the same section or [DEFAULT], at most this many times.
const MAX_REFERENCE_DEPTH = 99;
const REFERENCE = /%\(([^)]+)\)s/;

export class SettingsReader {
  constructor(private readonly sections: RawSections) {}

  /** Whether the configuration has `[section]` at all (Gitea's storage settings name sections). */
  hasSection(section: string): boolean {
    return this.sections.has(section);
  }

  /** The value with `%(KEY)s` references resolved, or undefined when unset or blank. */
  raw(section: string, key: string): RawValue | undefined {
    if (!isKnownSetting(section, key)) {
      // A programming error: every key read must be listed, or users setting it would get a warning.
      throw new Error(`${describeSetting(section, key)} is read but not listed in known-keys.ts`);
    }
    const raw = this.sections.get(section)?.get(key);
    if (!raw || raw.value.trim() === '') return undefined;
    return { ...raw, value: this.resolveReferences(section, raw.value).trim() };
  }

  /** A ConfigError for `raw` at `[section] KEY`. */
  invalid(section: string, key: string, raw: RawValue, expected: string): ConfigError {
    const origin = raw.envVar ? ` (from environment variable ${raw.envVar})` : '';
    return new ConfigError(
      `${section}.${key}`,
      `invalid value ${JSON.stringify(redactSecrets(raw.value))} for ${describeSetting(section, key)}${origin}: ${expected}`,
    );
  }

  string(section: string, key: string, fallback: string): string {
    return this.raw(section, key)?.value ?? fallback;
  }

  boolean(section: string, key: string, fallback: boolean): boolean {
    return this.parse(section, key, fallback, parseBoolean, 'expected true or false');
  }

  /** An integer in [min, max]. */
  integer(section: string, key: string, fallback: number, range: { min?: number; max?: number } = {}): number {
    const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = range;
    return this.parse(
      section,
      key,
      fallback,
      (text) => {
        const value = parseInteger(text);
        return value !== undefined && value >= min && value <= max ? value : undefined;
      },
      describeIntegerRange(min, max),
    );
  }

  /** A Go duration in milliseconds (see parseDuration). */
  duration(section: string, key: string, fallbackMs: number, options: { bareSeconds?: boolean } = {}): number {
    const expected = options.bareSeconds
      ? 'expected a duration such as 90s, 10m or 1h30m, or a number of seconds'
      : 'expected a duration such as 90s, 10m or 1h30m (0 for none)';
    return this.parse(section, key, fallbackMs, (text) => parseDuration(text, options), expected);
  }

  /** A comma-separated list; unset or empty gives `fallback`. */
  list(section: string, key: string, fallback: readonly string[], options: { lowerCase?: boolean } = {}): string[] {
    const raw = this.raw(section, key);
    const items = raw ? parseList(options.lowerCase ? raw.value.toLowerCase() : raw.value) : [];
    return items.length > 0 ? items : [...fallback];
  }

  /** One of `choices`, matched case-insensitively; `aliases` maps other spellings (lower-case) to a choice. */
  choice<T extends string>(
    section: string,
    key: string,
    fallback: T,
    choices: readonly T[],
    aliases: Readonly<Record<string, T>> = {},
  ): T {
    return this.parse(
      section,
      key,
      fallback,
      (text) => {
        const word = text.toLowerCase();
        return choices.find((choice) => choice === word) ?? aliases[word];
      },
      `expected one of ${choices.join(', ')}`,
    );
  }

  /** Parses the value with `parse` (undefined = invalid), or returns `fallback` when unset. */
  parse<T>(section: string, key: string, fallback: T, parse: (text: string) => T | undefined, expected: string): T {
    const raw = this.raw(section, key);
    if (!raw) return fallback;
    const value = parse(raw.value);
    if (value === undefined) throw this.invalid(section, key, raw, expected);
    return value;
  }

  private resolveReferences(section: string, value: string): string {
    let resolved = value;
    for (let depth = 0; depth < MAX_REFERENCE_DEPTH; depth++) {
      const reference = REFERENCE.exec(resolved);
      if (!reference) break;
      const name = reference[1].trim().toUpperCase();
      const target = this.sections.get(section)?.get(name) ?? this.sections.get(DEFAULT_SECTION)?.get(name);
      // Unknown references stay as written, as in go-ini (the value then usually fails validation).
      if (!target) break;
      resolved = resolved.split(reference[0]).join(target.value);
    }
    return resolved;
  }
}

function describeIntegerRange(min: number, max: number): string {
  if (max === Number.MAX_SAFE_INTEGER) {
    if (min === 1) return 'expected a positive integer';
    if (min === 0) return 'expected an integer of 0 or more';
    return `expected an integer of ${min} or more`;
  }
  return `expected an integer from ${min} to ${max}`;
}
