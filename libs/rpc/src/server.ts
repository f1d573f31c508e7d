/**
 * gRPC server for a Cairn service: async handlers, request ids, one log line and one metrics record
 * (`cairn_rpc_server_*`) per RPC, CairnError → status, and the standard health service the supervisor uses
 * for readiness.
 */
import * as grpc from '@grpc/grpc-js';
import { type Logger, REQUEST_ID_HEADER, newRequestId, runWithRequestContext, sanitizeRequestId } from '@cairn/log';
import { rpcServerRecorder } from '@cairn/metrics';
import { Code } from './errors';
import { attachHealth } from './health';
import { codeName, grpcStatus, isServerFault, statusFromError } from './status';
import { type AsyncServiceOf, type MethodKind, type RpcContext, type UnaryHandler, methodKind, serviceNameOf } from './types';

export interface RpcServerOptions {
  /** Name of the process's service (e.g. "accounts"), for logs. */
  service: string;
  logger: Logger;
}

export interface RpcServer {
  /** Registers a service; methods without a handler of a supported kind answer UNIMPLEMENTED. */
  addService<D extends grpc.ServiceDefinition>(definition: D, impl: AsyncServiceOf<D>): void;
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
};

type Adapter = (path: string, handler: (...args: never[]) => unknown, logger: Logger) => grpc.UntypedHandleCall;

/** One adapter per handler kind; a streaming kind is added here (and in types.ts) when a service needs it. */
const ADAPTERS: Partial<Record<MethodKind, Adapter>> = {
  unary: (path, handler, logger) => adaptUnary(path, handler as UnaryHandler<unknown, unknown>, logger),
};

export function createRpcServer(options: RpcServerOptions): RpcServer {
  const { logger } = options;
  const server = new grpc.Server(SERVER_OPTIONS);
  const health = attachHealth(server);
  let stopping: Promise<void> | undefined;

  return {
    addService(definition, impl) {
      const handlers: grpc.UntypedServiceImplementation = {};
      const implementation = impl as Record<string, unknown>;
      for (const [key, method] of Object.entries(definition)) {
        const adapter = ADAPTERS[methodKind(method)];
        const handler = implementation[key];
        if (adapter !== undefined && typeof handler === 'function') {
          handlers[key] = adapter(method.path, handler.bind(impl), logger);
        }
      }
      server.addService(definition, handlers);
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
 * A caller cancels the call when its own deadline passes, and that cancel arrives a little before our copy of
 * the deadline (sent as a relative timeout, so shifted by the transit time) passes: a cancel this close to
 * the deadline is logged as DEADLINE_EXCEEDED.
 */
const DEADLINE_SLACK_MS = 50;

function deadlineOf(call: grpc.ServerUnaryCall<unknown, unknown>): Date | undefined {
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(ms) ? new Date(ms) : undefined;
}

function adaptUnary(path: string, handler: UnaryHandler<unknown, unknown>, logger: Logger): grpc.handleUnaryCall<unknown, unknown> {
  const handlerLogger = logger.child({ rpc: path });
  const metrics = rpcServerRecorder(path);
  return (call, callback) => {
    const started = performance.now();
    const requestId = sanitizeRequestId(call.metadata.get(REQUEST_ID_HEADER)[0]) ?? newRequestId();
    const deadline = deadlineOf(call);
    const abort = new AbortController();
    call.on('cancelled', () => abort.abort());
    const pastDeadline = (slackMs = 0) => deadline !== undefined && Date.now() >= deadline.getTime() - slackMs;
    const cancelCode = () => (pastDeadline(DEADLINE_SLACK_MS) ? Code.DEADLINE_EXCEEDED : Code.CANCELLED);
    const ctx: RpcContext = { requestId, metadata: call.metadata, logger: handlerLogger, deadline, signal: abort.signal };

    void runWithRequestContext({ requestId }, async () => {
      let code: Code;
      let cause: unknown;
      if (call.cancelled || pastDeadline()) {
        // Nobody waits for the answer any more: do not start the work.
        code = cancelCode();
        callback(grpcStatus(code, codeName(code)));
      } else {
        try {
          const response = await handler(call.request, ctx);
          code = Code.OK;
          callback(null, response);
        } catch (error) {
          const outcome = statusFromError(error);
          code = outcome.code;
          cause = outcome.cause;
          callback(outcome.status);
        }
      }
      const fault = isServerFault(code);
      // What the caller saw when it gave up before the handler finished.
      if (call.cancelled) code = cancelCode();
      const elapsedMs = performance.now() - started;
      metrics.record(codeName(code), elapsedMs / 1000);
      const line = {
        rpc: path,
        code: codeName(code),
        duration_ms: Math.round(elapsedMs * 100) / 100,
        request_id: requestId,
        ...(cause === undefined ? {} : { err: cause }),
      };
      if (fault) logger.error(line, 'rpc');
      else logger.info(line, 'rpc');
    });
  };
}
