export const placeholder = 'apps/telemetry-ingest';
