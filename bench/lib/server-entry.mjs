/**
 * Child-process side of a benchmark server (parent side: child-server.mjs). The parent sends
 * `{ type: 'start', module, fixture }` over IPC; this imports `module`, awaits its
 * `start(fixture) → { url, close() }` and answers `{ type: 'ready', url }`. `{ type: 'stop' }`
 * closes the server and exits 0; `{ type: 'cpu' }` is answered with this process's
 * `process.cpuUsage()` (µs of user and system time), which the runner samples around each round;
 * `{ type: 'usage' }` with `process.resourceUsage()` (its `maxRSS`, KiB, is the peak resident set
 * of this process so far: the job runner's per-process peak memory).
 * Invariant: the child never outlives the parent — when the IPC
 * channel disconnects (parent exited or crashed) it closes what it can and exits.
 */
let server;
let stopping = false;

async function stop(code) {
  if (stopping) return;
  stopping = true;
  // A close that hangs must not keep the process alive: 10 s covers a graceful Nest shutdown.
  const timer = setTimeout(() => process.exit(code || 1), 10_000);
  timer.unref();
  try {
    await server?.close();
  } catch (error) {
    console.error('bench server close failed:', error);
    code ||= 1;
  }
  if (process.connected) process.send({ type: 'stopped' });
  process.exit(code);
}

process.on('message', async (message) => {
  if (message?.type === 'start' && !server) {
    try {
      const mod = await import(message.module);
      server = await mod.start(message.fixture);
      process.send({ type: 'ready', url: server.url });
    } catch (error) {
      console.error('bench server failed to start:', error);
      if (process.connected) process.send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
      await stop(1);
    }
  } else if (message?.type === 'cpu') {
    process.send({ type: 'cpu', usage: process.cpuUsage() });
  } else if (message?.type === 'usage') {
    process.send({ type: 'usage', usage: process.resourceUsage(), rss: process.memoryUsage.rss() });
  } else if (message?.type === 'stop') {
    await stop(0);
  }
});
process.on('disconnect', () => void stop(0));
process.on('SIGINT', () => undefined); // Ctrl-C reaches the whole process group: the parent decides when to stop.
