import { Code } from '@cairn/rpc';
import { ZERO_SHA } from '../src/git/refs';
import { type GitStorageFixture, PUSH, git, rejection, startGitStorageFixture } from './git-repo-fixture';

let fixture: GitStorageFixture;

beforeAll(async () => {
  fixture = await startGitStorageFixture();
});

afterAll(async () => {
  await fixture.stop();
});

const DAY = 86_400;
const T0 = 1_700_000_000;

describe('branches', () => {
  it('lists branches by head commit time (newest first), then name, with paging and a total', async () => {
    const repo = fixture.newRepository();
    fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a' }, message: 'first', at: T0 }]);
    fixture.commitOn(repo, 'old', [{ files: { 'old.txt': 'o' }, message: 'old', at: T0 + DAY }]);
    fixture.commitOn(repo, 'zeta', [{ files: { 'z.txt': 'z' }, message: 'zeta', at: T0 + 3 * DAY }]);
    fixture.commitOn(repo, 'alpha', [{ files: { 'al.txt': 'al' }, message: 'alpha', at: T0 + 3 * DAY }]);
    fixture.commitOn(repo, 'mid', [{ files: { 'm.txt': 'm' }, message: 'mid', at: T0 + 2 * DAY }]);

    const all = await fixture.refs.listBranches({ repository: repo.repository, page: 1, limit: 0 });
    expect(all.total).toBe(5);
    expect(all.branches.map((branch) => branch.name)).toEqual(['alpha', 'zeta', 'mid', 'old', 'main']);

    const page2 = await fixture.refs.listBranches({ repository: repo.repository, page: 2, limit: 2 });
    expect(page2.total).toBe(5);
    expect(page2.branches.map((branch) => branch.name)).toEqual(['mid', 'old']);
    const mid = page2.branches[0]!;
    expect(mid.commit?.message).toBe('mid\n');
    expect(mid.commit?.committer?.when).toEqual(new Date((T0 + 2 * DAY) * 1000));

    const beyond = await fixture.refs.listBranches({ repository: repo.repository, page: 4, limit: 2 });
    expect(beyond).toEqual({ branches: [], total: 5 });
  });

  it('answers an empty list for an empty repository and NOT_FOUND for a missing one', async () => {
    const repo = fixture.newRepository();
    expect(await fixture.refs.listBranches({ repository: repo.repository, page: 1, limit: 10 })).toEqual({ branches: [], total: 0 });
    const missing = await rejection(fixture.refs.listBranches({ repository: { storage: '', repoId: 999_999 }, page: 1, limit: 10 }));
    expect(missing.code).toBe(Code.NOT_FOUND);
    expect(missing.reason).toBe('repository_not_found');
  });

  it('gets, creates, renames and deletes branches, publishing each move', async () => {
    const repo = fixture.newRepository();
    const [first, second] = fixture.commitOn(repo, 'main', [
      { files: { 'a.txt': 'a' }, message: 'first', at: T0 },
      { files: { 'a.txt': 'b' }, message: 'second', at: T0 + 60 },
    ]);
    const before = (await fixture.pushedEvents()).length;

    const got = await fixture.refs.getBranch({ repository: repo.repository, name: 'main' });
    expect(got.branch?.commit?.sha).toBe(second);
    expect(got.branch?.commit?.parentShas).toEqual([first]);

    const created = await fixture.refs.createBranch({ repository: repo.repository, name: 'feature/x', startPoint: first!, push: PUSH });
    expect(created.branch).toMatchObject({ name: 'feature/x', commit: { sha: first } });
    expect(git(['rev-parse', 'refs/heads/feature/x'], { cwd: repo.gitDir }).stdout.trim()).toBe(first);

    const fromHead = await fixture.refs.createBranch({ repository: repo.repository, name: 'from-head', startPoint: '', push: PUSH });
    expect(fromHead.branch?.commit?.sha).toBe(second);

    await fixture.refs.renameBranch({ repository: repo.repository, from: 'feature/x', to: 'feature/y', push: PUSH });
    await expect(fixture.refs.getBranch({ repository: repo.repository, name: 'feature/x' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect((await fixture.refs.getBranch({ repository: repo.repository, name: 'feature/y' })).branch?.commit?.sha).toBe(first);

    await fixture.refs.deleteBranch({ repository: repo.repository, name: 'feature/y', push: PUSH });
    const gone = await rejection(fixture.refs.getBranch({ repository: repo.repository, name: 'feature/y' }));
    expect(gone.code).toBe(Code.NOT_FOUND);
    expect(gone.reason).toBe('branch_not_found');

    const events = (await fixture.pushedEvents()).slice(before);
    expect(events.map((event) => event.refUpdates)).toEqual([
      [{ ref: 'refs/heads/feature/x', oldSha: ZERO_SHA, newSha: first }],
      [{ ref: 'refs/heads/from-head', oldSha: ZERO_SHA, newSha: second }],
      [
        { ref: 'refs/heads/feature/x', oldSha: first, newSha: ZERO_SHA },
        { ref: 'refs/heads/feature/y', oldSha: ZERO_SHA, newSha: first },
      ],
      [{ ref: 'refs/heads/feature/y', oldSha: first, newSha: ZERO_SHA }],
    ]);
    expect(events[0]).toMatchObject({ pusherId: PUSH.pusherId, repoId: repo.repository.repoId, repoOwnerId: 3, repoPrivate: true });
  });

  it('moves HEAD with a renamed default branch, also into and out of its own namespace', async () => {
    const repo = fixture.newRepository();
    const [sha] = fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a' }, message: 'first', at: T0 }]);
    await fixture.refs.renameBranch({ repository: repo.repository, from: 'main', to: 'main/inner', push: PUSH });
    expect(git(['symbolic-ref', 'HEAD'], { cwd: repo.gitDir }).stdout.trim()).toBe('refs/heads/main/inner');
    await fixture.refs.renameBranch({ repository: repo.repository, from: 'main/inner', to: 'main', push: PUSH });
    expect(git(['symbolic-ref', 'HEAD'], { cwd: repo.gitDir }).stdout.trim()).toBe('refs/heads/main');
    expect((await fixture.refs.getBranch({ repository: repo.repository, name: 'main' })).branch?.commit?.sha).toBe(sha);
  });

  it('refuses bad names, existing branches, unknown start points and empty repositories without changing refs', async () => {
    const repo = fixture.newRepository();
    const [sha] = fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a' }, message: 'first', at: T0 }]);
    const refsBefore = git(['for-each-ref'], { cwd: repo.gitDir }).stdout;
    const eventsBefore = (await fixture.pushedEvents()).length;

    for (const name of ['a..b', 'bad name', '-x', 'x.lock', 'a\u0001b', 'tail/', 'a@{1}', 'q?']) {
      const error = await rejection(fixture.refs.createBranch({ repository: repo.repository, name, startPoint: '', push: PUSH }));
      expect(error.code).toBe(Code.INVALID_ARGUMENT);
      expect(error.reason).toBe('invalid_ref_name');
    }
    const exists = await rejection(fixture.refs.createBranch({ repository: repo.repository, name: 'main', startPoint: '', push: PUSH }));
    expect(exists).toMatchObject({ code: Code.ALREADY_EXISTS, reason: 'branch_exists' });
    const conflict = await rejection(fixture.refs.createBranch({ repository: repo.repository, name: 'main/sub', startPoint: '', push: PUSH }));
    expect(conflict).toMatchObject({ code: Code.ALREADY_EXISTS, reason: 'branch_name_conflict' });
    const unknown = await rejection(fixture.refs.createBranch({ repository: repo.repository, name: 'new', startPoint: 'nope', push: PUSH }));
    expect(unknown).toMatchObject({ code: Code.NOT_FOUND, reason: 'revision_not_found' });
    const range = await rejection(fixture.refs.createBranch({ repository: repo.repository, name: 'new', startPoint: 'main..HEAD', push: PUSH }));
    expect(range).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_revision' });
    const noPush = await rejection(fixture.refs.createBranch({ repository: repo.repository, name: 'new', startPoint: sha!, push: undefined }));
    expect(noPush.code).toBe(Code.INVALID_ARGUMENT);
    const renameOnto = await rejection(fixture.refs.renameBranch({ repository: repo.repository, from: 'main', to: 'main', push: PUSH }));
    expect(renameOnto).toMatchObject({ code: Code.ALREADY_EXISTS, reason: 'branch_exists' });
    const deleteMissing = await rejection(fixture.refs.deleteBranch({ repository: repo.repository, name: 'missing', push: PUSH }));
    expect(deleteMissing).toMatchObject({ code: Code.NOT_FOUND, reason: 'branch_not_found' });

    expect(git(['for-each-ref'], { cwd: repo.gitDir }).stdout).toBe(refsBefore);
    expect((await fixture.pushedEvents()).length).toBe(eventsBefore);

    const empty = fixture.newRepository();
    const onEmpty = await rejection(fixture.refs.createBranch({ repository: empty.repository, name: 'x', startPoint: '', push: PUSH }));
    expect(onEmpty).toMatchObject({ code: Code.NOT_FOUND, reason: 'empty_repository' });
  });
});

describe('tags', () => {
  it('creates lightweight and annotated tags and lists them newest first', async () => {
    const repo = fixture.newRepository();
    const [first, second] = fixture.commitOn(repo, 'main', [
      { files: { 'a.txt': 'a' }, message: 'first', at: T0 },
      { files: { 'a.txt': 'b' }, message: 'second', at: T0 + DAY },
    ]);
    const before = (await fixture.pushedEvents()).length;

    const light = await fixture.refs.createTag({ repository: repo.repository, name: 'v1', target: first!, message: '', push: PUSH });
    expect(light.tag).toMatchObject({ name: 'v1', id: first, annotated: false, message: '', commit: { sha: first } });
    expect(light.tag?.tagger).toBeUndefined();

    const when = new Date((T0 + 5 * DAY) * 1000);
    const annotated = await fixture.refs.createTag({
      repository: repo.repository,
      name: 'v2',
      target: 'main',
      message: 'Release 2\n\n# not a comment\n',
      tagger: { name: 'Tagger', email: 'tagger@example.com', when, timezone: '+0130' },
      push: PUSH,
    });
    const tagObject = git(['rev-parse', 'refs/tags/v2'], { cwd: repo.gitDir }).stdout.trim();
    expect(annotated.tag).toMatchObject({
      name: 'v2',
      id: tagObject,
      annotated: true,
      message: 'Release 2\n\n# not a comment\n',
      commit: { sha: second },
      tagger: { name: 'Tagger', email: 'tagger@example.com', when, timezone: '+0130' },
    });
    expect(tagObject).not.toBe(second);
    expect(git(['cat-file', '-t', tagObject], { cwd: repo.gitDir }).stdout.trim()).toBe('tag');

    const list = await fixture.refs.listTags({ repository: repo.repository, page: 1, limit: 0 });
    expect(list.total).toBe(2);
    expect(list.tags.map((tag) => tag.name)).toEqual(['v2', 'v1']);
    const paged = await fixture.refs.listTags({ repository: repo.repository, page: 2, limit: 1 });
    expect(paged.tags.map((tag) => tag.name)).toEqual(['v1']);

    const got = await fixture.refs.getTag({ repository: repo.repository, name: 'v2' });
    expect(got.tag).toEqual(annotated.tag);

    const exists = await rejection(fixture.refs.createTag({ repository: repo.repository, name: 'v1', target: '', message: '', push: PUSH }));
    expect(exists).toMatchObject({ code: Code.ALREADY_EXISTS, reason: 'tag_exists' });
    const missingTarget = await rejection(fixture.refs.createTag({ repository: repo.repository, name: 'v3', target: 'nope', message: '', push: PUSH }));
    expect(missingTarget.code).toBe(Code.NOT_FOUND);
    const noTagger = await rejection(fixture.refs.createTag({ repository: repo.repository, name: 'v3', target: '', message: 'm', push: PUSH }));
    expect(noTagger).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_signature' });
    const badName = await rejection(fixture.refs.createTag({ repository: repo.repository, name: 'v..3', target: '', message: '', push: PUSH }));
    expect(badName.reason).toBe('invalid_ref_name');

    await fixture.refs.deleteTag({ repository: repo.repository, name: 'v2', push: PUSH });
    const deleted = await rejection(fixture.refs.getTag({ repository: repo.repository, name: 'v2' }));
    expect(deleted).toMatchObject({ code: Code.NOT_FOUND, reason: 'tag_not_found' });

    const events = (await fixture.pushedEvents()).slice(before);
    expect(events.map((event) => event.refUpdates)).toEqual([
      [{ ref: 'refs/tags/v1', oldSha: ZERO_SHA, newSha: first }],
      [{ ref: 'refs/tags/v2', oldSha: ZERO_SHA, newSha: tagObject }],
      [{ ref: 'refs/tags/v2', oldSha: tagObject, newSha: ZERO_SHA }],
    ]);
  });
});

describe('ResolveRevision and ResolveRefPath', () => {
  it('prefers a branch over a tag over a commit id, accepts short ids and HEAD', async () => {
    const repo = fixture.newRepository();
    const [first, second] = fixture.commitOn(repo, 'main', [
      { files: { 'a.txt': 'a' }, message: 'first', at: T0 },
      { files: { 'a.txt': 'b' }, message: 'second', at: T0 + 60 },
    ]);
    git(['update-ref', 'refs/heads/same', first!], { cwd: repo.gitDir });
    git(['update-ref', 'refs/tags/same', second!], { cwd: repo.gitDir });
    git(['update-ref', 'refs/tags/only-tag', second!], { cwd: repo.gitDir });
    const resolve = (revision: string) => fixture.refs.resolveRevision({ repository: repo.repository, revision });

    expect(await resolve('same')).toEqual({ sha: first, kind: 'branch', refName: 'refs/heads/same' });
    expect(await resolve('only-tag')).toEqual({ sha: second, kind: 'tag', refName: 'refs/tags/only-tag' });
    expect(await resolve(first!)).toEqual({ sha: first, kind: 'commit', refName: '' });
    expect(await resolve(first!.slice(0, 7).toUpperCase())).toEqual({ sha: first, kind: 'commit', refName: '' });
    expect(await resolve('HEAD')).toEqual({ sha: second, kind: 'branch', refName: 'refs/heads/main' });
    expect(await resolve('')).toEqual({ sha: second, kind: 'branch', refName: 'refs/heads/main' });

    for (const revision of ['nope', 'abc', 'ffffffff', 'main~1']) {
      expect(await rejection(resolve(revision))).toMatchObject({ code: Code.NOT_FOUND, reason: 'revision_not_found' });
    }
    for (const revision of ['-x', '--all', 'main..same', 'a\u0000b']) {
      expect(await rejection(resolve(revision))).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_revision' });
    }
    const empty = fixture.newRepository();
    expect(await rejection(fixture.refs.resolveRevision({ repository: empty.repository, revision: 'main' }))).toMatchObject({
      code: Code.FAILED_PRECONDITION,
      reason: 'empty_repository',
    });
  });

  it('splits a ref path at its branch, else tag, else commit id', async () => {
    const repo = fixture.newRepository();
    const [sha] = fixture.commitOn(repo, 'feature/x', [{ files: { 'docs/a.md': 'a' }, message: 'first', at: T0 }]);
    git(['update-ref', 'refs/tags/v1.0', sha!], { cwd: repo.gitDir });
    git(['symbolic-ref', 'HEAD', 'refs/heads/feature/x'], { cwd: repo.gitDir });
    const split = (path: string) => fixture.refs.resolveRefPath({ repository: repo.repository, path });

    expect(await split('feature/x/docs/a.md')).toEqual({ ref: 'feature/x', kind: 'branch', sha, rest: 'docs/a.md' });
    expect(await split('feature/x')).toEqual({ ref: 'feature/x', kind: 'branch', sha, rest: '' });
    expect(await split('v1.0/docs/a.md')).toEqual({ ref: 'v1.0', kind: 'tag', sha, rest: 'docs/a.md' });
    expect(await split(`${sha!.slice(0, 10)}/docs/a.md`)).toEqual({ ref: sha!.slice(0, 10), kind: 'commit', sha, rest: 'docs/a.md' });
    expect(await split('HEAD/docs/a.md')).toEqual({ ref: 'feature/x', kind: 'branch', sha, rest: 'docs/a.md' });
    expect(await rejection(split('feature/docs/a.md'))).toMatchObject({ code: Code.NOT_FOUND });
    expect(await rejection(split('..'))).toMatchObject({ code: Code.NOT_FOUND });
  });
});
