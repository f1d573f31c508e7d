/**
 * @cairn/supervisor: runs the whole system for `npm start` (see supervisor.ts), and the pieces other local
 * tools share with it: the embedded PostgreSQL, the work-dir lock and the runtime file.
 */
export { startSupervisor, StartAbortedError, type RunningSupervisor, type SupervisorOptions } from './supervisor';
export {
  EMBEDDED_DATABASE,
  EmbeddedPostgresError,
  embeddedDataDir,
  startEmbeddedPostgres,
  type EmbeddedPostgresOptions,
  type RunningEmbeddedPostgres,
} from './embedded-postgres';
export { readLiveRuntimeFile, readRuntimeFile, runtimeFilePath, type RuntimeInfo, type RuntimeService } from './runtime-file';
export { describeHolder, lockPath, tryAcquireWorkDirLock, type LockHolder, type LockRole, type WorkDirLock } from './work-dir-lock';
export { freeLoopbackPort, isSameProcessAlive, type ProcessIdentity } from './processes';
export { withoutPassword } from './redact';
