/**
 * ImportService.ImportReleaseAsset on a real database and object store (rpc/import-release-asset.ts): the bytes
 * stored under a reserved uuid and recorded with the source's download count and time; the same asset sent again (a
 * resumed import) answered as it is, nothing stored again; a second asset of one name kept apart by its
 * occurrence; an asset past [attachment] MAX_SIZE refused with nothing left behind.
 */
import { Readable } from 'node:stream';
import { sql, z } from '@cairn/db';
import type { ImportReleaseAssetRequest, ImportedReleaseAsset } from '@cairn/proto/cairn/repos/v1/import_service';
import { Code, isCairnError } from '@cairn/rpc';
import { attachmentKey } from '@cairn/storage';
import { importReleaseAsset } from '../src/rpc/import-release-asset';
import type { ReposContext } from '../src/rpc/context';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('ImportService.ImportReleaseAsset', () => {
  let h: ReposHarness;
  let owner: number;
  let repoId: number;
  const created = new Date('2021-05-27T13:24:13Z');

  beforeAll(async () => {
    h = await startReposHarness();
    owner = h.accounts.addUser('importer');
    repoId = await h.insertRepo({ ownerId: owner, ownerName: 'importer', name: 'copy', units: ['repo.code', 'repo.releases'] });
    await h.db.pool.query(sql.unsafe`INSERT INTO releases (repo_id, tag_name, publisher_id) VALUES (${repoId}, 'v1.0', ${owner})`);
  });

  afterAll(async () => {
    await h?.stop();
  });

  const header = (fields: Partial<ImportedReleaseAsset>): ImportedReleaseAsset => ({
    repoId,
    tagName: 'v1.0',
    name: 'app.bin',
    occurrence: 1,
    downloadCount: 7,
    created,
    uploaderId: owner,
    ...fields,
  });
  /** The header with the first chunk, then the rest in 1 KiB messages. */
  async function* messages(asset: ImportedReleaseAsset, bytes: Buffer): AsyncIterable<ImportReleaseAssetRequest> {
    yield { asset, data: bytes.subarray(0, 100) };
    for (let at = 100; at < bytes.length; at += 1024) yield { asset: undefined, data: bytes.subarray(at, at + 1024) };
  }
  const send = (context: ReposContext, asset: ImportedReleaseAsset, bytes: Buffer) => importReleaseAsset(context, messages(asset, bytes));
  const read = async (uuid: string): Promise<Buffer> => {
    const opened = await h.objects.open(attachmentKey(uuid));
    const chunks: Buffer[] = [];
    for await (const chunk of opened.body as Readable) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const rows = (name: string) =>
    h.db.pool.any(sql.type(z.object({ id: z.number(), size: z.number(), download_count: z.number(), created: z.date(), uploader_id: z.number() }))`
      SELECT id, size, download_count, created, uploader_id FROM attachments WHERE repo_id = ${repoId} AND name = ${name} ORDER BY id`);
  const pendingPurges = () => h.db.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM attachment_purges`);

  it('stores and records an asset once; sent again it is answered as it is, nothing stored again', async () => {
    const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
    const first = await send(h.context, header({}), bytes);
    expect(first).toMatchObject({ size: 5000, created: true });
    expect((await read(first.uuid)).equals(bytes)).toBe(true);
    expect(await rows('app.bin')).toEqual([{ id: first.attachmentId, size: 5000, download_count: 7, created, uploader_id: owner }]);

    const again = await send(h.context, header({}), bytes);
    expect(again).toEqual({ ...first, created: false });
    expect(await rows('app.bin')).toHaveLength(1);
    expect(await pendingPurges()).toBe(0);
  });

  it('keeps a second asset of the same name apart by its occurrence', async () => {
    const second = await send(h.context, header({ name: 'notes.txt', occurrence: 1 }), Buffer.from('one'));
    const third = await send(h.context, header({ name: 'notes.txt', occurrence: 2 }), Buffer.from('two!'));
    expect([second.created, third.created]).toEqual([true, true]);
    expect((await rows('notes.txt')).map((row) => row.size)).toEqual([3, 4]);
    const resent = await send(h.context, header({ name: 'notes.txt', occurrence: 2 }), Buffer.from('two!'));
    expect(resent).toEqual({ ...third, created: false });
    expect(await rows('notes.txt')).toHaveLength(2);
  });

  it('refuses an asset past [attachment] MAX_SIZE and keeps nothing of it', async () => {
    const small: ReposContext = { ...h.context, config: { ...h.context.config, attachment: { ...h.context.config.attachment, maxSize: 1 } } };
    const error: unknown = await send(small, header({ name: 'huge.iso' }), Buffer.alloc(1024 * 1024 + 1)).catch((caught: unknown) => caught);
    expect(isCairnError(error) && { code: error.code, reason: error.reason }).toEqual({ code: Code.INVALID_ARGUMENT, reason: 'attachment_too_large' });
    expect(await rows('huge.iso')).toEqual([]);
    expect(await pendingPurges()).toBe(0);
  });

  it('answers NOT_FOUND for a tag without a release, and refuses a call without its header', async () => {
    const missing: unknown = await send(h.context, header({ tagName: 'v9' }), Buffer.from('x')).catch((caught: unknown) => caught);
    expect(isCairnError(missing) && { code: missing.code, reason: missing.reason }).toEqual({ code: Code.NOT_FOUND, reason: 'release_not_found' });
    const headless: unknown = await importReleaseAsset(h.context, Readable.from([{ asset: undefined, data: Buffer.from('x') }])).catch((caught: unknown) => caught);
    expect(isCairnError(headless) && { code: headless.code, reason: headless.reason }).toEqual({ code: Code.INVALID_ARGUMENT, reason: 'asset_header_missing' });
  });
});
