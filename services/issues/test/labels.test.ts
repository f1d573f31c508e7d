/**
 * LabelService on a real database: repository and organization labels (Gitea's colour rules, who may change them,
 * another repository's label is not found), the labels on an issue (ids and names, unknown ones refused with
 * nothing changed, exclusive scopes), and the events every change writes to the outbox.
 */
import { IssueEvent, LabelEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { Label, LabelOwner, RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { Code } from '@cairn/rpc';
import { keepLastOfEachScope, exclusiveScope, labelsAfterAdding } from '../src/domain/exclusive-labels';
import { normalizeLabelColor } from '../src/domain/label-color';
import { decoded, scope, startService, type ScopeOptions, type ServiceHarness } from './harness';

let harness: ServiceHarness;

beforeAll(async () => {
  harness = await startService();
});
afterAll(async () => {
  await harness.stop();
});

const ORG = 500;
const WRITER = 7;
const READER = 8;

/** A repository owned by the organization ORG, as `userId` sees it with `mode`. */
const repoScope = (userId: number, mode: ScopeOptions['mode'], more: Partial<ScopeOptions> = {}): RepoScope =>
  scope({ userId, mode, repoId: 11, ownerId: ORG, ...more });
const repoOwner = (userId: number, mode: ScopeOptions['mode'], more: Partial<ScopeOptions> = {}): LabelOwner => ({
  scope: repoScope(userId, mode, more),
  orgId: 0,
  orgWriter: false,
});
const orgOwner = (userId: number, orgWriter: boolean, orgId = ORG): LabelOwner => ({
  scope: userId > 0 ? { viewer: { userId, isAdmin: false, isRestricted: false } } : undefined,
  orgId,
  orgWriter,
});

const writer = () => repoOwner(WRITER, 'write');

async function createLabel(owner: LabelOwner, name: string, more: { color?: string; exclusive?: boolean } = {}): Promise<Label> {
  const { label } = await harness.labels.createLabel({
    owner,
    name,
    color: more.color ?? '#00aabb',
    description: '',
    exclusive: more.exclusive ?? false,
    isArchived: false,
  });
  if (label === undefined) throw new Error('CreateLabel answered without a label');
  return label;
}

async function labelCount(): Promise<number> {
  const { rows } = await harness.sql.query<{ n: string }>('SELECT count(*) AS n FROM labels');
  return Number(rows[0].n);
}

let nextIndex = 1;
/** An issue of repository `repoId` written directly (the issue RPCs are another area's). */
async function insertIssue(repoId: number, more: { isPull?: boolean; isClosed?: boolean; milestoneId?: number } = {}): Promise<{ id: number; index: number }> {
  const index = nextIndex++;
  const { rows } = await harness.sql.query<{ id: string }>(
    'INSERT INTO issues (repo_id, index, poster_id, title, is_pull, is_closed, milestone_id) VALUES ($1, $2, 1, $3, $4, $5, $6) RETURNING id',
    [repoId, index, `issue ${index}`, more.isPull ?? false, more.isClosed ?? false, more.milestoneId ?? null],
  );
  return { id: Number(rows[0].id), index };
}

async function issueLabelIds(issueId: number): Promise<number[]> {
  const { rows } = await harness.sql.query<{ label_id: string }>('SELECT label_id FROM issue_labels WHERE issue_id = $1 ORDER BY label_id', [issueId]);
  return rows.map((row) => Number(row.label_id));
}

describe('label colours (Gitea NormalizeColor)', () => {
  test.each([
    ['#00AABB', '00aabb'],
    ['00aabb', '00aabb'],
    ['#AbC', 'aabbcc'],
    ['abc', 'aabbcc'],
    ['  #ff0000 ', 'ff0000'],
  ])('%j is stored as %j', (input, stored) => {
    expect(normalizeLabelColor(input)).toBe(stored);
  });

  test.each([
    ['', 'bad color code: '],
    ['#zzzzzz', 'bad color code: #zzzzzz'],
    ['12345', 'bad color code: 12345'],
    ['##abc', 'bad color code: ##abc'],
    ['#00aabbcc', 'bad color code: #00aabbcc'],
    ['red', 'bad color code: #red'],
  ])('%j is refused with %j', (input, message) => {
    expect(() => normalizeLabelColor(input)).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT, message }));
  });
});

