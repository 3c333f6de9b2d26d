/**
 * Newline-delimited JSON files for job scenarios whose test data is too large to hold in memory
 * twice (a million observations): `writeNdjson` appends with backpressure, `readNdjson` yields
 * the parsed lines in order. Pure I/O helpers, no services.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** `{ write(value), close() }` appending one JSON line per value to `file` (truncated first). */
export function ndjsonWriter(file) {
  const out = createWriteStream(file);
  return {
    async write(value) {
      if (!out.write(`${JSON.stringify(value)}\n`)) await once(out, 'drain');
    },
    async close() {
      out.end();
      await once(out, 'finish');
    },
  };
}

/** The parsed lines of `file`, in order (blank lines skipped). */
export async function* readNdjson(file) {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) if (line.trim() !== '') yield JSON.parse(line);
}
