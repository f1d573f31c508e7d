/** Release assets in a dump: names from the source never leave release_assets/, and the files hold the bytes. */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Release, ReleaseAsset } from './base';
import { DumpUploader } from './dump';
import { AssetPaths, assetFile, safePathPart, safeTagPath } from './dump-assets';

describe('safePathPart', () => {
  test.each([
    ['app.tar.gz', 'app.tar.gz'],
    ['../../etc/passwd', '.._.._etc_passwd'],
    ['a\\b', 'a_b'],
    ['nul\u0000byte', 'nul_byte'],
    ['line\nbreak', 'line_break'],
    ['.', '_'],
    ['..', '__'],
    ['', '_'],
    ['  spaced name (1).zip', '  spaced name (1).zip'],
  ])('%j → %j', (name, safe) => {
    expect(safePathPart(name)).toBe(safe);
  });
});

describe('safeTagPath', () => {
  test.each([
    ['v1.0', 'v1.0'],
    ['release/v1', 'release/v1'],
    ['../../x', '__/__/x'],
    ['/abs//tag/', 'abs/tag'],
    ['a\\..\\b', 'a_.._b'],
    ['', '_'],
  ])('%j → %j', (tag, safe) => {
    expect(safeTagPath(tag)).toBe(safe);
  });
});

describe('AssetPaths', () => {
  test("gives Gitea's path, and another one to a name already used in the dump", () => {
    const paths = new AssetPaths();
    expect(paths.next('v1.0', { id: 5, name: 'app.zip' })).toBe('release_assets/v1.0/app.zip');
    expect(paths.next('v1.0', { id: 6, name: 'app.zip' })).toBe('release_assets/v1.0/6-app.zip');
    expect(paths.next('v1.0', { id: 6, name: 'APP.zip' })).toBe('release_assets/v1.0/6-2-APP.zip');
    expect(paths.next('v2.0', { id: 7, name: 'app.zip' })).toBe('release_assets/v2.0/app.zip');
    expect(paths.next('v1.0', { id: 8, name: 'a/b' })).toBe('release_assets/v1.0/a_b');
    expect(paths.next('v1.0', { id: 9, name: 'a_b' })).toBe('release_assets/v1.0/9-a_b');
  });

  test('assetFile refuses a path outside release_assets', () => {
    expect(assetFile('/dump', 'release_assets/v1/a')).toBe('/dump/release_assets/v1/a');
    expect(() => assetFile('/dump', 'release_assets/../repo.yml')).toThrow(/leaves the dump/);
    expect(() => assetFile('/dump', 'release_assets')).toThrow(/leaves the dump/);
  });
});

describe('DumpUploader release assets', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cairn-dump-assets-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const created = new Date('2021-05-27T13:24:13Z');
  const asset = (id: number, name: string, size?: number): ReleaseAsset => ({
    id,
    name,
    size,
    downloadCount: 3,
    created,
    updated: created,
    downloadUrl: `https://source.example/attachments/${id}`,
  });
  const release = (tagName: string, assets: ReleaseAsset[]): Release => ({
    tagName,
    targetCommitish: 'main',
    name: tagName,
    body: '',
    draft: false,
    prerelease: false,
    publisherId: 7,
    publisherName: 'alice',
    publisherEmail: 'alice@example.com',
    assets,
    created,
    published: created,
  });

  test('streams each asset to release_assets/<tag>/<name> and points download_url there, hostile names kept inside', async () => {
    const bytes = new Map<number, Buffer>([
      [1, Buffer.from('first asset')],
      [2, Buffer.from([0, 1, 2, 255])],
      [3, Buffer.from('escapee')],
    ]);
    const opened: number[] = [];
    const dumper = await DumpUploader.create({
      dir,
      readPatch: () => Promise.reject(new Error('no pulls here')),
      openAsset: (wanted) => {
        opened.push(wanted.id);
        return Promise.resolve(Readable.from([bytes.get(wanted.id) ?? Buffer.alloc(0)]));
      },
    });
    await dumper.createReleases([release('v1.0', [asset(1, 'app.txt', 11), asset(2, 'data.bin')]), release('../evil', [asset(3, '../../repo.yml', 7)])]);

    expect(opened).toEqual([1, 2, 3]);
    expect(await readFile(path.join(dir, 'release_assets/v1.0/app.txt'), 'utf8')).toBe('first asset');
    expect(await readFile(path.join(dir, 'release_assets/v1.0/data.bin'))).toEqual(bytes.get(2));
    expect(await readFile(path.join(dir, 'release_assets/__/evil/.._.._repo.yml'), 'utf8')).toBe('escapee');
    expect((await readdir(dir)).sort()).toEqual(['release.yml', 'release_assets']);
    const yaml = await readFile(path.join(dir, 'release.yml'), 'utf8');
    expect(yaml).toContain('download_url: release_assets/v1.0/app.txt');
    // A size the source did not give is the bytes written.
    expect(yaml).toMatch(/name: data\.bin\n\s+content_type: null\n\s+size: 4\n/);
    expect(yaml).toContain('download_url: release_assets/__/evil/.._.._repo.yml');
    expect(yaml).not.toContain('https://source.example');
  });

  test('without openAsset the source URLs stay and no file is written', async () => {
    const dumper = await DumpUploader.create({ dir, readPatch: () => Promise.reject(new Error('no pulls here')) });
    await dumper.createReleases([release('v1.0', [asset(1, 'app.txt', 11)])]);
    expect(await readdir(dir)).toEqual(['release.yml']);
    expect(await readFile(path.join(dir, 'release.yml'), 'utf8')).toContain('download_url: https://source.example/attachments/1');
  });
});
