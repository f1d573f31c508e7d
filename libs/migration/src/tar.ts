/**
 * A minimal ustar (POSIX.1-1988 tar) writer and a streaming reader, for the dump directory `restore-repo` sends to
 * the running instance: regular files and directories only. The reader takes the archive as untrusted input: every
 * entry's path is checked (relative, no `..`, no NUL or backslash), links, devices and other entry types are refused,
 * and the sizes are bounded — so extracting it can only create files below the target directory.
 */
import { createReadStream } from 'node:fs';
import { lstat, mkdir, open, readdir } from 'node:fs/promises';
import path from 'node:path';

const BLOCK = 512;
const ZERO_BLOCK = Buffer.alloc(BLOCK);

/** Why an archive was refused: what was wrong, naming the entry. */
export class TarError extends Error {
  override name = 'TarError';
}

export interface TarLimits {
  /** The whole archive's bytes. */
  maxBytes: number;
  /** How many entries. */
  maxEntries: number;
}

export type TarEntryType = 'file' | 'directory';

export interface TarEntry {
  /** Relative, `/`-separated, checked by checkEntryPath. */
  path: string;
  type: TarEntryType;
  size: number;
  mode: number;
}

/** A path inside the archive as a safe relative path, or a TarError naming it. */
export function checkEntryPath(name: string): string {
  const trimmed = name.replace(/\/+$/, '');
  const bad = (why: string) => new TarError(`archive entry ${JSON.stringify(name)}: ${why}`);
  if (trimmed === '' || trimmed === '.') throw bad('empty path');
  if (trimmed.includes('\0') || trimmed.includes('\\')) throw bad('invalid character in path');
  if (trimmed.startsWith('/') || /^[A-Za-z]:/.test(trimmed)) throw bad('absolute path');
  const parts = trimmed.split('/');
  if (parts.some((part) => part === '..')) throw bad('path leaves the archive');
  return parts.filter((part) => part !== '' && part !== '.').join('/');
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** The ustar header of one entry; a path longer than 100 bytes is split into prefix (155) and name (100). */
export function tarHeader(entry: TarEntry): Buffer {
  const header = Buffer.alloc(BLOCK);
  const full = entry.type === 'directory' ? `${entry.path}/` : entry.path;
  let name = full;
  let prefix = '';
  if (Buffer.byteLength(full) > 100) {
    // The first `/` after which the rest fits the name field (a directory's trailing `/` is not a split point).
    const cut = [...full.slice(0, -1).matchAll(/\//g)].map((match) => match.index).find((index) => Buffer.byteLength(full.slice(index + 1)) <= 100);
    if (cut === undefined || Buffer.byteLength(full.slice(0, cut)) > 155) throw new TarError(`path too long for the archive: ${entry.path}`);
    prefix = full.slice(0, cut);
    name = full.slice(cut + 1);
  }
  header.write(name, 0, 100, 'utf8');
  header.write(octal(entry.mode & 0o7777, 8), 100, 'ascii');
  header.write(octal(0, 8), 108, 'ascii');
  header.write(octal(0, 8), 116, 'ascii');
  header.write(octal(entry.type === 'file' ? entry.size : 0, 12), 124, 'ascii');
  header.write(octal(0, 12), 136, 'ascii');
  header.write('        ', 148, 'ascii');
  header.write(entry.type === 'file' ? '0' : '5', 156, 'ascii');
  header.write('ustar\u000000', 257, 'ascii');
  header.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return header;
}

/**
 * A directory as a tar stream: its entries in name order (directories before their contents), regular files and
 * directories only. A symbolic link or any other kind of file is refused (a dump has none).
 */
export async function* tarDirectory(root: string, chunkBytes = 256 * 1024): AsyncGenerator<Buffer> {
  async function* walk(relative: string): AsyncGenerator<Buffer> {
    const names = (await readdir(path.join(root, relative))).sort();
    for (const name of names) {
      const entryPath = relative === '' ? name : `${relative}/${name}`;
      const file = path.join(root, entryPath);
      const info = await lstat(file);
      if (info.isDirectory()) {
        yield tarHeader({ path: entryPath, type: 'directory', size: 0, mode: info.mode });
        yield* walk(entryPath);
      } else if (info.isFile()) {
        yield tarHeader({ path: entryPath, type: 'file', size: info.size, mode: info.mode });
        let written = 0;
        for await (const chunk of createReadStream(file, { highWaterMark: chunkBytes })) {
          written += (chunk as Buffer).length;
          yield chunk as Buffer;
        }
        if (written !== info.size) throw new TarError(`${entryPath} changed while it was read`);
        const pad = (BLOCK - (info.size % BLOCK)) % BLOCK;
        if (pad > 0) yield Buffer.alloc(pad);
      } else {
        throw new TarError(`${entryPath} is neither a file nor a directory`);
      }
    }
  }
  yield* walk('');
  yield Buffer.concat([ZERO_BLOCK, ZERO_BLOCK]);
}

// ---------------------------------------------------------------------------------------------------------------
// Reading

export type TarEvent = { kind: 'entry'; entry: TarEntry } | { kind: 'data'; chunk: Buffer };

function readString(header: Buffer, offset: number, length: number): string {
  const field = header.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString('utf8');
}

function readOctal(header: Buffer, offset: number, length: number, what: string): number {
  const text = readString(header, offset, length).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarError(`archive header: bad ${what}`);
  return parseInt(text, 8);
}

/**
 * A push parser: `push` takes the archive's bytes as they arrive and answers the entries and data they complete;
 * `end` checks that the archive ended where it should. Refuses (TarError) what checkEntryPath refuses, entry types
 * other than files and directories, a bad checksum, and anything beyond `limits`.
 */
export class TarReader {
  private buffered = Buffer.alloc(0);
  /** Bytes of the current file still to come, then the padding to skip. */
  private dataLeft = 0;
  private padLeft = 0;
  private total = 0;
  private entries = 0;
  private ended = false;

  constructor(private readonly limits: TarLimits) {}

  push(chunk: Buffer): TarEvent[] {
    this.total += chunk.length;
    if (this.total > this.limits.maxBytes) throw new TarError(`archive larger than ${this.limits.maxBytes} bytes`);
    const events: TarEvent[] = [];
    let input = this.buffered.length > 0 ? Buffer.concat([this.buffered, chunk]) : chunk;
    this.buffered = Buffer.alloc(0);
    while (input.length > 0) {
      if (this.dataLeft > 0) {
        const take = Math.min(this.dataLeft, input.length);
        events.push({ kind: 'data', chunk: input.subarray(0, take) });
        this.dataLeft -= take;
        input = input.subarray(take);
        continue;
      }
      if (this.padLeft > 0) {
        const skip = Math.min(this.padLeft, input.length);
        this.padLeft -= skip;
        input = input.subarray(skip);
        continue;
      }
      if (this.ended) {
        // After the end marker only zero padding may follow (tar pads to its record size).
        if (input.some((byte) => byte !== 0)) throw new TarError('data after the end of the archive');
        return events;
      }
      if (input.length < BLOCK) {
        this.buffered = Buffer.from(input);
        return events;
      }
      const header = input.subarray(0, BLOCK);
      input = input.subarray(BLOCK);
      if (header.equals(ZERO_BLOCK)) {
        this.ended = true;
        continue;
      }
      const entry = this.parseHeader(header);
      events.push({ kind: 'entry', entry });
      this.dataLeft = entry.type === 'file' ? entry.size : 0;
      this.padLeft = entry.type === 'file' ? (BLOCK - (entry.size % BLOCK)) % BLOCK : 0;
    }
    return events;
  }

  end(): void {
    if (!this.ended || this.dataLeft > 0 || this.buffered.length > 0) throw new TarError('the archive is truncated');
  }

  private parseHeader(header: Buffer): TarEntry {
    let sum = 0;
    for (let index = 0; index < BLOCK; index++) sum += index >= 148 && index < 156 ? 32 : header[index];
    if (readOctal(header, 148, 8, 'checksum') !== sum) throw new TarError('archive header: bad checksum');
    if (++this.entries > this.limits.maxEntries) throw new TarError(`archive has more than ${this.limits.maxEntries} entries`);
    const name = readString(header, 0, 100);
    const prefix = readString(header, 257, 6) === 'ustar' ? readString(header, 345, 155) : '';
    const full = prefix === '' ? name : `${prefix}/${name}`;
    const flag = String.fromCharCode(header[156]);
    const type: TarEntryType | undefined = flag === '0' || flag === '\0' ? 'file' : flag === '5' ? 'directory' : undefined;
    if (type === undefined) throw new TarError(`archive entry ${JSON.stringify(full)}: only files and directories are allowed (type ${JSON.stringify(flag)})`);
    const size = readOctal(header, 124, 12, 'size');
    if (size > this.limits.maxBytes) throw new TarError(`archive entry ${JSON.stringify(full)} is larger than the archive may be`);
    return { path: checkEntryPath(full), type, size, mode: readOctal(header, 100, 8, 'mode') };
  }
}

/** The entries and data of a tar stream (see TarReader). */
export async function* readTar(source: AsyncIterable<Uint8Array>, limits: TarLimits): AsyncGenerator<TarEvent> {
  const reader = new TarReader(limits);
  for await (const chunk of source) yield* reader.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  reader.end();
}

/**
 * Extracts a tar stream below `dir` (created if missing): files are created new (`wx`, so an entry named twice or a
 * path through a file is refused), with their mode's user bits only; nothing is written outside `dir`.
 */
export async function extractTar(source: AsyncIterable<Uint8Array>, dir: string, limits: TarLimits): Promise<void> {
  await mkdir(dir, { recursive: true });
  const root = path.resolve(dir);
  let file: Awaited<ReturnType<typeof open>> | undefined;
  const close = async () => {
    await file?.close();
    file = undefined;
  };
  try {
    for await (const event of readTar(source, limits)) {
      if (event.kind === 'data') {
        if (file === undefined) throw new TarError('archive data outside a file');
        await file.write(event.chunk);
        continue;
      }
      await close();
      const target = path.resolve(root, ...event.entry.path.split('/'));
      if (!target.startsWith(root + path.sep)) throw new TarError(`archive entry ${JSON.stringify(event.entry.path)}: path leaves the archive`);
      if (event.entry.type === 'directory') {
        await mkdir(target, { recursive: true });
      } else {
        await mkdir(path.dirname(target), { recursive: true });
        file = await open(target, 'wx', (event.entry.mode & 0o700) | 0o600);
      }
    }
  } finally {
    await close();
  }
}
