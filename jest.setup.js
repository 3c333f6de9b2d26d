// Every test runs in UTC so date arithmetic and snapshots never depend on the machine.
process.env.TZ = 'UTC';
// Every read body a test gateway forwards as bytes is checked against its schema (apps/gateway http/json-body.ts).
process.env.RESPONSE_VALIDATION ??= 'all';
