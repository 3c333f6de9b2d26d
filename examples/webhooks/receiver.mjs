// A webhook receiver for Switchyard's events (docs/webhooks.md), plain Node ESM (Node 20.3+), with
// @switchyard/sdk's verifier: it answers 204 only to requests whose Standard Webhooks signature is the
// endpoint secret's, 401 to anything else, and handles each event once (it keeps the ids it has
// seen: delivery is at least once, so the same `webhook-id` may come again after a retry or replay).
// Prints one JSON line per event.
//
//   npm start                                                          # in another terminal: the sandbox
//   curl -s -X POST http://127.0.0.1:3000/v1/webhooks/endpoints -H 'Authorization: Bearer <applicationSecret>' \
//     -H 'Content-Type: application/json' -d '{"url": "http://127.0.0.1:4200/hooks", "eventTypes": ["fault.opened", "fault.cleared", "sync.completed", "connection.paused"]}'
//   WEBHOOK_SECRET=whsec_… npm run example:webhooks                    # the `secret` of that answer
//   npm run operator -- connection:pause --connection <id>             # a connection.paused arrives
//
// Production endpoints must be https on a public host (the delivery refuses anything else).
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@switchyard/sdk';

const secrets = (process.env.WEBHOOK_SECRET ?? '').split(',').filter(Boolean); // two during your switch to a rotated secret
if (secrets.length === 0) {
  console.error('set WEBHOOK_SECRET to the endpoint\'s whsec_… secret');
  process.exit(64);
}
const port = Number(process.env.PORT ?? 4200);
const seen = new Set(); // a real receiver keeps these in its database, with the work the event caused

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    // The raw bytes: parsing and re-serializing the JSON before verifying would change what was signed.
    const body = Buffer.concat(chunks);
    let event;
    try {
      event = verifyWebhook(secrets, req.headers, body);
    } catch (error) {
      console.log(JSON.stringify({ refused: error instanceof WebhookVerificationError ? error.reason : 'error' }));
      res.writeHead(401).end();
      return;
    }
    if (seen.has(event.id)) {
      console.log(JSON.stringify({ duplicate: event.id }));
    } else {
      seen.add(event.id);
      // Per vehicle (faults) or connection (syncs, connection status) events arrive in order.
      console.log(JSON.stringify({ id: event.id, type: event.type, subject: event.subject, sequence: event.sequence, time: event.time }));
    }
    // Answer fast (within 15 s) and do slow work afterwards; 410 would disable the endpoint.
    res.writeHead(204).end();
  });
});

server.listen(port, '127.0.0.1', () => console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.address().port}/hooks` })));
