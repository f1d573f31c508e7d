/** Reading one sample back from the registry: for tests and for checks that want a number, not the text format. */
import { metricsRegistry } from './registry';

const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];

/**
 * The value of the sample `name` whose labels include `labels` (histogram samples by their full name, e.g.
 * `cairn_rpc_server_handling_seconds_count`); undefined when there is none.
 */
export async function metricValue(name: string, labels: Record<string, string | number> = {}): Promise<number | undefined> {
  const registry = metricsRegistry();
  let metric = registry.getSingleMetric(name);
  let sampleName: string | undefined;
  if (metric === undefined) {
    const suffix = HISTOGRAM_SUFFIXES.find((s) => name.endsWith(s));
    if (suffix === undefined) return undefined;
    metric = registry.getSingleMetric(name.slice(0, -suffix.length));
    sampleName = name;
  }
  if (metric === undefined) return undefined;
  const { values } = await metric.get();
  const sample = values.find(
    (value) =>
      (sampleName === undefined || (value as { metricName?: string }).metricName === sampleName) &&
      Object.entries(labels).every(([key, expected]) => String((value.labels as Record<string, unknown>)[key]) === String(expected)),
  );
  return sample?.value;
}
