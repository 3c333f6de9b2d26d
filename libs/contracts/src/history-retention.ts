/**
 * How far back a vehicle's stored history reaches (issue 14 item 4, issue 25 item 2): observations
 * and usage rollups (telemetry-ingest, decision 0025) and trips (directory, decision 0030) are kept
 * 400 days. One horizon, so a report or a trip page never combines history one store still holds
 * with history the other already dropped.
 */
export const HISTORY_RETENTION_DAYS = 400;
export const HISTORY_RETENTION_MS = HISTORY_RETENTION_DAYS * 24 * 60 * 60 * 1000;
