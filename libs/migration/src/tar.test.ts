import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TarError, TarReader, checkEntryPath, extractTar, tarDirectory, tarHeader } from './tar';

const LIMITS = { maxBytes: 1 << 20, maxEntries: 100 };

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* once(buffer: Buffer): AsyncIterable<Uint8Array> {
  // Odd chunk sizes: headers and data split across pushes.
  for (let offset = 0; offset < buffer.length; offset += 77) yield buffer.subarray(offset, offset + 77);
}

describe('tar', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'cairn-tar-'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it('round-trips a directory: files, nested directories, a long path', async () => {
    const source = path.join(scratch, 'src');
    const long = `${'d'.repeat(90)}/${'e'.repeat(60)}`;
    mkdirSync(path.join(source, 'git', 'objects', long), { recursive: true });
    writeFileSync(path.join(source, 'repo.yml'), 'name: tools\n');
    writeFileSync(path.join(source, 'git', 'objects', long, 'blob'), Buffer.alloc(1000, 7));
    writeFileSync(path.join(source, 'empty'), '');
    const archive = await collect(tarDirectory(source));
    const target = path.join(scratch, 'out');
    await extractTar(once(archive), target, LIMITS);
    expect(readFileSync(path.join(target, 'repo.yml'), 'utf8')).toBe('name: tools\n');
    expect(readFileSync(path.join(target, 'git', 'objects', long, 'blob'))).toEqual(Buffer.alloc(1000, 7));
    expect(readFileSync(path.join(target, 'empty'), 'utf8')).toBe('');
  });

  it('refuses a symbolic link in the directory it archives', async () => {
    const source = path.join(scratch, 'src');
    mkdirSync(source);
    symlinkSync('/etc/passwd', path.join(source, 'link'));
    await expect(collect(tarDirectory(source))).rejects.toThrow(new TarError('link is neither a file nor a directory'));
  });

  it.each([
    ['../escape', 'path leaves the archive'],
    ['a/../../escape', 'path leaves the archive'],
    ['/etc/passwd', 'absolute path'],
    ['a\\b', 'invalid character in path'],
  ])('refuses the entry path %s', (name, why) => {
    expect(() => checkEntryPath(name)).toThrow(why);
  });

  const entry = (name: string, type: string, data = Buffer.alloc(0)): Buffer => {
    const header = tarHeader({ path: 'placeholder', type: 'file', size: data.length, mode: 0o644 });
    header.fill(0, 0, 100);
    header.write(name, 0);
    header.write(type, 156);
    header.write('        ', 148);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    const pad = Buffer.alloc((512 - (data.length % 512)) % 512);
    return Buffer.concat([header, data, pad]);
  };
  const end = Buffer.alloc(1024);

  it.each([
    ['a symbolic link', entry('link', '2'), 'only files and directories are allowed'],
    ['a hard link', entry('link', '1'), 'only files and directories are allowed'],
    ['a device', entry('dev', '3'), 'only files and directories are allowed'],
    ['a path out of the archive', entry('../x', '0', Buffer.from('x')), 'path leaves the archive'],
  ])('refuses %s, writing nothing outside the target', async (_what, bad, message) => {
    const target = path.join(scratch, 'out');
    await expect(extractTar(once(Buffer.concat([bad, end])), target, LIMITS)).rejects.toThrow(message);
    expect(() => readFileSync(path.join(scratch, 'x'))).toThrow();
  });

  it('refuses a truncated archive, a bad checksum and archives beyond the limits', async () => {
    const file = entry('a', '0', Buffer.from('hello'));
    await expect(extractTar(once(file.subarray(0, 600)), path.join(scratch, 't1'), LIMITS)).rejects.toThrow('the archive is truncated');
    const corrupt = Buffer.from(file);
    corrupt[0] = 'b'.charCodeAt(0);
    expect(() => new TarReader(LIMITS).push(corrupt)).toThrow('bad checksum');
    expect(() => new TarReader({ maxBytes: 600, maxEntries: 10 }).push(Buffer.concat([file, end]))).toThrow('archive larger than 600 bytes');
    expect(() => new TarReader({ maxBytes: 1 << 20, maxEntries: 1 }).push(Buffer.concat([file, file, end]))).toThrow('more than 1 entries');
  });

  it('refuses the same file twice (no overwriting through a second entry)', async () => {
    const file = entry('a', '0', Buffer.from('one'));
    await expect(extractTar(once(Buffer.concat([file, file, end])), path.join(scratch, 'dup'), LIMITS)).rejects.toThrow(/EEXIST/);
  });
});
