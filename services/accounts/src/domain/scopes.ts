/**
 * Access token scopes, with Gitea's names and normalisation (models/auth/access_token_scope.go):
 * `write:<category>` implies `read:<category>`, duplicates collapse, and write on every category is `all`.
 * The normal form lists `public-only` first, then one entry per category in Gitea's category order, so
 * equal scope sets always compare equal.
 */
import { tokenScopeEmpty, tokenScopeExceeded, tokenScopeInvalid } from './errors';

export const SCOPE_ALL = 'all';
export const SCOPE_PUBLIC_ONLY = 'public-only';

/** Gitea's category order; it fixes the order of the normal form. */
export const SCOPE_CATEGORIES = [
  'activitypub',
  'admin',
  'misc',
  'notification',
  'organization',
  'package',
  'issue',
  'repository',
  'user',
] as const;

type Level = 0 | 1 | 2; // none, read, write

interface ParsedScopes {
  publicOnly: boolean;
  levels: Level[]; // indexed like SCOPE_CATEGORIES
}

function parse(scopes: readonly string[]): ParsedScopes {
  const parsed: ParsedScopes = { publicOnly: false, levels: SCOPE_CATEGORIES.map((): Level => 0) };
  // Gitea joins the request's list with "," and splits it again, so "read:user,read:issue" is two scopes.
  for (const scope of scopes.flatMap((s) => s.split(','))) {
    if (scope === '') continue;
    if (scope === SCOPE_ALL) {
      parsed.levels = parsed.levels.map((): Level => 2);
      continue;
    }
    if (scope === SCOPE_PUBLIC_ONLY) {
      parsed.publicOnly = true;
      continue;
    }
    const match = /^(read|write):(.+)$/.exec(scope);
    const index = match === null ? -1 : (SCOPE_CATEGORIES as readonly string[]).indexOf(match[2]);
    if (match === null || index < 0) throw tokenScopeInvalid(scope);
    const level: Level = match[1] === 'write' ? 2 : 1;
    if (level > parsed.levels[index]) parsed.levels[index] = level;
  }
  return parsed;
}

/**
 * The normal form of `scopes`. Throws INVALID_ARGUMENT (reason `token_scope`) for an unknown scope or for
 * a list that grants nothing at all.
 */
export function normalizeScopes(scopes: readonly string[]): string[] {
  const { publicOnly, levels } = parse(scopes);
  const normal: string[] = publicOnly ? [SCOPE_PUBLIC_ONLY] : [];
  if (levels.every((level) => level === 2)) {
    normal.push(SCOPE_ALL);
  } else {
    levels.forEach((level, i) => {
      if (level > 0) normal.push(`${level === 2 ? 'write' : 'read'}:${SCOPE_CATEGORIES[i]}`);
    });
  }
  if (normal.length === 0) throw tokenScopeEmpty();
  return normal;
}

/**
 * Refuses `requested` unless it lies within `limit`, the scopes of the token the creator signed in with: every
 * category at most at the limit's level (`write:X` covers `read:X`, `all` covers everything), and `public-only`
 * whenever the limit has it. Gitea does not limit this (routers/api/v1/user/app.go `CreateAccessToken`); Cairn
 * does, so a token cannot mint a stronger one. Throws PERMISSION_DENIED (reason `token_scope_exceeded`).
 */
export function requireScopesWithin(requested: readonly string[], limit: readonly string[]): void {
  const wanted = parse(requested);
  const allowed = parse(limit);
  const within = (!allowed.publicOnly || wanted.publicOnly) && wanted.levels.every((level, i) => level <= allowed.levels[i]);
  if (!within) throw tokenScopeExceeded(normalizeScopes(requested), normalizeScopes(limit));
}
