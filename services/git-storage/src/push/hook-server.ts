/**
 * The other end of hooks/pre-receive.js: a Unix socket in a private directory (0700) where pre-receive hooks
 * of running pushes ask whether their push may go ahead. Each ReceivePack opens a session; its id and the
 * socket's path go to the hook in its environment, so a hook can only speak for the push it belongs to.
 *
 * The hooks directory (`core.hooksPath` of receive-pack) is written here at start, its hooks executable by
 * construction: a hook git cannot execute is skipped with a warning, which would let every push through unchecked.
 * Besides pre-receive (all or nothing) it holds an `update` hook, which git runs once per ref after pre-receive
 * accepted: it declines refs outside branches and tags (domain/pushable-refs.ts) one by one, so the pusher sees
 * `! [remote rejected] refs/pull/1/head (hook declined)` while the push's other refs go through, as Gitea's
 * update hook does (cmd/hook.go runHookUpdate). It needs no round trip: the ref name decides.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type Server, type Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '@cairn/log';
import { parseHookInput } from '../domain/hook-input';
import { PUSHABLE_REF_PREFIXES } from '../domain/pushable-refs';
import type { RefUpdate } from '../git/ref-update';

/** hooks/pre-receive.js, from src/push or dist/push. */
const HOOK_SCRIPT = path.join(__dirname, '..', '..', 'hooks', 'pre-receive.js');
/** A hook's request: the ref updates of a push (a line each) and four paths. */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

export interface HookRequest {
  updates: RefUpdate[];
  /** GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_QUARANTINE_PATH as git gave them to the hook. */
  quarantine: NodeJS.ProcessEnv;
}

export interface HookVerdict {
  accepted: boolean;
  /** Shown to the pusher (`remote: …`). */
  message?: string;
}

export interface PushSession {
  /** Environment of the receive-pack process (passed on to its hook). */
  env: NodeJS.ProcessEnv;
  close(): void;
}

export interface HookServer {
  /** `core.hooksPath` for receive-pack. */
  hooksDir: string;
  openSession(check: (request: HookRequest) => Promise<HookVerdict>): PushSession;
  stop(): Promise<void>;
}

type Session = (request: HookRequest) => Promise<HookVerdict>;

const shellQuote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/** The update hook (`update <ref> <old> <new>`): exit 0 for a pushable ref, else a reason on stderr and exit 1. */
function updateHookScript(): string {
  const patterns = PUSHABLE_REF_PREFIXES.map((prefix) => `${shellQuote(prefix)}*`).join('|');
  const allowed = PUSHABLE_REF_PREFIXES.join(' and ');
  return [
    '#!/bin/sh',
    `case "$1" in ${patterns}) exit 0 ;; esac`,
    `printf '%s\\n' ${shellQuote('refusing ')}"$1"${shellQuote(`: a push may only update ${allowed}`)} >&2`,
    'exit 1',
    '',
  ].join('\n');
}

/** The hook's request as JSON, checked field by field; undefined when it is not one. */
function parseRequest(body: string): { pushId: string; request: HookRequest } | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const fields = raw as Record<string, unknown>;
  const strings = ['pushId', 'updates', 'objectDirectory', 'alternateObjectDirectories', 'quarantinePath'];
  if (!strings.every((key) => typeof fields[key] === 'string')) return undefined;
  const field = (key: string) => fields[key] as string;
  const updates = parseHookInput(field('updates'));
  if (updates === undefined) return undefined;
  return {
    pushId: field('pushId'),
    request: {
      updates,
      quarantine: {
        GIT_OBJECT_DIRECTORY: field('objectDirectory'),
        GIT_ALTERNATE_OBJECT_DIRECTORIES: field('alternateObjectDirectories'),
        GIT_QUARANTINE_PATH: field('quarantinePath'),
      },
    },
  };
}

export async function startHookServer(logger: Logger): Promise<HookServer> {
  const runtimeDir = await mkdtemp(path.join(tmpdir(), 'cairn-git-hooks-'));
  const hooksDir = path.join(runtimeDir, 'hooks');
  const socketPath = path.join(runtimeDir, 'hook.sock');
  await mkdir(hooksDir);
  await writeFile(path.join(hooksDir, 'pre-receive'), `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(HOOK_SCRIPT)}\n`, {
    mode: 0o755,
  });
  await writeFile(path.join(hooksDir, 'update'), updateHookScript(), { mode: 0o755 });
  const sessions = new Map<string, Session>();

  const answer = async (body: string): Promise<HookVerdict> => {
    const parsed = parseRequest(body);
    if (parsed === undefined) {
      logger.warn('malformed pre-receive hook request');
      return { accepted: false, message: 'internal error: the push could not be checked' };
    }
    const session = sessions.get(parsed.pushId);
    if (session === undefined) {
      logger.warn('pre-receive hook request of no running push');
      return { accepted: false, message: 'internal error: unknown push' };
    }
    try {
      return await session(parsed.request);
    } catch (error) {
      logger.error({ err: error }, 'pre-receive check failed');
      return { accepted: false, message: 'internal error: the push could not be checked' };
    }
  };

  const serve = (socket: Socket) => {
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on('error', (error) => logger.warn({ err: error }, 'pre-receive hook connection failed'));
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) socket.destroy();
      else chunks.push(chunk);
    });
    socket.on('end', () => {
      void answer(Buffer.concat(chunks).toString('utf8')).then((verdict) => socket.end(JSON.stringify(verdict)));
    });
  };

  // The hook ends its side after the request and waits for the answer on the other: keep the socket half open.
  const server: Server = createServer({ allowHalfOpen: true }, serve);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    hooksDir,
    openSession(check) {
      const id = randomUUID();
      sessions.set(id, check);
      return {
        env: { CAIRN_HOOK_SOCKET: socketPath, CAIRN_PUSH_ID: id },
        close: () => sessions.delete(id),
      };
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(runtimeDir, { recursive: true, force: true });
    },
  };
}
