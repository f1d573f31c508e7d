/** The repos gRPC server: RepoService, CollaboratorService, TopicService, BranchProtectionService, CommitStatusService. */
import type { Logger } from '@cairn/log';
import {
  BranchProtectionServiceService,
  CollaboratorServiceService,
  CommitStatusServiceService,
  RepoServiceService,
  TopicServiceService,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import { createBranchProtectionService } from './rpc/branch-protection-service';
import { createCollaboratorService } from './rpc/collaborator-service';
import { createCommitStatusService } from './rpc/commit-status-service';
import type { ReposContext } from './rpc/context';
import { createRepoService } from './rpc/repo-service';
import { createTopicService } from './rpc/topic-service';

export function createReposServer(context: ReposContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'repos', logger });
  server.addService(RepoServiceService, createRepoService(context));
  server.addService(CollaboratorServiceService, createCollaboratorService(context));
  server.addService(TopicServiceService, createTopicService(context));
  server.addService(BranchProtectionServiceService, createBranchProtectionService(context));
  server.addService(CommitStatusServiceService, createCommitStatusService(context));
  return server;
}
