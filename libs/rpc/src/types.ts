/**
 * Types that turn a ts-proto grpc-js service definition (e.g. `UserServiceService`) into async server
 * handlers and async client methods. Request and response types are read from each method's
 * `requestSerialize` / `responseDeserialize`, so no hand-written interface can drift from the proto.
 *
 * Only unary methods are mapped today. Each method has a kind (`methodKind`); a streaming kind gets its own
 * handler type here and its own adapter in server.ts/client.ts when it is needed (git upload-pack).
 */
import type * as grpc from '@grpc/grpc-js';
import type { Logger } from '@cairn/log';

export type RequestOf<M> = M extends { requestSerialize: (value: infer Req) => Buffer } ? Req : never;
export type ResponseOf<M> = M extends { responseDeserialize: (bytes: Buffer) => infer Res } ? Res : never;

/** The shape ts-proto gives a unary method (`as const` makes the stream flags literal `false`). */
interface UnaryMethodShape {
  requestStream: false;
  responseStream: false;
}

/** Keys of D whose method is unary. */
export type UnaryMethodKeys<D> = {
  [K in keyof D]: D[K] extends UnaryMethodShape ? K : never;
}[keyof D];

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
}

export type UnaryHandler<Req, Res> = (request: Req, ctx: RpcContext) => Promise<Res>;

/** Server implementation of D: one async handler per unary method. Handlers throw CairnError for failures. */
export type AsyncServiceOf<D> = {
  [K in UnaryMethodKeys<D>]: UnaryHandler<RequestOf<D[K]>, ResponseOf<D[K]>>;
};

export interface RpcCallOptions {
  /** Overrides the client's default deadline for this call. */
  deadlineMs?: number;
}

/** Client view of D: one promise-returning function per unary method. Failures reject with CairnError. */
export type AsyncClientOf<D> = {
  [K in UnaryMethodKeys<D>]: (request: RequestOf<D[K]>, options?: RpcCallOptions) => Promise<ResponseOf<D[K]>>;
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
