import { inflateSync } from 'node:zlib';
import { AVATAR_HASH, AVATAR_SIZE, identiconCells, identiconPng } from './identicon';

const HASH = '0123456789abcdef0123456789abcdef';

describe('identicon', () => {
  it('is left-right symmetric and never blank', () => {
    for (const hash of [HASH, '0'.repeat(32), 'f'.repeat(32)]) {
      const cells = identiconCells(hash);
      for (const row of cells) expect(row).toEqual([...row].reverse());
      expect(cells.flat()).toContain(true);
    }
  });

  it('encodes a valid PNG of the avatar size, the same for the same hash', () => {
    const png = identiconPng(HASH);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.toString('ascii', 12, 16)).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([AVATAR_SIZE, AVATAR_SIZE]);
    const idatLength = png.readUInt32BE(33);
    expect(png.toString('ascii', 37, 41)).toBe('IDAT');
    expect(inflateSync(png.subarray(41, 41 + idatLength))).toHaveLength(AVATAR_SIZE * (1 + AVATAR_SIZE * 3));
    expect(identiconPng(HASH)).toEqual(png);
    expect(identiconPng('fedcba9876543210fedcba9876543210')).not.toEqual(png);
  });

  it('accepts only 32 lower-case hex digits', () => {
    expect(AVATAR_HASH.test(HASH)).toBe(true);
    for (const bad of ['', HASH.toUpperCase(), `${HASH}0`, '../x', 'z'.repeat(32)]) expect(AVATAR_HASH.test(bad)).toBe(false);
  });
});
