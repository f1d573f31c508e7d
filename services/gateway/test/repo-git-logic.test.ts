/**
 * The pure pieces behind the git-facing repository routes: strict base64, raw-file content sniffing, git times
 * in their own zone, Gitea's affected-file list and tag shapes.
 */
import type { Commit, Tag } from '@cairn/proto/cairn/git/v1/git_service';
import { affectedFiles, signatureTime, toApiTag } from '@cairn/gitea-json';
import { decodeBase64 } from '../src/routes/repos/base64';
import { sniffContentType } from '../src/routes/repos/raw';

describe('decodeBase64', () => {
  it('reads standard base64, skipping line breaks', () => {
    expect(decodeBase64('aGVs\nbG8=').toString()).toBe('hello');
    expect(decodeBase64('').length).toBe(0);
  });

  it("refuses what Go's decoder refuses, naming the byte", () => {
    expect(() => decodeBase64('abc$')).toThrow('illegal base64 data at input byte 3');
    expect(() => decodeBase64('ab=c')).toThrow('illegal base64 data at input byte 2');
    expect(() => decodeBase64('abcde')).toThrow('illegal base64 data at input byte 4');
    expect(() => decodeBase64('a===')).toThrow('illegal base64 data at input byte 1');
  });
});

describe('sniffContentType', () => {
  it('knows text, common binary signatures and SVG', () => {
    expect(sniffContentType(Buffer.from('hello\n'))).toBe('text/plain; charset=utf-8');
    expect(sniffContentType(Buffer.alloc(0))).toBe('text/plain; charset=utf-8');
    expect(sniffContentType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(sniffContentType(Buffer.from('%PDF-1.7'))).toBe('application/pdf');
    expect(sniffContentType(Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('image/svg+xml');
    expect(sniffContentType(Buffer.from([1, 2, 0, 3]))).toBe('application/octet-stream');
  });

  it('reads SVG behind comments and a doctype, and a kilobyte of comments in linear time', () => {
    const svg = 'image/svg+xml';
    expect(sniffContentType(Buffer.from('<!-- a --> <!-- b -->\n<!DOCTYPE svg PUBLIC "x">\n<SVG width="1">'))).toBe(svg);
    // A comment may run to any later `-->`, as the pattern Gitea uses allows.
    expect(sniffContentType(Buffer.from('<!-- a --> junk --> <svg>'))).toBe(svg);
    expect(sniffContentType(Buffer.from('<!-- a --> <svgx>'))).toBe('text/plain; charset=utf-8');
    // The first kilobyte of a file of empty comments: a backtracking pattern took exponential time (never ended).
    const started = performance.now();
    expect(sniffContentType(Buffer.from(`${'<!---->'.repeat(146)}x`))).toBe('text/plain; charset=utf-8');
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('git times and commit shapes', () => {
  it('writes a signature time in its own zone, Z for UTC', () => {
    const when = new Date('2021-02-03T02:05:06Z');
    expect(signatureTime({ name: '', email: '', when, timezone: '+0200' })).toBe('2021-02-03T04:05:06+02:00');
    expect(signatureTime({ name: '', email: '', when, timezone: '-0130' })).toBe('2021-02-03T00:35:06-01:30');
    expect(signatureTime({ name: '', email: '', when, timezone: '+0000' })).toBe('2021-02-03T02:05:06Z');
    expect(signatureTime(undefined)).toBe('0001-01-01T00:00:00Z');
  });

  it("lists affected files as git's --no-renames name-status does, by name", () => {
    const file = (filename: string, status: string, previousFilename = '') => ({ filename, status, additions: 0, deletions: 0, previousFilename });
    expect(affectedFiles([file('z.txt', 'modified'), file('new.txt', 'renamed', 'old.txt'), file('a.txt', 'added'), file('c.txt', 'copied')])).toEqual([
      { filename: 'a.txt', status: 'added' },
      { filename: 'c.txt', status: 'added' },
      { filename: 'new.txt', status: 'added' },
      { filename: 'old.txt', status: 'removed' },
      { filename: 'z.txt', status: 'modified' },
    ]);
  });

  it("shows a lightweight tag with its commit's message and time, an annotated one with its own", () => {
    const links = { api: 'http://x/api/v1/repos/o/r', html: 'http://x/o/r' };
    const commit = { sha: 'c1', message: 'the commit\n', committer: { name: '', email: '', when: new Date('2020-01-01T00:00:00Z'), timezone: '+0000' } } as Commit;
    const light = { name: 'v1', id: 'c1', commit, message: '', tagger: undefined, annotated: false } as Tag;
    expect(toApiTag(light, links)).toEqual({
      name: 'v1',
      message: 'the commit',
      id: 'c1',
      commit: { url: 'http://x/api/v1/repos/o/r/git/commits/c1', sha: 'c1', created: '2020-01-01T00:00:00Z' },
      zipball_url: 'http://x/o/r/archive/v1.zip',
      tarball_url: 'http://x/o/r/archive/v1.tar.gz',
    });
    const tagger = { name: 'T', email: 't@x', when: new Date('2021-01-01T00:00:00Z'), timezone: '+0100' };
    const annotated = { ...light, name: 'rel/v2', id: 't1', message: ' release \n', tagger, annotated: true } as Tag;
    expect(toApiTag(annotated, links)).toMatchObject({ message: 'release', id: 't1', commit: { sha: 'c1', created: '2021-01-01T01:00:00+01:00' }, zipball_url: 'http://x/o/r/archive/rel/v2.zip' });
  });
});
