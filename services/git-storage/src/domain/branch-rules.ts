/**
 * Which branch protection rule applies to a branch, and which files a rule protects. Globs follow Gitea's
 * (gobwas/glob with separators): `*` and `?` stay within a segment, `**` crosses segments, anything else is
 * literal.
 */

/** Compiled globs; rule names come from requests, so the cache is emptied rather than left to grow. */
const regexCache = new Map<string, RegExp>();
const REGEX_CACHE_LIMIT = 1000;

/** `pattern` as an anchored RegExp; `separators` are the characters `*` and `?` do not cross. */
export function globToRegExp(pattern: string, separators = '/'): RegExp {
  const key = `${separators}\0${pattern}`;
  const cached = regexCache.get(key);
  if (cached !== undefined) return cached;
  const notSeparator = `[^${separators.replace(/[\\\]^-]/g, '\\$&')}]`;
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (char === '*') {
      source += `${notSeparator}*`;
    } else if (char === '?') {
      source += notSeparator;
    } else {
      source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  const regex = new RegExp(`^${source}$`, 'u');
  if (regexCache.size >= REGEX_CACHE_LIMIT) regexCache.clear();
  regexCache.set(key, regex);
  return regex;
}

/** A rule applies to a branch it names exactly or whose glob matches it. */
export function ruleMatches(ruleName: string, branch: string): boolean {
  return ruleName === branch || (/[*?]/.test(ruleName) && globToRegExp(ruleName).test(branch));
}

/** The first rule, in the given (priority) order, that applies to `branch`. */
export function findBranchRule<Rule extends { ruleName: string }>(rules: readonly Rule[], branch: string): Rule | undefined {
  return rules.find((rule) => ruleMatches(rule.ruleName, branch));
}

/** The first of `files` a `;`-separated list of patterns protects (case-insensitive, `*` stays within `/` and `.`). */
export function firstProtectedFile(patterns: string, files: readonly string[]): string | undefined {
  const globs = patterns
    .split(';')
    .map((pattern) => pattern.trim().toLowerCase())
    .filter((pattern) => pattern !== '')
    .map((pattern) => globToRegExp(pattern, './'));
  if (globs.length === 0) return undefined;
  return files.find((file) => globs.some((glob) => glob.test(file.toLowerCase())));
}
