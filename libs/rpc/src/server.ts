/**
 * gRPC server for a Cairn service: async handlers (streams as async iterables, with backpressure), request ids,
 * one log line and one metrics record (`cairn_rpc_server_*`) per RPC, CairnError → status, cancellation → the
 * handler's abort signal, and the standard health service the supervisor uses for readiness.
 */
import { once } from 'node:events';
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { type Logger, REQUEST_ID_HEADER, type RequestContext, newRequestId, runWithRequestContext, sanitizeRequestId } from '@cairn/log';
import { type RpcRecorder, rpcServerRecorder } from '@cairn/metrics';
import { type CallerGrant, type Callers, type VerifiedCall, checkActors, verifyCall } from './authorize';
import { withChunkCodec } from './chunk-codec';
import { CairnError, Code } from './errors';
import { attachHealth } from './health';
import { type Identity, currentKeyring, isIdentity } from './identity';
import { MAX_MESSAGE_BYTES } from './limits';
import { codeName, grpcStatus, isServerFault, statusFromError } from './status';
import {
  type AsyncServiceOf,
  type BidiHandler,
  type ClientStreamHandler,
  type MethodKind,
  type RpcContext,
  type ServerStreamHandler,
  type UnaryHandler,
  methodKind,
  serviceNameOf,
} from './types';

export interface RpcServerOptions {
  /** The service's identity (e.g. "accounts"): callers' credentials must be addressed to it; named in logs. */
  service: Identity;
  logger: Logger;
}

export interface RpcServer {
  /**
   * Registers a service; methods without a handler answer UNIMPLEMENTED. `callers` names, for every method, the
   * identities that may call it (authorize.ts); every other caller gets PERMISSION_DENIED, and a call without valid
   * credentials UNAUTHENTICATED, before any handler runs.
   */
  addService<D extends grpc.ServiceDefinition>(definition: D, impl: AsyncServiceOf<D>, callers: NoInfer<Callers<D>>): void;
  /** Binds `host:port` (port 0 picks a free one) and resolves with the bound port. Health stays NOT_SERVING. */
  start(listen: string): Promise<number>;
  /**
   * Health status for '' and every added service. Starts NOT_SERVING, and start() does not change that: the
   * service calls setServing(true) once everything it needs (database, bus consumers) is ready, so health
   * means "ready", not merely "listening".
   */
  setServing(serving: boolean): void;
  /** NOT_SERVING, then lets running calls finish for up to graceMs (default 5000) before cutting them off. */
  stop(graceMs?: number): Promise<void>;
}

const SERVER_OPTIONS: grpc.ServerOptions = {
  // Ping idle clients now and then so connections from crashed peers are dropped.
  'grpc.keepalive_time_ms': 60_000,
  'grpc.keepalive_timeout_ms': 20_000,
  // Requests may carry whole files (limits.ts).
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  // Channelz stays on here (unlike the clients): grpc-js's server tracks its sessions for forceShutdown only with it,
  // so without it stop() could not cut off calls after the grace period.
};

type Adapter = (method: Endpoint, handler: (...args: never[]) => unknown) => grpc.UntypedHandleCall;

/** One adapter per handler kind (types.ts has the handler types). */
const ADAPTERS: Record<MethodKind, Adapter> = {
  unary: (method, handler) => adaptUnary(method, handler as UnaryHandler<unknown, unknown>),
  serverStream: (method, handler) => adaptServerStream(method, handler as ServerStreamHandler<unknown, unknown>),
  clientStream: (method, handler) => adaptClientStream(method, handler as ClientStreamHandler<unknown, unknown>),
  bidi: (method, handler) => adaptBidi(method, handler as BidiHandler<unknown, unknown>),
};

