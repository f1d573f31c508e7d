/**
 * The git-clone scenario's pieces on their own: the generated history, and the baseline — `git http-backend`
 * as CGI behind node:http — cloned through with real git.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { cgiBodyOffset, gitHttpBackend, parseCgiHead } from '@cairn/testing';
import { git } from './git';
import { HISTORY_BRANCH, createHistoryRepository, fastImportStream, type HistoryShape } from './git-history';

const SHAPE: HistoryShape = { commits: 40, files: 7, filesPerCommit: 2, lines: 12 };

describe('CGI output', () => {
  it('finds where the head ends, with CRLF or LF line ends', () => {
    expect(cgiBodyOffset(Buffer.from('Status: 200 OK\r\nContent-Type: x\r\n\r\nbody'))).toBe(35);
    expect(cgiBodyOffset(Buffer.from('Content-Type: x\n\nbody'))).toBe(17);
    expect(cgiBodyOffset(Buffer.from('Content-Type: x\r\n'))).toBe(-1);
    // The first blank line ends the head, whatever the body holds.
    expect(cgiBodyOffset(Buffer.from('A: b\r\n\r\nx\n\ny'))).toBe(8);
  });

  it('reads the status and keeps the other headers in order', () => {
    expect(parseCgiHead('Status: 404 Not Found\r\nContent-Type: text/plain\r\nExpires: 0\r\n')).toEqual({
      status: 404,
      headers: [
        ['Content-Type', 'text/plain'],
        ['Expires', '0'],
      ],
    });
    expect(parseCgiHead('Content-Type: application/x-git-upload-pack-advertisement\n')).toEqual({
      status: 200,
      headers: [['Content-Type', 'application/x-git-upload-pack-advertisement']],
    });
  });

  it('refuses a malformed head', () => {
    expect(() => parseCgiHead('no colon here\r\n')).toThrow('malformed CGI header line');
    expect(() => parseCgiHead('Status: many\r\n')).toThrow('malformed CGI status');
  });
});

describe('generated history', () => {
  let temp: string;
  beforeAll(() => {
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-history-test-'));
  });
  afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

  it('has the shape asked for, on main (HEAD), with the same commit ids every time', async () => {
    const first = await createHistoryRepository(path.join(temp, 'a.git'), SHAPE);
    const second = await createHistoryRepository(path.join(temp, 'b.git'), SHAPE);
    expect(second).toBe(first);
    const gitDir = path.join(temp, 'a.git');
    expect((await git(['rev-parse', 'HEAD'], { gitDir })).trim()).toBe(first);
    expect((await git(['symbolic-ref', 'HEAD'], { gitDir })).trim()).toBe(`refs/heads/${HISTORY_BRANCH}`);
    expect((await git(['rev-list', '--count', 'HEAD'], { gitDir })).trim()).toBe(String(SHAPE.commits));
    expect((await git(['ls-tree', '-r', '--name-only', 'HEAD'], { gitDir })).trim().split('\n')).toHaveLength(SHAPE.files);
    // Every later commit changes exactly filesPerCommit files.
    const changed = await git(['diff-tree', '--no-commit-id', '--name-only', '-r', 'HEAD'], { gitDir });
    expect(changed.trim().split('\n')).toHaveLength(SHAPE.filesPerCommit);
    // One pack after the repack, nothing loose.
    expect(await git(['count-objects', '-v'], { gitDir })).toMatch(/^count: 0$[\s\S]*^packs: 1$/m);
  });

  it('refuses a shape changing more files than there are', () => {
    expect(() => [...fastImportStream({ ...SHAPE, filesPerCommit: SHAPE.files + 1 })]).toThrow('cannot change more files');
  });
});

describe('git http-backend baseline', () => {
  let temp: string;
  let server: http.Server;
  let baseUrl: string;
  let tip: string;

  beforeAll(async () => {
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-cgi-test-'));
    tip = await createHistoryRepository(path.join(temp, 'root', 'bench', 'history.git'), SHAPE);
    server = http.createServer(gitHttpBackend(path.join(temp, 'root')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(temp, { recursive: true, force: true });
  });

  it.each(['2', '0'])('clones the whole history anonymously with protocol v%s', async (version) => {
    const target = path.join(temp, `clone-v${version}.git`);
    await git(['-c', `protocol.version=${version}`, 'clone', '--bare', '--quiet', `${baseUrl}/bench/history.git`, target]);
    expect((await git(['rev-parse', 'HEAD'], { gitDir: target })).trim()).toBe(tip);
    expect((await git(['rev-list', '--count', 'HEAD'], { gitDir: target })).trim()).toBe(String(SHAPE.commits));
    await git(['fsck', '--no-progress', '--no-dangling'], { gitDir: target });
  });

  it('answers the same refs as the repository holds', async () => {
    const remote = await git(['-c', 'protocol.version=2', 'ls-remote', `${baseUrl}/bench/history.git`]);
    expect(remote).toBe(`${tip}\tHEAD\n${tip}\trefs/heads/${HISTORY_BRANCH}\n`);
  });

  it('answers the CGI status of a missing repository', async () => {
    const response = await fetch(`${baseUrl}/bench/missing.git/info/refs?service=git-upload-pack`);
    expect(response.status).toBe(404);
    await expect(git(['clone', '--bare', '--quiet', `${baseUrl}/bench/missing.git`, path.join(temp, 'missing.git')])).rejects.toThrow('not found');
  });

  it('answers 400 to a path that does not decode', async () => {
    expect((await fetch(`${baseUrl}/bench/%zz.git/info/refs?service=git-upload-pack`)).status).toBe(400);
  });

  it('refuses an anonymous push, changing nothing', async () => {
    const work = path.join(temp, 'push.git');
    await git(['clone', '--bare', '--quiet', `${baseUrl}/bench/history.git`, work]);
    await git(['update-ref', `refs/heads/${HISTORY_BRANCH}`, `${tip}~1`], { gitDir: work });
    await expect(git(['push', '--force', '--quiet', `${baseUrl}/bench/history.git`, HISTORY_BRANCH], { gitDir: work })).rejects.toThrow('403');
    expect((await git(['rev-parse', HISTORY_BRANCH], { gitDir: path.join(temp, 'root', 'bench', 'history.git') })).trim()).toBe(tip);
  });
});
