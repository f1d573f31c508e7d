/**
 * MilestoneService on a real database: create, read by id or title, list by state and name with the total, edit
 * (closing and reopening move closed_at), delete (issues stay, without a milestone), issue counts from the
 * trigger-kept columns as issues come, close and go, who may change milestones, and the events.
 */
import { MilestoneEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { CreateMilestoneRequest, Milestone, RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { Code } from '@cairn/rpc';
import { milestoneIdOf } from '../src/domain/milestone-ref';
import { decoded, scope, startService, type ScopeOptions, type ServiceHarness } from './harness';

let harness: ServiceHarness;

beforeAll(async () => {
  harness = await startService();
});
afterAll(async () => {
  await harness.stop();
});

const WRITER = 7;
const READER = 8;

const at = (repoId: number, userId = WRITER, mode: ScopeOptions['mode'] = 'write', more: Partial<ScopeOptions> = {}): RepoScope =>
  scope({ userId, mode, repoId, ...more });

async function create(repoId: number, title: string, more: Partial<CreateMilestoneRequest> = {}): Promise<Milestone> {
  const { milestone } = await harness.milestones.createMilestone({ scope: at(repoId), title, description: '', state: '', ...more });
  if (milestone === undefined) throw new Error('CreateMilestone answered without a milestone');
  return milestone;
}

async function milestoneCount(): Promise<number> {
  const { rows } = await harness.sql.query<{ n: string }>('SELECT count(*) AS n FROM milestones');
  return Number(rows[0].n);
}

let nextIndex = 1;
async function insertIssue(repoId: number, milestoneId: number | null, isClosed = false): Promise<number> {
  const index = nextIndex++;
  const { rows } = await harness.sql.query<{ id: string }>(
    'INSERT INTO issues (repo_id, index, poster_id, title, is_closed, milestone_id) VALUES ($1, $2, 1, $3, $4, $5) RETURNING id',
    [repoId, index, `issue ${index}`, isClosed, milestoneId],
  );
  return Number(rows[0].id);
}

const get = async (repoId: number, idOrTitle: string, viewer = at(repoId, READER, 'read')): Promise<Milestone> => {
  const { milestone } = await harness.milestones.getMilestone({ scope: viewer, idOrTitle });
  if (milestone === undefined) throw new Error('GetMilestone answered without a milestone');
  return milestone;
};

describe("the {id} of a milestone route (Go's ParseInt base 0)", () => {
  test.each([
    ['12', 12],
    ['0x1f', 31],
    ['0o17', 15],
    ['017', 15],
    ['0b101', 5],
    ['1_000', 1000],
    ['+7', 7],
    ['-3', -3],
    ['0', 0],
    ['v1.0', 0],
    ['12abc', 0],
    ['1__0', 0],
    ['09', 0],
    ['99999999999999999999', 0],
    ['', 0],
  ])('%j names id %j', (text, id) => {
    expect(milestoneIdOf(text)).toBe(id);
  });
});

describe('milestones', () => {
  test('create (open or closed, with or without a due date), read by id and by title, with an event', async () => {
    const seq = await harness.lastSeq();
    const due = new Date('2030-01-02T03:04:05Z');
    const v1 = await create(1, '  v1.0 ', { description: 'first', dueOn: due });
    expect(v1).toMatchObject({ repoId: 1, title: 'v1.0', description: 'first', state: 'open', openIssues: 0, closedIssues: 0, dueOn: due });
    expect(v1.closedAt).toBeUndefined();
    const [event] = await harness.outbox(seq);
    expect(event.subject).toBe('cairn.milestone.created');
    expect(decoded(MilestoneEvent, event)).toMatchObject({ meta: { actorId: WRITER, repoId: 1 }, milestone: { id: v1.id, title: 'v1.0' }, repoPrivate: false });
    const privateSeq = await harness.lastSeq();
    await harness.milestones.createMilestone({ scope: at(9, WRITER, 'write', { private: true }), title: 'hidden', description: '', state: '' });
    expect(decoded(MilestoneEvent, (await harness.outbox(privateSeq))[0]).repoPrivate).toBe(true);

    const closed = await create(1, 'done', { state: 'closed' });
    expect(closed.state).toBe('closed');
    expect(closed.closedAt).toBeInstanceOf(Date);
    expect(closed.dueOn).toBeUndefined();
    // Any other state is open, as Gitea reads it.
    expect((await create(1, 'odd', { state: 'bogus' })).state).toBe('open');

    expect((await get(1, String(v1.id))).title).toBe('v1.0');
    expect((await get(1, 'v1.0')).id).toBe(v1.id);
    expect((await get(1, 'done')).id).toBe(closed.id);
    // A title that is a number names the milestone by title when no milestone has that id.
    const numeric = await create(1, '424242');
    expect((await get(1, '424242')).id).toBe(numeric.id);
    await expect(get(1, 'V1.0')).rejects.toMatchObject({ code: Code.NOT_FOUND, reason: 'milestone_not_found' });
    await expect(get(1, '987654')).rejects.toMatchObject({ code: Code.NOT_FOUND });
    // Another repository's milestone is not found, by id or by title.
    await expect(get(2, String(v1.id))).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(get(2, 'v1.0')).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  test('lists: open by default and for unknown states, closed, all; name filter; paging with the total; due date order', async () => {
    const repo = 3;
    const later = await create(repo, 'Later', { dueOn: new Date('2031-01-01T00:00:00Z') });
    const sooner = await create(repo, 'Sooner', { dueOn: new Date('2030-01-01T00:00:00Z') });
    const undated = await create(repo, 'Undated 50%_off');
    const shut = await create(repo, 'Shut', { state: 'closed' });
    const list = async (state: string, name = '', page = { page: 1, limit: 50 }) => {
      const { milestones, total } = await harness.milestones.listMilestones({ scope: at(repo, READER, 'read'), state, name, page });
      return { ids: milestones.map((m) => m.id), total };
    };
    expect(await list('')).toEqual({ ids: [sooner.id, later.id, undated.id], total: 3 });
    expect(await list('open')).toEqual({ ids: [sooner.id, later.id, undated.id], total: 3 });
    expect(await list('nonsense')).toEqual({ ids: [sooner.id, later.id, undated.id], total: 3 });
    expect(await list('closed')).toEqual({ ids: [shut.id], total: 1 });
    expect((await list('all')).total).toBe(4);
    expect(await list('all', 'ER')).toEqual({ ids: [sooner.id, later.id], total: 2 });
    // LIKE's own characters are taken literally.
    expect(await list('all', '50%_')).toEqual({ ids: [undated.id], total: 1 });
    expect(await list('all', '%')).toEqual({ ids: [undated.id], total: 1 });
    expect(await list('open', '', { page: 2, limit: 2 })).toEqual({ ids: [undated.id], total: 3 });
  });

  test('edit: only given fields change; closing sets closed_at, staying closed keeps it, reopening clears it', async () => {
    const repo = 4;
    const m = await create(repo, 'edit me', { description: 'before', dueOn: new Date('2030-05-05T00:00:00Z') });
    const edit = (fields: string[], values: { title?: string; description?: string; state?: string; dueOn?: Date }, idOrTitle = String(m.id)) =>
      harness.milestones.editMilestone({ scope: at(repo), idOrTitle, fields, title: '', description: '', state: '', ...values });

    const renamed = (await edit(['title'], { title: ' renamed ', description: 'ignored' })).milestone;
    expect(renamed).toMatchObject({ title: 'renamed', description: 'before', state: 'open' });
    expect(renamed?.dueOn).toEqual(new Date('2030-05-05T00:00:00Z'));

    const seq = await harness.lastSeq();
    const closed = (await edit(['state'], { state: 'closed' }, 'renamed')).milestone;
    expect(closed?.state).toBe('closed');
    const closedAt = closed?.closedAt;
    expect(closedAt).toBeInstanceOf(Date);
    const stillClosed = (await edit(['state', 'description'], { state: 'closed', description: 'after' })).milestone;
    expect(stillClosed).toMatchObject({ state: 'closed', description: 'after', closedAt });
    const reopened = (await edit(['state'], { state: 'open' })).milestone;
    expect(reopened?.state).toBe('open');
    expect(reopened?.closedAt).toBeUndefined();
    expect((await harness.outbox(seq)).map((row) => row.subject)).toEqual(['cairn.milestone.closed', 'cairn.milestone.updated', 'cairn.milestone.reopened']);

    const moved = (await edit(['due_on'], { dueOn: new Date('2032-01-01T12:00:00Z') })).milestone;
    expect(moved?.dueOn).toEqual(new Date('2032-01-01T12:00:00Z'));
    expect((await edit(['due_on'], {})).milestone?.dueOn).toBeUndefined();

    await expect(edit(['title'], { title: '   ' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(edit(['title'], { title: 't'.repeat(256) })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(edit(['title'], { title: 'x' }, 'no such milestone')).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect((await get(repo, String(m.id))).title).toBe('renamed');
  });

  test('issue counts come from the counters as issues are added, closed, moved and deleted', async () => {
    const repo = 5;
    const m = await create(repo, 'counted');
    const other = await create(repo, 'other');
    const a = await insertIssue(repo, m.id);
    const b = await insertIssue(repo, m.id);
    await insertIssue(repo, m.id, true);
    await insertIssue(repo, null);
    expect(await get(repo, 'counted')).toMatchObject({ openIssues: 2, closedIssues: 1 });
    await harness.sql.query('UPDATE issues SET is_closed = true WHERE id = $1', [a]);
    expect(await get(repo, 'counted')).toMatchObject({ openIssues: 1, closedIssues: 2 });
    await harness.sql.query('UPDATE issues SET milestone_id = $2 WHERE id = $1', [b, other.id]);
    expect(await get(repo, 'counted')).toMatchObject({ openIssues: 0, closedIssues: 2 });
    expect(await get(repo, 'other')).toMatchObject({ openIssues: 1, closedIssues: 0 });
    await harness.sql.query('DELETE FROM issues WHERE id = $1', [a]);
    expect(await get(repo, 'counted')).toMatchObject({ openIssues: 0, closedIssues: 1 });
    const { milestones } = await harness.milestones.listMilestones({ scope: at(repo, READER, 'read'), state: 'all', name: '', page: { page: 1, limit: 10 } });
    expect(milestones.map((x) => [x.title, x.openIssues, x.closedIssues])).toEqual([
      ['counted', 0, 1],
      ['other', 1, 0],
    ]);
  });

  test('delete: the issues stay, without a milestone; the event carries the milestone', async () => {
    const repo = 6;
    const m = await create(repo, 'doomed');
    const issue = await insertIssue(repo, m.id);
    const seq = await harness.lastSeq();
    await harness.milestones.deleteMilestone({ scope: at(repo), idOrTitle: 'doomed' });
    await expect(get(repo, String(m.id))).rejects.toMatchObject({ code: Code.NOT_FOUND });
    const { rows } = await harness.sql.query<{ milestone_id: string | null }>('SELECT milestone_id FROM issues WHERE id = $1', [issue]);
    expect(rows).toEqual([{ milestone_id: null }]);
    const [event] = await harness.outbox(seq);
    expect(event.subject).toBe('cairn.milestone.deleted');
    expect(decoded(MilestoneEvent, event).milestone).toMatchObject({ id: m.id, title: 'doomed', openIssues: 1 });
    await expect(harness.milestones.deleteMilestone({ scope: at(repo), idOrTitle: String(m.id) })).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  test('readers read; only writers of issues or pull requests change; bad titles change nothing', async () => {
    const repo = 7;
    const m = await create(repo, 'guarded');
    const before = await milestoneCount();
    const reader = at(repo, READER, 'read');
    await expect(harness.milestones.createMilestone({ scope: reader, title: 'no', description: '', state: '' })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: 'user should have a permission to write to a repo',
    });
    await expect(harness.milestones.createMilestone({ scope: at(repo, 0, 'read'), title: 'no', description: '', state: '' })).rejects.toMatchObject({
      code: Code.UNAUTHENTICATED,
    });
    await expect(harness.milestones.editMilestone({ scope: reader, idOrTitle: 'guarded', fields: ['state'], title: '', description: '', state: 'closed' })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
    });
    await expect(harness.milestones.deleteMilestone({ scope: reader, idOrTitle: 'guarded' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(harness.milestones.listMilestones({ scope: at(repo, READER, 'none'), state: '', name: '' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(get(repo, 'guarded', at(repo, READER, 'read', { units: ['repo.code'] }))).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(harness.milestones.createMilestone({ scope: at(repo, WRITER, 'write', { archived: true }), title: 'no', description: '', state: '' })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
    });
    await expect(create(repo, '')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(create(repo, ' \t ')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(create(repo, 'x'.repeat(256))).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(create(repo, 'nul\u0000')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    expect(await milestoneCount()).toBe(before);
    expect((await get(repo, String(m.id))).state).toBe('open');
  });
});