export function createRpcServer(options: RpcServerOptions): RpcServer {
  const { logger } = options;
  const server = new grpc.Server(SERVER_OPTIONS);
  const health = attachHealth(server);
  let stopping: Promise<void> | undefined;

  return {
    addService(definition, impl, callers) {
      const handlers: grpc.UntypedServiceImplementation = {};
      const implementation = impl as Record<string, unknown>;
      const grants = callers as Record<string, CallerGrant | readonly Identity[] | undefined>;
      // Streamed chunks are encoded and decoded with fewer copies (chunk-codec.ts); same bytes on the wire.
      const wire: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
      for (const [key, method] of Object.entries(definition)) {
        wire[key] = withChunkCodec(method);
        const handler = implementation[key];
        const grant = grants[key];
        if (grant === undefined) throw new Error(`${method.path} names no callers`);
        const audience = ownerOfRpc(method.path) ?? options.service;
        if (typeof handler === 'function') handlers[key] = ADAPTERS[methodKind(method)](endpoint(audience, method.path, grant, logger), handler.bind(impl));
      }
      server.addService(wire, handlers);
      health.track(serviceNameOf(definition));
    },

    start(listen) {
      return new Promise((resolve, reject) => {
        server.bindAsync(listen, grpc.ServerCredentials.createInsecure(), (error, port) => {
          if (error !== null) {
            reject(error);
            return;
          }
          logger.info({ listen, port }, `${options.service} gRPC server listening`);
          resolve(port);
        });
      });
    },

    setServing(serving) {
      health.setServing(serving);
    },

    stop(graceMs = 5000) {
      stopping ??= new Promise((resolve) => {
        health.setServing(false);
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      return stopping;
    },
  };
}

/**
 * The service a Cairn RPC belongs to, from its package (`/cairn.repos.v1.RepoService/…` → repos): callers address
 * their credentials to it, whichever process serves it (a test's fake may serve several services on one port).
 */
function ownerOfRpc(path: string): Identity | undefined {
  const owner = /^\/cairn\.([a-z]+)\.v1\./.exec(path)?.[1];
  if (owner === undefined) return undefined;
  const identity = owner === 'git' ? 'git-storage' : owner;
  return isIdentity(identity) ? identity : undefined;
}

/**
 * A caller cancels the call when its own deadline passes, and that cancel arrives a little before our copy of
 * the deadline (sent as a relative timeout, so shifted by the transit time) passes: a cancel this close to
 * the deadline is logged as DEADLINE_EXCEEDED.
 */
const DEADLINE_SLACK_MS = 50;

type ServerCall =
  | grpc.ServerUnaryCall<unknown, unknown>
  | grpc.ServerReadableStream<unknown, unknown>
  | grpc.ServerWritableStream<unknown, unknown>
  | grpc.ServerDuplexStream<unknown, unknown>;

function deadlineOf(call: ServerCall): Date | undefined {
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(ms) ? new Date(ms) : undefined;
}

/** One method as its calls are served: its path, who may call it, loggers and metrics, made once when the service is added. */
interface Endpoint {
  /** The serving service's identity. */
  self: Identity;
  path: string;
  grant: CallerGrant | readonly Identity[];
  logger: Logger;
  /** The logger handlers get, with `rpc` bound. */
  handlerLogger: Logger;
  metrics: RpcRecorder;
}

function endpoint(self: Identity, path: string, grant: CallerGrant | readonly Identity[], logger: Logger): Endpoint {
  return { self, path, grant, logger, handlerLogger: logger.child({ rpc: path }), metrics: rpcServerRecorder(path) };
}

/**
 * What every kind of call shares: request id, context and abort signal, the check that somebody still waits, and
 * one log line and one metrics record once the call settles. `work` answers OK itself (and resolves once it
 * has); a thrown error is turned into a status and handed to `fail`.
 */
function serveCall(
  { self, path, grant, logger, handlerLogger, metrics }: Endpoint,
  call: ServerCall,
  work: (ctx: RpcContext, verified: VerifiedCall) => Promise<void>,
  fail: (status: grpc.StatusObject) => void,
): void {
  const started = performance.now();
  const requestId = sanitizeRequestId(call.metadata.get(REQUEST_ID_HEADER)[0]) ?? newRequestId();
  const deadline = deadlineOf(call);
  // The handler's abort signal, made when a handler first asks for it (most never do: an AbortController and the
  // DOMException of its abort cost more than the rest of a small call's bookkeeping).
  let abort: AbortController | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    abort?.abort();
  };
  const signalOf = (): AbortSignal => {
    if (abort === undefined) {
      abort = new AbortController();
      if (stopped) abort.abort();
    }
    return abort.signal;
  };
  const events: NodeJS.EventEmitter = call;
  events.on('cancelled', stop);
  // A response stream closes when the call ends, however it ends: the handler stops there too (after a normal end it
  // has finished already, and the abort changes nothing). Not a request-only stream: its 'close' comes once the
  // requests are read, while the handler may still be working on its answer.
  if (call instanceof Writable) call.once('close', stop);
  const pastDeadline = (slackMs = 0) => deadline !== undefined && Date.now() >= deadline.getTime() - slackMs;
  const cancelCode = () => (pastDeadline(DEADLINE_SLACK_MS) ? Code.DEADLINE_EXCEEDED : Code.CANCELLED);
  // The handler's context; the actor assertion is added once it is verified, so the calls the handler makes pass it on.
  const context: RequestContext = { requestId };

  void runWithRequestContext(context, async () => {
    let code: Code;
    let cause: unknown;
    // Who called, once its credential is verified: every RPC's log line names it (an audit trail of service calls).
    let caller: Identity | undefined;
    if (call.cancelled || pastDeadline()) {
      // Nobody waits for the answer any more: do not start the work.
      code = cancelCode();
      if (!call.cancelled) fail(grpcStatus(code, codeName(code)));
    } else {
      try {
        const verified = verifyCall(currentKeyring(), self, path, grant, call.metadata);
        caller = verified.caller;
        // A single request is here already; streamed ones are checked as they arrive (requestsOf).
        if ('request' in call && call.request !== undefined) checkActors(path, grant, verified, call.request);
        context.actorAssertion = verified.actor?.assertion;
        const ctx: RpcContext = {
          requestId,
          metadata: call.metadata,
          logger: handlerLogger,
          deadline,
          get signal() {
            return signalOf();
          },
          caller: verified.caller,
        };
        await work(ctx, verified);
        code = Code.OK;
      } catch (error) {
        const outcome = statusFromError(error);
        code = outcome.code;
        cause = outcome.cause;
        // A cancelled stream is already torn down; there is nobody to tell.
        if (!call.cancelled) fail(outcome.status);
      }
    }
    const fault = isServerFault(code) && !call.cancelled;
    // What the caller saw when it gave up before the handler finished.
    if (call.cancelled) code = cancelCode();
    const elapsedMs = performance.now() - started;
    metrics.record(codeName(code), elapsedMs / 1000);
    const line = {
      rpc: path,
      code: codeName(code),
      duration_ms: Math.round(elapsedMs * 100) / 100,
      request_id: requestId,
      ...(caller === undefined ? {} : { caller }),
      ...(cause === undefined ? {} : { err: cause }),
    };
    if (fault) logger.error(line, 'rpc');
    else logger.info(line, 'rpc');
  });
}

function adaptUnary(method: Endpoint, handler: UnaryHandler<unknown, unknown>): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) =>
    serveCall(
      method,
      call,
      async (ctx) => callback(null, await handler(call.request, ctx)),
      (status) => callback(status),
    );
}

