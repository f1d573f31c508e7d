import { cloudEventHeaders } from '@cairn/events';
import { UsageError } from '../args';
import { runCli, type CliIo } from '../cli';
import { formatEvent, parseSince, planTail } from './events-tail';

const NOW = new Date('2026-11-28T12:00:00Z');

describe('planTail', () => {
  it('follows both streams from now by default, under the prefix', () => {
    expect(planTail({}, 'acme', NOW)).toEqual({
      sources: [
        { stream: 'ACME_EVENTS_PUBLIC', filter: 'acme.events.v1.public.>' },
        { stream: 'ACME_EVENTS_PRIVATE', filter: 'acme.events.v1.private.>' },
      ],
      filter: 'acme.events.v1.>',
      since: undefined,
      json: false,
    });
  });

  it('reads only the stream a --subject falls in (a public-only user can tail the public stream)', () => {
    expect(planTail({ subject: 'cairn.events.v1.public.>' }, 'cairn', NOW).sources).toEqual([{ stream: 'CAIRN_EVENTS_PUBLIC', filter: 'cairn.events.v1.public.>' }]);
    expect(planTail({ subject: 'acme.events.v1.private.issues' }, 'acme', NOW).sources).toEqual([
      { stream: 'ACME_EVENTS_PRIVATE', filter: 'acme.events.v1.private.issues' },
    ]);
    expect(planTail({ subject: 'acme.events.v1.public.*' }, 'acme', NOW).sources).toEqual([{ stream: 'ACME_EVENTS_PUBLIC', filter: 'acme.events.v1.public.>' }]);
  });

  it('splits a filter across visibilities into one per stream', () => {
    expect(planTail({ subject: 'acme.events.v1.*.pull_request_sync' }, 'acme', NOW).sources).toEqual([
      { stream: 'ACME_EVENTS_PUBLIC', filter: 'acme.events.v1.public.pull_request_sync' },
      { stream: 'ACME_EVENTS_PRIVATE', filter: 'acme.events.v1.private.pull_request_sync' },
    ]);
    expect(planTail({ subject: 'acme.events.v1.>' }, 'acme', NOW).sources.map((source) => source.filter)).toEqual([
      'acme.events.v1.public.>',
      'acme.events.v1.private.>',
    ]);
  });

  it.each([
    ['cairn.issue.opened', 'not within cairn.events.v1.>'],
    ['cairn.events.>', 'not within cairn.events.v1.>'],
    ['cairn.events.v2.public.issues', 'not within cairn.events.v1.>'],
    ['other.events.v1.public.issues', 'not within cairn.events.v1.>'],
    ['cairn.events.v1.public', 'not within cairn.events.v1.>'],
    ['cairn.events.v1.secret.issues', 'not within cairn.events.v1.>'],
    ['cairn.events.v1.public.issues.extra', 'not within cairn.events.v1.>'],
    ['cairn.events.v1.public.issue', 'unknown event type "issue"'],
  ])('refuses --subject %s', (subject, message) => {
    expect(() => planTail({ subject }, 'cairn', NOW)).toThrow(UsageError);
    expect(() => planTail({ subject }, 'cairn', NOW)).toThrow(message);
  });

  it('takes --json and --since', () => {
    const plan = planTail({ since: '90m', json: true }, 'cairn', NOW);
    expect(plan.since).toEqual(new Date('2026-11-28T10:30:00Z'));
    expect(plan.json).toBe(true);
  });
});

describe('parseSince', () => {
  it('reads a duration back from now or an RFC 3339 time', () => {
    expect(parseSince('1h', NOW)).toEqual(new Date('2026-11-28T11:00:00Z'));
    expect(parseSince('72h', NOW)).toEqual(new Date('2026-11-25T12:00:00Z'));
    expect(parseSince('1h30m', NOW)).toEqual(new Date('2026-11-28T10:30:00Z'));
    expect(parseSince('2026-11-27T08:15:00Z', NOW)).toEqual(new Date('2026-11-27T08:15:00Z'));
    expect(parseSince('2026-11-27T09:15:00.5+01:00', NOW)).toEqual(new Date('2026-11-27T08:15:00.500Z'));
  });

  it.each(['yesterday', '1d', '2026-11-27', '2026-11-27T08:15:00', '-1h', ''])('refuses %j', (text) => {
    expect(() => parseSince(text, NOW)).toThrow(UsageError);
  });
});

