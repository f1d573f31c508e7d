import { silentLogger } from '@cairn/log';
import { testNatsUrl, uniqueName } from '@cairn/testing';
import { connectNatsBus } from './nats-bus';
import { describeBusContract } from './test-support/contract';
import { deleteStreams } from './test-support/nats';

const prefix = uniqueName('ct');

afterAll(async () => {
  await deleteStreams(testNatsUrl(), prefix.toUpperCase());
});

describeBusContract('NATS JetStream', {
  prefix,
  connect: () => connectNatsBus({ url: testNatsUrl(), logger: silentLogger(), requestTimeoutMs: 2_000 }),
  broadcastAcrossInstances: true,
});
