// deploy/docker-compose.yml and deploy/k8s/ cannot be run here (no Docker
// engine, no cluster), so they are parsed (yaml) and read back: the probes
// name the endpoints and ports the server serves, the orchestrators wait
// longer than a drain takes, the memory asked for covers the RSS measured at
// full scale (bench/results/deploy-sizing.md), the selectors meet, and the
// compose replicas are the ones nginx's upstreams.conf names.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

const DEPLOY = path.join(ROOT, 'deploy');
/** Every document of a YAML file, refusing any parse error or warning. */
function docs(file: string): any[] {
  const all = parseAllDocuments(readFileSync(path.join(DEPLOY, file), 'utf8'), { merge: true });
  for (const d of all) expect([...d.errors, ...d.warnings].map((e) => `${file}: ${e.message}`)).toEqual([]);
  return all.map((d) => d.toJS());
}
const k8s = readdirSync(path.join(DEPLOY, 'k8s')).filter((f) => f.endsWith('.yaml')).flatMap((f) => docs(`k8s/${f}`));
const kind = (k: string): any => {
  const found = k8s.filter((d) => d.kind === k);
  expect(found.length, k).toBe(1);
  return found[0];
};
const MiB = (q: string): number => {
  const m = /^(\d+)(Mi|Gi)$/.exec(q);
  if (!m) throw new Error(`memory quantity ${q}: write it in Mi or Gi`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
};
/** The highest peak RSS (MB = MiB here, from VmHWM) measured on the 46M-row corpus. */
const measuredPeak = Math.max(...readFileSync(path.join(ROOT, 'bench/results/deploy-sizing.md'), 'utf8').split('\n')
  .filter((l) => /^\| \S*finance-46m\b/.test(l)).map((l) => Number(l.split('|')[5])));

describe('deploy/k8s', () => {
  const dep = kind('Deployment'), cm = kind('ConfigMap'), svc = kind('Service'), pdb = kind('PodDisruptionBudget');
  const pod = dep.spec.template.spec;
  const c = pod.containers[0];
  const env = cm.data as Record<string, string>;
  const portNamed = (name: string): number => c.ports.find((p: any) => p.name === name).containerPort;

  it('probes: startup and liveness on /livez, readiness on /readyz, each asking both services at the ports the ConfigMap sets', () => {
    expect(env.FINANCE_PORT).toBe(String(portNamed('finance')));
    expect(env.ARRESTS_PORT).toBe(String(portNamed('arrests')));
    const asked = (p: any): string[] => {
      // An exec probe of node fetching each service's port (from the env), all answers ok; an httpGet reaches one port only.
      expect(p.httpGet, 'an httpGet probe reaches one service').toBeUndefined();
      const script = p.exec.command.at(-1) as string;
      expect(p.exec.command.slice(0, 2)).toEqual(['node', '-e']);
      expect(script).toContain('rs.every(r=>r.ok)');
      const ports = /\[([^\]]*)\]\.map\(p=>fetch\('http:\/\/127\.0\.0\.1:'\+p\+'(\/\w+)'\)/.exec(script);
      expect(ports, script).not.toBeNull();
      return [ports![2]!, ...ports![1]!.split(',').map((v) => String(env[v.replace('process.env.', '')] ?? v))];
    };
    expect(asked(c.startupProbe)).toEqual(['/livez', '8080', '8081']);
    expect(asked(c.livenessProbe)).toEqual(['/livez', '8080', '8081']);
    expect(asked(c.readinessProbe)).toEqual(['/readyz', '8080', '8081']);
    // The corpus load: minutes allowed before liveness counts, not the liveness probe's 30 s.
    expect(c.startupProbe.periodSeconds * c.startupProbe.failureThreshold).toBeGreaterThanOrEqual(120);
    // Readiness turns within SHUTDOWN_DELAY_MS of a SIGTERM, before the sockets close.
    expect(c.readinessProbe.periodSeconds * c.readinessProbe.failureThreshold * 1000).toBeLessThan(Number(env.SHUTDOWN_DELAY_MS));
    expect(c.envFrom[0].configMapRef.name).toBe(cm.metadata.name);
    expect(env.HOST).toBe('0.0.0.0');
  });

  it('runs the image the README builds and compose builds: civicstream:<package version>', () => {
    const image = `civicstream:${JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version}`;
    expect(c.image).toBe(image);
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const built = [...readme.matchAll(/^docker build -t (\S+) \.$/gm)].map((m) => m[1]);
    const run = [...readme.matchAll(/^docker run .* (\S+)$/gm)].map((m) => m[1]);
    expect([...built, ...run]).toEqual([image, image]);
    const [compose] = docs('docker-compose.yml');
    for (const [name, svc] of Object.entries(compose.services as Record<string, any>)) if (name.startsWith('replica-')) expect(svc.image, name).toBe(image);
  });

  it('the kubelet waits past SHUTDOWN_DELAY_MS + SHUTDOWN_GRACE_MS before its SIGKILL', () => {
    expect(Number(env.SHUTDOWN_DELAY_MS)).toBeGreaterThan(0);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(Number(env.SHUTDOWN_DELAY_MS) + Number(env.SHUTDOWN_GRACE_MS));
  });

  it('memory: the request covers the peak RSS measured at full scale, the limit is above it; threads set to the CPU limit', () => {
    expect(measuredPeak).toBeGreaterThan(1000);
    expect(MiB(c.resources.requests.memory)).toBeGreaterThanOrEqual(measuredPeak);
    expect(MiB(c.resources.limits.memory)).toBeGreaterThan(MiB(c.resources.requests.memory));
    expect(Number(c.resources.limits.cpu)).toBeGreaterThanOrEqual(Number(c.resources.requests.cpu));
    expect([env.WORKERS, env.FRONT_THREADS]).toEqual([String(c.resources.limits.cpu), String(c.resources.limits.cpu)]);
  });

  it('the Service and the PodDisruptionBudget select the Deployment\'s pods; a rolling update and a disruption take one at a time', () => {
    const labels = dep.spec.template.metadata.labels;
    expect(dep.spec.selector.matchLabels).toEqual(labels);
    expect(svc.spec.selector).toEqual(labels);
    expect(pdb.spec.selector.matchLabels).toEqual(labels);
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(dep.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(dep.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    expect(svc.spec.ports.map((p: any) => [p.port, portNamed(p.targetPort)])).toEqual([[8080, 8080], [8081, 8081]]);
  });
});

describe('deploy/docker-compose.yml', () => {
  const [compose] = docs('docker-compose.yml');
  const s = compose.services;
  const replicas = Object.keys(s).filter((k) => k.startsWith('replica-'));
  const subnet = compose.networks.civicstream.ipam.config[0].subnet as string;

  it('two replicas of the repository\'s Dockerfile on all interfaces, trusting X-Forwarded-For from the compose network only, healthy when /readyz says so', () => {
    expect(replicas).toEqual(['replica-1', 'replica-2']);
    for (const r of replicas) {
      expect(s[r].build).toEqual({ context: '..', dockerfile: 'Dockerfile' });
      expect(s[r].environment.HOST).toBe('0.0.0.0');
      expect(s[r].environment.TRUST_PROXY).toBe(subnet);
      expect(s[r].healthcheck.test.join(' ')).toContain('/readyz');
      const e = s[r].environment;
      expect(Number(/^(\d+)s$/.exec(s[r].stop_grace_period)?.[1]) * 1000).toBeGreaterThan(Number(e.SHUTDOWN_DELAY_MS) + Number(e.SHUTDOWN_GRACE_MS));
      // Unsent bytes a socket holds, bounded: a slow reader's stream is not cut by uWS's 10-s writable timeout.
      expect(Number(s[r].sysctls['net.ipv4.tcp_notsent_lowat'])).toBeLessThanOrEqual(256 * 1024);
    }
    expect(s.nginx.networks.civicstream.ipv4_address.startsWith(subnet.split('.').slice(0, 3).join('.'))).toBe(true);
  });

  it('nginx runs deploy/nginx/ on the API\'s ports, once both replicas are ready, and its upstreams are exactly these replicas', () => {
    expect(s.nginx.volumes).toContain('./nginx:/etc/nginx/civicstream:ro');
    expect(s.nginx.command).toEqual(['nginx', '-c', '/etc/nginx/civicstream/nginx.conf', '-g', 'daemon off;']);
    expect(s.nginx.ports).toEqual(['8080:8080', '8081:8081']);
    expect(Object.keys(s.nginx.depends_on)).toEqual(replicas);
    for (const r of replicas) expect(s.nginx.depends_on[r].condition).toBe('service_healthy');
    const upstreams = readFileSync(path.join(DEPLOY, 'nginx/upstreams.conf'), 'utf8').replace(/#.*$/gm, '');
    expect([...upstreams.matchAll(/server\s+(\S+?):(\d+)/g)].map((m) => `${m[1]}:${m[2]}`))
      .toEqual([...replicas.map((r) => `${r}:8080`), ...replicas.map((r) => `${r}:8081`)]);
  });
});
