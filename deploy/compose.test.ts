/**
 * docker-compose.yml, checked without a Docker engine: every deployed service has its container from the one
 * image, its dependencies, its health check on its real port, and configuration that lets the containers
 * find each other (decoded by @cairn/config itself).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { encodeEnvKey, loadConfig } from '@cairn/config';
import {
  HTTP_HEALTH_PATH,
  IMAGE,
  METRICS_PORT,
  type Node,
  SERVICES_DIR,
  STATEFUL_SERVICES,
  WORK_DIR,
  deployedServices,
  grpcServices,
  isGrpcService,
  loadRunServiceScript,
  node,
  readRootFile,
  servicePort,
  splitHostPort,
  strings,
} from './support';

const compose = node(parse(readRootFile('docker-compose.yml')), 'docker-compose.yml');
const containers = node(compose.services, 'services');
const namedVolumes = Object.keys(node(compose.volumes ?? {}, 'volumes'));
const INFRASTRUCTURE = ['postgres', 'nats'];
/** The one-shot container that writes the service identity keys. */
const KEYS = 'keys';

function container(name: string): Node {
  return node(containers[name], `services.${name}`);
}

function environmentOf(name: string): Record<string, string> {
  const environment = container(name).environment;
  if (Array.isArray(environment)) {
    const lines = strings(environment, `${name}.environment`);
    return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  }
  return Object.fromEntries(Object.entries(node(environment, `${name}.environment`)).map(([key, value]) => [key, String(value)]));
}

/** `depends_on` as { service: condition }. */
function dependenciesOf(name: string): Record<string, string> {
  const dependsOn = container(name).depends_on ?? {};
  if (Array.isArray(dependsOn)) return Object.fromEntries(strings(dependsOn, `${name}.depends_on`).map((dep) => [dep, 'service_started']));
  const entries = Object.entries(node(dependsOn, `${name}.depends_on`));
  return Object.fromEntries(entries.map(([dep, spec]) => [dep, String(node(spec, dep).condition)]));
}

/** Volume mounts as { target: source }. */
function mountsOf(name: string): Record<string, string> {
  const volumes = container(name).volumes ?? [];
  return Object.fromEntries(
    (volumes as unknown[]).map((volume) => {
      if (typeof volume === 'string') {
        const [source, target] = volume.split(':');
        return [target, source];
      }
      const long = node(volume, `${name}.volumes`);
      return [String(long.target), String(long.source)];
    }),
  );
}

function healthTest(name: string): string[] {
  return strings(node(container(name).healthcheck, `${name}.healthcheck`).test, `${name}.healthcheck.test`);
}

