/**
 * Whose labels a LabelService request is about and what the viewer may do with them. Repository labels follow the
 * repository's rules for labels and milestones (domain/tracker-access.ts). Organization labels are read by anyone
 * the gateway let see the organization and changed by those it found to be owners (Gitea's reqOrgOwnership),
 * named by `org_writer`.
 */
import type { LabelOwner } from '@cairn/proto/cairn/issues/v1/issues_service';
import { CairnError, type Viewer, viewerFromActor } from '@cairn/rpc';
import type { LabelOwnerRef } from '../store/labels';
import { trackerReader, trackerWriter } from './tracker-access';

export const ORG_OWNER_REQUIRED = 'Must be an organization owner';

export interface LabelPlace {
  owner: LabelOwnerRef;
  viewer: Viewer;
  /** A repository's labels: the repository is private (events say so). */
  repoPrivate: boolean;
}

/** The owner of a request's labels, once the viewer may read them (a hidden repository is NOT_FOUND). */
export function readablePlace(owner: LabelOwner | undefined): LabelPlace {
  if (owner !== undefined && owner.orgId > 0) {
    if (owner.scope?.repository !== undefined) throw CairnError.invalid('owner names both a repository and an organization');
    return { owner: { orgId: owner.orgId }, viewer: viewerFromActor(owner.scope?.viewer), repoPrivate: false };
  }
  const access = trackerReader(owner?.scope);
  return { owner: { repoId: access.repository.id }, viewer: access.viewer, repoPrivate: access.repository.private };
}

/** The owner of a request's labels, once the viewer may change them; the viewer is signed in. */
export function writablePlace(owner: LabelOwner | undefined): LabelPlace {
  if (owner !== undefined && owner.orgId > 0) {
    const place = readablePlace(owner);
    if (place.viewer.id <= 0) throw CairnError.unauthenticated('token is required');
    if (!owner.orgWriter) throw CairnError.denied(ORG_OWNER_REQUIRED);
    return place;
  }
  const access = trackerWriter(owner?.scope);
  return { owner: { repoId: access.repository.id }, viewer: access.viewer, repoPrivate: access.repository.private };
}