describe('exclusive scopes (Gitea ExclusiveScope)', () => {
  const label = (id: number, name: string, exclusive = true) => ({ id, name, exclusive });

  test.each([
    ['prio/high', true, 'prio'],
    ['a/b/c', true, 'a/b'],
    ['prio/high', false, ''],
    ['/high', true, ''],
    ['prio/', true, ''],
    ['plain', true, ''],
  ])('%j (exclusive: %j) has scope %j', (name, exclusive, scopeName) => {
    expect(exclusiveScope(label(1, name, exclusive))).toBe(scopeName);
  });

  test('adding a label of a scope replaces the one the issue had; a label already there changes nothing', () => {
    const high = label(1, 'prio/high');
    const low = label(2, 'prio/low');
    const loose = label(3, 'prio/any', false);
    expect(labelsAfterAdding([high, loose], [low]).map((l) => l.id)).toEqual([3, 2]);
    expect(labelsAfterAdding([high, loose], [high]).map((l) => l.id)).toEqual([1, 3]);
    expect(labelsAfterAdding([], [high, low]).map((l) => l.id)).toEqual([2]);
  });

  test('a replacement keeps the last label of each scope', () => {
    expect(keepLastOfEachScope([label(1, 'a/x'), label(2, 'b/x'), label(3, 'a/y'), label(4, 'a/z', false)]).map((l) => l.id)).toEqual([2, 3, 4]);
  });
});

