/**
 * Typed async gRPC client for a Cairn service. Every call carries the ambient request id and every failure comes
 * back as a CairnError. Calls are counted and timed (`cairn_rpc_client_*`) with the code the caller saw.
 *
 * Unary calls have a deadline and go through the client's one circuit breaker, whose state is the gauge
 * `cairn_rpc_client_breaker_state{client="<gRPC service>"}`. Streaming calls (streams.ts) have no deadline unless
 * the call sets one and bypass the breaker: a stream lasts as long as its transfer and may fail half-way, which a
 * rolling failure percentage of short calls cannot weigh; a stream that cannot start fails on its own.
 */
import * as grpc from '@grpc/grpc-js';
import type { GrpcServiceName } from '@cairn/config';
import { type Logger, REQUEST_ID_HEADER, currentActorAssertion, currentRequestId, newRequestId } from '@cairn/log';
import { type RpcRecorder, rpcClientRecorder } from '@cairn/metrics';
import { breakerRejection, countsAsFailure, createBreaker } from './breaker';
import { withChunkCodec } from './chunk-codec';
import { actorsNamedIn } from './authorize';
import { CairnError, Code, isCairnError } from './errors';
import { ACTOR_ASSERTION_HEADER, type Identity, SERVICE_TOKEN_HEADER, currentKeyring, isEdge } from './identity';
import { FLOW_CONTROL_WINDOW_BYTES, MAX_MESSAGE_BYTES } from './limits';
import { codeName, errorFromStatus } from './status';
import { type StreamCaller, streamCallers } from './streams';
import { type AsyncClientOf, type BreakerOptions, type RpcCallOptions, methodKind, serviceNameOf } from './types';

export interface RpcClientOptions {
  /** `host:port` of the service. */
  target: string;
  /** The called service (e.g. "accounts"): the audience of the call's credential, and named in errors and logs. */
  service: GrpcServiceName;
  /** Who calls: the identity whose key signs every call (identity.ts). */
  caller: Identity;
  logger: Logger;
  /** Deadline of each call unless the call overrides it. Default 5000. */
  deadlineMs?: number;
  breaker?: BreakerOptions;
}

export interface RpcClientHandle {
  /** Closes the channel and the breaker; later calls fail with UNAVAILABLE. */
  close(): void;
}

export type RpcClient<D> = AsyncClientOf<D> & RpcClientHandle;

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // Notice a dead peer on an idle connection within ~40 s rather than at the next call's deadline.
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  // Services restart under the supervisor; reconnect within seconds, not grpc's default two minutes.
  'grpc.initial_reconnect_backoff_ms': 500,
  'grpc.max_reconnect_backoff_ms': 5_000,
  // Answers may carry whole files (limits.ts).
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  // Streams (packs, archives) flow without a window update every 64 KiB (limits.ts).
  'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW_BYTES,
  // No channelz: nothing reads it, and its per-call bookkeeping is CPU on every call (docs/benchmarks.md).
  'grpc.enable_channelz': 0,
};

const OK_NAME = codeName(Code.OK);

/** One call as the breaker sees it; `call` is filled in once the request is on its way, so it can be cancelled. */
interface Invocation {
  method: grpc.MethodDefinition<unknown, unknown>;
  request: unknown;
  requestId: string;
  deadline: Date;
  call?: grpc.ClientUnaryCall;
}

