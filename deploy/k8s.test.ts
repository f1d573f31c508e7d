/**
 * The kustomize base in deploy/k8s, checked without a cluster: every file parses, every deployed service has
 * its workload (Deployment + HPA, or StatefulSet with a volume claim for the stateful ones) and Service,
 * probes and Service ports point at the ports the processes really listen on, the image and arguments are
 * the Dockerfile's, and the configuration (decoded by @cairn/config) names Services that exist.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '@cairn/config';
import { classify } from '@cairn/outbound';
import {
  HTTP_HEALTH_PATH,
  IMAGE,
  METRICS_PORT,
  type Node,
  ROOT,
  SERVICES_DIR,
  STATEFUL_SERVICES,
  WORK_DIR,
  deployedServices,
  grpcServices,
  imageUid,
  isGrpcService,
  isNode,
  loadRunServiceScript,
  node,
  nodes,
  parseDockerfile,
  readRootFile,
  servicePort,
  splitHostPort,
  strings,
} from './support';

const K8S_DIR = path.join(ROOT, 'deploy', 'k8s');

interface Manifest {
  file: string;
  kind: string;
  name: string;
  body: Node;
}

const kustomization = node(parse(fs.readFileSync(path.join(K8S_DIR, 'kustomization.yaml'), 'utf8')), 'kustomization.yaml');
const resourceFiles = strings(kustomization.resources, 'resources');

function readManifests(file: string): Manifest[] {
  const manifests: Manifest[] = [];
  for (const document of parseAllDocuments(fs.readFileSync(path.join(K8S_DIR, file), 'utf8'))) {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((error) => error.message).join('; ')}`);
    const body: unknown = document.toJS();
    if (body === null || body === undefined) continue;
    const object = node(body, file);
    const metadata = node(object.metadata, `${file} metadata`);
    if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string' || typeof metadata.name !== 'string') {
      throw new Error(`${file}: every object needs apiVersion, kind and metadata.name`);
    }
    manifests.push({ file, kind: object.kind, name: metadata.name, body: object });
  }
  return manifests;
}

/** `KEY=VALUE` lines, as kustomize reads an `envs` file. */
function readEnvFile(file: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const line of fs.readFileSync(path.join(K8S_DIR, file), 'utf8').split('\n')) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const equals = line.indexOf('=');
    if (equals <= 0) throw new Error(`${file}: not KEY=VALUE: ${line}`);
    data[line.slice(0, equals)] = line.slice(equals + 1);
  }
  return data;
}

/** The ConfigMaps configMapGenerator makes (their final names get a content hash; references follow). */
function generatedConfigMaps(): Manifest[] {
  return nodes(kustomization.configMapGenerator ?? [], 'configMapGenerator').map((generator) => {
    const data: Record<string, string> = {};
    for (const entry of strings(generator.files ?? [], 'files')) {
      const [key, file] = entry.includes('=') ? entry.split('=') : [path.basename(entry), entry];
      data[key] = fs.readFileSync(path.join(K8S_DIR, file), 'utf8');
    }
    for (const file of strings(generator.envs ?? [], 'envs')) Object.assign(data, readEnvFile(file));
    for (const literal of strings(generator.literals ?? [], 'literals')) {
      data[literal.slice(0, literal.indexOf('='))] = literal.slice(literal.indexOf('=') + 1);
    }
    return { file: 'kustomization.yaml', kind: 'ConfigMap', name: String(generator.name), body: { kind: 'ConfigMap', data } };
  });
}

const manifests = [...resourceFiles.flatMap(readManifests), ...generatedConfigMaps()];

function find(kind: string, name: string): Manifest | undefined {
  return manifests.find((manifest) => manifest.kind === kind && manifest.name === name);
}

function get(kind: string, name: string): Manifest {
  const manifest = find(kind, name);
  if (manifest === undefined) throw new Error(`no ${kind} "${name}" in deploy/k8s`);
  return manifest;
}

function ofKind(kind: string): Manifest[] {
  return manifests.filter((manifest) => manifest.kind === kind);
}

function spec(manifest: Manifest): Node {
  return node(manifest.body.spec, `${manifest.kind} ${manifest.name} spec`);
}

