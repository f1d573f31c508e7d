/**
 * A stand-in for notifications' ActivityService: answers the buckets a test sets and records what the gateway
 * asked. Who sees which activity is notifications' rule, tested there; gateway tests check the HTTP side.
 */
import type { GetHeatmapRequest, HeatmapBucket } from '@cairn/proto/cairn/notifications/v1/notifications_service';
import type { CairnError } from '@cairn/rpc';
import type { ActivityClient } from '../../src/clients';

export class FakeActivity {
  /** What GetHeatmap answers. */
  buckets: HeatmapBucket[] = [];
  /** When set, every call fails with it. */
  failure: CairnError | undefined;
  readonly requests: GetHeatmapRequest[] = [];

  readonly client: ActivityClient = {
    getHeatmap: async (request) => {
      this.requests.push(request);
      if (this.failure !== undefined) throw this.failure;
      return { buckets: this.buckets };
    },
  };
}
