/**
 * Token scopes as routes enforce them (Gitea's `tokenRequiresScopes`, models/auth/access_token_scope.go):
 * a route belongs to categories; GET/HEAD need `read:<category>`, every other method `write:<category>`;
 * `write:X` implies `read:X` and `all` grants everything. Only requests authenticated by a token are
 * checked — a password carries no scope.
 */

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

export type ScopeCategory = (typeof SCOPE_CATEGORIES)[number];

export const SCOPE_ALL = 'all';

/** The level a method needs: reading for GET/HEAD (and OPTIONS), writing for the rest. */
export function scopeLevelFor(method: string): 'read' | 'write' {
  return ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase()) ? 'write' : 'read';
}

/** The scopes a request with `method` needs on a route of `categories`, e.g. `["write:user"]`. */
export function requiredScopes(method: string, categories: readonly ScopeCategory[]): string[] {
  const level = scopeLevelFor(method);
  return categories.map((category) => `${level}:${category}`);
}

/** Whether a token's scopes grant one required scope (`read:x` or `write:x`). */
export function grantsScope(tokenScopes: readonly string[], required: string): boolean {
  const [level, category] = required.split(':');
  const implied = level === 'read' ? `write:${category}` : required;
  // Loops rather than flatMap/some: every request with a token checks this.
  for (const entry of tokenScopes) {
    for (const scope of entry.split(',')) {
      if (scope === SCOPE_ALL || scope === required || scope === implied) return true;
    }
  }
  return false;
}

export type ScopeCheck = { allowed: true } | { allowed: false; message: string };

/**
 * Checks a token against a route. Every required scope must be granted (Gitea's `HasScope`, despite the
 * wording of its message). The refusal carries Gitea's 403 message, e.g.
 * `token does not have at least one of required scope(s), required=[write:user], token scope=read:user`.
 */
export function checkTokenScopes(
  tokenScopes: readonly string[],
  method: string,
  categories: readonly ScopeCategory[],
): ScopeCheck {
  const required = requiredScopes(method, categories);
  if (required.every((scope) => grantsScope(tokenScopes, scope))) return { allowed: true };
  return {
    allowed: false,
    message: `token does not have at least one of required scope(s), required=[${required.join(' ')}], token scope=${tokenScopes.join(',')}`,
  };
}
