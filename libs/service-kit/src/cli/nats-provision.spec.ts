/**
 * The provisioning command's inputs: the shipped files parse to what the code declares, and the
 * deployment's values (byte limits, the ingest ack wait, replicas) replace the files' defaults —
 * for the named stream and the INGEST durables only. Mutation: `withDeploymentValues` ignoring
 * NATS_STREAM_MAX_BYTES_* → "applies the deployment's values" fails; the `replicas` key accepted
 * → "refuses `replicas`" fails.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { streamFiles } from '@switchyard/messaging';
import { DEFAULT_STREAM_DIR, readStreamFiles, withDeploymentValues } from './nats-provision.js';

type Env = Parameters<typeof withDeploymentValues>[1];

describe('nats-provision inputs', () => {
  it('reads deploy/nats/streams as the code declares it', () => {
    expect(readStreamFiles(DEFAULT_STREAM_DIR)).toEqual([...streamFiles().entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, f]) => f));
  });

  it("applies the deployment's values to the named stream and the INGEST durables only", () => {
    const files = readStreamFiles(DEFAULT_STREAM_DIR);
    const env = { INGEST_ACK_WAIT_MS: 120_000, NATS_STREAM_MAX_BYTES_INGEST: 8_589_934_592, NATS_STREAM_REPLICAS: 3, NATS_STREAM_REPLICAS_DLQ: 5 } as unknown as Env;
    const applied = withDeploymentValues(files, env);
    const ingest = applied.find((f) => f.stream.name === 'INGEST');
    const events = applied.find((f) => f.stream.name === 'EVENTS');
    expect(ingest?.stream).toMatchObject({ max_bytes: 8_589_934_592, num_replicas: 3 });
    expect(ingest?.consumers.map((c) => c.ack_wait)).toEqual([120e9, 120e9, 120e9]);
    expect(events?.stream.max_bytes).toBe(files.find((f) => f.stream.name === 'EVENTS')?.stream.max_bytes);
    expect(events?.consumers.every((c) => c.ack_wait === 30e9)).toBe(true);
    expect(applied.map((f) => [f.stream.name, f.stream.num_replicas])).toEqual(files.map((f) => [f.stream.name, f.stream.name === 'DLQ' ? 5 : 3]));
  });

  it('refuses `replicas` in a stream file: the server reads num_replicas only and would keep one copy', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sy-streams-'));
    const [ingest] = readStreamFiles(DEFAULT_STREAM_DIR).filter((f) => f.stream.name === 'INGEST');
    writeFileSync(path.join(dir, 'ingest.json'), JSON.stringify({ ...ingest, stream: { ...ingest?.stream, replicas: 3 } }));
    expect(() => readStreamFiles(dir)).toThrow(/ingest\.json: stream\.replicas: not a JetStream field .*num_replicas/);
  });

  it('names the file and field of a broken stream file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sy-streams-'));
    writeFileSync(path.join(dir, 'ingest.json'), JSON.stringify({ stream: { name: 'INGEST', subjects: [] }, consumers: [] }));
    expect(() => readStreamFiles(dir)).toThrow(/ingest\.json: stream\.subjects/);
  });
});
