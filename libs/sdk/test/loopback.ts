// A loopback HTTP server for the SDK's tests: records every request and answers from a script.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  /** Path and raw query string as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An answer: status, headers and a JSON body, or 'reset' to destroy the connection without answering. */
export type Answer = { status: number; headers?: Record<string, string>; body?: unknown } | 'reset' | 'hang';

export interface Loopback {
  baseUrl: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export async function startLoopback(answer: (request: Recorded, index: number) => Answer): Promise<Loopback> {
  const requests: Recorded[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      const reply = answer(recorded, requests.length - 1);
      if (reply === 'reset') return void req.socket.destroy();
      if (reply === 'hang') return;
      res.writeHead(reply.status, { 'content-type': 'application/json', 'x-request-id': `req-${requests.length}`, ...reply.headers });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
