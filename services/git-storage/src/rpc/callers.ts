/**
 * Who may call each of git-storage's RPCs (`@cairn/rpc` authorize.ts): the gateway for what the API serves, the CLI
 * for what it does, and the services that call them. `asAnyone` names the services that may call for a user no edge
 * asserted (from events, or as the system): every other caller may only act for the user the edge asserted.
 */
import type { Callers } from '@cairn/rpc';
import type { AnalysisServiceService, CommitServiceService, ContentServiceService, MergeServiceService, RefServiceService, RemoteServiceService, RepositoryServiceService, SmartHttpServiceService } from '@cairn/proto/cairn/git/v1/git_service';

export const ANALYSIS_CALLERS: Callers<typeof AnalysisServiceService> = {
  getLanguageStats: ['gateway'],
  detectLicenses: ['repos'],
};

export const COMMIT_CALLERS: Callers<typeof CommitServiceService> = {
  listCommits: ['gateway', 'hooks'],
  getCommit: ['gateway', 'hooks'],
};

export const CONTENT_CALLERS: Callers<typeof ContentServiceService> = {
  getTreeEntry: ['gateway'],
  getBlob: ['gateway'],
  writeFiles: ['gateway'],
  getArchive: ['gateway'],
};

export const MERGE_CALLERS: Callers<typeof MergeServiceService> = {
  syncPullHead: ['issues'],
  checkMerge: ['issues'],
  listCommitsBetween: ['gateway', 'issues', 'hooks'],
  listChangedFiles: ['gateway', 'issues', 'hooks'],
  getDiff: ['gateway', 'issues'],
  merge: ['issues'],
  isAncestor: ['issues'],
  updateBranch: ['issues'],
  findMergeCommit: ['issues'],
  // The migrations service's task runner sets up imported pull requests' heads (as the system).
  importPullHeads: { callers: ['migrations'], asAnyone: ['migrations'] },
};

export const REF_CALLERS: Callers<typeof RefServiceService> = {
  listBranches: ['gateway'],
  getBranch: ['gateway', 'repos', 'issues', 'hooks'],
  createBranch: ['gateway'],
  deleteBranch: ['gateway', 'issues'],
  renameBranch: ['gateway'],
  listTags: ['gateway'],
  getTag: ['gateway', 'repos'],
  createTag: ['gateway', 'repos'],
  deleteTag: ['gateway'],
  resolveRevision: ['gateway'],
  resolveRefPath: ['gateway'],
};

/** The migrations service imports repositories and syncs pull and push mirrors (from its task runner: as the system). */
export const REMOTE_CALLERS: Callers<typeof RemoteServiceService> = {
  fetchRemote: { callers: ['migrations'], asAnyone: ['migrations'] },
  pushRemote: { callers: ['migrations'], asAnyone: ['migrations'] },
  // A restore's git data, as the task's doer (the first site admin), from the migrations task runner.
  fetchBundle: { callers: ['migrations'], asAnyone: ['migrations'] },
};

export const REPOSITORY_CALLERS: Callers<typeof RepositoryServiceService> = {
  createRepository: ['gateway', 'repos'],
  forkRepository: ['gateway', 'repos'],
  deleteRepository: ['gateway', 'repos'],
  getRepositoryInfo: ['repos'],
  setDefaultBranch: ['repos'],
  listTemplates: ['gateway', 'repos'],
};

export const SMART_HTTP_CALLERS: Callers<typeof SmartHttpServiceService> = {
  infoRefs: ['gateway'],
  uploadPack: ['gateway'],
  receivePack: ['gateway'],
};