/** The workload running a service: its StatefulSet if the service is stateful, else its Deployment. */
function workload(service: string): Manifest {
  return get(STATEFUL_SERVICES.includes(service) ? 'StatefulSet' : 'Deployment', service);
}

const WORKLOAD_KINDS = ['Deployment', 'StatefulSet'];

function podTemplate(manifest: Manifest): Node {
  return node(spec(manifest).template, `${manifest.name} template`);
}

function podLabels(manifest: Manifest): Record<string, string> {
  return node(node(podTemplate(manifest).metadata, 'template metadata').labels, 'template labels') as Record<string, string>;
}

function podSpec(manifest: Manifest): Node {
  return node(podTemplate(manifest).spec, `${manifest.name} pod spec`);
}

/** The service's own container (named after it). */
function mainContainer(service: string): Node {
  const container = nodes(podSpec(workload(service)).containers, `${service} containers`).find((candidate) => candidate.name === service);
  if (container === undefined) throw new Error(`${service}: no container named "${service}"`);
  return container;
}

function containerPorts(container: Node): { name: string; containerPort: number }[] {
  const ports = nodes(container.ports, `${String(container.name)} ports`);
  return ports.map((port) => ({ name: String(port.name), containerPort: Number(port.containerPort) }));
}

/** A port given by number or by name, as the container's port number (undefined when it names none). */
function resolvePort(container: Node, port: unknown): number | undefined {
  if (typeof port === 'number') return port;
  return containerPorts(container).find((candidate) => candidate.name === port)?.containerPort;
}

