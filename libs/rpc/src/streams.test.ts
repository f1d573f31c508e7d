import * as grpc from '@grpc/grpc-js';
import { runWithRequestContext, silentLogger } from '@cairn/log';
import { createRpcClient, type RpcClient } from './client';
import { CairnError, Code } from './errors';
import { createRpcServer, type RpcServer } from './server';
import { anyCaller } from './authorize';
import { SERVICE_TOKEN_HEADER, currentKeyring } from './identity';
import type { AsyncServiceOf, RpcContext } from './types';
import { type CapturedLogger, captureLogger, rejection, sleep } from './user-service.fixture';

/** A hand-written definition with one method of each kind; messages are plain strings. */
const text = {
  requestSerialize: (value: string): Buffer => Buffer.from(value),
  requestDeserialize: (bytes: Buffer): string => bytes.toString(),
  responseSerialize: (value: string): Buffer => Buffer.from(value),
  responseDeserialize: (bytes: Buffer): string => bytes.toString(),
};
const method = <RS extends boolean, SS extends boolean>(name: string, requestStream: RS, responseStream: SS) => ({
  path: `/test.v1.StreamService/${name}`,
  requestStream,
  responseStream,
  ...text,
});
const StreamService = {
  echo: method('Echo', false, false),
  count: method('Count', false, true),
  concat: method('Concat', true, false),
  shout: method('Shout', true, true),
  missing: method('Missing', false, true),
};
type StreamServiceImpl = AsyncServiceOf<typeof StreamService>;

/** Resolves once `condition` holds (checked every 10 ms, up to `ms`, 5 s by default). */
async function until(condition: () => boolean, ms = 5_000): Promise<void> {
  for (let i = 0; i < ms / 10 && !condition(); i++) await sleep(10);
  if (!condition()) throw new Error('condition never held');
}

