/**
 * git-storage's tags → Gitea's `Tag` (services/convert/convert.go `ToTag`). A lightweight tag reads as Gitea reads
 * it: the commit's message and committer time stand in for the tag's.
 */
import type { Tag } from '@cairn/proto/cairn/git/v1/git_service';
import { type ApiCommitMeta, type RepoLinks, signatureTime } from './commit';

/** Gitea's `Tag`. */
export interface ApiTag {
  name: string;
  message: string;
  id: string;
  commit: ApiCommitMeta;
  zipball_url: string;
  tarball_url: string;
}

export function toApiTag(tag: Tag, links: RepoLinks): ApiTag {
  const { commit } = tag;
  if (commit === undefined) throw new Error(`git-storage answered tag ${tag.name} without its commit`);
  const message = tag.annotated ? tag.message : commit.message;
  const archive = `${links.html}/archive/${tag.name.split('/').map(encodeURIComponent).join('/')}`;
  return {
    name: tag.name,
    message: message.trim(),
    id: tag.id,
    commit: {
      url: `${links.api}/git/commits/${encodeURIComponent(commit.sha)}`,
      sha: commit.sha,
      created: signatureTime(tag.annotated ? tag.tagger : commit.committer),
    },
    zipball_url: `${archive}.zip`,
    tarball_url: `${archive}.tar.gz`,
  };
}
