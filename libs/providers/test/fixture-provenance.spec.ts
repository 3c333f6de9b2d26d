// Every fixture named in fixtures/provenance.json exists and carries a grade and a source, so a
// real-payload fixture cannot lose the note that says where it came from.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(import.meta.dirname, 'fixtures');
const manifest = JSON.parse(readFileSync(path.join(root, 'provenance.json'), 'utf8')) as Record<string, unknown>;
const entries = Object.entries(manifest).filter(([file]) => file !== '$comment');

describe('fixture provenance', () => {
  it.each(entries)('%s exists, with a grade and a source', (file, entry) => {
    expect(existsSync(path.join(root, file))).toBe(true);
    expect(entry).toMatchObject({ grade: expect.stringMatching(/^(provider-published|live capture|synthetic)$/), source: expect.any(String) });
  });
});
