// Every test runs in UTC so date arithmetic and snapshots never depend on the machine.
process.env.TZ = 'UTC';
