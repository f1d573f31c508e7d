/**
 * LabelService (proto/cairn/issues/v1/issues_service.proto): repository and organization labels (Gitea's
 * routers/api/v1/repo/label.go, org/label.go) and the labels on an issue (repo/issue_label.go). Every change and
 * its event are written in one transaction.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import { LabelServiceService, type RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { keepLastOfEachScope, labelsAfterAdding } from '../domain/exclusive-labels';
import { readableIssue } from '../domain/issue-access';
import { readablePlace, writablePlace, type LabelPlace } from '../domain/label-owner';
import { labelValues } from '../domain/label-values';
import { pageWindow } from '../domain/paging';
import { type Access, accessOf, canWrite, requireNotArchived, requireSignedIn } from '../domain/permissions';
import { labelEntries } from '../domain/timeline-entries';
import { enqueueIssueLabeled, enqueueLabelEvent } from '../events/label-events';
import { Subject } from '../events/subjects';
import { attachLabels, detachLabels, labelsOfIssue, lockIssueForLabels } from '../store/issue-labels';
import { insertTimelineEntries } from '../store/timeline';
import { type IssueRow, type LabelRow, toIssue, toLabel } from '../store/issues';
import { deleteLabel, findLabel, findLabelByName, insertLabel, listLabels, resolveIssueLabels, updateLabel } from '../store/labels';
import type { IssuesContext } from './context';
import { guard } from './guard';

/** Gitea's message when a reader asks to add or replace an issue's labels. */
export const LABELS_WRITE_REQUIRED = 'write permission is required';

function labelNotFound(id: number | string): CairnError {
  return CairnError.notFound(`label does not exist [${typeof id === 'number' ? 'id' : 'name'}: ${id}]`, { reason: 'label_not_found' });
}

/** An issue whose labels the viewer is changing, and the access that allowed it. */
interface LabelledIssue {
  access: Access;
  issue: IssueRow;
}

