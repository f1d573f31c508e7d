/**
 * `GET /api/healthz`, Gitea's health endpoint (routers/web/healthcheck): outside /api/v1 and its
 * authentication, so probes need no credentials even on a private instance. The body follows the IETF
 * health-check draft as Gitea writes it — `status` pass or fail, `description` the APP_NAME, and per
 * dependency a list of checks with their time in RFC 3339 — answered 200 when every check passes and 503
 * when one fails.
 */
import type { Logger } from '@cairn/log';
import type { HealthProbe } from '@cairn/rpc';
import type { Handler } from '../http/exchange';

/** What the gateway depends on, checked on every call to /api/healthz. */
export interface DependencyCheck {
  /** Key in `checks`, `<component>:<kind>` as in Gitea (`database:ping`): e.g. `accounts:grpc`. */
  name: string;
  /** Whether the dependency is usable, and why not when it is not; answers within a short deadline. */
  check(): Promise<HealthProbe>;
}

export const HEALTH_CONTENT_TYPE = 'application/health+json';

type Status = 'pass' | 'fail';

interface ComponentStatus {
  status: Status;
  time: string;
  /** Only on failure (the draft says output SHOULD be omitted on pass). */
  output?: string;
}

export interface HealthReport {
  status: Status;
  description: string;
  /** Omitted when there is nothing to check, as Gitea's `omitempty`. */
  checks?: Record<string, ComponentStatus[]>;
}

/** Go's time.RFC3339 in UTC: whole seconds, `Z`. */
function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A check that throws fails with the error as its reason. */
async function probe(dependency: DependencyCheck): Promise<HealthProbe> {
  try {
    return await dependency.check();
  } catch (error) {
    return { serving: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** A failing check says why, in the report (Gitea's `output`) and in the log. */
async function runChecks(description: string, dependencies: readonly DependencyCheck[], logger: Logger): Promise<HealthReport> {
  const results = await Promise.all(
    dependencies.map(async (dependency): Promise<[string, ComponentStatus]> => {
      const result = await probe(dependency);
      const time = rfc3339(new Date());
      if (result.serving) return [dependency.name, { status: 'pass', time }];
      logger.warn({ check: dependency.name, reason: result.reason }, 'health check failed');
      return [dependency.name, { status: 'fail', time, output: `${dependency.name} is not serving: ${result.reason}` }];
    }),
  );
  const report: HealthReport = { status: results.every(([, result]) => result.status === 'pass') ? 'pass' : 'fail', description };
  if (results.length > 0) report.checks = Object.fromEntries(results.map(([name, result]) => [name, [result]]));
  return report;
}

/**
 * The handler. Probes that arrive while a check round is running share it, so a burst of requests does
 * not become a burst of health calls to the services.
 */
export function healthzHandler(description: string, dependencies: readonly DependencyCheck[], logger: Logger): Handler {
  let running: Promise<HealthReport> | undefined;
  return async (_req, res) => {
    running ??= runChecks(description, dependencies, logger).finally(() => {
      running = undefined;
    });
    const report = await running;
    res.statusCode = report.status === 'pass' ? 200 : 503;
    res.setHeader('Content-Type', HEALTH_CONTENT_TYPE);
    res.setHeader('Cache-Control', 'no-store');
    // Indented, as Gitea marshals it.
    res.end(JSON.stringify(report, null, 2));
  };
}
