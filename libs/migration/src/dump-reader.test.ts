import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DumpDownloader, DumpFormatError } from './dump-reader';
import { DumpUploader } from './dump';

/** The hand-written dump: as `gitea dump-repo` writes it (gopkg.in/yaml.v3 keys, quoting, times). */
const FIXTURE = path.join(__dirname, '..', '..', '..', 'e2e', 'fixtures', 'gitea-dump');

describe('DumpDownloader', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'cairn-dump-reader-'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  const copy = (): string => {
    const dir = path.join(scratch, 'dump');
    cpSync(FIXTURE, dir, { recursive: true });
    return dir;
  };

  it("reads every file of Gitea's layout into the model", async () => {
    const dump = await DumpDownloader.open(FIXTURE, { validation: true });
    expect(await dump.getRepoInfo()).toMatchObject({ name: 'tools', owner: 'alice', description: 'Small tools', isPrivate: false, originalUrl: 'https://gitea.example.com/alice/tools' });
    expect((await dump.repoInfo()).service).toBe('gitea');
    expect(await dump.getTopics()).toEqual(['cli', 'tools']);
    expect(await dump.getLabels()).toEqual([
      { name: 'bug', color: 'ee0701', description: 'Something is broken', exclusive: false },
      { name: 'priority/high', color: 'd93f0b', description: '', exclusive: true },
    ]);
    const milestones = await dump.getMilestones();
    expect(milestones.map((m) => [m.title, m.state, m.deadline?.toISOString(), m.closed?.toISOString()])).toEqual([
      ['v1', 'open', '2024-03-01T00:00:00.000Z', undefined],
      ['v0', 'closed', undefined, '2023-07-01T10:00:00.000Z'],
    ]);
    expect(milestones[1].created.toISOString()).toBe('2023-06-01T10:00:00.500Z');
    const { items: issues, isEnd } = await dump.getIssues(1, 50);
    expect(isEnd).toBe(true);
    expect(issues[0]).toMatchObject({
      number: 1,
      posterName: 'carol',
      posterEmail: 'carol@example.com',
      content: 'It crashes.\nEvery time.',
      milestone: 'v1',
      reactions: [{ userId: 8, userName: 'dave', content: '+1' }],
      foreignIndex: 1,
    });
    expect(issues[0].labels.map((label) => label.name)).toEqual(['bug', 'priority/high']);
    // A quoted "yes" stays a string; a closed, locked issue keeps both.
    expect(issues[1]).toMatchObject({ number: 3, title: 'yes', state: 'closed', isLocked: true });
    expect((await dump.getComments(1)).map((c) => [c.index, c.posterName, c.content, c.reactions.length])).toEqual([
      [11, 'dave', 'me too', 1],
      [12, 'carol', 'Fixed in\nmain.', 0],
    ]);
    expect(await dump.getComments(3)).toEqual([]);
    const [release] = await dump.getReleases();
    expect(release).toMatchObject({ tagName: 'v1.0', targetCommitish: 'main', publisherName: 'carol' });
    expect(release.assets[0]).toMatchObject({ id: 5, name: 'tools.txt', size: 6, downloadUrl: 'release_assets/5/tools.txt' });
    const asset = await dump.openReleaseAsset(release.assets[0]);
    const chunks: Buffer[] = [];
    for await (const chunk of asset) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('tools\n');
    const { items: pulls } = await dump.getPullRequests(1, 50);
    expect(pulls[0]).toMatchObject({ number: 2, title: 'Fix the crash', head: { ref: 'fix' }, base: { ref: 'main' }, patchUrl: 'git/pulls/2.patch' });
    expect((await dump.getPullPatch(pulls[0]))?.toString()).toContain('Subject: [PATCH] Fix the crash');
    expect(await dump.getReviews(2)).toEqual([
      { id: 9, issueIndex: 2, reviewerId: 7, reviewerName: 'carol', official: true, commitId: '', content: 'Looks right', createdAt: new Date('2024-01-07T00:00:00Z'), state: 'APPROVED', comments: [] },
      { id: 10, issueIndex: 2, reviewerId: 8, reviewerName: 'dave', official: false, commitId: '', content: 'Please add a test', createdAt: new Date('2024-01-07T01:00:00Z'), state: 'CHANGES_REQUESTED', comments: [] },
    ]);
    expect(await dump.getReviews(1)).toEqual([]);
  });

  it('pages lists by slicing, the last page saying it is the end', async () => {
    const dump = await DumpDownloader.open(FIXTURE);
    expect(await dump.getIssues(1, 1)).toMatchObject({ items: [{ number: 1 }], isEnd: false });
    expect(await dump.getIssues(2, 1)).toMatchObject({ items: [{ number: 3 }], isEnd: true });
    expect(await dump.getIssues(3, 1)).toEqual({ items: [], isEnd: true });
  });

  it('reads back what DumpUploader writes (one key list for both)', async () => {
    const dir = path.join(scratch, 'written');
    const source = await DumpDownloader.open(FIXTURE);
    const writer = await DumpUploader.create({ dir, readPatch: async () => Buffer.from('patch') });
    await writer.writeRepo({ ...(await source.repoInfo()) });
    await writer.createTopics(await source.getTopics());
    await writer.createLabels(await source.getLabels());
    await writer.createMilestones(await source.getMilestones());
    await writer.createReleases(await source.getReleases());
    const { items: issues } = await source.getIssues(1, 50);
    await writer.createIssues(issues);
    await writer.createComments(await source.getComments(1));
    const { items: pulls } = await source.getPullRequests(1, 50);
    await writer.createPullRequests(pulls);
    const back = await DumpDownloader.open(dir, { validation: true });
    expect(await back.getLabels()).toEqual(await source.getLabels());
    expect(await back.getMilestones()).toEqual(await source.getMilestones());
    expect(await back.getReleases()).toEqual(await source.getReleases());
    expect((await back.getIssues(1, 50)).items).toEqual(issues);
    expect(await back.getComments(1)).toEqual(await source.getComments(1));
    expect((await back.getPullRequests(1, 50)).items).toEqual(pulls);
    expect(await back.getTopics()).toEqual(['cli', 'tools']);
  });

  it('takes missing files as empty lists, as Gitea’s restorer does, but needs repo.yml', async () => {
    const dir = path.join(scratch, 'bare');
    cpSync(path.join(FIXTURE, 'repo.yml'), path.join(dir, 'repo.yml'), { recursive: true });
    const dump = await DumpDownloader.open(dir);
    expect([await dump.getTopics(), await dump.getLabels(), await dump.getMilestones(), await dump.getReleases()]).toEqual([[], [], [], []]);
    expect(await dump.getIssues(1, 50)).toEqual({ items: [], isEnd: true });
    rmSync(path.join(dir, 'repo.yml'));
    await expect(DumpDownloader.open(dir)).rejects.toThrow(new DumpFormatError('repo.yml', `not found in ${dir}`));
  });

  it('--validation names the file and the field that break Gitea’s schema', async () => {
    const dir = copy();
    const issues = readFileSync(path.join(dir, 'issue.yml'), 'utf8');
    writeFileSync(path.join(dir, 'issue.yml'), issues.replace('title: Crash on start', 'title: 42'));
    await expect(DumpDownloader.open(dir, { validation: true })).rejects.toThrow('issue.yml: validation failed: item [0].title: expected string, but got number');
    // Without validation Gitea's unmarshal would take it; so does the reader.
    await expect(DumpDownloader.open(dir)).resolves.toBeInstanceOf(DumpDownloader);
    writeFileSync(path.join(dir, 'issue.yml'), issues);
    writeFileSync(path.join(dir, 'milestone.yml'), '- title: v1\n  state: someday\n');
    await expect(DumpDownloader.open(dir, { validation: true })).rejects.toThrow(/^milestone\.yml: validation failed: item \[0\]: missing property "description"$/);
  });

  it('refuses paths that leave the dump (patches, assets)', async () => {
    const dir = copy();
    const dump = await DumpDownloader.open(dir);
    const { items } = await dump.getPullRequests(1, 50);
    await expect(dump.getPullPatch({ ...items[0], patchUrl: '../../etc/passwd' })).rejects.toThrow(/outside the dump/);
    await expect(dump.getPullPatch({ ...items[0], patchUrl: '/etc/passwd' })).rejects.toThrow(/outside the dump/);
    const [release] = await dump.getReleases();
    await expect(dump.openReleaseAsset({ ...release.assets[0], downloadUrl: '../x' })).rejects.toThrow(/outside the dump/);
  });
});