describe('formatEvent', () => {
  const headers = cloudEventHeaders({
    id: '0f5f3a52-8d7e-4c61-9a51-6d3f1c1b2a10',
    source: 'https://git.example.com/',
    type: 'io.cairn.issues.opened',
    time: new Date('2026-11-28T11:59:58.123Z'),
    subject: 'alice/tools',
  });
  const data = new TextEncoder().encode('{"action":"opened","number":1}');

  it('prints time, type, subject attribute, NATS subject and id', () => {
    expect(formatEvent('acme.events.v1.public.issues', headers, data, false)).toBe(
      '2026-11-28T11:59:58.123Z  io.cairn.issues.opened  alice/tools  acme.events.v1.public.issues  0f5f3a52-8d7e-4c61-9a51-6d3f1c1b2a10',
    );
  });

  it('prints one JSON object with the headers and the parsed payload', () => {
    expect(JSON.parse(formatEvent('acme.events.v1.public.issues', headers, data, true))).toEqual({
      subject: 'acme.events.v1.public.issues',
      headers,
      data: { action: 'opened', number: 1 },
    });
  });

  it('still shows a message without the CloudEvents headers or a JSON body', () => {
    expect(formatEvent('acme.events.v1.public.issues', {}, new TextEncoder().encode('x'), false)).toBe('-  -  -  acme.events.v1.public.issues  -');
    expect(JSON.parse(formatEvent('acme.events.v1.public.issues', {}, new TextEncoder().encode('x'), true)).data).toBe('x');
  });
});

describe('cairn events tail', () => {
  function io(env: NodeJS.ProcessEnv = {}): CliIo & { out: string; err: string } {
    const result = {
      env: { CAIRN_WORK_DIR: '/nonexistent/cairn-cli-test', ...env },
      cwd: '/',
      out: '',
      err: '',
      stdout: (text: string) => (result.out += text),
      stderr: (text: string) => (result.err += text),
    };
    return result;
  }

  it('lists its flags in --help', async () => {
    const out = io();
    expect(await runCli(['events', 'tail', '--help'], out)).toBe(0);
    expect(out.out.split('\n')[0]).toBe('Usage: cairn events tail [--since <since>] [--subject <subject>] [--json]');
  });

  it('exits 1 in embedded mode, saying there is no NATS and how to switch', async () => {
    const out = io();
    expect(await runCli(['events', 'tail'], out)).toBe(1);
    expect(out.err).toMatch(/^cairn: this instance runs the in-process bus \(\[bus\] URL is empty\): there is no NATS to tail\. Set \[bus\] URL/);
    expect(out.out).toBe('');
  });

  it('exits 2 on a filter outside the events subjects or a bad --since, before connecting', async () => {
    const env = { CAIRN__bus__URL: 'nats://127.0.0.1:1', CAIRN__bus__PREFIX: 'acme' };
    const outside = io(env);
    expect(await runCli(['events', 'tail', '--subject', 'acme.issue.>'], outside)).toBe(2);
    expect(outside.err).toBe(
      'cairn: --subject "acme.issue.>" is not within acme.events.v1.> (e.g. acme.events.v1.public.> or acme.events.v1.*.issues) (see "cairn events tail --help")\n',
    );
    const since = io(env);
    expect(await runCli(['events', 'tail', '--since', 'last week'], since)).toBe(2);
    expect(since.err).toMatch(/^cairn: --since "last week" is neither a duration/);
  });

  it('exits 1 naming the server when NATS cannot be reached', async () => {
    const out = io({ CAIRN__bus__URL: 'nats://127.0.0.1:1' });
    expect(await runCli(['events', 'tail'], out)).toBe(1);
    expect(out.err).toMatch(/^cairn: cannot connect to NATS at nats:\/\/127\.0\.0\.1:1: /);
  });
});
