/** CommitService: history pages and single commits, through the git CLI (log.ts). */
import type { CommitServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { addStats, countCommits, listCommitShas, readCommits, type HistoryFilter } from '../git/log';
import { openRepository } from '../git/open-repository';
import { normalizeRepoPath } from '../git/paths';
import { lookupRevision, resolveRevision } from '../git/revisions';
import { addVerifications } from './commit-verification';
import type { GitStorageContext } from './context';

export function createCommitService(context: GitStorageContext): AsyncServiceOf<typeof CommitServiceService> {
  return {
    async listCommits(request, ctx) {
      const path = normalizeRepoPath(request.path);
      const gitDir = await openRepository(context.root, request.repository);
      // On an empty repository this is FAILED_PRECONDITION (Gitea: 409 "Git Repository is empty.").
      const tip = await resolveRevision(gitDir, request.revision);
      const filter: HistoryFilter = { tip: tip.sha, path, since: request.since, until: request.until };
      const skip = request.limit > 0 ? (Math.max(request.page, 1) - 1) * request.limit : 0;
      const [shas, total] = await Promise.all([listCommitShas(gitDir, filter, skip, request.limit), countCommits(gitDir, filter)]);
      const commits = await readCommits(gitDir, shas);
      if (request.withStats) await addStats(gitDir, commits);
      if (request.withVerification) await addVerifications(context, commits, ctx.signal);
      return { commits, total };
    },

    async getCommit(request, ctx) {
      const gitDir = await openRepository(context.root, request.repository);
      // Unknown revisions are NOT_FOUND here even on an empty repository (Gitea's GET git/commits/{sha}).
      const resolved = await lookupRevision(gitDir, request.revision);
      if (resolved === undefined) throw CairnError.notFound(`commit "${request.revision}" does not exist`, { reason: 'revision_not_found' });
      const [commit] = await readCommits(gitDir, [resolved.sha]);
      if (commit !== undefined && request.withStats) await addStats(gitDir, [commit]);
      if (commit !== undefined && request.withVerification) await addVerifications(context, [commit], ctx.signal);
      return { commit };
    },
  };
}
