export * from './errors';
export * from './types';
export { MAX_MESSAGE_BYTES } from './limits';
export { REASON_TRAILER, codeName } from './status';
export { type RpcServer, type RpcServerOptions, createRpcServer } from './server';
export { type RpcClient, type RpcClientHandle, type RpcClientOptions, createRpcClient } from './client';
export {
  type HealthCheckOptions,
  type HealthClient,
  type HealthProbe,
  type WaitForReadyOptions,
  checkHealth,
  createHealthClient,
  waitForReady,
} from './health';
export { ANONYMOUS, type Viewer, actorOf, isSignedIn, viewerFromActor } from './viewer';
export { type CallerGrant, type Callers, anyCaller } from './authorize';
export {
  ACTOR_ASSERTION_HEADER,
  EDGE_IDENTITIES,
  IDENTITIES,
  type Identity,
  Keyring,
  SERVICE_TOKEN_HEADER,
  currentKeyring,
  ensureKeys,
  generateKeyring,
  installKeyring,
  isIdentity,
  loadKeyring,
  runAsAsserted,
} from './identity';
