/** The git-storage gRPC server: every service of proto/cairn/git/v1/git_service.proto on one RpcServer. */
import type { Logger } from '@cairn/log';
import {
  AnalysisServiceService,
  CommitServiceService,
  ContentServiceService,
  MergeServiceService,
  RefServiceService,
  RemoteServiceService,
  RepositoryServiceService,
  SmartHttpServiceService,
} from '@cairn/proto/cairn/git/v1/git_service';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import type { HookServer } from './push/hook-server';
import { createAnalysisService } from './rpc/analysis-service';
import { createCommitService } from './rpc/commit-service';
import { createContentService } from './rpc/content-service';
import type { GitStorageContext } from './rpc/context';
import { createMergeService } from './rpc/merge-service';
import { createRefService } from './rpc/ref-service';
import { createRemoteService } from './rpc/remote-service';
import { createRepositoryService } from './rpc/repository-service';
import { createSmartHttpService } from './rpc/smart-http-service';
import { ANALYSIS_CALLERS, COMMIT_CALLERS, CONTENT_CALLERS, MERGE_CALLERS, REF_CALLERS, REMOTE_CALLERS, REPOSITORY_CALLERS, SMART_HTTP_CALLERS } from './rpc/callers';

export function createGitStorageServer(context: GitStorageContext, hooks: HookServer, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'git-storage', logger });
  server.addService(RepositoryServiceService, createRepositoryService(context), REPOSITORY_CALLERS);
  server.addService(SmartHttpServiceService, createSmartHttpService(context, hooks), SMART_HTTP_CALLERS);
  server.addService(RefServiceService, createRefService(context), REF_CALLERS);
  server.addService(CommitServiceService, createCommitService(context), COMMIT_CALLERS);
  server.addService(ContentServiceService, createContentService(context), CONTENT_CALLERS);
  server.addService(MergeServiceService, createMergeService(context), MERGE_CALLERS);
  server.addService(RemoteServiceService, createRemoteService(context), REMOTE_CALLERS);
  server.addService(AnalysisServiceService, createAnalysisService(context), ANALYSIS_CALLERS);
  return server;
}