function adaptServerStream(method: Endpoint, handler: ServerStreamHandler<unknown, unknown>): grpc.handleServerStreamingCall<unknown, unknown> {
  return (call) =>
    serveCall(
      method,
      call,
      async (ctx) => {
        await sendAll(call, handler(call.request, ctx), ctx.signal);
        call.end();
      },
      // grpc-js turns an 'error' event on a response stream into the call's status (code, details, trailers).
      (status) => call.emit('error', status),
    );
}

function adaptClientStream(method: Endpoint, handler: ClientStreamHandler<unknown, unknown>): grpc.handleClientStreamingCall<unknown, unknown> {
  return (call, callback) =>
    serveCall(
      method,
      call,
      async (ctx, verified) => callback(null, await handler(requestsOf(call, method, verified), ctx)),
      (status) => callback(status),
    );
}

function adaptBidi(method: Endpoint, handler: BidiHandler<unknown, unknown>): grpc.handleBidiStreamingCall<unknown, unknown> {
  return (call) =>
    serveCall(
      method,
      call,
      async (ctx, verified) => {
        await sendAll(call, handler(requestsOf(call, method, verified), ctx), ctx.signal);
        call.end();
      },
      (status) => call.emit('error', status),
    );
}

/**
 * The call's requests as an async iterable, read at the handler's pace (grpc-js asks the peer for the next
 * message only when this one is taken), each checked for the actors it names (authorize.ts) as it arrives. A handler
 * that stops reading early leaves the call open for its responses; a cancelled call ends the iteration with an error.
 */
function requestsOf(
  call: grpc.ServerReadableStream<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>,
  { path, grant }: Endpoint,
  verified: VerifiedCall,
): AsyncIterable<unknown> {
  return {
    [Symbol.asyncIterator]: (): AsyncIterator<unknown> => {
      const requests = call.iterator({ destroyOnReturn: false });
      return {
        next: async () => {
          const next = await requests.next();
          if (next.done !== true) checkActors(path, grant, verified, next.value);
          return next;
        },
        return: async (value?: unknown) => (await requests.return?.(value)) ?? { done: true, value },
      };
    },
  };
}

/**
 * Resolves once the call can take more ('drain'), or never will: it was cancelled (`signal`), or its stream closed or
 * failed. grpc-js drops a write to a cancelled call without calling back, so a closed call never drains: waiting
 * for 'drain' alone could hold the handler (and what it holds: a git process, a pack) forever.
 */
async function drained(call: Writable, signal: AbortSignal): Promise<void> {
  if (call.destroyed || call.writableEnded) return;
  const done = new AbortController();
  const stop = AbortSignal.any([signal, done.signal]);
  try {
    await Promise.race([once(call, 'drain', { signal: stop }), once(call, 'close', { signal: stop })]);
  } catch {
    // Aborted, or the stream failed ('error'): either way, no more writes.
  } finally {
    done.abort();
  }
}

/**
 * Writes every message of `source` to the call, waiting for 'drain' whenever the call's buffer is full, so a fast
 * producer is held to the peer's pace. On cancellation, or once the call's stream has closed, it stops pulling
 * (which runs the source's `finally`).
 */
async function sendAll(call: Writable, source: AsyncIterable<unknown>, signal: AbortSignal): Promise<void> {
  const over = () => signal.aborted || call.destroyed;
  for await (const message of source) {
    if (over()) break;
    if (!call.write(message)) await drained(call, signal);
    if (over()) break;
  }
  if (over()) throw new CairnError(Code.CANCELLED, 'call cancelled');
}