export function createRpcClient<D extends grpc.ServiceDefinition>(definition: D, options: RpcClientOptions): RpcClient<D> {
  const { service, target, logger } = options;
  if ('close' in definition) throw new Error(`${service}: a method named "close" would hide the client's close()`);
  const defaultDeadlineMs = options.deadlineMs ?? 5000;
  const channel = new grpc.Client(target, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  const credentials = callCredentials(options.caller, service);

  const send = (invocation: Invocation) =>
    new Promise<unknown>((resolve, reject) => {
      const metadata = new grpc.Metadata();
      metadata.set(REQUEST_ID_HEADER, invocation.requestId);
      credentials(metadata, invocation.request);
      // grpc-js makes an Error per call to remember the caller's stack for its error text, which errorFromStatus
      // replaces: without a stack trace that Error is cheap (its capture was ~15 µs of every call's CPU).
      const stackTraceLimit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        invocation.call = channel.makeUnaryRequest(
          invocation.method.path,
          invocation.method.requestSerialize,
          invocation.method.responseDeserialize,
          invocation.request,
          metadata,
          { deadline: invocation.deadline },
          (error, response) => (error === null ? resolve(response) : reject(errorFromStatus(error, service))),
        );
      } finally {
        Error.stackTraceLimit = stackTraceLimit;
      }
    });
  const breaker = createBreaker(send, {
    service,
    target,
    logger,
    settings: options.breaker,
    metricsLabel: serviceNameOf(definition),
  });

  const invokeUnary = async (
    method: grpc.MethodDefinition<unknown, unknown>,
    metrics: RpcRecorder,
    request: unknown,
    callOptions?: RpcCallOptions,
  ) => {
    const started = performance.now();
    const requestId = currentRequestId() ?? newRequestId();
    const deadlineMs = callOptions?.deadlineMs ?? defaultDeadlineMs;
    const invocation: Invocation = { method, request, requestId, deadline: new Date(Date.now() + deadlineMs) };
    const signal = callOptions?.signal;
    const cancel = () => invocation.call?.cancel();
    signal?.addEventListener('abort', cancel);
    try {
      signal?.throwIfAborted();
      const response = await breaker.fire(invocation);
      metrics.record(OK_NAME, (performance.now() - started) / 1000);
      return response;
    } catch (error) {
      const rejection = breakerRejection(error, service);
      // opossum's own timeout leaves the call running: stop it.
      if (rejection !== undefined) invocation.call?.cancel();
      const failure =
        rejection ??
        (isCairnError(error)
          ? error
          : signal?.aborted === true
            ? new CairnError(Code.CANCELLED, `${service} call cancelled`, { cause: error })
            : new CairnError(Code.INTERNAL, `${service} call failed`, { cause: error }));
      metrics.record(codeName(failure.code), (performance.now() - started) / 1000);
      // Business answers (NOT_FOUND, …) are logged by the server; only unhealthy calls are worth a line here.
      if (countsAsFailure(failure)) {
        logger.warn(
          { rpc: method.path, target, code: codeName(failure.code), request_id: requestId, err: failure.cause ?? failure },
          'rpc call failed',
        );
      }
      throw failure;
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  };
  let closed = false;
  const streams = streamCallers(channel, { service, target, logger, isClosed: () => closed, credentials });

  const client: Record<string, unknown> = {
    close() {
      closed = true;
      breaker.shutdown();
      channel.close();
    },
  };
  for (const [key, method] of Object.entries(definition)) {
    const metrics = rpcClientRecorder(method.path);
    const kind = methodKind(method);
    const caller: StreamCaller | undefined = kind === 'unary' ? undefined : streams[kind];
    // Streamed chunks are encoded and decoded with fewer copies (chunk-codec.ts); same bytes on the wire.
    const wire = caller === undefined ? method : withChunkCodec(method);
    client[key] =
      caller === undefined
        ? (request: unknown, callOptions?: RpcCallOptions) => invokeUnary(method, metrics, request, callOptions)
        : (input: unknown, callOptions?: RpcCallOptions) => caller(wire, metrics, input, callOptions);
  }
  return client as RpcClient<D>;
}

/**
 * Sets a call's credentials: the caller's service token for the callee and, when the call acts for a user, the
 * actor assertion. An edge asserts the actor its request names (it authenticated that user); a service passes on
 * the assertion of the request it is handling, if any.
 */
function callCredentials(caller: Identity, callee: GrpcServiceName): (metadata: grpc.Metadata, request?: unknown) => void {
  return (metadata, request) => {
    const keyring = currentKeyring();
    metadata.set(SERVICE_TOKEN_HEADER, keyring.serviceToken(caller, callee));
    if (isEdge(caller)) {
      const actor = request === undefined ? undefined : actorsNamedIn(request)[0];
      if (actor !== undefined) metadata.set(ACTOR_ASSERTION_HEADER, keyring.actorAssertion(caller, actor));
      return;
    }
    const assertion = currentActorAssertion();
    if (assertion !== undefined) metadata.set(ACTOR_ASSERTION_HEADER, assertion);
  };
}