export function createLabelService(context: IssuesContext): AsyncServiceOf<typeof LabelServiceService> {
  const { db } = context;

  async function requireLabel(place: LabelPlace, id: number): Promise<LabelRow> {
    const row = await guard(() => findLabel(db.pool, place.owner, id));
    if (row === null) throw labelNotFound(id);
    return row;
  }

  /**
   * The issue, when the viewer may change its labels: readable (else NOT_FOUND), then writable for its kind (else
   * PERMISSION_DENIED with `deniedMessage`; "" is Gitea's bare 403), in a repository that is not archived.
   */
  async function writableIssue(scope: RepoScope | undefined, index: number, deniedMessage: string): Promise<LabelledIssue> {
    const access = accessOf(scope);
    const issue = await guard(() => readableIssue(db.pool, access, index));
    requireSignedIn(access);
    if (!canWrite(access, issue.is_pull)) throw CairnError.denied(deniedMessage, { reason: 'issue_labels_denied' });
    requireNotArchived(access);
    return { access, issue };
  }

  /**
   * Runs a change of the issue's labels: `next` gets the labels the issue carries (the row locked) and answers the
   * ones it should carry; the difference is stored and, when there is one, published as cairn.issue.labeled.
   */
  async function changeIssueLabels(
    { access, issue }: LabelledIssue,
    next: (tx: DatabaseTransactionConnection, current: LabelRow[]) => Promise<LabelRow[]>,
  ): Promise<LabelRow[]> {
    return guard(() =>
      db.pool.transaction(async (tx) => {
        await lockIssueForLabels(tx, issue.id);
        const current = await labelsOfIssue(tx, issue.id);
        const wanted = await next(tx, current);
        const removed = current.filter((label) => !wanted.some((kept) => kept.id === label.id));
        const added = wanted.filter((label) => !current.some((had) => had.id === label.id));
        if (removed.length === 0 && added.length === 0) return current;
        await detachLabels(tx, issue.id, removed.map((label) => label.id));
        await attachLabels(tx, issue.id, added.map((label) => label.id));
        const place = { repoId: issue.repo_id, issueId: issue.id, posterId: access.viewer.id };
        await insertTimelineEntries(tx, labelEntries(place, { added: added.map((label) => label.id), removed: removed.map((label) => label.id) }));
        const after = await toIssue(tx, issue);
        await enqueueIssueLabeled(tx, { issue: after, repoPrivate: access.repository.private, added, removed }, access.viewer.id);
        return labelsOfIssue(tx, issue.id);
      }),
    );
  }

  /** The labels a request names (ids and names), checked against the repository's and its owner's labels, by id. */
  function requestedLabels(tx: DatabaseTransactionConnection, access: Access, ids: readonly number[], names: readonly string[]): Promise<LabelRow[]> {
    const repo = { repoId: access.repository.id, ownerId: access.repository.ownerId };
    // Gitea applies them in id order (GetLabelsByIDs), which decides which label of an exclusive scope wins.
    return resolveIssueLabels(tx, repo, ids, names).then((rows) => rows.sort((a, b) => a.id - b.id));
  }

  return {
    async listLabels(request) {
      const place = readablePlace(request.owner);
      const { rows, total } = await guard(() => listLabels(db.pool, place.owner, pageWindow(request.page)));
      return { labels: rows.map(toLabel), total };
    },

    async getLabel(request) {
      const place = readablePlace(request.owner);
      if (request.id > 0 || request.name === '') return { label: toLabel(await requireLabel(place, request.id)) };
      const row = await guard(() => findLabelByName(db.pool, place.owner, request.name));
      if (row === null) throw labelNotFound(request.name);
      return { label: toLabel(row) };
    },

    async createLabel(request) {
      const place = writablePlace(request.owner);
      const values = labelValues({
        name: request.name,
        color: request.color,
        description: request.description,
        exclusive: request.exclusive,
        archived: request.isArchived,
      });
      const row = await guard(() =>
        db.pool.transaction(async (tx) => {
          const created = await insertLabel(tx, place.owner, values);
          await enqueueLabelEvent(tx, Subject.labelCreated, created, { actorId: place.viewer.id, repoPrivate: place.repoPrivate });
          return created;
        }),
      );
      return { label: toLabel(row) };
    },

    async editLabel(request) {
      const place = writablePlace(request.owner);
      const current = await requireLabel(place, request.id);
      const given = new Set(request.fields);
      const values = labelValues({
        name: given.has('name') ? request.name : current.name,
        color: given.has('color') ? request.color : current.color,
        description: given.has('description') ? request.description : current.description,
        exclusive: given.has('exclusive') ? request.exclusive : current.exclusive,
        archived: given.has('is_archived') ? request.isArchived : current.archived_at !== null,
      });
      const row = await guard(() =>
        db.pool.transaction(async (tx) => {
          const updated = await updateLabel(tx, current.id, values);
          await enqueueLabelEvent(tx, Subject.labelUpdated, updated, { actorId: place.viewer.id, repoPrivate: place.repoPrivate });
          return updated;
        }),
      );
      return { label: toLabel(row) };
    },

    async deleteLabel(request) {
      const place = writablePlace(request.owner);
      const current = await requireLabel(place, request.id);
      await guard(() =>
        db.pool.transaction(async (tx) => {
          await deleteLabel(tx, current.id);
          await enqueueLabelEvent(tx, Subject.labelDeleted, current, { actorId: place.viewer.id, repoPrivate: place.repoPrivate });
        }),
      );
      return {};
    },

    async listIssueLabels(request) {
      const access = accessOf(request.scope);
      const issue = await guard(() => readableIssue(db.pool, access, request.index));
      const rows = await guard(() => labelsOfIssue(db.pool, issue.id));
      return { labels: rows.map(toLabel) };
    },

    async addIssueLabels(request) {
      const target = await writableIssue(request.scope, request.index, LABELS_WRITE_REQUIRED);
      const rows = await changeIssueLabels(target, async (tx, current) =>
        labelsAfterAdding(current, await requestedLabels(tx, target.access, request.labelIds, request.names)),
      );
      return { labels: rows.map(toLabel) };
    },

    async replaceIssueLabels(request) {
      const target = await writableIssue(request.scope, request.index, LABELS_WRITE_REQUIRED);
      const rows = await changeIssueLabels(target, async (tx) =>
        keepLastOfEachScope(await requestedLabels(tx, target.access, request.labelIds, request.names)),
      );
      return { labels: rows.map(toLabel) };
    },

    async removeIssueLabel(request) {
      const target = await writableIssue(request.scope, request.index, '');
      await changeIssueLabels(target, async (tx, current) => {
        // A label that is neither the repository's nor its organization's is INVALID_ARGUMENT (Gitea's 422 for an
        // unknown label); one the issue does not carry changes nothing (Gitea's 204).
        const [label] = await requestedLabels(tx, target.access, [request.labelId], []);
        return current.filter((had) => had.id !== label.id);
      });
      return {};
    },

    async clearIssueLabels(request) {
      const target = await writableIssue(request.scope, request.index, '');
      await changeIssueLabels(target, async () => []);
      return {};
    },
  };
}
