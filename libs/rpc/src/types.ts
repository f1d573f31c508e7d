/**
 * Types that turn a ts-proto grpc-js service definition (e.g. `UserServiceService`) into async server
 * handlers and async client methods. Request and response types are read from each method's
 * `requestSerialize` / `responseDeserialize`, so no hand-written interface can drift from the proto.
 *
 * Every kind is mapped: unary, server streaming, client streaming and bidi. Streams are async iterables on both
 * sides (write a streaming handler as an `async function*`); each kind has its adapter in server.ts and in
 * client.ts / streams.ts.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Logger } from '@cairn/log';
import type { Identity } from './identity';

export type RequestOf<M> = M extends { requestSerialize: (value: infer Req) => Buffer } ? Req : never;
export type ResponseOf<M> = M extends { responseDeserialize: (bytes: Buffer) => infer Res } ? Res : never;

/** The shape ts-proto gives a method (`as const` makes the stream flags literal booleans). */
interface MethodShape<RequestStream extends boolean, ResponseStream extends boolean> {
  requestStream: RequestStream;
  responseStream: ResponseStream;
}

export type MethodKind = 'unary' | 'serverStream' | 'clientStream' | 'bidi';

export function methodKind(method: { requestStream: boolean; responseStream: boolean }): MethodKind {
  if (method.requestStream) return method.responseStream ? 'bidi' : 'clientStream';
  return method.responseStream ? 'serverStream' : 'unary';
}

/** `/cairn.accounts.v1.UserService/GetUser` → `cairn.accounts.v1.UserService` (the name health reports on). */
export function serviceNameOf(definition: grpc.ServiceDefinition): string {
  const first = Object.values(definition)[0];
  if (first === undefined) throw new Error('service definition has no methods');
  return first.path.slice(1, first.path.lastIndexOf('/'));
}

/** What a handler knows about the call besides the request. */
export interface RpcContext {
  /** From the caller's `x-request-id` metadata, or new; also the ambient request id (`currentRequestId()`). */
  requestId: string;
  metadata: grpc.Metadata;
  /** The server's logger with `rpc` bound; lines also carry `request_id`. */
  logger: Logger;
  /** The caller's deadline, if it sent one. */
  deadline: Date | undefined;
  /** Aborted when the caller cancels or the deadline passes, so long work can stop early. */
  signal: AbortSignal;
  /** Who called, as its credential proved (authorize.ts). */
  caller: Identity;
}

export type UnaryHandler<Req, Res> = (request: Req, ctx: RpcContext) => Promise<Res>;
/**
 * One request, a stream of responses. Each yielded message is sent once the previous ones are on their way
 * (the generator is not resumed while the call's send buffer is full); throwing ends the call with the status.
 */
export type ServerStreamHandler<Req, Res> = (request: Req, ctx: RpcContext) => AsyncIterable<Res>;
/** A stream of requests (read at the handler's pace), one response. */
export type ClientStreamHandler<Req, Res> = (requests: AsyncIterable<Req>, ctx: RpcContext) => Promise<Res>;
/** Requests and responses both streamed, each at its reader's pace. */
export type BidiHandler<Req, Res> = (requests: AsyncIterable<Req>, ctx: RpcContext) => AsyncIterable<Res>;

/** The handler type of one method, by its kind; never for a method whose stream flags are not literal. */
export type HandlerOf<M> =
  M extends MethodShape<false, false>
    ? UnaryHandler<RequestOf<M>, ResponseOf<M>>
    : M extends MethodShape<false, true>
      ? ServerStreamHandler<RequestOf<M>, ResponseOf<M>>
      : M extends MethodShape<true, false>
        ? ClientStreamHandler<RequestOf<M>, ResponseOf<M>>
        : M extends MethodShape<true, true>
          ? BidiHandler<RequestOf<M>, ResponseOf<M>>
          : never;

/** Server implementation of D: one async handler per method. Handlers throw CairnError for failures. */
export type AsyncServiceOf<D> = {
  // `-readonly`: the definitions are `as const`, and tests replace single handlers of an implementation.
  -readonly [K in keyof D as [HandlerOf<D[K]>] extends [never] ? never : K]: HandlerOf<D[K]>;
};

export interface RpcCallOptions {
  /**
   * Deadline of this call. A unary call without it gets the client's default deadline; a streaming call
   * without it has none (a clone can take minutes).
   */
  deadlineMs?: number;
  /** Aborting cancels the call: it rejects with CANCELLED and the server's handler sees its signal abort. */
  signal?: AbortSignal;
  /**
   * The user an edge's client-streaming or bidi call acts for: asserted in the call's metadata, which goes before
   * the first request (a unary or server-streaming call asserts the actor its request names).
   */
  actor?: { userId: number; isAdmin: boolean; isRestricted: boolean };
}

/**
 * The client function of one method, by its kind. Streams are async iterables: responses arrive as the consumer
 * reads them, requests are read from the given iterable as the server takes them, and breaking out of a
 * response loop cancels the call. Failures reject with CairnError.
 */
export type ClientMethodOf<M> =
  M extends MethodShape<false, false>
    ? (request: RequestOf<M>, options?: RpcCallOptions) => Promise<ResponseOf<M>>
    : M extends MethodShape<false, true>
      ? (request: RequestOf<M>, options?: RpcCallOptions) => AsyncIterable<ResponseOf<M>>
      : M extends MethodShape<true, false>
        ? (requests: AsyncIterable<RequestOf<M>>, options?: RpcCallOptions) => Promise<ResponseOf<M>>
        : M extends MethodShape<true, true>
          ? (requests: AsyncIterable<RequestOf<M>>, options?: RpcCallOptions) => AsyncIterable<ResponseOf<M>>
          : never;

/** Client view of D: one function per method. */
export type AsyncClientOf<D> = {
  // `-readonly`: test fakes replace single methods of a client.
  -readonly [K in keyof D as [ClientMethodOf<D[K]>] extends [never] ? never : K]: ClientMethodOf<D[K]>;
};

/** Circuit breaker settings of a client (see breaker.ts). */
export interface BreakerOptions {
  /**
   * opossum's own timeout, a backstop above the gRPC deadline (which is the real timeout). Default: off.
   * A call it cuts short is cancelled and fails with DEADLINE_EXCEEDED.
   */
  timeoutMs?: number | false;
  /** Failure percentage in the rolling window that opens the circuit. Default 50. */
  errorThresholdPercentage?: number;
  /** How long the circuit stays open before one trial call is let through. Default 5000. */
  resetTimeoutMs?: number;
  /** Calls in the rolling window before the circuit may open at all. Default 5. */
  volumeThreshold?: number;
  /** Length of the rolling statistics window. Default 10000. */
  rollingWindowMs?: number;
}
