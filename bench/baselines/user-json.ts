/**
 * The user baseline's row → JSON: the accounts columns `GET /user` shows, written as the gateway writes a
 * user viewed by themself (libs/gitea-json/src/user.ts `toApiUser`, keys in the same order).
 */
import { createHash } from 'node:crypto';
import { GO_ZERO_TIME, goTime } from './gitea-json';

export const USER_COLUMNS = [
  'id', 'name', 'full_name', 'email', 'login_name', 'source_id', 'is_admin', 'is_active', 'prohibit_login',
  'restricted', 'visibility', 'language', 'location', 'website', 'description', 'last_login', 'created_at',
] as const;

/** A row of `accounts.users` as `pg` returns it (int8 as text). */
export interface UserRow {
  id: string;
  name: string;
  full_name: string;
  email: string;
  login_name: string;
  source_id: string;
  is_admin: boolean;
  is_active: boolean;
  prohibit_login: boolean;
  restricted: boolean;
  visibility: string;
  language: string;
  location: string;
  website: string;
  description: string;
  last_login: Date | null;
  created_at: Date;
}

/** `rootUrl` ends with "/". */
export function toApiUser(row: UserRow, rootUrl: string): Record<string, unknown> {
  const id = Number(row.id);
  return {
    id,
    login: row.name,
    login_name: row.login_name,
    source_id: Number(row.source_id),
    full_name: row.full_name,
    email: row.email,
    avatar_url: `${rootUrl}avatars/${createHash('md5').update(`user:${id}`).digest('hex')}`,
    html_url: `${rootUrl}${encodeURIComponent(row.name)}`,
    language: row.language,
    is_admin: row.is_admin,
    last_login: row.last_login === null || row.last_login.getTime() <= 0 ? GO_ZERO_TIME : goTime(row.last_login),
    created: goTime(row.created_at),
    restricted: row.restricted,
    active: row.is_active,
    prohibit_login: row.prohibit_login,
    location: row.location,
    website: row.website,
    description: row.description,
    visibility: row.visibility === '' ? 'public' : row.visibility,
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: row.name,
  };
}