/** What @cairn/config makes of a container's environment (no app.ini: configuration is through variables only). */
function configOf(name: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-compose-'));
  try {
    return loadConfig({ env: { ...environmentOf(name), CAIRN_CONFIG: path.join(dir, 'absent.ini') }, cwd: dir });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('docker-compose.yml', () => {
  const services = deployedServices();

  it('has a container for every deployed service, and nothing else besides PostgreSQL, NATS and the key writer', () => {
    expect(services.length).toBeGreaterThan(0);
    expect(Object.keys(containers).sort()).toEqual([...INFRASTRUCTURE, KEYS, ...services].sort());
  });

  it('writes the service identity keys once, into the volume every service reads them from', () => {
    const keys = container(KEYS);
    const dir = node(compose['x-cairn-environment'], 'x-cairn-environment').CAIRN__rpc__KEYS_DIR;
    expect(keys.command).toEqual(['cli', 'keys', 'generate', '--dir', dir]);
    expect(namedVolumes).toContain(mountsOf(KEYS)[String(dir)]);
    for (const name of services) {
      expect(dependenciesOf(name)[KEYS]).toBe('service_completed_successfully');
      expect(strings(container(name).volumes, `${name}.volumes`)).toContain(`${mountsOf(KEYS)[String(dir)]}:${dir}:ro`);
    }
  });

  it('runs PostgreSQL with a persistent volume and a pg_isready health check', () => {
    const postgres = container('postgres');
    expect(String(postgres.image)).toMatch(/^postgres:/);
    expect(namedVolumes).toContain(mountsOf('postgres')['/var/lib/postgresql/data']);
    expect(healthTest('postgres')).toEqual(expect.arrayContaining(['pg_isready']));
  });

  it('runs NATS with JetStream on a persistent volume and a health check on its monitoring port', () => {
    const command = strings(container('nats').command, 'nats.command');
    expect(command).toContain('-js');
    const storeDir = command[command.indexOf('-sd') + 1];
    expect(command).toContain('-sd');
    expect(namedVolumes).toContain(mountsOf('nats')[storeDir]);
    const monitorPort = command[command.indexOf('-m') + 1];
    expect(command).toContain('-m');
    // The default nats image is FROM scratch: only a variant with a shell tool can run the check.
    expect(String(container('nats').image)).toMatch(/^nats:[^ ]*alpine/);
    expect(healthTest('nats').join(' ')).toContain(`http://127.0.0.1:${monitorPort}/healthz`);
    // Only clients with the token the services are given ([bus] TOKEN) may connect.
    expect(command).toContain('--auth');
    expect(node(compose['x-cairn-environment'], 'x-cairn-environment').CAIRN__bus__TOKEN).toBe(command[command.indexOf('--auth') + 1]);
  });

  describe.each(services)('%s', (name) => {
    it('runs from the one image, with the service as the command run-service.js accepts', () => {
      const spec = container(name);
      const build = spec.build;
      const context = typeof build === 'string' ? build : node(build, `${name}.build`).context;
      expect(context).toBe('.');
      if (typeof build !== 'string') expect(node(build, `${name}.build`).dockerfile ?? 'Dockerfile').toBe('Dockerfile');
      expect(spec.image).toBe(IMAGE);
      expect(spec.command).toEqual([name]);
      expect(spec.entrypoint).toBeUndefined();
      const runService = loadRunServiceScript();
      expect(runService.knownServices(SERVICES_DIR)).toContain(name);
    });

    it('starts once PostgreSQL and NATS are healthy (the gateway also waits for every gRPC service)', () => {
      const expected = isGrpcService(name) ? INFRASTRUCTURE : [...INFRASTRUCTURE, ...grpcServices()];
      const dependencies = dependenciesOf(name);
      for (const dependency of expected) expect([dependency, dependencies[dependency]]).toEqual([dependency, 'service_healthy']);
      for (const dependency of Object.keys(dependencies)) expect(containers).toHaveProperty([dependency]);
    });

    it('has a health check that probes its real port', () => {
      const port = servicePort(name);
      const probe = isGrpcService(name) ? ['grpc', `127.0.0.1:${port}`] : ['http', `http://127.0.0.1:${port}${HTTP_HEALTH_PATH}`];
      expect(healthTest(name)).toEqual(['CMD', 'node', 'scripts/health-probe.js', ...probe]);
    });

    it('restarts and stops gracefully', () => {
      expect(container(name).restart).toBe('unless-stopped');
      expect(container(name).stop_grace_period).toMatch(/^\d+s$/);
    });

    it('is configured only through CAIRN__ variables that @cairn/config accepts, and finds its peers', () => {
      const environment = environmentOf(name);
      for (const key of Object.keys(environment)) expect(key).toMatch(/^CAIRN(_WORK_DIR|__)/);
      expect(environment.CAIRN_WORK_DIR).toBe(WORK_DIR);
      const { config, warnings } = configOf(name);
      expect(warnings).toEqual([]);
      for (const peer of grpcServices()) {
        const port = servicePort(peer);
        expect(environment[encodeEnvKey(`services.${peer}`, 'LISTEN')]).toBe(`0.0.0.0:${port}`);
        expect(environment[encodeEnvKey(`services.${peer}`, 'ADDR')]).toBe(`${peer}:${port}`);
        expect(config.services).toHaveProperty([peer]);
      }
      for (const [peer, endpoint] of Object.entries(config.services)) {
        expect(containers).toHaveProperty([splitHostPort(endpoint.addr).host]);
        expect(endpoint.addr).toBe(`${peer}:${servicePort(peer)}`);
      }
      expect(config.server.httpPort).toBe(servicePort('gateway'));
      expect(environment[encodeEnvKey('metrics', 'ENABLED')]).toBe('true');
      expect(environment[encodeEnvKey('metrics', 'LISTEN')]).toBe(`0.0.0.0:${METRICS_PORT}`);
      expect(new URL(config.bus.url).host).toBe('nats:4222');
      const database = new URL(config.database.url);
      const postgres = node(container('postgres').environment, 'postgres.environment');
      expect([database.host, database.username, database.password, database.pathname]).toEqual([
        'postgres:5432',
        postgres.POSTGRES_USER,
        postgres.POSTGRES_PASSWORD,
        `/${String(postgres.POSTGRES_DB)}`,
      ]);
    });
  });

  it('publishes the gateway on port 3000', () => {
    expect(strings(container('gateway').ports, 'gateway.ports')).toContain(`${servicePort('gateway')}:${servicePort('gateway')}`);
  });

  it('keeps the work directory of every stateful service on a named volume', () => {
    for (const name of services.filter((service) => STATEFUL_SERVICES.includes(service))) {
      expect([name, namedVolumes.includes(mountsOf(name)[WORK_DIR])]).toEqual([name, true]);
    }
  });

  it('gives the gateway (which writes and reads attachments), repos (which removes them) and migrations (restore archives) one attachments volume', () => {
    for (const name of ['gateway', 'repos', 'migrations']) {
      const { storage } = configOf(name).config.attachment;
      expect([name, storage]).toEqual([name, { type: 'local', path: `${WORK_DIR}/attachments` }]);
      expect([name, mountsOf(name)[`${WORK_DIR}/attachments`]]).toEqual([name, 'attachments']);
    }
    expect(namedVolumes).toContain('attachments');
  });

  it('declares every named volume it mounts', () => {
    for (const name of Object.keys(containers)) {
      for (const source of Object.values(mountsOf(name))) {
        if (!source.startsWith('.') && !source.startsWith('/')) expect(namedVolumes).toContain(source);
      }
    }
  });
});
