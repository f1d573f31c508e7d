/**
 * The repos gRPC server: RepoService, CollaboratorService, TopicService, BranchProtectionService, CommitStatusService,
 * TagProtectionService, ReleaseService, AttachmentService, ImportService.
 */
import type { Logger } from '@cairn/log';
import {
  BranchProtectionServiceService,
  CollaboratorServiceService,
  CommitStatusServiceService,
  RepoServiceService,
  TopicServiceService,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { ImportServiceService } from '@cairn/proto/cairn/repos/v1/import_service';
import { TagProtectionServiceService } from '@cairn/proto/cairn/repos/v1/tag_protections_service';
import { AttachmentServiceService, ReleaseServiceService } from '@cairn/proto/cairn/repos/v1/releases_service';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import { createAttachmentService } from './rpc/attachment-service';
import { createBranchProtectionService } from './rpc/branch-protection-service';
import { createCollaboratorService } from './rpc/collaborator-service';
import { createCommitStatusService } from './rpc/commit-status-service';
import type { ReposContext } from './rpc/context';
import { createImportService } from './rpc/import-service';
import { createReleaseService } from './rpc/release-service';
import { createRepoService } from './rpc/repo-service';
import { createTagProtectionService } from './rpc/tag-protection-service';
import { createTopicService } from './rpc/topic-service';
import {
  ATTACHMENT_CALLERS,
  BRANCH_PROTECTION_CALLERS,
  COLLABORATOR_CALLERS,
  COMMIT_STATUS_CALLERS,
  IMPORT_CALLERS,
  RELEASE_CALLERS,
  REPO_CALLERS,
  TAG_PROTECTION_CALLERS,
  TOPIC_CALLERS,
} from './rpc/callers';

export function createReposServer(context: ReposContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'repos', logger });
  server.addService(RepoServiceService, createRepoService(context), REPO_CALLERS);
  server.addService(CollaboratorServiceService, createCollaboratorService(context), COLLABORATOR_CALLERS);
  server.addService(TopicServiceService, createTopicService(context), TOPIC_CALLERS);
  server.addService(BranchProtectionServiceService, createBranchProtectionService(context), BRANCH_PROTECTION_CALLERS);
  server.addService(CommitStatusServiceService, createCommitStatusService(context), COMMIT_STATUS_CALLERS);
  server.addService(TagProtectionServiceService, createTagProtectionService(context), TAG_PROTECTION_CALLERS);
  server.addService(ReleaseServiceService, createReleaseService(context), RELEASE_CALLERS);
  server.addService(AttachmentServiceService, createAttachmentService(context), ATTACHMENT_CALLERS);
  server.addService(ImportServiceService, createImportService(context), IMPORT_CALLERS);
  return server;
}
