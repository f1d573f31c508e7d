/**
 * The gateway's side of attachments (attachments/upload.ts, handlers.ts, routes/repos/*-assets): what reaches the
 * object store and what stays out of it. repos' decisions are faked here (and tested in repos): a recording
 * refused after the bytes were stored removes them again, `[attachment] ENABLED = false` answers 404 before
 * anything is read, and a too large upload leaves nothing behind.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CreateAttachmentRequest } from '@cairn/proto/cairn/repos/v1/releases_service';
import { CairnError } from '@cairn/rpc';
import type { AttachmentsClient } from '../src/clients';
import { FakeAccounts } from './support/fake-accounts';
import { FakeRepos, permission, repository } from './support/fake-repos';
import { type TestGateway, basic, startTestGateway } from './support/harness';

describe('attachment uploads', () => {
  let workDir: string;
  let gw: TestGateway;
  let created: CreateAttachmentRequest[];
  let reserved: string[];
  let refuse: boolean;

  async function start(env: Record<string, string> = {}) {
    const accounts = new FakeAccounts();
    const repos = new FakeRepos();
    const alice = accounts.addUser('alice', { password: 'alice-password' });
    accounts.clients.repos = repos.client;
    accounts.clients.attachments = {
      reserveAttachment: async (request: { uuid: string }) => {
        // Before any byte of it is stored.
        expect(stored().some((name) => name.startsWith(request.uuid))).toBe(false);
        reserved.push(request.uuid);
        return {};
      },
      createAttachment: async (request: CreateAttachmentRequest) => {
        expect(reserved).toContain(request.uuid);
        created.push(request);
        if (refuse) throw CairnError.notFound('release not found', { reason: 'release_not_found' });
        return { attachment: { id: 1, uuid: request.uuid, repoId: 10, releaseId: 3, issueId: 0, commentId: 0, uploaderId: alice.id, name: request.name, size: request.size, downloadCount: 0, created: new Date(0) } };
      },
    } as unknown as AttachmentsClient;
    repos.add(repository(10, 'alice', 'demo', { ownerId: alice.id }), () => permission('owner'));
    gw = await startTestGateway({ accounts, env: { CAIRN_WORK_DIR: workDir, ...env } });
  }

  beforeEach(() => {
    workDir = mkdtempSync(path.join(tmpdir(), 'cairn-gateway-attachments-'));
    created = [];
    reserved = [];
    refuse = false;
  });
  afterEach(async () => {
    await gw?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

    /** Every object and temporary file in the attachments' directory. */
  const stored = () => {
    try {
      return readdirSync(path.join(workDir, 'attachments'), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  };
  /** Polls a condition the gateway reaches on its own (a closed connection's clean-up) for up to 10 s. */
  const waitFor = async (condition: () => boolean) => {
    for (let waited = 0; !condition(); waited += 20) {
      if (waited > 10_000) throw new Error('condition not reached');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const upload = (query: string, body: Uint8Array) =>
    gw.fetch(`/api/v1/repos/alice/demo/releases/3/assets${query}`, {
      method: 'POST',
      headers: { Authorization: basic('alice', 'alice-password'), 'Content-Type': 'application/octet-stream' },
      body,
    });

  it('stores a raw body under a fresh uuid and records it with its name and size', async () => {
    await start();
    const res = await upload('?name=notes.txt', new TextEncoder().encode('hello'));
    expect(res.status).toBe(201);
    expect(created).toEqual([expect.objectContaining({ repoId: 10, name: 'notes.txt', size: 5, parent: expect.objectContaining({ releaseId: 3 }) })]);
    expect(stored()).toEqual([created[0].uuid]);
  });

  it('removes the bytes again when repos refuses to record them', async () => {
    await start();
    refuse = true;
    const res = await upload('?name=notes.txt', new TextEncoder().encode('hello'));
    expect(res.status).toBe(404);
    expect(created).toHaveLength(1);
    expect(stored()).toEqual([]);
  });

  it('answers 413 past MAX_SIZE with nothing stored and nothing recorded, and the connection still serves', async () => {
    await start({ CAIRN__attachment__MAX_SIZE: '1' });
    const res = await upload('?name=big.zip', new Uint8Array(1024 * 1024 + 1));
    expect(res.status).toBe(413);
    expect(created).toEqual([]);
    expect(stored()).toEqual([]);
    expect((await upload('?name=small.zip', new Uint8Array(1024 * 1024))).status).toBe(201);
  });

  it.each([
    ['a raw body', 'application/octet-stream', ''],
    ['a multipart body', 'multipart/form-data; boundary=XX', '--XX\r\nContent-Disposition: form-data; name="attachment"; filename="half.txt"\r\n\r\n'],
  ])('keeps nothing of %s whose client goes away mid-upload', async (_what, contentType, preamble) => {
    await start();
    const request = http.request(`${gw.url}/api/v1/repos/alice/demo/releases/3/assets?name=half.txt`, {
      method: 'POST',
      headers: { Authorization: basic('alice', 'alice-password'), 'Content-Type': contentType, 'Content-Length': String(10 * 1024 * 1024) },
    });
    request.on('error', () => undefined);
    request.write(preamble);
    request.write(Buffer.alloc(256 * 1024, 0x61));
    // The object's temporary file appears once bytes arrive…
    await waitFor(() => stored().length > 0);
    request.destroy();
    // …and goes when the put fails with the connection.
    await waitFor(() => stored().length === 0);
    expect(created).toEqual([]);
  });

  it('answers 404 while [attachment] ENABLED is false, before reading anything', async () => {
    await start({ CAIRN__attachment__ENABLED: 'false' });
    const res = await upload('?name=notes.txt', new TextEncoder().encode('hello'));
    expect(res.status).toBe(404);
    expect(created).toEqual([]);
    expect(stored()).toEqual([]);
    // Issue and comment assets are switched off altogether (Gitea's mustEnableAttachments).
    expect((await gw.fetch('/api/v1/repos/alice/demo/issues/1/assets')).status).toBe(404);
  });
});
