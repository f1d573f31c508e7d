/**
 * SmartHttpService: git's smart HTTP protocol, served by `git upload-pack` / `git receive-pack --stateless-rpc`
 * with the request and response bodies streamed straight through (git/transport.ts). Pushes are checked by the
 * pre-receive hook while their objects sit in git's quarantine (push/), and an accepted push publishes
 * cairn.git.pushed with the refs that actually moved, once git exited (events/pushed.ts).
 */
import type { Repository, SmartHttpServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { FetchWantScanner } from '../domain/fetch-wants';
import { recordPush, requirePush } from '../events/pushed';
import { gitProcessLimits, runGit } from '../git/command';
import { ConcurrencyLimit } from '../git/concurrency-limit';
import { openRepository } from '../git/open-repository';
import { FLUSH_PKT, pktLine } from '../git/pkt-line';
import { transportGit } from '../git/transport';
import { checkPush } from '../push/check-push';
import type { HookServer } from '../push/hook-server';
import { type GitStorageContext, NODE_TRANSFERS } from './context';

const SERVICES = { 'git-upload-pack': 'upload-pack', 'git-receive-pack': 'receive-pack' } as const;

/** Fetches running at once per repository, and how many more may wait (Gitaly's pack-objects limiting). */
const UPLOAD_PACK_CONCURRENCY = 16;
const UPLOAD_PACK_QUEUE = 64;

/**
 * GIT_PROTOCOL for git from the client's `Git-Protocol` header (`version=2`, `key=value` pairs joined by `:`);
 * anything else is dropped, and git speaks protocol v0.
 */
function protocolEnv(gitProtocol: string): NodeJS.ProcessEnv {
  return /^[\w.=:-]{1,256}$/.test(gitProtocol) ? { GIT_PROTOCOL: gitProtocol } : {};
}

const wantsV2 = (gitProtocol: string) => gitProtocol.split(':').includes('version=2');

/**
 * Fetching by object id is limited to objects reachable from a ref, so a commit force-pushed away (a leaked
 * secret) cannot be fetched by its id. Given on the command line, this overrides the `allowAnySHA1InWant = true`
 * that repositories created before it carry in their config. git enforces it in protocol v0; v2 requests are
 * checked by `unreachableWant`.
 */
const UPLOAD_PACK_WANTS = ['-c', 'uploadpack.allowAnySHA1InWant=false', '-c', 'uploadpack.allowReachableSHA1InWant=true'];

/**
 * git's keep-alive packets while it works without output (pack-objects counting, index-pack, the pre-receive
 * check) every 5 s by default, or more often when `[git.timeout] IDLE` is short, so a working transfer never looks
 * idle: only a client that stops sending or reading does.
 */
function keepAlive(key: 'uploadpack.keepAlive' | 'receive.keepAlive'): string[] {
  const seconds = Math.max(1, Math.min(5, Math.floor(gitProcessLimits().idleTimeoutMs / 3000)));
  return ['-c', `${key}=${seconds}`];
}

/** Passes the request body on while `scanner` reads the wants out of it. */
async function* scanning(body: AsyncIterable<Buffer>, scanner: FetchWantScanner): AsyncGenerator<Buffer> {
  for await (const chunk of body) {
    scanner.push(chunk);
    yield chunk;
  }
}

/**
 * The first wanted commit that no ref reaches (`rev-list --not --all`, the walk v0's upload-pack makes), if any.
 * Trees and blobs are not walked (partial clones fetch them by id; their ids are not learnt without the content or a
 * tree naming them) and an id git does not know is left to git to refuse.
 */
async function unreachableWant(gitDir: string, wants: readonly string[], signal: AbortSignal): Promise<string | undefined> {
  if (wants.length === 0) return undefined;
  const { stdout, exitCode } = await runGit(['rev-list', '--max-count=1', '--stdin', '--not', '--all'], {
    gitDir,
    signal,
    stdin: `${wants.join('\n')}\n`,
    okExitCodes: [0, 128],
  });
  const first = stdout.toString('latin1').trim();
  if (exitCode !== 0 || first === '') return undefined;
  // rev-list names the first commit it reaches from the wants: the want itself, or a commit behind a want that is a tag.
  return wants.includes(first) ? first : wants[0];
}

/** The first message of a request stream (it names the repository) and the body carried by it and the rest. */
async function splitRequests<T extends { data: Buffer }>(requests: AsyncIterable<T>): Promise<{ first: T; body: AsyncIterable<Buffer> }> {
  const iterator = requests[Symbol.asyncIterator]();
  const head = await iterator.next();
  if (head.done === true) throw CairnError.invalid('the request stream is empty');
  const first = head.value;
  async function* body(): AsyncGenerator<Buffer> {
    if (first.data.length > 0) yield first.data;
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
      if (next.value.data.length > 0) yield next.value.data;
    }
  }
  return { first, body: body() };
}

