/** The untyped settings as read from app.ini and the environment, before validation. */

/** Name of the section that holds app.ini's top-level keys (APP_NAME, RUN_MODE). */
export const DEFAULT_SECTION = 'DEFAULT';

export interface RawValue {
  value: string;
  /** Set when the value came from an environment variable (its name), for error messages. */
  envVar?: string;
}

/** Section name (see normaliseSectionName) → KEY (upper-case) → value, in the order they were read. */
export type RawSections = Map<string, Map<string, RawValue>>;

/** Section names are case-insensitive: lower-case, except the top-level section, always `DEFAULT`. */
export function normaliseSectionName(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower === '' || lower === 'default' ? DEFAULT_SECTION : lower;
}

export function normaliseKeyName(name: string): string {
  return name.trim().toUpperCase();
}

export function setRawValue(sections: RawSections, section: string, key: string, value: RawValue): void {
  const sectionName = normaliseSectionName(section);
  let keys = sections.get(sectionName);
  if (!keys) {
    keys = new Map();
    sections.set(sectionName, keys);
  }
  keys.set(normaliseKeyName(key), value);
}

/** How a setting is named in messages: `[server] HTTP_PORT`. */
export function describeSetting(section: string, key: string): string {
  return `[${section}] ${key}`;
}
