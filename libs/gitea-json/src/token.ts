/** accounts' AccessToken → Gitea's `AccessToken` JSON (routers/api/v1/user/app.go). */
import { goTime } from '@cairn/http';
import type { AccessToken } from '@cairn/proto/cairn/accounts/v1/accounts_service';

export interface ApiAccessToken {
  id: number;
  name: string;
  /** The secret: only in the answer that creates the token, "" everywhere else. */
  sha1: string;
  token_last_eight: string;
  scopes: string[];
  created_at: string;
  last_used_at: string;
}

export function toApiAccessToken(token: AccessToken, secret = ''): ApiAccessToken {
  return {
    id: token.id,
    name: token.name,
    sha1: secret,
    token_last_eight: token.tokenLastEight,
    scopes: token.scopes,
    created_at: goTime(token.createdAt),
    // Gitea's value is the row's update time, which is the creation time until the token is first used.
    last_used_at: goTime(token.lastUsedAt ?? token.createdAt),
  };
}