export function createSmartHttpService(context: GitStorageContext, hooks: HookServer): AsyncServiceOf<typeof SmartHttpServiceService> {
  const open = (repository: Repository | undefined) => openRepository(context.root, repository);
  const uploadPackLimit = new ConcurrencyLimit(UPLOAD_PACK_CONCURRENCY, UPLOAD_PACK_QUEUE);

  return {
    async *infoRefs(request, ctx) {
      if (!Object.hasOwn(SERVICES, request.service)) throw CairnError.invalid(`unknown service "${request.service}"`, { reason: 'invalid_service' });
      const command = SERVICES[request.service as keyof typeof SERVICES];
      const gitDir = await open(request.repository);
      // git http-backend's framing: v0 advertisements start with the service line; v2 (fetch only) does not.
      if (!(command === 'upload-pack' && wantsV2(request.gitProtocol))) {
        yield { data: Buffer.concat([pktLine(`# service=${request.service}\n`), FLUSH_PKT]) };
      }
      const output = transportGit([command, '--stateless-rpc', '--advertise-refs', gitDir], {
        gitDir,
        env: protocolEnv(request.gitProtocol),
        signal: ctx.signal,
      });
      for await (const data of output) yield { data };
    },

    async *uploadPack(requests, ctx) {
      const { first, body } = await splitRequests(requests);
      const gitDir = await open(first.repository);
      const releaseNode = await context.transfers.acquire(NODE_TRANSFERS, ctx.signal);
      let releaseRepository: (() => void) | undefined;
      // The slots are freed when git exits (a stalled client's git is killed after [git.timeout] IDLE), not when
      // the call ends: a client that stops reading keeps the call open, but no longer the slot.
      const release = () => {
        releaseRepository?.();
        releaseNode();
      };
      try {
        releaseRepository = await uploadPackLimit.acquire(gitDir, ctx.signal);
        const scanner = wantsV2(first.gitProtocol) ? new FetchWantScanner() : undefined;
        const output = transportGit([...UPLOAD_PACK_WANTS, ...keepAlive('uploadpack.keepAlive'), 'upload-pack', '--stateless-rpc', gitDir], {
          gitDir,
          env: protocolEnv(first.gitProtocol),
          signal: ctx.signal,
          input: scanner === undefined ? body : scanning(body, scanner),
          timeoutMs: context.transferTimeoutMs,
          onExit: release,
        });
        let checked = scanner === undefined;
        for await (const data of output) {
          // git answers a v2 request only after reading all of it, so its first bytes come after every want.
          if (!checked && scanner !== undefined) {
            checked = true;
            const unreachable = await unreachableWant(gitDir, scanner.wants, ctx.signal);
            if (unreachable !== undefined) {
              // What git answers in v0 (`fatal: remote error: upload-pack: not our ref …` for the client); leaving
              // the loop stops git before it sent a byte.
              yield { data: pktLine(`ERR upload-pack: not our ref ${unreachable}\n`) };
              return;
            }
          }
          yield { data };
        }
      } finally {
        release();
      }
    },

    async *receivePack(requests, ctx) {
      const { first, body } = await splitRequests(requests);
      const push = requirePush(first.push);
      const gitDir = await open(first.repository);
      let release: (() => void) | undefined;
      let pushId: string | undefined;
      const session = hooks.openSession(async ({ updates, quarantine }) => {
        const refusal = await checkPush(
          {
            gitDir,
            rules: first.rules,
            tagRules: first.tagRules,
            quarantine,
            findKeys: async (emails) => (await context.gpgKeys.findVerificationKeys({ emails }, { signal: ctx.signal })).keys,
            instanceKey: async () => context.signing?.verificationKey(),
          },
          updates,
        );
        if (refusal !== undefined) return { accepted: false, message: refusal };
        // Written down before git moves a ref (it waits for this answer), so the push is published even when the
        // call or the process ends right after the refs moved.
        pushId = await recordPush(context, first.repository, push, updates);
        return { accepted: true };
      });
      let gitExited: (() => void) | undefined;
      const exited = new Promise<void>((resolve) => (gitExited = resolve));
      let publishing: Promise<void> | undefined;
      const publish = () => (publishing ??= pushId === undefined ? undefined : context.pushes.publishAfter(first.repository, exited, pushId));
      // git's receive.maxInputSize: index-pack stops at the limit and the pusher sees
      // `remote: fatal: pack exceeds maximum allowed size` and `unpack failed` (git's own words, over side-band).
      const maxInput = context.maxPushSize > 0 ? ['-c', `receive.maxInputSize=${context.maxPushSize}`] : [];
      let endPush: (() => void) | undefined;
      try {
        release = await context.transfers.acquire(NODE_TRANSFERS, ctx.signal);
        endPush = await context.pushGc.beginPush(gitDir);
        const output = transportGit(['-c', `core.hooksPath=${hooks.hooksDir}`, ...maxInput, ...keepAlive('receive.keepAlive'), 'receive-pack', '--stateless-rpc', gitDir], {
          gitDir,
          env: { ...protocolEnv(first.gitProtocol), ...session.env },
          signal: ctx.signal,
          input: body,
          timeoutMs: context.transferTimeoutMs,
          onExit: () => {
            release?.();
            endPush?.();
            gitExited?.();
          },
        });
        for await (const data of output) yield { data };
        // git has exited: the event is in the outbox before the pusher has the whole answer.
        await publish();
      } finally {
        session.close();
        release?.();
        endPush?.();
        // A call cut short (the client left once the refs moved) publishes too, once git exited, outside the call.
        void publish();
      }
    },
  };
}
