/**
 * Where a request's credentials are, in Gitea's order (services/auth/oauth2.go `parseToken`,
 * services/auth/basic.go, modules/auth/httpauth): the `token` / `access_token` query parameters (unless
 * `[security] DISABLE_QUERY_AUTH_TOKEN`), then `Authorization: token|bearer <T>`, then
 * `Authorization: Basic <base64(user:password)>`. A header that does not parse is no credential at all.
 */
import { type GoValues, goFormString } from '@cairn/http';

export type Credentials =
  | { kind: 'none' }
  | { kind: 'token'; token: string }
  | { kind: 'basic'; username: string; password: string };

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

type ParsedAuthorization = { kind: 'token'; token: string } | { kind: 'basic'; username: string; password: string };

/** httpauth.ParseAuthorizationHeader: exactly two fields, scheme case-insensitive, strict base64. */
export function parseAuthorization(header: string): ParsedAuthorization | undefined {
  const fields = header.trim().split(/\s+/);
  if (fields.length !== 2) return undefined;
  const [scheme, value] = fields;
  const lower = scheme.toLowerCase();
  if (lower === 'token' || lower === 'bearer') return { kind: 'token', token: value };
  if (lower !== 'basic' || !STRICT_BASE64.test(value)) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { kind: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Whether the query carries a token: Gitea then warns that this way of sending one is deprecated. */
export function hasQueryToken(query: GoValues): boolean {
  return goFormString(query, 'token') !== '' || goFormString(query, 'access_token') !== '';
}

/** `X-Gitea-Warning` sent when the query carries a token (routers/api/v1/api.go `checkDeprecatedAuthMethods`). */
export const QUERY_TOKEN_WARNING =
  'token and access_token API authentication is deprecated and will be removed in gitea 1.23. Please use AuthorizationHeaderToken instead. Existing queries will continue to work but without authorization.';

export function readCredentials(options: {
  authorization: string | undefined;
  query: GoValues;
  disableQueryAuthToken: boolean;
}): Credentials {
  if (!options.disableQueryAuthToken) {
    const token = goFormString(options.query, 'token') || goFormString(options.query, 'access_token');
    if (token !== '') return { kind: 'token', token };
  }
  const parsed = options.authorization === undefined ? undefined : parseAuthorization(options.authorization);
  return parsed ?? { kind: 'none' };
}
