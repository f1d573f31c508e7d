/**
 * accounts' User → Gitea's `User` JSON (services/convert/user.go `toUser`). accounts has already shaped the
 * user for the caller (placeholder e-mail, blank account details for others), so this is a plain mapping.
 */
import { createHash } from 'node:crypto';
import { GO_ZERO_TIME, goTime } from '@cairn/http';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';

/** Gitea's `api.User`, keys in Gitea's order (`username` last, as its MarshalJSON adds it). */
export interface ApiUser {
  id: number;
  login: string;
  login_name: string;
  source_id: number;
  full_name: string;
  email: string;
  avatar_url: string;
  html_url: string;
  language: string;
  is_admin: boolean;
  last_login: string;
  created: string;
  restricted: boolean;
  active: boolean;
  prohibit_login: boolean;
  location: string;
  website: string;
  description: string;
  visibility: string;
  followers_count: number;
  following_count: number;
  starred_repos_count: number;
  username: string;
}

/**
 * Counters owned by the social service (follows, stars). The user routes fetch the star counts for a whole page
 * (social/user-counts.ts); users embedded in other objects (owners, posters) and the follow counts (no follows
 * are stored yet) report zero.
 */
export interface SocialCounts {
  followers: number;
  following: number;
  starredRepos: number;
}

export const NO_SOCIAL_COUNTS: SocialCounts = Object.freeze({ followers: 0, following: 0, starredRepos: 0 });

export interface UserViewOptions {
  /** ROOT_URL, ending with "/". */
  rootUrl: string;
  social?: SocialCounts;
}

/** A stable avatar address that reveals nothing about the account (not even an e-mail hash); organizations too. */
export function avatarUrl(rootUrl: string, user: { id: number }): string {
  return `${rootUrl}avatars/${createHash('md5').update(`user:${user.id}`).digest('hex')}`;
}

/** accounts sends no time or the Unix epoch for "never signed in"; Gitea shows Go's zero time. */
function lastLoginTime(date: Date | undefined): string {
  return date === undefined || date.getTime() <= 0 ? GO_ZERO_TIME : goTime(date);
}

export function toApiUser(user: User, options: UserViewOptions): ApiUser {
  const social = options.social ?? NO_SOCIAL_COUNTS;
  return {
    id: user.id,
    login: user.login,
    login_name: user.loginName,
    source_id: user.sourceId,
    full_name: user.fullName,
    email: user.email,
    avatar_url: avatarUrl(options.rootUrl, user),
    html_url: `${options.rootUrl}${encodeURIComponent(user.login)}`,
    language: user.language,
    is_admin: user.isAdmin,
    last_login: lastLoginTime(user.lastLogin),
    created: goTime(user.created),
    restricted: user.restricted,
    active: user.active,
    prohibit_login: user.prohibitLogin,
    location: user.location,
    website: user.website,
    description: user.description,
    visibility: user.visibility === '' ? 'public' : user.visibility,
    followers_count: social.followers,
    following_count: social.following,
    starred_repos_count: social.starredRepos,
    username: user.login,
  };
}

/** Gitea's `api.UserSettings` (convert.User2UserSettings), keys in Gitea's order. */
export interface ApiUserSettings {
  full_name: string;
  website: string;
  description: string;
  location: string;
  language: string;
  theme: string;
  diff_view_style: string;
  hide_email: boolean;
  hide_activity: boolean;
  /**
   * Cairn's addition (docs/api.md): Gitea's EmailNotificationsPreference, which Gitea sets on its web settings
   * page only — `enabled`, `onmention`, `disabled` or `andyourown`.
   */
  email_notifications_preference: string;
}

export function toApiUserSettings(user: User): ApiUserSettings {
  return {
    full_name: user.fullName,
    website: user.website,
    description: user.description,
    location: user.location,
    language: user.language,
    theme: user.theme,
    diff_view_style: user.diffViewStyle,
    hide_email: user.keepEmailPrivate,
    hide_activity: user.keepActivityPrivate,
    email_notifications_preference: user.emailNotificationsPreference,
  };
}
