/**
 * ImportService (proto/cairn/issues/v1/import_service.proto): a migrated repository's labels, milestones, issues and
 * comments, as Gitea's services/migrations/gitea_uploader.go CreateLabels, CreateMilestones, CreateIssues and
 * CreateComments write them (pull requests and reviews: import-pulls.ts). Each batch is one transaction under the repository's import lock; what the repository
 * already has (same name, title, number or source comment id) is left alone, so a resumed import may resend a batch.
 */
import { ImportServiceService } from '@cairn/proto/cairn/issues/v1/import_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { labelValues } from '../domain/label-values';
import { milestoneTitle } from '../domain/milestone-values';
import {
  existingLabelNames,
  existingMilestoneTitles,
  importedComments,
  insertImportedComments,
  insertImportedIssue,
  insertImportedLabels,
  insertImportedMilestones,
  issueIdsByIndex,
  labelIdsByName,
  lockRepoForImport,
  milestoneIdsByTitle,
  raiseIssueIndex,
} from '../store/imports';
import type { IssuesContext } from './context';
import { guard } from './guard';
import { authorColumns, importedTitle, requireRepo } from './import-values';
import { createPullImports } from './import-pulls';

export function createImportService(context: IssuesContext): AsyncServiceOf<typeof ImportServiceService> {
  const { db } = context;
  return {
    ...createPullImports(context),

    async importLabels(request) {
      requireRepo(request.repoId);
      const values = request.labels.map((label) => labelValues({ ...label, archived: false }));
      return guard(() =>
        db.pool.transaction(async (tx) => {
          await lockRepoForImport(tx, request.repoId);
          const existing = await existingLabelNames(tx, request.repoId, values.map((label) => label.name));
          const fresh = values.filter((label) => !existing.has(label.name) && existing.add(label.name));
          await insertImportedLabels(tx, request.repoId, fresh);
          return { created: fresh.length };
        }),
      );
    },

    async importMilestones(request) {
      requireRepo(request.repoId);
      const values = request.milestones.map((m) => {
        const created = m.created ?? new Date();
        return {
          title: milestoneTitle(m.title),
          description: m.description,
          isClosed: m.isClosed,
          created,
          updated: m.updated ?? created,
          // Gitea's uploader: a closed milestone without a closed time is closed when it was last updated.
          closedAt: m.isClosed ? (m.closed ?? m.updated ?? created) : null,
          dueOn: m.deadline ?? null,
        };
      });
      return guard(() =>
        db.pool.transaction(async (tx) => {
          await lockRepoForImport(tx, request.repoId);
          const existing = await existingMilestoneTitles(tx, request.repoId, values.map((m) => m.title));
          const fresh = values.filter((m) => !existing.has(m.title) && existing.add(m.title));
          await insertImportedMilestones(tx, request.repoId, fresh);
          return { created: fresh.length };
        }),
      );
    },

    async importIssues(request) {
      requireRepo(request.repoId);
      const issues = request.issues.map((issue) => {
        if (!Number.isSafeInteger(issue.index) || issue.index <= 0) throw CairnError.invalid('an imported issue needs its number', { reason: 'issue_index_required' });
        const created = issue.created ?? new Date();
        return { ...issue, title: importedTitle(issue.title), author: authorColumns(issue.poster), created, updated: issue.updated ?? created };
      });
      return guard(() =>
        db.pool.transaction(async (tx) => {
          await lockRepoForImport(tx, request.repoId);
          const indexes = issues.map((issue) => issue.index);
          const ids = await issueIdsByIndex(tx, request.repoId, indexes);
          const labels = await labelIdsByName(tx, request.repoId, [...new Set(issues.flatMap((issue) => issue.labels))]);
          const milestones = await milestoneIdsByTitle(tx, request.repoId, [...new Set(issues.map((issue) => issue.milestone).filter((title) => title !== ''))]);
          let created = 0;
          for (const issue of issues) {
            if (ids.has(issue.index)) continue;
            const id = await insertImportedIssue(tx, request.repoId, {
              index: issue.index,
              ...issue.author,
              title: issue.title,
              body: issue.body,
              ref: issue.ref,
              isClosed: issue.isClosed,
              isLocked: issue.isLocked,
              milestoneId: milestones.get(issue.milestone) ?? null,
              created: issue.created,
              updated: issue.updated,
              closedAt: issue.isClosed ? (issue.closed ?? issue.updated) : null,
              labelIds: [...new Set(issue.labels.flatMap((name) => labels.get(name) ?? []))],
              assigneeIds: [...new Set(issue.assigneeIds.filter((id) => Number.isSafeInteger(id) && id > 0))],
            });
            ids.set(issue.index, id);
            created += 1;
          }
          if (indexes.length > 0) await raiseIssueIndex(tx, request.repoId, Math.max(...indexes));
          return { issues: indexes.map((index) => ({ index, id: ids.get(index) ?? 0 })), created };
        }),
      );
    },

    async importComments(request) {
      requireRepo(request.repoId);
      const comments = request.comments.map((comment) => {
        if (!Number.isSafeInteger(comment.sourceId) || comment.sourceId <= 0) {
          throw CairnError.invalid('an imported comment needs its source id', { reason: 'comment_source_required' });
        }
        const created = comment.created ?? new Date();
        return { ...comment, author: authorColumns(comment.poster), created, updated: comment.updated ?? created };
      });
      return guard(() =>
        db.pool.transaction(async (tx) => {
          await lockRepoForImport(tx, request.repoId);
          const issueIds = await issueIdsByIndex(tx, request.repoId, [...new Set(comments.map((comment) => comment.issueIndex))]);
          const missing = comments.find((comment) => !issueIds.has(comment.issueIndex));
          if (missing !== undefined) {
            throw CairnError.precondition(`issue #${missing.issueIndex} has not been imported`, { reason: 'issue_not_imported' });
          }
          const inserted = await insertImportedComments(
            tx,
            request.repoId,
            comments.map((comment) => ({
              issueId: issueIds.get(comment.issueIndex) ?? 0,
              sourceId: comment.sourceId,
              ...comment.author,
              body: comment.body,
              created: comment.created,
              updated: comment.updated,
            })),
          );
          const all = await importedComments(tx, request.repoId, comments.map((comment) => comment.sourceId));
          return {
            comments: all.map((row) => ({ sourceId: row.source_id, id: row.id, issueId: row.issue_id })),
            created: inserted.length,
          };
        }),
      );
    },
  };
}