/** Whether every label of `selector` is on `labels`. */
function selects(selector: unknown, labels: Record<string, string>): boolean {
  return isNode(selector) && Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** The service's DATABASE_SCHEMA (exported by its package), undefined for a service without data. */
function databaseSchema(service: string): string | undefined {
  const exported: unknown = require(`@cairn/${service}`).DATABASE_SCHEMA;
  return typeof exported === 'string' ? exported : undefined;
}

function workloads(): Manifest[] {
  return manifests.filter((manifest) => WORKLOAD_KINDS.includes(manifest.kind));
}

/** The environment a service's container gets: its envFrom sources, then its own env values. */
function environmentOf(service: string): Record<string, string> {
  const container = mainContainer(service);
  const environment: Record<string, string> = {};
  for (const source of nodes(container.envFrom ?? [], `${service} envFrom`)) {
    const [kind, ref] = isNode(source.configMapRef) ? ['ConfigMap', source.configMapRef] : ['Secret', source.secretRef];
    const from = get(kind, String(node(ref, `${service} envFrom ref`).name));
    const data = node(from.body.stringData ?? from.body.data ?? {}, `${kind} ${from.name} data`);
    for (const [key, value] of Object.entries(data)) environment[key] = String(value);
  }
  for (const variable of nodes(container.env ?? [], `${service} env`)) {
    if (variable.value !== undefined) environment[String(variable.name)] = String(variable.value);
  }
  return environment;
}

/** The content of the file at `file` in the service's container, when it comes from a ConfigMap volume. */
function configMapFile(service: string, file: string): string | undefined {
  const container = mainContainer(service);
  const mount = nodes(container.volumeMounts ?? [], `${service} volumeMounts`).find((candidate) =>
    candidate.subPath === undefined ? path.posix.dirname(file) === candidate.mountPath : file === candidate.mountPath,
  );
  if (mount === undefined) return undefined;
  const volume = nodes(podSpec(workload(service)).volumes ?? [], `${service} volumes`).find((candidate) => candidate.name === mount.name);
  if (volume === undefined || !isNode(volume.configMap)) return undefined;
  const configMap = get('ConfigMap', String(volume.configMap.name));
  const key = mount.subPath === undefined ? path.posix.basename(file) : String(mount.subPath);
  const data = node(configMap.body.data, `ConfigMap ${configMap.name} data`);
  return typeof data[key] === 'string' ? data[key] : undefined;
}

/** What @cairn/config makes of the service's environment and mounted app.ini. */
function configOf(service: string) {
  const environment = environmentOf(service);
  const appIni = configMapFile(service, environment.CAIRN_CONFIG);
  if (appIni === undefined) throw new Error(`${service}: CAIRN_CONFIG (${environment.CAIRN_CONFIG}) is not mounted from a ConfigMap`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-k8s-'));
  try {
    fs.writeFileSync(path.join(dir, 'app.ini'), appIni);
    return loadConfig({ env: { ...environment, CAIRN_CONFIG: path.join(dir, 'app.ini') }, cwd: dir });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The Service port answering on `port`, with the container port its targetPort reaches. */
function servicePortTarget(serviceName: string, port: number): number | undefined {
  const service = get('Service', serviceName);
  const entry = nodes(spec(service).ports, `Service ${serviceName} ports`).find((candidate) => candidate.port === port);
  if (entry === undefined) return undefined;
  return resolvePort(mainContainer(serviceName), entry.targetPort ?? entry.port);
}

describe('deploy/k8s kustomize base', () => {
  const services = deployedServices();

  it('lists files that exist and parse into Kubernetes objects', () => {
    expect(kustomization.kind).toBe('Kustomization');
    for (const file of resourceFiles) expect([file, fs.existsSync(path.join(K8S_DIR, file))]).toEqual([file, true]);
    expect(manifests.length).toBeGreaterThan(0);
    const keys = manifests.map((manifest) => `${manifest.kind}/${manifest.name}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('has workloads only for deployed services', () => {
    expect(workloads().map((manifest) => manifest.name).sort()).toEqual(services);
  });

  describe.each(services)('%s', (name) => {
    const stateful = STATEFUL_SERVICES.includes(name);

    const title = stateful
      ? 'runs as a StatefulSet with a volume claim for its work directory'
      : 'runs as a Deployment scaled by a CPU HorizontalPodAutoscaler';
    it(title, () => {
      const manifest = workload(name);
      expect(selects(node(spec(manifest).selector, 'selector').matchLabels, podLabels(manifest))).toBe(true);
      const mount = nodes(mainContainer(name).volumeMounts, `${name} volumeMounts`).find((candidate) => candidate.mountPath === WORK_DIR);
      expect(mount).toBeDefined();
      if (stateful) {
        const claims = nodes(spec(manifest).volumeClaimTemplates, `${name} volumeClaimTemplates`);
        expect(claims.map((claim) => node(claim.metadata, 'claim metadata').name)).toContain(mount?.name);
        expect(find('Service', String(spec(manifest).serviceName))).toBeDefined();
        expect(find('HorizontalPodAutoscaler', name)).toBeUndefined();
        return;
      }
      expect(find('StatefulSet', name)).toBeUndefined();
      // The autoscaler owns the replica count; a fixed one would fight it on every apply.
      expect(spec(manifest).replicas).toBeUndefined();
      const hpa = get('HorizontalPodAutoscaler', name);
      expect(hpa.body.apiVersion).toBe('autoscaling/v2');
      expect(spec(hpa).scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name });
      expect(Number(spec(hpa).minReplicas)).toBeLessThanOrEqual(Number(spec(hpa).maxReplicas));
      const cpu = nodes(spec(hpa).metrics, 'metrics').map((metric) => node(metric.resource, 'resource').name);
      expect(cpu).toContain('cpu');
    });

    it('runs the image with the service as the argument scripts/run-service.js accepts', () => {
      const container = mainContainer(name);
      expect(container.image).toBe(IMAGE);
      expect(container.command).toBeUndefined();
      expect(strings(container.args, `${name} args`)).toEqual([name]);
      expect(loadRunServiceScript().knownServices(SERVICES_DIR)).toContain(name);
    });

    it('declares named ports: its own and metrics', () => {
      const port = servicePort(name);
      const ports = containerPorts(mainContainer(name));
      expect(ports).toContainEqual({ name: isGrpcService(name) ? 'grpc' : 'http', containerPort: port });
      expect(ports).toContainEqual({ name: 'metrics', containerPort: METRICS_PORT });
      const annotations = node(node(podTemplate(workload(name)).metadata, 'template metadata').annotations, 'annotations');
      expect(annotations['prometheus.io/scrape']).toBe('true');
      expect(annotations['prometheus.io/port']).toBe(String(METRICS_PORT));
    });

    it('probes its real port (gRPC health service, or the gateway on HTTP)', () => {
      const port = servicePort(name);
      const container = mainContainer(name);
      const readiness = node(container.readinessProbe, `${name} readinessProbe`);
      const liveness = node(container.livenessProbe, `${name} livenessProbe`);
      if (isGrpcService(name)) {
        // Native gRPC probes take a port number only.
        expect(node(readiness.grpc, 'readiness grpc').port).toBe(port);
        expect(node(liveness.grpc, 'liveness grpc').port).toBe(port);
      } else {
        const httpGet = node(readiness.httpGet, 'readiness httpGet');
        expect(httpGet.path).toBe(HTTP_HEALTH_PATH);
        expect(resolvePort(container, httpGet.port)).toBe(port);
      }
      for (const probe of [readiness, liveness, container.startupProbe].filter(isNode)) {
        const handler = node(probe.grpc ?? probe.httpGet ?? probe.tcpSocket, `${name} probe handler`);
        expect(resolvePort(container, handler.port)).toBe(port);
      }
    });

    it('has a Service whose ports reach the container ports', () => {
      const port = servicePort(name);
      const service = get('Service', name);
      expect(spec(service).type ?? 'ClusterIP').toBe('ClusterIP');
      expect(selects(spec(service).selector, podLabels(workload(name)))).toBe(true);
      for (const other of workloads().filter((manifest) => manifest.name !== name)) {
        expect([other.name, selects(spec(service).selector, podLabels(other))]).toEqual([other.name, false]);
      }
      for (const entry of nodes(spec(service).ports, `Service ${name} ports`)) {
        expect(typeof entry.name).toBe('string');
        expect(resolvePort(mainContainer(name), entry.targetPort ?? entry.port)).toBeDefined();
      }
      expect(servicePortTarget(name, port)).toBe(port);
    });

    it('runs unprivileged, as the image user, with resources and a grace period', () => {
      const pod = podSpec(workload(name));
      const security = node(pod.securityContext, `${name} securityContext`);
      expect(security.runAsNonRoot).toBe(true);
      expect(security.runAsUser).toBe(imageUid(parseDockerfile(readRootFile('Dockerfile'))));
      expect(node(mainContainer(name).securityContext, 'container securityContext').allowPrivilegeEscalation).toBe(false);
      const resources = node(mainContainer(name).resources, `${name} resources`);
      for (const bound of ['requests', 'limits']) expect(Object.keys(node(resources[bound], bound)).sort()).toEqual(['cpu', 'memory']);
      expect(Number(pod.terminationGracePeriodSeconds)).toBeGreaterThan(0);
    });

    it('gets its configuration from the ConfigMaps and the Secret, and it names Services that exist', () => {
      const environment = environmentOf(name);
      expect(environment.CAIRN_WORK_DIR).toBe(WORK_DIR);
      const { config, warnings } = configOf(name);
      expect(warnings).toEqual([]);
      for (const peer of grpcServices()) {
        const peerPort = servicePort(peer);
        expect(config.services).toHaveProperty([peer]);
        const endpoint = config.services[peer as keyof typeof config.services];
        expect(endpoint.listen).toBe(`0.0.0.0:${peerPort}`);
        expect(endpoint.addr).toBe(`${peer}:${peerPort}`);
        expect(servicePortTarget(peer, peerPort)).toBe(peerPort);
      }
      expect(config.server.httpPort).toBe(servicePort('gateway'));
      expect(environment.CAIRN__metrics__ENABLED).toBe('true');
      expect(splitHostPort(environment.CAIRN__metrics__LISTEN)).toEqual({ host: '0.0.0.0', port: METRICS_PORT });
      expect(find('Service', new URL(config.bus.url).hostname)).toBeDefined();
      // Its own NATS user (nats-values.yaml grants it only this service's subjects) from its own Secret.
      expect(config.bus.auth).toMatchObject({ kind: 'password', user: name });
      const schema = databaseSchema(name);
      if (schema === undefined) {
        expect(config.database.url).toBe('');
      } else {
        // Its own PostgreSQL role, which owns only its schema (npm run postgres-roles).
        const url = new URL(config.database.url);
        expect(find('Service', url.hostname)).toBeDefined();
        expect(url.username).toBe(`cairn_${schema}`);
      }
      const secrets = nodes(mainContainer(name).envFrom, `${name} envFrom`).filter((source) => isNode(source.secretRef));
      expect(secrets.map((source) => node(source.secretRef, 'secretRef').name)).toEqual([`cairn-${name}`]);
    });

    it('reads its own identity key and every public key at [rpc] KEYS_DIR, and no other private key', () => {
      const { config } = configOf(name);
      const mount = nodes(mainContainer(name).volumeMounts, `${name} volumeMounts`).find((candidate) => candidate.mountPath === config.rpc.keysDir);
      expect(mount?.readOnly).toBe(true);
      const volume = nodes(podSpec(workload(name)).volumes ?? [], `${name} volumes`).find((candidate) => candidate.name === mount?.name);
      const projected = isNode(volume?.projected) ? volume.projected : {};
      const sources = nodes(projected.sources ?? [], `${name} key sources`);
      expect(sources.map((source) => (isNode(source.secret) ? `secret:${String(source.secret.name)}` : isNode(source.configMap) ? `configMap:${String(source.configMap.name)}` : '?'))).toEqual([
        `secret:cairn-rpc-key-${name}`,
        'configMap:cairn-rpc-public-keys',
      ]);
    });
  });

  it('reaches NATS and PostgreSQL through ExternalName Services', () => {
    for (const name of ['nats', 'postgres']) {
      const service = get('Service', name);
      expect(spec(service).type).toBe('ExternalName');
      expect(String(spec(service).externalName)).toMatch(/\S/);
    }
  });

  it('keeps credentials in a Secret with placeholders to replace', () => {
    const secrets = ofKind('Secret');
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      const values = Object.values(node(secret.body.stringData, `Secret ${secret.name} stringData`));
      for (const value of values) expect(String(value)).toContain('REPLACE-ME');
    }
  });

  // app.ini's [attachment] is an S3-compatible bucket: whoever opens the object store needs its keys, nobody else —
  // the gateway (attachments), repos (removes deleted ones) and migrations (restore archives, restores/<id>).
  it('gives the object store keys to the gateway, repos and migrations only', () => {
    const holders = ofKind('Secret')
      .filter((secret) => Object.keys(node(secret.body.stringData, `Secret ${secret.name} stringData`)).includes('CAIRN__attachment__MINIO_ACCESS_KEY_ID'))
      .map((secret) => secret.name)
      .sort();
    expect(holders).toEqual(['cairn-gateway', 'cairn-migrations', 'cairn-repos']);
    for (const name of holders) expect(Object.keys(node(get('Secret', name).body.stringData, name))).toContain('CAIRN__attachment__MINIO_SECRET_ACCESS_KEY');
  });

  // The gateway serves every request, hooks delivers webhooks, migrations runs imports: drains take one pod of each at a time.
  it.each(['gateway', 'hooks', 'migrations'])('has a PodDisruptionBudget that selects the %s pods only', (name) => {
    const selectorOf = (pdb: Manifest) => node(spec(pdb).selector, 'selector').matchLabels;
    const budgets = ofKind('PodDisruptionBudget').filter((pdb) => selects(selectorOf(pdb), podLabels(workload(name))));
    expect(budgets).toHaveLength(1);
    for (const other of workloads().filter((manifest) => manifest.name !== name)) {
      expect([other.name, selects(selectorOf(budgets[0]), podLabels(other))]).toEqual([other.name, false]);
    }
  });

  it('routes the Ingress to Service ports that exist', () => {
    for (const ingress of ofKind('Ingress')) {
      for (const rule of nodes(spec(ingress).rules, 'rules')) {
        for (const route of nodes(node(rule.http, 'http').paths, 'paths')) {
          const backend = node(node(route.backend, 'backend').service, 'backend service');
          const port = node(backend.port, 'backend port');
          const ports = nodes(spec(get('Service', String(backend.name))).ports, 'ports');
          expect(ports.some((candidate) => candidate.name === port.name || candidate.port === port.number)).toBe(true);
        }
      }
    }
  });

  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  (kubectl.status === 0 ? it : it.skip)('builds with kustomize (kubectl kustomize)', () => {
    const built = spawnSync('kubectl', ['kustomize', K8S_DIR], { encoding: 'utf8' });
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    const objects = parseAllDocuments(built.stdout).map((document) => node(document.toJS(), 'built object'));
    const names = objects.map((object) => `${String(object.kind)}/${String(node(object.metadata, 'metadata').name)}`);
    for (const name of services) expect(names).toContain(`${STATEFUL_SERVICES.includes(name) ? 'StatefulSet' : 'Deployment'}/${name}`);
  });
});

/** The .ts sources of a service (tests excluded). */
function sourceTexts(service: string): { file: string; text: string }[] {
  const dir = path.join(SERVICES_DIR, service, 'src');
  const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
  return files.map((file) => ({ file, text: fs.readFileSync(path.join(dir, file), 'utf8') }));
}

/** The proto packages (`cairn/<package>/v1/*_service`) whose gRPC definitions `text` imports as values. */
function protoServicePackages(text: string): string[] {
  const imports = text.matchAll(/import\s+(type\s+)?\{[^}]*\}\s+from\s+'@cairn\/proto\/cairn\/([a-z_]+)\/v1\/[a-z_]+_service'/g);
  return [...imports].filter((match) => match[1] === undefined).map((match) => match[2]);
}

/** The proto packages a service serves: those its server.ts registers. */
function servedPackages(service: string): string[] {
  return protoServicePackages(sourceTexts(service).find((source) => source.file === 'server.ts')?.text ?? '');
}

/**
 * The services whose code calls `callee`: they build gRPC clients (createRpcClient) from the definitions of a proto
 * package `callee` serves, so they import those definitions as values.
 */
function callersInCode(callee: string): string[] {
  const served = servedPackages(callee);
  expect(served.length).toBeGreaterThan(0);
  return deployedServices().filter((service) => {
    if (service === callee) return false;
    const own = servedPackages(service);
    const called = sourceTexts(service).flatMap((source) => protoServicePackages(source.text)).filter((pkg) => !own.includes(pkg));
    return called.some((pkg) => served.includes(pkg));
  });
}

/** Whether a NetworkPolicy podSelector (matchLabels and `In` matchExpressions) selects pods with `labels`. */
function podSelectorMatches(selector: Node, labels: Record<string, string>): boolean {
  const matchLabels = node(selector.matchLabels ?? {}, 'matchLabels');
  const expressions = nodes(selector.matchExpressions ?? [], 'matchExpressions');
  return (
    Object.entries(matchLabels).every(([key, value]) => labels[key] === value) &&
    expressions.every((expression) => {
      if (expression.operator !== 'In') throw new Error(`unsupported operator ${String(expression.operator)}`);
      return strings(expression.values, 'values').includes(labels[String(expression.key)]);
    })
  );
}

/** Who may reach `service`'s pods on each port: `anyone`, the deployed services whose pods a rule selects, or `namespace:<labels>`. */
function ingressSources(service: string): Map<number, string[]> {
  const labels = podLabels(workload(service));
  const sources = new Map<number, string[]>();
  for (const policy of ofKind('NetworkPolicy')) {
    if (!podSelectorMatches(node(spec(policy).podSelector, 'podSelector'), labels)) continue;
    for (const rule of nodes(spec(policy).ingress ?? [], `${policy.name} ingress`)) {
      const from = rule.from === undefined ? ['anyone'] : nodes(rule.from, `${policy.name} from`).flatMap((peer): string[] => {
        if (isNode(peer.namespaceSelector)) return [`namespace:${JSON.stringify(peer.namespaceSelector.matchLabels)}`];
        const selector = node(peer.podSelector, `${policy.name} podSelector`);
        return deployedServices().filter((candidate) => podSelectorMatches(selector, podLabels(workload(candidate))));
      });
      for (const port of nodes(rule.ports, `${policy.name} ports`)) {
        expect(port.protocol ?? 'TCP').toBe('TCP');
        const number = resolvePort(mainContainer(service), port.port);
        if (number === undefined) throw new Error(`${policy.name}: port ${String(port.port)} is not a port of ${service}`);
        sources.set(number, [...(sources.get(number) ?? []), ...from].sort());
      }
    }
  }
  return sources;
}

describe('deploy/k8s NetworkPolicies', () => {
  const METRICS_SCRAPERS = `namespace:${JSON.stringify({ 'cairn.io/metrics-scraper': 'true' })}`;

  it('are part of the base and deny ingress and egress by default', () => {
    expect(resourceFiles).toContain('network-policies.yaml');
    const denyAll = ofKind('NetworkPolicy').filter((policy) => Object.keys(node(spec(policy).podSelector, 'podSelector')).length === 0);
    expect(denyAll).toHaveLength(1);
    expect(strings(spec(denyAll[0]).policyTypes, 'policyTypes').sort()).toEqual(['Egress', 'Ingress']);
    expect(spec(denyAll[0]).ingress).toBeUndefined();
    expect(spec(denyAll[0]).egress).toBeUndefined();
  });

  it('let anyone reach the gateway, on its HTTP port only', () => {
    expect(Object.fromEntries(ingressSources('gateway'))).toEqual({ [servicePort('gateway')]: ['anyone'], [METRICS_PORT]: [METRICS_SCRAPERS] });
  });

  it.each(grpcServices())('let only the services whose code calls %s reach its gRPC port', (service) => {
    const callers = callersInCode(service);
    expect(callers).toContain('gateway');
    expect(Object.fromEntries(ingressSources(service))).toEqual({ [servicePort(service)]: callers, [METRICS_PORT]: [METRICS_SCRAPERS] });
  });

  /** A NetworkPolicy's egress peer as text: `ns:<name>`, `ip:<cidr>`, or `cairn pods`. */
  const peerText = (peer: Node): string => {
    if (isNode(peer.namespaceSelector)) return `ns:${String(node(peer.namespaceSelector.matchLabels, 'labels')['kubernetes.io/metadata.name'])}`;
    if (isNode(peer.ipBlock)) return `ip:${String(peer.ipBlock.cidr)}`;
    return 'cairn pods';
  };

  /** The deployed services whose pods a policy applies to. */
  const selectedBy = (policy: Manifest): string[] =>
    deployedServices().filter((service) => podSelectorMatches(node(spec(policy).podSelector, 'podSelector'), podLabels(workload(service))));

  /** What the pods of every policy in `policies` may reach: `<peer> <protocol>/<port>[-<endPort>]`. */
  const reachOf = (policies: Manifest[]): string[] =>
    policies
      .flatMap((policy) => nodes(spec(policy).egress, `${policy.name} egress`))
      .flatMap((rule) =>
        // A rule without `to` reaches any address.
        (rule.to === undefined ? ['any'] : nodes(rule.to, 'to').map(peerText)).flatMap((peer) =>
          nodes(rule.ports, 'ports').map(
            (port) => `${peer} ${String(port.protocol)}/${String(port.port)}${port.endPort === undefined ? '' : `-${String(port.endPort)}`}`,
          ),
        ),
      );

  const egressPolicies = () => ofKind('NetworkPolicy').filter((policy) => spec(policy).egress !== undefined);
  const forEveryPod = () => egressPolicies().filter((policy) => selectedBy(policy).length === deployedServices().length);
  const forSomePods = () => egressPolicies().filter((policy) => selectedBy(policy).length < deployedServices().length);

  it('let the pods reach DNS, NATS, PostgreSQL, the object store and the gRPC ports of the namespace only', () => {
    const reach = reachOf(forEveryPod());
    const grpcPorts = grpcServices().map(servicePort);
    expect(reach.sort()).toEqual(
      [
        'ns:kube-system UDP/53',
        'ns:kube-system TCP/53',
        'ns:nats TCP/4222',
        'ns:postgresql TCP/5432',
        'ns:minio TCP/9000',
        `cairn pods TCP/${Math.min(...grpcPorts)}-${Math.max(...grpcPorts)}`,
      ].sort(),
    );
    // The namespaces named are those of the ExternalName Services' targets.
    for (const [name, namespace] of [['nats', 'nats'], ['postgres', 'postgresql'], ['minio', 'minio']]) {
      expect(String(spec(get('Service', name)).externalName).split('.')[1]).toBe(namespace);
    }
  });

  // Webhook deliveries (hooks), the remote git servers of imports and mirrors (git-storage's RemoteService) and the
  // sources' APIs of item imports (migrations).
  it.each([
    ['hooks', 'webhook targets'],
    ['git-storage', 'remote git servers'],
    ['migrations', "the sources' HTTP APIs"],
  ])('let the %s pods alone, besides, reach %s on 80 and 443 outside the private ranges the SSRF guard refuses', (name) => {
    const policies = forSomePods().filter((policy) => selectedBy(policy).includes(name));
    expect(policies.map(selectedBy)).toEqual([[name]]);
    expect(reachOf(policies).sort()).toEqual(['ip:0.0.0.0/0 TCP/80', 'ip:0.0.0.0/0 TCP/443', 'ip:::/0 TCP/80', 'ip:::/0 TCP/443'].sort());
    const blocks = nodes(spec(policies[0]).egress, 'egress').flatMap((rule) => nodes(rule.to, 'to')).map((peer) => node(peer.ipBlock, 'ipBlock'));
    const excepted = blocks.flatMap((block) => strings(block.except, 'except'));
    // The cluster's usual networks (pods, Services, nodes) and the cloud metadata address are left out…
    for (const range of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', '169.254.0.0/16', '100.64.0.0/10', '::1/128', 'fc00::/7', 'fe80::/10']) {
      expect(excepted).toContain(range);
    }
    // …and only addresses the guard's default (`external`) refuses anyway: the policy is a second line, never stricter.
    for (const range of excepted) expect([range, classify(range.split('/')[0]).external]).toEqual([range, false]);
  });
  it('let the notifications pods alone, besides, reach an SMTP server on 25, 465 and 587', () => {
    // No pods but these four reach anything outside the namespace's services.
    expect(forSomePods().map(selectedBy).sort()).toEqual([['git-storage'], ['hooks'], ['migrations'], ['notifications']]);
    const policies = forSomePods().filter((policy) => selectedBy(policy).includes('notifications'));
    expect(policies.map(selectedBy)).toEqual([['notifications']]);
    expect(reachOf(policies).sort()).toEqual(['any TCP/25', 'any TCP/465', 'any TCP/587']);
  });
});

describe('deploy/k8s set-up Job', () => {
  /** scripts/postgres-roles.js (plain JavaScript, no declarations). */
  interface PostgresRolesScript {
    servicesWithSchema(): { name: string; schema: string }[];
    passwordVariable(service: string): string;
  }
  const roles = require(path.join(ROOT, 'scripts', 'postgres-roles.js')) as PostgresRolesScript;

  it('creates the database roles, then the streams and consumers, with scripts the image holds', () => {
    const job = get('Job', 'cairn-setup');
    const pod = node(node(spec(job).template, 'template').spec, 'job pod spec');
    const commands = [...nodes(pod.initContainers, 'initContainers'), ...nodes(pod.containers, 'containers')].map((container) => {
      expect(container.image).toBe(IMAGE);
      return strings(container.command, 'command').join(' ');
    });
    expect(commands).toEqual(['node scripts/postgres-roles.js', 'node scripts/nats-config.js provision']);
    const copied = parseDockerfile(readRootFile('Dockerfile')).flatMap((stage) => stage.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args));
    for (const script of ['scripts/postgres-roles.js', 'scripts/nats-config.js']) expect(copied.some((args) => args.split(' ').includes(script))).toBe(true);
  });

  it('has a password for every service role and the NATS admin in its Secret', () => {
    const data = node(get('Secret', 'cairn-setup').body.stringData, 'cairn-setup stringData');
    const services = roles.servicesWithSchema();
    expect(services.map((service) => service.name).sort()).toEqual(deployedServices().filter((name) => databaseSchema(name) !== undefined));
    expect(Object.keys(data).sort()).toEqual(
      ['CAIRN_DB_ADMIN_URL', 'CAIRN_NATS_ADMIN_PASSWORD', ...services.map((service) => roles.passwordVariable(service.name))].sort(),
    );
  });
});
