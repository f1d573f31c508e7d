/**
 * MilestoneService (proto/cairn/issues/v1/issues_service.proto): a repository's milestones (Gitea's
 * routers/api/v1/repo/milestone.go). Readers of issues or pull requests list and read them, writers of either
 * change them. The issue counts are the trigger-kept columns, never counted here.
 */
import type { MilestoneServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { milestoneIdOf } from '../domain/milestone-ref';
import { isClosedState, milestoneTitle, milestoneValues } from '../domain/milestone-values';
import { pageWindow } from '../domain/paging';
import type { Access } from '../domain/permissions';
import { trackerReader, trackerWriter } from '../domain/tracker-access';
import { enqueueMilestoneEvent } from '../events/milestone-events';
import { Subject } from '../events/subjects';
import { type MilestoneRow, toMilestone } from '../store/issues';
import { type MilestoneStateFilter, deleteMilestone, findMilestoneByRef, insertMilestone, listMilestones, updateMilestone } from '../store/milestones';
import type { IssuesContext } from './context';
import { guard } from './guard';

/** `state` of a list: "closed" and "all" as they are, anything else (none included) is "open". */
function stateFilter(state: string): MilestoneStateFilter {
  return state === 'closed' || state === 'all' ? state : 'open';
}

export function createMilestoneService(context: IssuesContext): AsyncServiceOf<typeof MilestoneServiceService> {
  const { db } = context;

  /** The milestone `{id}` names (an id, else a title), or NOT_FOUND. */
  async function requireMilestoneRef(access: Access, idOrTitle: string): Promise<MilestoneRow> {
    const repoId = access.repository.id;
    const row = await guard(() => findMilestoneByRef(db.pool, repoId, milestoneIdOf(idOrTitle), idOrTitle));
    if (row === null) throw CairnError.notFound(`milestone does not exist [name: ${idOrTitle}, repo_id: ${repoId}]`, { reason: 'milestone_not_found' });
    return row;
  }

  return {
    async listMilestones(request) {
      const access = trackerReader(request.scope);
      const filter = { state: stateFilter(request.state), name: request.name, window: pageWindow(request.page) };
      const { rows, total } = await guard(() => listMilestones(db.pool, access.repository.id, filter));
      return { milestones: rows.map(toMilestone), total };
    },

    async getMilestone(request) {
      const access = trackerReader(request.scope);
      return { milestone: toMilestone(await requireMilestoneRef(access, request.idOrTitle)) };
    },

    async createMilestone(request) {
      const access = trackerWriter(request.scope);
      const values = milestoneValues({ title: request.title, description: request.description, state: request.state, dueOn: request.dueOn });
      const row = await guard(() =>
        db.pool.transaction(async (tx) => {
          const created = await insertMilestone(tx, access.repository.id, values);
          await enqueueMilestoneEvent(tx, Subject.milestoneCreated, created, { actorId: access.viewer.id, repoPrivate: access.repository.private });
          return created;
        }),
      );
      return { milestone: toMilestone(row) };
    },

    async editMilestone(request) {
      const access = trackerWriter(request.scope);
      const current = await requireMilestoneRef(access, request.idOrTitle);
      const given = new Set(request.fields);
      const values = {
        title: given.has('title') ? milestoneTitle(request.title) : current.title,
        description: given.has('description') ? request.description : current.description,
        closed: given.has('state') ? isClosedState(request.state) : current.is_closed,
        dueOn: given.has('due_on') ? (request.dueOn ?? null) : current.due_on,
      };
      const row = await guard(() =>
        db.pool.transaction(async (tx) => {
          const updated = await updateMilestone(tx, current.id, values);
          const subject =
            updated.is_closed === current.is_closed ? Subject.milestoneUpdated : updated.is_closed ? Subject.milestoneClosed : Subject.milestoneReopened;
          await enqueueMilestoneEvent(tx, subject, updated, { actorId: access.viewer.id, repoPrivate: access.repository.private });
          return updated;
        }),
      );
      return { milestone: toMilestone(row) };
    },

    async deleteMilestone(request) {
      const access = trackerWriter(request.scope);
      const current = await requireMilestoneRef(access, request.idOrTitle);
      await guard(() =>
        db.pool.transaction(async (tx) => {
          await deleteMilestone(tx, current.id);
          await enqueueMilestoneEvent(tx, Subject.milestoneDeleted, current, { actorId: access.viewer.id, repoPrivate: access.repository.private });
        }),
      );
      return {};
    },
  };
}