describe('repository labels', () => {
  test('a writer creates, reads, lists, edits and deletes labels; each change is an event', async () => {
    const seq = await harness.lastSeq();
    const bug = await createLabel(writer(), 'bug', { color: '#EE0701' });
    expect(bug).toMatchObject({ repoId: 11, orgId: 0, name: 'bug', color: 'ee0701', description: '', exclusive: false, isArchived: false });
    const created = (await harness.outbox(seq)).filter((row) => row.subject === 'cairn.label.created');
    expect(created).toHaveLength(1);
    expect(decoded(LabelEvent, created[0])).toMatchObject({ meta: { actorId: WRITER, repoId: 11 }, label: { id: bug.id, name: 'bug' } });

    const reader = repoOwner(READER, 'read');
    expect((await harness.labels.getLabel({ owner: reader, id: bug.id, name: '' })).label).toEqual(bug);
    expect((await harness.labels.getLabel({ owner: reader, id: 0, name: 'bug' })).label).toEqual(bug);
    await expect(harness.labels.getLabel({ owner: reader, id: 0, name: 'BUG' })).rejects.toMatchObject({ code: Code.NOT_FOUND });

    const edited = await harness.labels.editLabel({
      owner: writer(),
      id: bug.id,
      fields: ['description', 'is_archived'],
      name: 'ignored',
      color: 'ignored',
      description: 'Something is broken',
      exclusive: true,
      isArchived: true,
    });
    expect(edited.label).toMatchObject({ name: 'bug', color: 'ee0701', description: 'Something is broken', exclusive: false, isArchived: true });
    const archivedAt = async () => (await harness.sql.query<{ archived_at: Date | null }>('SELECT archived_at FROM labels WHERE id = $1', [bug.id])).rows[0].archived_at;
    const firstArchived = await archivedAt();
    expect(firstArchived).not.toBeNull();
    // Archiving an archived label keeps the date it was first archived (Gitea's SetArchived).
    await harness.labels.editLabel({ owner: writer(), id: bug.id, fields: ['is_archived', 'color'], name: '', color: 'abc', description: '', exclusive: false, isArchived: true });
    expect(await archivedAt()).toEqual(firstArchived);
    const unarchived = await harness.labels.editLabel({ owner: writer(), id: bug.id, fields: ['is_archived'], name: '', color: '', description: '', exclusive: false, isArchived: false });
    expect(unarchived.label).toMatchObject({ color: 'aabbcc', isArchived: false });

    const seqBeforeDelete = await harness.lastSeq();
    await harness.labels.deleteLabel({ owner: writer(), id: bug.id });
    await expect(harness.labels.getLabel({ owner: reader, id: bug.id, name: '' })).rejects.toMatchObject({ code: Code.NOT_FOUND, reason: 'label_not_found' });
    const deleted = await harness.outbox(seqBeforeDelete);
    expect(deleted.map((row) => row.subject)).toEqual(['cairn.label.deleted']);
    expect(decoded(LabelEvent, deleted[0]).label?.id).toBe(bug.id);
  });

  test('lists are by name, paged, with the total; organization labels are not in them', async () => {
    const owner = repoOwner(WRITER, 'write', { repoId: 12 });
    for (const name of ['delta', 'Alpha', 'charlie', 'bravo']) await createLabel(owner, name);
    await createLabel(orgOwner(WRITER, true), 'org-wide');
    const first = await harness.labels.listLabels({ owner, page: { page: 1, limit: 3 } });
    expect(first.labels.map((label) => label.name)).toEqual(['Alpha', 'bravo', 'charlie']);
    expect(first.total).toBe(4);
    const second = await harness.labels.listLabels({ owner, page: { page: 2, limit: 3 } });
    expect(second.labels.map((label) => label.name)).toEqual(['delta']);
  });

  test('bad values are refused and nothing is stored', async () => {
    const before = await labelCount();
    await expect(createLabel(writer(), 'x', { color: '#zzzzzz' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'bad color code: #zzzzzz' });
    await expect(createLabel(writer(), '')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(createLabel(writer(), 'n'.repeat(256))).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(createLabel(writer(), 'nul\u0000byte')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    expect(await labelCount()).toBe(before);
    const label = await createLabel(writer(), 'keep');
    await expect(
      harness.labels.editLabel({ owner: writer(), id: label.id, fields: ['name', 'color'], name: 'renamed', color: 'nope', description: '', exclusive: false, isArchived: false }),
    ).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'bad color code: nope' });
    await expect(
      harness.labels.editLabel({ owner: writer(), id: label.id, fields: ['name'], name: '', color: '', description: '', exclusive: false, isArchived: false }),
    ).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    expect((await harness.labels.getLabel({ owner: writer(), id: label.id, name: '' })).label?.name).toBe('keep');
  });

  test('readers read, writers of issues or pull requests change; others are refused before anything changes', async () => {
    const label = await createLabel(writer(), 'access');
    const before = await labelCount();
    await expect(createLabel(repoOwner(READER, 'read'), 'no')).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: 'user should have a permission to write to a repo',
    });
    await expect(createLabel(repoOwner(0, 'read'), 'no')).rejects.toMatchObject({ code: Code.UNAUTHENTICATED });
    await expect(harness.labels.deleteLabel({ owner: repoOwner(READER, 'read'), id: label.id })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    // No access, or neither unit enabled: the labels are not there.
    await expect(harness.labels.listLabels({ owner: repoOwner(READER, 'none') })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(harness.labels.listLabels({ owner: repoOwner(READER, 'read', { units: ['repo.code'] }) })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    // Only the pull requests unit is enough for reading and, with write on it, for changing.
    expect((await harness.labels.listLabels({ owner: repoOwner(READER, 'read', { units: ['repo.pulls'] }) })).total).toBeGreaterThan(0);
    const pullsWriter = repoOwner(WRITER, 'read');
    const permission = pullsWriter.scope?.repository?.permission;
    if (permission === undefined) throw new Error('scope without permission');
    permission.units['repo.pulls'] = 'write';
    await createLabel(pullsWriter, 'by-pulls-writer');
    // Archived repositories take no change.
    await expect(createLabel(repoOwner(WRITER, 'write', { archived: true }), 'no')).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
    expect(await labelCount()).toBe(before + 1);
  });

  test("another repository's label is not found, for reading, editing and deleting", async () => {
    const elsewhere = await createLabel(repoOwner(WRITER, 'write', { repoId: 99 }), 'theirs');
    await expect(harness.labels.getLabel({ owner: writer(), id: elsewhere.id, name: '' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(
      harness.labels.editLabel({ owner: writer(), id: elsewhere.id, fields: ['name'], name: 'mine', color: '', description: '', exclusive: false, isArchived: false }),
    ).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(harness.labels.deleteLabel({ owner: writer(), id: elsewhere.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(harness.labels.deleteLabel({ owner: writer(), id: 987654321 })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    // An organization label is not a repository label either.
    const orgLabel = await createLabel(orgOwner(WRITER, true), 'org-only');
    await expect(harness.labels.getLabel({ owner: writer(), id: orgLabel.id, name: '' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect((await harness.labels.getLabel({ owner: repoOwner(WRITER, 'write', { repoId: 99 }), id: elsewhere.id, name: '' })).label?.name).toBe('theirs');
  });
});

describe('organization labels', () => {
  test('owners (org_writer) change them, anyone the gateway let through reads them', async () => {
    const org = 601;
    const seq = await harness.lastSeq();
    const label = await createLabel(orgOwner(WRITER, true, org), 'kind/bug', { exclusive: true });
    expect(label).toMatchObject({ repoId: 0, orgId: org, exclusive: true });
    const [event] = await harness.outbox(seq);
    expect(decoded(LabelEvent, event)).toMatchObject({ meta: { actorId: WRITER, repoId: 0 }, label: { orgId: org } });

    const before = await labelCount();
    await expect(createLabel(orgOwner(READER, false, org), 'nope')).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'Must be an organization owner' });
    await expect(createLabel(orgOwner(0, false, org), 'nope')).rejects.toMatchObject({ code: Code.UNAUTHENTICATED });
    await expect(
      harness.labels.editLabel({ owner: orgOwner(READER, false, org), id: label.id, fields: ['name'], name: 'x', color: '', description: '', exclusive: false, isArchived: false }),
    ).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(harness.labels.deleteLabel({ owner: orgOwner(READER, false, org), id: label.id })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    expect(await labelCount()).toBe(before);

    const anonymous = orgOwner(0, false, org);
    expect((await harness.labels.listLabels({ owner: anonymous, page: { page: 1, limit: 10 } })).labels.map((l) => l.id)).toEqual([label.id]);
    expect((await harness.labels.getLabel({ owner: anonymous, id: label.id, name: '' })).label?.name).toBe('kind/bug');
    expect((await harness.labels.getLabel({ owner: anonymous, id: 0, name: 'kind/bug' })).label?.id).toBe(label.id);
    // Another organization's label, or a repository label, is not this organization's.
    await expect(harness.labels.getLabel({ owner: orgOwner(0, false, org + 1), id: label.id, name: '' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    const repoLabel = await createLabel(writer(), 'repo-only');
    await expect(harness.labels.getLabel({ owner: anonymous, id: repoLabel.id, name: '' })).rejects.toMatchObject({ code: Code.NOT_FOUND });

    const edited = await harness.labels.editLabel({
      owner: orgOwner(WRITER, true, org),
      id: label.id,
      fields: ['name', 'color', 'is_archived'],
      name: 'kind/defect',
      color: 'f00',
      description: '',
      exclusive: false,
      isArchived: false,
    });
    expect(edited.label).toMatchObject({ name: 'kind/defect', color: 'ff0000', exclusive: true });
    await harness.labels.deleteLabel({ owner: orgOwner(WRITER, true, org), id: label.id });
    expect((await harness.labels.listLabels({ owner: anonymous })).total).toBe(0);
  });
});

describe('labels on an issue', () => {
  const REPO = 21;
  const issueScope = (userId: number, mode: ScopeOptions['mode'], more: Partial<ScopeOptions> = {}) => repoScope(userId, mode, { repoId: REPO, ...more });
  const owner = () => repoOwner(WRITER, 'write', { repoId: REPO });
  let bug: Label;
  let feature: Label;
  let orgWide: Label;
  let foreign: Label;

  beforeAll(async () => {
    bug = await createLabel(owner(), 'bug');
    feature = await createLabel(owner(), 'feature');
    orgWide = await createLabel(orgOwner(WRITER, true), 'org-wide-21');
    foreign = await createLabel(repoOwner(WRITER, 'write', { repoId: 22 }), 'foreign');
  });

  test('writers add by id and by name (organization labels included), replace, remove one and clear; readers list', async () => {
    const issue = await insertIssue(REPO);
    const w = issueScope(WRITER, 'write');
    const seq = await harness.lastSeq();
    const added = await harness.labels.addIssueLabels({ scope: w, index: issue.index, labelIds: [bug.id], names: ['org-wide-21'] });
    expect(added.labels.map((label) => label.id).sort()).toEqual([bug.id, orgWide.id].sort());
    const events = await harness.outbox(seq);
    expect(events.map((row) => row.subject)).toEqual(['cairn.issue.labeled']);
    const event = decoded(IssueEvent, events[0]);
    expect(event).toMatchObject({ meta: { actorId: WRITER, repoId: REPO }, changed: ['labels'], repoPrivate: false, removedLabels: [] });
    expect(event.addedLabels.map((label) => label.id).sort()).toEqual([bug.id, orgWide.id].sort());
    expect(event.issue?.labels.map((label) => label.id).sort()).toEqual([bug.id, orgWide.id].sort());

    // Adding what is there changes nothing and publishes nothing.
    const quiet = await harness.lastSeq();
    await harness.labels.addIssueLabels({ scope: w, index: issue.index, labelIds: [bug.id], names: [] });
    expect(await harness.outbox(quiet)).toEqual([]);

    const listed = await harness.labels.listIssueLabels({ scope: issueScope(READER, 'read'), index: issue.index });
    expect(listed.labels.map((label) => label.name)).toEqual(['bug', 'org-wide-21']);

    const replaced = await harness.labels.replaceIssueLabels({ scope: w, index: issue.index, labelIds: [feature.id], names: [] });
    expect(replaced.labels.map((label) => label.name)).toEqual(['feature']);
    const [replacedEvent] = await harness.outbox(await harness.lastSeq() - 1);
    expect(decoded(IssueEvent, replacedEvent).removedLabels.map((label) => label.id).sort()).toEqual([bug.id, orgWide.id].sort());

    await harness.labels.addIssueLabels({ scope: w, index: issue.index, labelIds: [bug.id], names: [] });
    await harness.labels.removeIssueLabel({ scope: w, index: issue.index, labelId: feature.id });
    expect(await issueLabelIds(issue.id)).toEqual([bug.id]);
    // A label of the repository the issue does not carry: nothing to do.
    const beforeNoop = await harness.lastSeq();
    await harness.labels.removeIssueLabel({ scope: w, index: issue.index, labelId: feature.id });
    expect(await harness.outbox(beforeNoop)).toEqual([]);

    await harness.labels.clearIssueLabels({ scope: w, index: issue.index });
    expect(await issueLabelIds(issue.id)).toEqual([]);
    await harness.labels.replaceIssueLabels({ scope: w, index: issue.index, labelIds: [bug.id], names: [] });
    await harness.labels.replaceIssueLabels({ scope: w, index: issue.index, labelIds: [], names: [] });
    expect(await issueLabelIds(issue.id)).toEqual([]);
  });

  test('an unknown label id or name, or a label of another repository, is refused and nothing changes', async () => {
    const issue = await insertIssue(REPO);
    const w = issueScope(WRITER, 'write');
    await harness.labels.addIssueLabels({ scope: w, index: issue.index, labelIds: [bug.id], names: [] });
    const seq = await harness.lastSeq();
    const attempts = [
      harness.labels.addIssueLabels({ scope: w, index: issue.index, labelIds: [feature.id, 987654321], names: [] }),
      harness.labels.addIssueLabels({ scope: w, index: issue.index, labelIds: [feature.id], names: ['no-such-label'] }),
      harness.labels.addIssueLabels({ scope: w, index: issue.index, labelIds: [foreign.id], names: [] }),
      harness.labels.addIssueLabels({ scope: w, index: issue.index, labelIds: [-1], names: [] }),
      harness.labels.replaceIssueLabels({ scope: w, index: issue.index, labelIds: [feature.id], names: ['foreign'] }),
      harness.labels.removeIssueLabel({ scope: w, index: issue.index, labelId: foreign.id }),
      harness.labels.removeIssueLabel({ scope: w, index: issue.index, labelId: 987654321 }),
    ];
    for (const attempt of attempts) await expect(attempt).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'label_not_found' });
    expect(await issueLabelIds(issue.id)).toEqual([bug.id]);
    expect(await harness.outbox(seq)).toEqual([]);
  });

  test('readers may not change labels (Gitea: a message for add and replace, a bare 403 for remove and clear); hidden issues are not found', async () => {
    const issue = await insertIssue(REPO);
    const r = issueScope(READER, 'read');
    await expect(harness.labels.addIssueLabels({ scope: r, index: issue.index, labelIds: [bug.id], names: [] })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: 'write permission is required',
    });
    await expect(harness.labels.replaceIssueLabels({ scope: r, index: issue.index, labelIds: [bug.id], names: [] })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: 'write permission is required',
    });
    await expect(harness.labels.removeIssueLabel({ scope: r, index: issue.index, labelId: bug.id })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: '' });
    await expect(harness.labels.clearIssueLabels({ scope: r, index: issue.index })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: '' });
    await expect(harness.labels.addIssueLabels({ scope: issueScope(0, 'read'), index: issue.index, labelIds: [bug.id], names: [] })).rejects.toMatchObject({
      code: Code.UNAUTHENTICATED,
    });
    await expect(harness.labels.listIssueLabels({ scope: issueScope(READER, 'none'), index: issue.index })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(harness.labels.listIssueLabels({ scope: issueScope(READER, 'read'), index: 999999 })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(harness.labels.addIssueLabels({ scope: issueScope(WRITER, 'write', { archived: true }), index: issue.index, labelIds: [bug.id], names: [] })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
    });
    expect(await issueLabelIds(issue.id)).toEqual([]);

    // A pull request follows the pull requests unit: write there is enough, write on issues alone is not.
    const pull = await insertIssue(REPO, { isPull: true });
    const pullsWriter = issueScope(WRITER, 'read');
    const issuesWriter = issueScope(WRITER, 'read');
    if (pullsWriter.repository?.permission === undefined || issuesWriter.repository?.permission === undefined) throw new Error('scope without permission');
    pullsWriter.repository.permission.units['repo.pulls'] = 'write';
    issuesWriter.repository.permission.units['repo.issues'] = 'write';
    await expect(harness.labels.addIssueLabels({ scope: issuesWriter, index: pull.index, labelIds: [bug.id], names: [] })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
    });
    await harness.labels.addIssueLabels({ scope: pullsWriter, index: pull.index, labelIds: [bug.id], names: [] });
    expect(await issueLabelIds(pull.id)).toEqual([bug.id]);
    await expect(harness.labels.addIssueLabels({ scope: pullsWriter, index: issue.index, labelIds: [bug.id], names: [] })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
    });
  });

  test('exclusive labels: one per scope, the new one replacing the old; a replacement keeps the last of each scope', async () => {
    const high = await createLabel(owner(), 'prio/high', { exclusive: true });
    const low = await createLabel(owner(), 'prio/low', { exclusive: true });
    const loose = await createLabel(owner(), 'prio/any');
    const issue = await insertIssue(REPO);
    const w = issueScope(WRITER, 'write');
    await harness.labels.addIssueLabels({ scope: w, index: issue.index, labelIds: [high.id, loose.id], names: [] });
    expect(await issueLabelIds(issue.id)).toEqual([high.id, loose.id].sort((a, b) => a - b));
    const seq = await harness.lastSeq();
    const afterLow = await harness.labels.addIssueLabels({ scope: w, index: issue.index, labelIds: [], names: ['prio/low'] });
    expect(afterLow.labels.map((label) => label.name)).toEqual(['prio/any', 'prio/low']);
    const event = decoded(IssueEvent, (await harness.outbox(seq))[0]);
    expect(event.addedLabels.map((label) => label.id)).toEqual([low.id]);
    expect(event.removedLabels.map((label) => label.id)).toEqual([high.id]);
    // Both of one scope in one request: the later (higher id) wins.
    const replaced = await harness.labels.replaceIssueLabels({ scope: w, index: issue.index, labelIds: [low.id, high.id], names: [] });
    expect(replaced.labels.map((label) => label.name)).toEqual(['prio/low']);
  });

  test('a private repository says so in the events', async () => {
    const issue = await insertIssue(REPO);
    const seq = await harness.lastSeq();
    await harness.labels.addIssueLabels({ scope: issueScope(WRITER, 'write', { private: true }), index: issue.index, labelIds: [bug.id], names: [] });
    expect(decoded(IssueEvent, (await harness.outbox(seq))[0]).repoPrivate).toBe(true);
    const labelSeq = await harness.lastSeq();
    await createLabel(repoOwner(WRITER, 'write', { repoId: REPO, private: true }), 'secret-label');
    await createLabel(repoOwner(WRITER, 'write', { repoId: REPO }), 'public-label');
    expect((await harness.outbox(labelSeq)).map((row) => decoded(LabelEvent, row).repoPrivate)).toEqual([true, false]);
  });
});
