/**
 * A nats-server (JetStream on), or a cluster of them (startOwnedNatsCluster), that belongs to one test: a free loopback port and a store
 * directory of its own, so a test can kill it (an outage) and start it again on the same port and
 * store without touching the machine's shared server. Binary: NATS_SERVER_BIN, else
 * /usr/sbin/nats-server, else `nats-server` on PATH.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';
import { tcpProbe } from './services.js';

export interface OwnedNats {
  /** nats://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** Kills the server (SIGKILL: connections cut without a goodbye) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its store. Idempotent. */
  destroy(): Promise<void>;
}

function binary(): string {
  if (process.env.NATS_SERVER_BIN) return process.env.NATS_SERVER_BIN;
  return existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';
}

/** A nats-server that exited before it accepted connections: most often one of its ports was taken since freePort (free-port.ts). */
class ServerExitedError extends Error {}

/** Spawns nats-server with `args` and resolves once `port` accepts connections (rejects when it exits first). */
async function spawnServer(args: readonly string[], port: number): Promise<ChildProcess> {
  const started = spawn(binary(), [...args], { stdio: 'ignore' });
  for (let i = 0; ; i += 1) {
    if (started.exitCode !== null) throw new ServerExitedError(`nats-server on ${port} exited (${started.exitCode})`);
    try {
      await tcpProbe('127.0.0.1', port, 500);
      return started;
    } catch (error) {
      if (i > 200) {
        started.kill('SIGKILL');
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** SIGKILL (connections cut without a goodbye) and wait for the exit. */
async function killServer(running: ChildProcess | undefined): Promise<void> {
  if (!running || running.exitCode !== null || running.signalCode !== null) return;
  const exited = new Promise((resolve) => running.once('exit', resolve));
  running.kill('SIGKILL');
  await exited;
}

export async function startOwnedNats(): Promise<OwnedNats> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sy-owned-nats-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let destroyed: Promise<void> | undefined;
  const owned: OwnedNats = {
    url: `nats://127.0.0.1:${port}`,
    port,
    async start() {
      child = await spawnServer(['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], port);
    },
    async stop() {
      const running = child;
      child = undefined;
      await killServer(running);
    },
    destroy() {
      destroyed ??= (async () => {
        await owned.stop();
        await rm(dir, { recursive: true, force: true });
      })();
      return destroyed;
    },
  };
  // A test process that ends without destroy() still kills it.
  process.once('exit', () => child?.kill('SIGKILL'));
  try {
    await owned.start();
  } catch (error) {
    await owned.destroy();
    throw error;
  }
  return owned;
}

/** One server of an OwnedNatsCluster: its server name (`n1`…), client and monitoring ports. */
export interface OwnedNatsNode {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  readonly monitorPort: number;
  /** SIGKILL; resolves once it exited. */
  stop(): Promise<void>;
  /** Starts it again on the same ports and store (it rejoins the cluster); resolves once it accepts connections. */
  start(): Promise<void>;
  readonly running: boolean;
}

/** A JetStream cluster that belongs to one test: every port on loopback, every store under one tmp dir. */
export interface OwnedNatsCluster {
  readonly nodes: readonly OwnedNatsNode[];
  /** Every node's client URL, comma-separated (NATS_URL of the processes). */
  readonly url: string;
  readonly servers: readonly string[];
  /** The JetStream meta leader's server name as a running node reports it (undefined while none is elected). */
  metaLeader(): Promise<string | undefined>;
  node(name: string): OwnedNatsNode;
  /** Kills every node and deletes the stores. Idempotent. */
  destroy(): Promise<void>;
}

/**
 * `size` nats-servers with JetStream, clustered over routes on loopback (cluster name `sy-test`),
 * each with a store directory of its own under one tmp dir; resolves once a meta leader is elected
 * and every node sees it, so streams with `size` replicas can be created.
 */
export async function startOwnedNatsCluster(size = 3): Promise<OwnedNatsCluster> {
  // Its 3 × size ports are chosen before any node binds them, so another process (a parallel
  // suite) can take one in between (free-port.ts): a node that exits at its first start gets the
  // whole cluster again on fresh ports, twice at most.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startClusterOnce(size);
    } catch (error) {
      if (!(error instanceof ServerExitedError) || attempt === 3) throw error;
    }
  }
}

/** Distinct free ports (freePort alone may hand out a port it returned a moment ago). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

async function startClusterOnce(size: number): Promise<OwnedNatsCluster> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sy-owned-nats-cluster-'));
  const free = await distinctFreePorts(3 * size);
  const ports = Array.from({ length: size }, (_, i) => {
    const [client, route, monitor] = free.slice(3 * i, 3 * i + 3) as [number, number, number];
    return { client, route, monitor };
  });
  const routes = ports.map((p) => `nats://127.0.0.1:${p.route}`).join(',');
  const children = new Map<string, ChildProcess>();
  const nodes: OwnedNatsNode[] = ports.map((p, i) => {
    const name = `n${i + 1}`;
    const args = ['-js', '-a', '127.0.0.1', '-p', String(p.client), '-m', String(p.monitor), '-sd', path.join(dir, name), '-n', name, '--cluster_name', 'sy-test', '--cluster', `nats://127.0.0.1:${p.route}`, '--routes', routes];
    return {
      name,
      url: `nats://127.0.0.1:${p.client}`,
      port: p.client,
      monitorPort: p.monitor,
      get running() {
        return children.has(name);
      },
      async start() {
        children.set(name, await spawnServer(args, p.client));
      },
      async stop() {
        const running = children.get(name);
        children.delete(name);
        await killServer(running);
      },
    };
  });
  const jsz = async (node: OwnedNatsNode): Promise<{ meta_cluster?: { leader?: string; replicas?: { name: string; current: boolean }[] } } | undefined> => {
    try {
      const res = await fetch(`http://127.0.0.1:${node.monitorPort}/jsz`, { signal: AbortSignal.timeout(2_000) });
      return res.ok ? ((await res.json()) as never) : undefined;
    } catch {
      return undefined;
    }
  };
  let destroyed: Promise<void> | undefined;
  const cluster: OwnedNatsCluster = {
    nodes,
    servers: nodes.map((n) => n.url),
    url: nodes.map((n) => n.url).join(','),
    node(name) {
      const found = nodes.find((n) => n.name === name);
      if (!found) throw new Error(`no node ${name} (${nodes.map((n) => n.name).join(', ')})`);
      return found;
    },
    async metaLeader() {
      const seen = await Promise.all(nodes.filter((n) => n.running).map(async (n) => (await jsz(n))?.meta_cluster?.leader));
      // Only a leader every running node agrees on (a node that lost its leader reports it for a moment).
      const leader = seen[0];
      return leader && seen.every((l) => l === leader) && nodes.some((n) => n.name === leader && n.running) ? leader : undefined;
    },
    destroy() {
      destroyed ??= (async () => {
        await Promise.all(nodes.map((n) => n.stop()));
        await rm(dir, { recursive: true, force: true });
      })();
      return destroyed;
    },
  };
  process.once('exit', () => {
    for (const child of children.values()) child.kill('SIGKILL');
  });
  try {
    await Promise.all(nodes.map((n) => n.start()));
    for (let i = 0; (await cluster.metaLeader()) === undefined; i += 1) {
      if (i > 600) throw new Error(`no JetStream meta leader elected in the ${size}-node cluster`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}
