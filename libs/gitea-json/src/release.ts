/**
 * repos' releases → Gitea's `Release` (services/convert/release.go `ToAPIRelease`). The publisher is shaped as
 * Gitea's `ToUser(ctx, publisher, nil)` shapes it (as for an anonymous caller), the Ghost user when the account is
 * gone; a list's publishers arrive in one accounts batch. Archive links are the web routes of the tag.
 */
import { goTime } from '@cairn/http';
import type { Release } from '@cairn/proto/cairn/repos/v1/releases_service';
import type { ConvertWith } from './services';
import { type ApiAttachment, toApiAttachment } from './attachment';
import type { RepoLinks } from './commit';
import { ghostUser } from './ghost-user';
import { type ApiUser, toApiUser } from './user';

/** Gitea's `Release`, keys in Gitea's order. */
export interface ApiRelease {
  id: number;
  tag_name: string;
  target_commitish: string;
  name: string;
  body: string;
  url: string;
  html_url: string;
  tarball_url: string;
  zipball_url: string;
  upload_url: string;
  draft: boolean;
  prerelease: boolean;
  created_at: string;
  published_at: string;
  author: ApiUser;
  assets: ApiAttachment[];
}

/** Gitea's util.PathEscapeSegments: each `/`-separated segment escaped, the slashes kept. */
function pathSegments(name: string): string {
  return name.split('/').map(encodeURIComponent).join('/');
}

export async function toApiReleases(services: ConvertWith<'users'>, releases: readonly Release[], links: RepoLinks): Promise<ApiRelease[]> {
  const { rootUrl } = services.config.server;
  const ids = [...new Set(releases.map((release) => release.publisherId).filter((id) => id > 0))];
  const { users } = ids.length === 0 ? { users: [] } : await services.clients.users.batchGetUsers({ ids, viewer: undefined });
  const publishers = new Map(users.map((user) => [user.id, toApiUser(user, { rootUrl })]));
  const ghost = ghostUser(rootUrl, undefined, services.config.service.noReplyAddress);
  return releases.map((release) => {
    const api = `${links.api}/releases/${release.id}`;
    const tag = pathSegments(release.tagName);
    const created = goTime(release.created);
    return {
      id: release.id,
      tag_name: release.tagName,
      target_commitish: release.targetCommitish,
      name: release.name,
      body: release.body,
      url: api,
      html_url: `${links.html}/releases/tag/${tag}`,
      tarball_url: `${links.html}/archive/${tag}.tar.gz`,
      zipball_url: `${links.html}/archive/${tag}.zip`,
      upload_url: `${api}/assets`,
      draft: release.draft,
      prerelease: release.prerelease,
      created_at: created,
      published_at: created,
      author: publishers.get(release.publisherId) ?? ghost,
      assets: release.assets.map((attachment) => toApiAttachment(attachment, rootUrl)),
    };
  });
}

export async function toApiRelease(services: ConvertWith<'users'>, release: Release, links: RepoLinks): Promise<ApiRelease> {
  const [converted] = await toApiReleases(services, [release], links);
  return converted;
}
