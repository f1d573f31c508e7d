import { Code } from '@cairn/rpc';
import { AccessMode } from './access';
import { type ReleaseEdit, type ReleaseState, canSeeDrafts, changedFields, isVisible, planEdit, releaseFilter } from './releases';

const published: ReleaseState = { tagName: 'v1', target: 'main', title: 'One', note: 'notes', isDraft: false, isPrerelease: false };
const draft: ReleaseState = { ...published, isDraft: true };
const noEdit: ReleaseEdit = { tagName: '', targetCommitish: '', name: '', body: '', draft: false, prerelease: false, fields: [] };

describe('release rules', () => {
  it('shows drafts to repository writers and to writers of the releases unit only', () => {
    const reader = { mode: AccessMode.Read, units: { 'repo.releases': AccessMode.Read } };
    const unitWriter = { mode: AccessMode.Read, units: { 'repo.releases': AccessMode.Write } };
    const repoWriter = { mode: AccessMode.Write, units: { 'repo.code': AccessMode.Write } };
    expect([reader, unitWriter, repoWriter].map(canSeeDrafts)).toEqual([false, true, true]);
    expect(isVisible({ isDraft: true }, reader)).toBe(false);
    expect(isVisible({ isDraft: false }, reader)).toBe(true);
    expect(releaseFilter(reader, { draft: true })).toEqual({ includeDrafts: false, draft: true, prerelease: undefined });
  });

  it('changes only the named fields, and a string only to a non-empty value (Gitea\'s EditRelease)', () => {
    const plan = planEdit(published, { ...noEdit, name: 'Renamed', body: '', fields: ['name', 'body'] });
    expect(plan.next).toEqual({ ...published, title: 'Renamed' });
    expect(changedFields(published, plan.next)).toEqual({ title: 'Renamed' });
    // A value sent for a field not named is not applied.
    expect(planEdit(published, { ...noEdit, prerelease: true, fields: [] }).next).toEqual(published);
    expect(() => planEdit(published, { ...noEdit, fields: ['publisher'] })).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT }));
  });

  it('publishing a draft needs its tag, sets `created` again and publishes', () => {
    expect(planEdit(draft, { ...noEdit, draft: false, fields: ['draft'] })).toMatchObject({ needsTag: true, resetCreated: true, event: 'published' });
  });

  it('an edit of a published release publishes an update, needing a tag only when it names another one', () => {
    expect(planEdit(published, { ...noEdit, body: 'more', fields: ['body'] })).toMatchObject({ needsTag: false, resetCreated: false, event: 'updated' });
    expect(planEdit(published, { ...noEdit, tagName: 'v2', fields: ['tag_name'] })).toMatchObject({ needsTag: true, event: 'updated' });
  });

  it('a draft, edited or made one, needs no tag and publishes nothing', () => {
    expect(planEdit(draft, { ...noEdit, body: 'more', fields: ['body'] })).toMatchObject({ needsTag: false, resetCreated: true, event: undefined });
    expect(planEdit(published, { ...noEdit, draft: true, fields: ['draft'] })).toMatchObject({ needsTag: false, event: undefined });
  });
});
