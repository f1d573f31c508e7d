/**
 * accounts' User → Gitea's `User` JSON (services/convert/user.go `toUser`). What a viewer sees depends on
 * who they are: anonymous callers get a placeholder e-mail, and only the user themself or a site admin
 * get the account details (admin flag, login name and source, last login, language, active, prohibited).
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
 * Counters owned by the social service (follows, stars). Until the gateway fetches them with a batch call
 * to social, every user reports zero, as a user with no followers and no stars does.
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

/** Gitea's `[service] NO_REPLY_ADDRESS` default: `noreply.<DOMAIN>`, DOMAIN being ROOT_URL's host. */
function noReplyAddress(rootUrl: string): string {
  return `noreply.${new URL(rootUrl).hostname}`;
}

/** A stable avatar address that reveals nothing about the user (not even an e-mail hash). */
function avatarUrl(rootUrl: string, user: User): string {
  return `${rootUrl}avatars/${createHash('md5').update(`user:${user.id}`).digest('hex')}`;
}

/** accounts sends no time or the Unix epoch for "never signed in"; Gitea shows Go's zero time. */
function lastLoginTime(date: Date | undefined): string {
  return date === undefined || date.getTime() <= 0 ? GO_ZERO_TIME : goTime(date);
}

export function toApiUser(user: User, viewer: User | undefined, options: UserViewOptions): ApiUser {
  const signed = viewer !== undefined;
  const authed = viewer !== undefined && (viewer.id === user.id || viewer.isAdmin);
  const social = options.social ?? NO_SOCIAL_COUNTS;
  return {
    id: user.id,
    login: user.login,
    login_name: authed ? user.loginName : '',
    source_id: authed ? user.sourceId : 0,
    full_name: user.fullName,
    email: signed ? user.email : `${user.id}+${user.login.toLowerCase()}@${noReplyAddress(options.rootUrl)}`,
    avatar_url: avatarUrl(options.rootUrl, user),
    html_url: `${options.rootUrl}${encodeURIComponent(user.login)}`,
    language: authed ? user.language : '',
    is_admin: authed ? user.isAdmin : false,
    last_login: authed ? lastLoginTime(user.lastLogin) : GO_ZERO_TIME,
    created: goTime(user.created),
    restricted: user.restricted,
    active: authed ? user.active : false,
    prohibit_login: authed ? user.prohibitLogin : false,
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
