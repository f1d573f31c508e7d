import { type AsyncApiDocument, asyncApiChannelAddresses } from '@cairn/events';
import { startTestGateway } from './support/harness';

describe('GET /api/asyncapi.json', () => {
  it("serves the event stream's AsyncAPI document with the installation's prefix and ROOT_URL, built once", async () => {
    const gw = await startTestGateway({ env: { CAIRN__bus__PREFIX: 'staging-2', CAIRN__server__ROOT_URL: 'https://git.example.com/' } });
    try {
      const res = await gw.fetch('/api/asyncapi.json');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json;charset=utf-8');
      const text = await res.text();
      const document = JSON.parse(text) as AsyncApiDocument;
      expect(document.asyncapi).toBe('3.0.0');
      const addresses = asyncApiChannelAddresses(document);
      expect(addresses).toContain('staging-2.events.v1.public.issues');
      expect(addresses).toContain('staging-2.events.v1.private.push');
      expect(addresses.every((address) => address.startsWith('staging-2.events.v1.'))).toBe(true);
      expect(text).toContain('"const":"https://git.example.com/"');
      expect(await (await gw.fetch('/api/asyncapi.json')).text()).toBe(text);
    } finally {
      await gw.close();
    }
  });

  it('is switched off with the API description ([api] ENABLE_SWAGGER=false)', async () => {
    const gw = await startTestGateway({ env: { CAIRN__api__ENABLE_SWAGGER: 'false' } });
    try {
      expect((await gw.fetch('/api/asyncapi.json')).status).toBe(404);
    } finally {
      await gw.close();
    }
  });
});