/** Resolves once `value` has stayed the same for five looks 20 ms apart (up to 5 s): a producer that is held back. */
async function untilSteady(value: () => number): Promise<void> {
  let last = value();
  let same = 0;
  for (let i = 0; i < 250 && same < 5; i++) {
    await sleep(20);
    same = value() === last ? same + 1 : 0;
    last = value();
  }
  if (same < 5) throw new Error('value never settled');
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The rejection of consuming a stream, as a CairnError. */
function streamRejection(items: AsyncIterable<unknown>): Promise<CairnError> {
  return rejection(collect(items));
}

const KIB = 'x'.repeat(1024);
const SIXTEEN_KIB = KIB.repeat(16);

describe('streaming rpcs', () => {
  let log: CapturedLogger;
  let server: RpcServer;
  let client: RpcClient<typeof StreamService>;
  let port: number;
  /** What the handlers saw and did, for the assertions. */
  const seen = {
    ctx: undefined as RpcContext | undefined,
    produced: 0,
    pulledBack: 0,
    finallyRan: false,
    aborted: false,
  };

  const impl: Omit<StreamServiceImpl, 'missing'> = {
    async echo(value) {
      return value;
    },
    async *count(request, ctx) {
      seen.ctx = ctx;
      seen.produced = 0;
      seen.finallyRan = false;
      seen.aborted = false;
      ctx.signal.addEventListener('abort', () => (seen.aborted = true));
      const [what, n] = request.split(':');
      const limit = Number(n);
      try {
        for (let i = 0; i < limit; i++) {
          if (what === 'fail' && i === 3) throw CairnError.precondition('count refused at 3', { reason: 'too_many' });
          if (what === 'crash' && i === 1) throw new Error('secret detail');
          if (what === 'slow') await sleep(20);
          seen.produced++;
          yield what === 'big' ? KIB : String(i);
        }
      } finally {
        seen.finallyRan = true;
      }
    },
    async concat(requests) {
      const parts: string[] = [];
      for await (const part of requests) {
        if (part === 'boom') throw CairnError.invalid('no boom');
        parts.push(part);
      }
      return parts.join('');
    },
    async *shout(requests, ctx) {
      seen.ctx = ctx;
      seen.pulledBack = 0;
      for await (const request of requests) {
        if (request === 'slow') {
          // Takes one request, then waits until the test lets it go on: the client must not run ahead.
          await until(() => seen.pulledBack > 0);
          continue;
        }
        yield request.toUpperCase();
      }
    },
  };

  beforeAll(async () => {
    log = captureLogger('streams');
    server = createRpcServer({ service: 'git-storage', logger: log.logger });
    // `missing` has no handler: it must answer UNIMPLEMENTED.
    server.addService(StreamService, impl as StreamServiceImpl, anyCaller(StreamService));
    port = await server.start('127.0.0.1:0');
    client = createRpcClient(StreamService, { target: `127.0.0.1:${port}`, service: 'git-storage', caller: 'gateway', logger: silentLogger(), deadlineMs: 50 });
  });

  afterAll(async () => {
    client.close();
    await server.stop(100);
  });

  const rpcLines = (name: string) => log.lines.filter((line) => line.msg === 'rpc' && line.rpc === `/test.v1.StreamService/${name}`);

  it('streams a server’s responses in order, with the request id and one log line', async () => {
    const before = rpcLines('Count').length;
    const items = await runWithRequestContext({ requestId: 'req-stream' }, () => collect(client.count('n:5')));
    expect(items).toEqual(['0', '1', '2', '3', '4']);
    expect(seen.ctx?.requestId).toBe('req-stream');
    expect(seen.ctx?.deadline).toBeUndefined();

    await log.flush();
    const lines = rpcLines('Count').slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', code: 'OK', request_id: 'req-stream' });
  });

  it('has no deadline by default, even when the client’s unary default is short', async () => {
    // 5 × 20 ms outlives the client's 50 ms default deadline.
    expect(await collect(client.count('slow:5'))).toEqual(['0', '1', '2', '3', '4']);
    const error = await streamRejection(client.count('slow:50', { deadlineMs: 50 }));
    expect(error.code).toBe(Code.DEADLINE_EXCEEDED);
  });

  it('ends the stream with the CairnError a handler throws, after the messages sent before it', async () => {
    const received: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const item of client.count('fail:10')) received.push(item);
      })(),
    );
    expect(received).toEqual(['0', '1', '2']);
    expect([error.code, error.message, error.reason]).toEqual([Code.FAILED_PRECONDITION, 'count refused at 3', 'too_many']);
  });

  it('turns an unexpected handler error into INTERNAL and logs it at error level', async () => {
    const error = await streamRejection(client.count('crash:5'));
    expect([error.code, error.message]).toEqual([Code.INTERNAL, 'internal error']);
    // The server logs once the status is out, so the line may land just after the caller saw the error.
    await until(() => rpcLines('Count').some((line) => line.code === 'INTERNAL'));
    const line = rpcLines('Count').find((candidate) => candidate.code === 'INTERNAL');
    expect(line).toMatchObject({ level: 'error', code: 'INTERNAL' });
    expect(JSON.stringify(line)).toContain('secret detail');
  });

  it('cancels the call when the consumer breaks out, and the handler stops', async () => {
    const received: string[] = [];
    for await (const item of client.count('n:1000000')) {
      received.push(item);
      if (received.length === 3) break;
    }
    // Separate waits, so a failure says which half did not happen.
    await until(() => seen.finallyRan);
    await until(() => seen.aborted);
    expect(seen.produced).toBeLessThan(1000000);
    // The call's line follows the handler's end; a loaded CI machine once took over 5 s to show it. Waited for
    // longer, and a failure now names the code the last line has.
    await until(() => rpcLines('Count').at(-1)?.code === 'CANCELLED', 15_000).catch(() => undefined);
    expect(rpcLines('Count').at(-1)?.code).toBe('CANCELLED');
  });

  it('cancels the call when the signal aborts, rejecting with CANCELLED', async () => {
    const abort = new AbortController();
    const received: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const item of client.count('n:1000000', { signal: abort.signal })) {
          received.push(item);
          if (received.length === 2) abort.abort();
        }
      })(),
    );
    expect(error.code).toBe(Code.CANCELLED);
    await until(() => seen.finallyRan);
    expect(seen.aborted).toBe(true);

    const early = await streamRejection(client.count('n:1', { signal: AbortSignal.abort() }));
    expect(early.code).toBe(Code.CANCELLED);
  });

  it('holds a fast server back while the consumer does not read (backpressure)', async () => {
    const iterator = client.count('big:100000')[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toBe(KIB);
    // Give a producer that ignored backpressure time to run far ahead, then look.
    await sleep(300);
    const produced = seen.produced;
    // Flow-control windows and send buffers hold a few hundred KiB at most, not 100 MB.
    expect(produced).toBeLessThan(2000);
    await iterator.return?.();
    await until(() => seen.finallyRan);
  });

  it('ends a handler held back by backpressure when its call is cancelled', async () => {
    const iterator = client.count('big:100000')[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toBe(KIB);
    // The handler is held back once the call's buffers are full: it stops producing and waits for room.
    await untilSteady(() => seen.produced);
    expect(seen.finallyRan).toBe(false);
    await iterator.return?.();
    // The wait for room ends with the call: the handler's signal aborts and its generator is closed.
    await until(() => seen.finallyRan);
    expect(seen.aborted).toBe(true);
    expect(seen.produced).toBeLessThan(100000);
    await until(() => rpcLines('Count').at(-1)?.code === 'CANCELLED');
  });

  it('streams both ways (bidi)', async () => {
    async function* words() {
      yield 'a';
      yield 'b';
      yield 'c';
    }
    expect(await collect(client.shout(words()))).toEqual(['A', 'B', 'C']);
  });

  it('pulls requests only as fast as the server reads them (backpressure)', async () => {
    let pulled = 0;
    async function* requests() {
      yield 'slow';
      for (let i = 0; i < 2000; i++) {
        pulled++;
        yield SIXTEEN_KIB;
      }
    }
    const responses = collect(client.shout(requests()));
    await until(() => pulled > 0);
    await sleep(300);
    // Flow-control windows and socket buffers hold a few MiB at most, not all 32 MiB.
    expect(pulled).toBeLessThan(500);
    seen.pulledBack = 1;
    const all = await responses;
    expect(all).toHaveLength(2000);
    expect(pulled).toBe(2000);
  });

  it('sends a failed request stream’s CairnError to the caller and cancels the call', async () => {
    async function* requests() {
      yield 'a';
      throw CairnError.invalid('bad body', { reason: 'bad_gzip' });
    }
    const error = await streamRejection(client.shout(requests()));
    expect([error.code, error.message, error.reason]).toEqual([Code.INVALID_ARGUMENT, 'bad body', 'bad_gzip']);

    async function* broken() {
      yield 'a';
      throw new Error('socket hang up');
    }
    const wrapped = await streamRejection(client.shout(broken()));
    expect(wrapped.code).toBe(Code.CANCELLED);
  });

  it('collects a client stream into one response', async () => {
    async function* parts() {
      for (let i = 0; i < 100; i++) yield String(i % 10);
    }
    const joined = await client.concat(parts());
    expect(joined).toHaveLength(100);
    expect(joined.slice(0, 12)).toBe('012345678901');

    async function* bad() {
      yield 'ok';
      yield 'boom';
    }
    const error = await rejection(client.concat(bad()));
    expect([error.code, error.message]).toEqual([Code.INVALID_ARGUMENT, 'no boom']);
  });

  it('answers UNIMPLEMENTED for a method without a handler', async () => {
    const error = await streamRejection(client.missing('x'));
    expect(error.code).toBe(Code.UNIMPLEMENTED);
  });

  it('fails streams with UNAVAILABLE once the client is closed', async () => {
    const closed = createRpcClient(StreamService, { target: `127.0.0.1:${port}`, service: 'git-storage', caller: 'gateway', logger: silentLogger() });
    closed.close();
    const error = await streamRejection(closed.count('n:1'));
    expect([error.code, error.message]).toEqual([Code.UNAVAILABLE, 'git-storage client is closed']);
    async function* none(): AsyncGenerator<string> {}
    expect((await rejection(closed.concat(none()))).code).toBe(Code.UNAVAILABLE);
  });

  it('keeps unary calls working beside the streams', async () => {
    // Its own deadline: the suite's 50 ms default is there to show streams ignore it, and a busy machine misses it.
    expect(await client.echo('hi', { deadlineMs: 5000 })).toBe('hi');
  });

  it('types each kind from the definition', async () => {
    async function* none(): AsyncGenerator<string> {}
    const responses: AsyncIterable<string> = client.count('n:0');
    const joined: Promise<string> = client.concat(none());
    expect(await collect(responses)).toEqual([]);
    expect(await joined).toBe('');
    // @ts-expect-error a server-streaming method takes one request, not an iterable (never read: nothing is sent)
    client.count(none());
    // @ts-expect-error a bidi method returns an async iterable, not a promise
    const notAPromise: Promise<string> = client.shout(none());
    expect(notAPromise).toBeDefined();
  });
});

describe('streaming rpcs and grpc-js clients', () => {
  it('serves a plain grpc-js client too', async () => {
    const server = createRpcServer({ service: 'git-storage', logger: silentLogger() });
    server.addService(StreamService, {
      echo: async (value) => value,
      async *count(request) {
        yield request;
        yield request;
      },
      concat: async () => '',
      async *shout() {},
      async *missing() {},
    }, anyCaller(StreamService));
    const target = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
    const raw = new grpc.Client(target, grpc.credentials.createInsecure());
    try {
      // A plain client is served once it sends a service token (identity.ts).
      const metadata = new grpc.Metadata();
      metadata.set(SERVICE_TOKEN_HEADER, currentKeyring().serviceToken('gateway', 'git-storage'));
      const call = raw.makeServerStreamRequest(StreamService.count.path, text.requestSerialize, text.responseDeserialize, 'z', metadata);
      const items: string[] = [];
      for await (const item of call as AsyncIterable<string>) items.push(item);
      expect(items).toEqual(['z', 'z']);
    } finally {
      raw.close();
      await server.stop(100);
    }
  });
});
