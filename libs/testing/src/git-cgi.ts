/**
 * `git http-backend` run as a CGI program behind `node:http`, the way a web server runs it (RFC 3875): one
 * process per request, the request's meta-variables in its environment, the body streamed to its stdin, and
 * its output — CGI headers (`Status:`, `Content-Type:` …), a blank line, the body — streamed back, each side
 * at the pace of the other.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import * as path from 'node:path';

export interface CgiHead {
  status: number;
  headers: Array<[name: string, value: string]>;
}

/** Where the head ends in `buffer` (`\r\n\r\n` or `\n\n`): the body's offset, or -1 while incomplete. */
export function cgiBodyOffset(buffer: Buffer): number {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return crlf + 4;
  return lf >= 0 ? lf + 2 : -1;
}

/** The CGI header lines: `Status: 404 Not Found` sets the status (200 without one), the others are HTTP headers. */
export function parseCgiHead(head: string): CgiHead {
  let status = 200;
  const headers: Array<[string, string]> = [];
  for (const line of head.split(/\r?\n/)) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`malformed CGI header line: ${JSON.stringify(line)}`);
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') {
      status = Number.parseInt(value, 10);
      if (!(status >= 100 && status <= 599)) throw new Error(`malformed CGI status: ${JSON.stringify(value)}`);
    } else headers.push([name, value]);
  }
  return { status, headers };
}

/** Headers a CGI program never sees as `HTTP_*` (RFC 3875 4.1.18: credentials; the body's are CONTENT_*). */
const HIDDEN_HEADERS = new Set(['authorization', 'proxy-authorization', 'content-type', 'content-length']);

/** The request's CGI meta-variables, on top of `env`. */
export function cgiEnvironment(req: IncomingMessage, env: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const vars: NodeJS.ProcessEnv = {
    ...env,
    GATEWAY_INTERFACE: 'CGI/1.1',
    SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
    SERVER_SOFTWARE: 'cairn-bench',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REMOTE_ADDR: req.socket.remoteAddress ?? '',
  };
  // Without CONTENT_LENGTH (a chunked body), git http-backend reads the body to its end.
  if (req.headers['content-length'] !== undefined) vars.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['content-type'] !== undefined) vars.CONTENT_TYPE = req.headers['content-type'];
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HIDDEN_HEADERS.has(name)) continue;
    vars[`HTTP_${name.toUpperCase().replace(/-/g, '_')}`] = Array.isArray(value) ? value.join(', ') : value;
  }
  return vars;
}

/** Resolves when `res` can take more, or never will (the client went away). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function fail(res: ServerResponse, error: unknown): void {
  process.stderr.write(`cgi: ${error instanceof Error ? error.message : String(error)}\n`);
  if (res.headersSent) res.destroy();
  else res.writeHead(502, { 'Content-Type': 'text/plain' }).end('bad gateway\n');
}

/** A handler running `program` once per request, with `env` and the request's meta-variables. */
export function cgiHandler(program: string, env: Readonly<Record<string, string>>): RequestListener {
  return (req, res) => {
    let vars: NodeJS.ProcessEnv;
    try {
      vars = cgiEnvironment(req, env);
    } catch {
      // A path that does not decode (a stray `%`): no program could serve it.
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('bad request\n');
      return;
    }
    const child = spawn(program, [], { env: vars, stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise<string>((resolve) => {
      child.once('error', (error) => resolve(error.message));
      child.once('close', (code, signal) => resolve(String(code ?? signal)));
    });
    // A program that answers without reading the whole body (a refusal) closes its stdin early.
    child.stdin.on('error', () => undefined);
    req.pipe(child.stdin);
    res.once('close', () => {
      if (!res.writableFinished) child.kill();
    });

    const respond = async (): Promise<void> => {
      let head = Buffer.alloc(0);
      let headDone = false;
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        let body = chunk;
        if (!headDone) {
          head = Buffer.concat([head, chunk]);
          const offset = cgiBodyOffset(head);
          if (offset < 0) continue;
          const parsed = parseCgiHead(head.subarray(0, offset).toString('latin1'));
          res.writeHead(parsed.status, parsed.headers.flat());
          headDone = true;
          body = head.subarray(offset);
        }
        // Reading stops until the client took this chunk: backpressure reaches the program's stdout.
        if (body.length > 0 && !res.write(body)) await drained(res);
      }
      const exit = await exited;
      if (!headDone) throw new Error(`${path.basename(program)} exited (${exit}) without a CGI head`);
      res.end();
    };
    respond().catch((error: unknown) => fail(res, error));
  };
}

/** git's own `git-http-backend` program (in `git --exec-path`). */
export function gitHttpBackendProgram(): string {
  return path.join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-http-backend');
}

/**
 * `git http-backend` serving every repository under `projectRoot` (GIT_HTTP_EXPORT_ALL) for anonymous
 * reads; pushes need REMOTE_USER, which `remoteUser` sets for every request.
 */
export function gitHttpBackend(projectRoot: string, remoteUser?: string): RequestListener {
  const env: Record<string, string> = { GIT_PROJECT_ROOT: projectRoot, GIT_HTTP_EXPORT_ALL: '1', PATH: process.env.PATH ?? '/usr/bin:/bin' };
  if (remoteUser !== undefined) env.REMOTE_USER = remoteUser;
  return cgiHandler(gitHttpBackendProgram(), env);
}
