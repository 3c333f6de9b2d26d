/**
 * CPU time PostgreSQL spends for given client processes, read from Linux's /proc: the backends
 * whose TCP peer is one of the clients' sockets to the database port. The server children's own
 * CPU (`process.cpuUsage()`) leaves out the database, yet on this 2-core machine the database
 * shares the cores with them: a read that runs four statements where the baseline runs one pays
 * for it in req/s without showing it in "server cpu". This makes that cost a column of its own.
 * Approximate by design: a backend that exits during a round takes its last CPU with it, and one
 * opened during a round counts from zero (pools keep theirs open, so both are rare); /proc gives
 * clock ticks (10 ms), summed over a 3 s round. Where /proc is missing or unreadable every
 * function answers an empty result and callers print "-".
 * Invariant: only reads /proc; never signals or touches another process.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const TICK_US = 1e6 / 100; // USER_HZ is 100 on Linux (sysconf(_SC_CLK_TCK)); /proc/<pid>/stat counts in it

/** The inodes of a process's sockets (`socket:[123]` links under /proc/<pid>/fd). */
function socketInodes(pid) {
  const inodes = new Set();
  let fds = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** Rows of /proc/net/tcp and tcp6: `{ localPort, remotePort, inode }`. Pure over the file texts. */
export function parseTcpTable(text) {
  const rows = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    rows.push({ localPort: parseInt(f[1].split(':')[1], 16), remotePort: parseInt(f[2].split(':')[1], 16), inode: f[9] });
  }
  return rows;
}

function tcpTable() {
  let text = '';
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    try {
      text += readFileSync(file, 'utf8');
    } catch {
      // no IPv6 table
    }
  }
  return parseTcpTable(text);
}

/** user + system CPU of a process in µs from its /proc stat line (fields 14 and 15); null when gone. Pure over the text. */
export function cpuUsOfStat(text) {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' '); // the command may hold spaces
  const [utime, stime] = [Number(rest[11]), Number(rest[12])];
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) * TICK_US : null;
}

function cpuUsOf(pid) {
  try {
    return cpuUsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** Map backend pid → CPU µs of the PostgreSQL backends (listening on `dbPort`) serving `clientPids`' connections. */
export function dbBackendCpu(clientPids, dbPort = 5432) {
  const result = new Map();
  try {
    const clientInodes = new Set(clientPids.flatMap((pid) => [...socketInodes(pid)]));
    const table = tcpTable();
    const clientPorts = new Set(table.filter((r) => r.remotePort === dbPort && clientInodes.has(r.inode)).map((r) => r.localPort));
    const backendInodes = new Set(table.filter((r) => r.localPort === dbPort && clientPorts.has(r.remotePort)).map((r) => r.inode));
    if (backendInodes.size === 0) return result;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let comm;
      try {
        comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      } catch {
        continue;
      }
      if (comm !== 'postgres') continue;
      const mine = [...socketInodes(entry)].some((inode) => backendInodes.has(inode));
      const cpu = mine ? cpuUsOf(entry) : null;
      if (cpu !== null) result.set(entry, cpu);
    }
  } catch {
    // no /proc: nothing known
  }
  return result;
}

/** CPU µs the backends spent between two `dbBackendCpu` samples (a backend new in `after` counts from 0). */
export function dbCpuDelta(before, after) {
  let total = 0;
  for (const [pid, cpu] of after) total += cpu - (before.get(pid) ?? 0);
  return total;
}

/** The port of a postgres:// URL (5432 when absent). */
export const dbPortOf = (databaseUrl) => Number(new URL(databaseUrl).port || 5432);
