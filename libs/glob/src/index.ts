/**
 * Gitea's globs (modules/glob, its port of gobwas/glob): `*` matches any run of characters other than the
 * separators, `?` one such character, `**` any run at all, `[abc]`/`[a-z]` a character of the class and
 * `[!abc]` one outside it, `{a,b}` either alternative, and `\` takes the next character literally. Gitea compiles
 * branch protection rule names with `/` as the separator and protected file patterns with `.` and `/`.
 */

export interface GlobOptions {
  /** The characters `*` and `?` never match; `/` unless given. */
  separators?: string;
  /** A pattern without glob characters compares case-insensitively (Gitea's branch rule names). */
  plainIgnoresCase?: boolean;
  /**
   * What a pattern that does not compile matches: its own text, literally (Gitea's rule names), or nothing
   * (Gitea skips such file patterns). Nothing unless given.
   */
  invalid?: 'literal' | 'nothing';
}

/** gobwas/glob's special characters: text without them is a plain name. */
const SPECIAL = new Set(['*', '?', '\\', '[', ']', '{', '}']);
/** Characters a regular expression (in `u` mode) reads specially, which the glob means literally. */
const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);

export function isGlobPattern(text: string): boolean {
  return [...text].some((char) => SPECIAL.has(char));
}

class GlobSyntaxError extends Error {}

function literal(char: string): string {
  return SYNTAX.has(char) ? `\\${char}` : char;
}

/** The pattern as the source of an anchored regular expression; GlobSyntaxError when it does not compile. */
function globSource(pattern: readonly string[], separators: string): string {
  const notSeparator = separators === '' ? '.' : `[^${[...separators].map((char) => (SYNTAX.has(char) || char === '-' ? `\\${char}` : char)).join('')}]`;
  let pos = 0;
  const escaped = (): string => {
    const next = pattern[pos];
    if (next === undefined) throw new GlobSyntaxError('nothing to escape');
    pos++;
    return next;
  };
  const chars = (): string => {
    let out = '';
    if (pattern[pos] === '!') {
      pos++;
      out += '^';
    }
    const start = out.length;
    while (pos < pattern.length) {
      const char = pattern[pos++];
      if (char === ']') {
        // Go's regexp refuses an empty class, so Gitea's compile fails on `[]` and `[!]`.
        if (out.length === start) throw new GlobSyntaxError('empty character class');
        return `[${out}]`;
      }
      // `-` stays a range operator; everything else inside the class is itself.
      out += char === '\\' ? literal(escaped()) : char === '-' ? char : literal(char);
    }
    throw new GlobSyntaxError('unterminated character class');
  };
  const sequence = (inBraces: boolean): string => {
    let out = '';
    while (pos < pattern.length) {
      const char = pattern[pos++];
      if (inBraces && char === '}') return `(?:${out})`;
      if (char === '*') {
        if (pattern[pos] === '*') {
          pos++;
          out += '.*';
        } else {
          out += `${notSeparator}*`;
        }
      } else if (char === '?') out += notSeparator;
      else if (char === '[') out += chars();
      else if (char === '{') out += sequence(true);
      else if (char === ',' && inBraces) out += '|';
      else if (char === '\\') out += literal(escaped());
      else out += literal(char);
    }
    if (inBraces) throw new GlobSyntaxError('unterminated alternatives');
    return out;
  };
  return `^${sequence(false)}$`;
}

function compile(pattern: string, options: GlobOptions): (text: string) => boolean {
  if (options.plainIgnoresCase === true && !isGlobPattern(pattern)) {
    const lower = pattern.toLowerCase();
    return (text) => text.toLowerCase() === lower;
  }
  let regexp: RegExp;
  try {
    // `u`: `?` is one character even outside the BMP, as in Go; `s`: `**` also crosses line breaks.
    regexp = new RegExp(globSource([...pattern], options.separators ?? '/'), 'su');
  } catch {
    // A GlobSyntaxError, or a class the regular expression refuses (`[z-a]`).
    return options.invalid === 'literal' ? (text) => text === pattern : () => false;
  }
  return (text) => regexp.test(text);
}

/** Compiled patterns; they come from requests, so the cache is emptied when full rather than left to grow. */
const cache = new Map<string, (text: string) => boolean>();
const CACHE_LIMIT = 1000;

/** A predicate telling whether a text matches `pattern` as a whole. */
export function globMatcher(pattern: string, options: GlobOptions = {}): (text: string) => boolean {
  const key = JSON.stringify([options.separators ?? '/', options.plainIgnoresCase === true, options.invalid ?? 'nothing', pattern]);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const matcher = compile(pattern, options);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, matcher);
  return matcher;
}
