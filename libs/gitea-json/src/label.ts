/**
 * issues' labels → Gitea's `Label` (services/convert/issue.go ToLabel): the colour without '#', and `url` under the
 * repository's or the organization's API path.
 */
import type { Label } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { repoApiUrl } from './repository';

export interface ApiLabel {
  id: number;
  name: string;
  exclusive: boolean;
  is_archived: boolean;
  color: string;
  description: string;
  url: string;
}

/** Where a label lives: its repository's API URL, or its organization's name. */
export type LabelHome = { repoApiUrl: string } | { rootUrl: string; orgName: string };

function labelUrl(home: LabelHome, id: number): string {
  return 'repoApiUrl' in home ? `${home.repoApiUrl}/labels/${id}` : `${home.rootUrl}api/v1/orgs/${encodeURIComponent(home.orgName)}/labels/${id}`;
}

export function toApiLabel(label: Label, home: LabelHome): ApiLabel {
  return {
    id: label.id,
    name: label.name,
    exclusive: label.exclusive,
    is_archived: label.isArchived,
    color: label.color.replace(/^#/, ''),
    description: label.description,
    url: labelUrl(home, label.id),
  };
}

/**
 * A label as a repository shows it (an issue's labels, Gitea's ToLabelList(labels, repo, owner)): its own labels
 * under the repository, its organization's under the organization.
 */
export function toApiRepoLabel(label: Label, rootUrl: string, repository: Pick<Repository, 'ownerName' | 'name'>): ApiLabel {
  return toApiLabel(label, label.orgId > 0 ? { rootUrl, orgName: repository.ownerName } : { repoApiUrl: repoApiUrl(rootUrl, repository) });
}
