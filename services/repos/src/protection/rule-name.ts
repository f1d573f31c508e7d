/**
 * Which branches a protection rule's name covers (Gitea's models/git/protected_branch.go `Match` over
 * modules/glob): a name without glob characters is one branch, compared case-insensitively; otherwise it is
 * a glob where `*` and `?` stay within a path segment, `**` crosses segments, `[...]`/`[!...]` are character
 * classes, `{a,b}` alternatives and `\` escapes. A glob that does not compile matches only its literal text.
 */

const SPECIAL = new Set(['*', '?', '\\', '[', ']', '{', '}']);
const NOT_SEPARATOR = '[^/]';
/** Characters JavaScript regular expressions treat specially that a glob means literally. */
const REGEXP_LITERALS = new Set(['.', '^', '$', '(', ')', '|', '+', '/', ']', '}']);

export function isGlobRuleName(ruleName: string): boolean {
  return [...ruleName].some((char) => SPECIAL.has(char));
}

class GlobSyntaxError extends Error {}

/** Gitea's globCompiler with `/` as the separator, emitting a JavaScript regular expression source. */
function globSource(pattern: readonly string[]): string {
  let pos = 0;
  const escapeNext = (): string => {
    const next = pattern[pos];
    if (next === undefined) throw new GlobSyntaxError('nothing to escape');
    pos++;
    return /[a-zA-Z0-9]/.test(next) ? next : `\\${next}`;
  };
  const chars = (): string => {
    let out = '[';
    if (pattern[pos] === '!') {
      pos++;
      out += '^';
    }
    while (pos < pattern.length) {
      const char = pattern[pos++];
      if (char === ']') return `${out}]`;
      out += char === '\\' ? escapeNext() : char === '[' ? '\\[' : char;
    }
    throw new GlobSyntaxError('unterminated character class');
  };
  const sequence = (inBraces: boolean): string => {
    let out = '';
    while (pos < pattern.length) {
      const char = pattern[pos++];
      if (inBraces && char === '}') return `${out})`;
      if (char === '*') {
        if (pattern[pos] === '*') {
          pos++;
          out += '.*';
        } else {
          out += `${NOT_SEPARATOR}*`;
        }
      } else if (char === '?') out += NOT_SEPARATOR;
      else if (char === '[') out += chars();
      else if (char === '{') out += `(?:${sequence(true)}`;
      else if (char === ',' && inBraces) out += '|';
      else if (char === '\\') out += escapeNext();
      else if (REGEXP_LITERALS.has(char)) out += `\\${char}`;
      else out += char;
    }
    if (inBraces) throw new GlobSyntaxError('unterminated alternatives');
    return out;
  };
  return `^${sequence(false)}$`;
}

function literal(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 's');
}

/** A predicate telling whether a branch name falls under the rule. */
export function ruleNameMatcher(ruleName: string): (branch: string) => boolean {
  if (!isGlobRuleName(ruleName)) {
    const lower = ruleName.toLowerCase();
    return (branch) => branch.toLowerCase() === lower;
  }
  let regexp: RegExp;
  try {
    regexp = new RegExp(globSource([...ruleName]), 's');
  } catch {
    regexp = literal(ruleName);
  }
  return (branch) => regexp.test(branch);
}
