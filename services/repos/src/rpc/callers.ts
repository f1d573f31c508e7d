/**
 * Who may call each of repos's RPCs (`@cairn/rpc` authorize.ts): the gateway for what the API serves, the CLI
 * for what it does, and the services that call them. `asAnyone` names the services that may call for a user no edge
 * asserted (from events, or as the system): every other caller may only act for the user the edge asserted.
 */
import type { Callers } from '@cairn/rpc';
import type { TagProtectionServiceService } from '@cairn/proto/cairn/repos/v1/tag_protections_service';
import type { AttachmentServiceService, ReleaseServiceService } from '@cairn/proto/cairn/repos/v1/releases_service';
import type { ImportServiceService } from '@cairn/proto/cairn/repos/v1/import_service';
import type { BranchProtectionServiceService, CollaboratorServiceService, CommitStatusServiceService, RepoServiceService, TopicServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';

export const ATTACHMENT_CALLERS: Callers<typeof AttachmentServiceService> = {
  reserveAttachment: ['gateway'],
  createAttachment: ['gateway'],
  listAttachments: ['gateway'],
  getAttachment: ['gateway'],
  updateAttachment: ['gateway'],
  deleteAttachment: ['gateway'],
  openAttachment: ['gateway'],
  batchListAttachments: { callers: ['gateway', 'hooks'], asAnyone: ['hooks'] },
};

export const BRANCH_PROTECTION_CALLERS: Callers<typeof BranchProtectionServiceService> = {
  listBranchProtections: ['gateway'],
  getBranchProtection: ['gateway'],
  createBranchProtection: ['gateway'],
  updateBranchProtection: ['gateway'],
  deleteBranchProtection: ['gateway'],
  setBranchProtectionPriority: ['gateway'],
  matchBranchProtection: { callers: ['gateway', 'issues'], asAnyone: ['issues'] },
};

export const COLLABORATOR_CALLERS: Callers<typeof CollaboratorServiceService> = {
  listCollaborators: ['gateway'],
  isCollaborator: ['gateway'],
  addCollaborator: ['gateway'],
  removeCollaborator: ['gateway'],
  getUserPermission: ['gateway'],
  // notifications asks, from events, which of an issue's audience may still read it.
  batchGetUserPermissions: { callers: ['issues', 'notifications'], asAnyone: ['notifications'] },
  listRepoTeams: ['gateway', 'issues'],
  getRepoTeam: ['gateway'],
  addRepoTeam: ['gateway'],
  removeRepoTeam: ['gateway'],
  listTeamRepositories: ['gateway'],
};

export const COMMIT_STATUS_CALLERS: Callers<typeof CommitStatusServiceService> = {
  createCommitStatus: ['gateway'],
  listCommitStatuses: ['gateway'],
  getCombinedStatus: { callers: ['gateway', 'issues'], asAnyone: ['issues'] },
};

export const REPO_CALLERS: Callers<typeof RepoServiceService> = {
  // migrations creates an import's repository for the actor the gateway asserted; its task runner, which goes on
  // after a restart, reads, edits (the default branch) and deletes (a failed import) it as the import's doer.
  createRepository: ['gateway', 'migrations'],
  getRepository: { callers: ['gateway', 'issues', 'migrations'], asAnyone: ['issues', 'migrations'] },
  // hooks reads the repositories of events as a site admin (payloads carry owner-level permission).
  // notifications too, for the repository's name in issue mail.
  batchGetRepositories: { callers: ['gateway', 'hooks', 'notifications'], asAnyone: ['hooks', 'notifications'] },
  updateRepository: { callers: ['gateway', 'migrations'], asAnyone: ['migrations'] },
  deleteRepository: { callers: ['gateway', 'accounts', 'migrations'], asAnyone: ['accounts', 'migrations'] },
  searchRepositories: ['gateway'],
  listOwnerRepositories: { callers: ['gateway', 'accounts'], asAnyone: ['accounts'] },
  countOwnerRepositories: ['accounts'],
  listAccessibleRepositories: ['gateway'],
  filterReadable: ['gateway', 'notifications'],
  listReadableRepositoryIds: ['gateway'],
  forkRepository: ['gateway'],
  listForks: ['gateway'],
  transferRepository: ['gateway'],
  acceptTransfer: ['gateway'],
  rejectTransfer: ['gateway'],
  getPushPolicy: ['gateway'],
  recordMirrorSync: { callers: ['migrations'], asAnyone: ['migrations'] },
};

export const TAG_PROTECTION_CALLERS: Callers<typeof TagProtectionServiceService> = {
  listTagProtections: ['gateway'],
  getTagProtection: ['gateway'],
  createTagProtection: ['gateway'],
  updateTagProtection: ['gateway'],
  deleteTagProtection: ['gateway'],
  checkTagControl: ['gateway'],
};

export const TOPIC_CALLERS: Callers<typeof TopicServiceService> = {
  listTopics: ['gateway'],
  // migrations: a migrated repository's topics (Gitea's uploader CreateTopics), acting for the importing user.
  replaceTopics: { callers: ['gateway', 'migrations'], asAnyone: ['migrations'] },
  addTopic: ['gateway'],
  deleteTopic: ['gateway'],
  searchTopics: ['gateway'],
};

export const RELEASE_CALLERS: Callers<typeof ReleaseServiceService> = {
  listReleases: ['gateway'],
  getRelease: ['gateway'],
  getReleaseByTag: ['gateway'],
  getLatestRelease: ['gateway'],
  createRelease: ['gateway'],
  updateRelease: ['gateway'],
  deleteRelease: ['gateway'],
};

/** The migrations service alone takes a migrated repository's releases in. */
export const IMPORT_CALLERS: Callers<typeof ImportServiceService> = {
  importReleases: ['migrations'],
};
