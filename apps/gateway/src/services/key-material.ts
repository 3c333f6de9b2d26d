/**
 * Where the gateway's own secrets come from: `SWITCHYARD_MASTER_KEY` and `CURSOR_SECRET` in the
 * environment (production), or, in the sandbox, `<SWITCHYARD_DATA_DIR>/keys.json` (mode 0600),
 * created on first start so a restart keeps decrypting what it sealed before.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface KeyMaterial {
  masterKey: string;
  cursorSecret: string;
}

export function loadKeyMaterial(env: NodeJS.ProcessEnv, options: { createIfMissing?: boolean } = {}): KeyMaterial {
  if (env.SWITCHYARD_MASTER_KEY && env.CURSOR_SECRET) return { masterKey: env.SWITCHYARD_MASTER_KEY, cursorSecret: env.CURSOR_SECRET };
  const file = path.join(env.SWITCHYARD_DATA_DIR ?? '.switchyard', 'keys.json');
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as KeyMaterial;
    return { masterKey: env.SWITCHYARD_MASTER_KEY ?? stored.masterKey, cursorSecret: env.CURSOR_SECRET ?? stored.cursorSecret };
  }
  if (!options.createIfMissing) throw new Error(`SWITCHYARD_MASTER_KEY and CURSOR_SECRET are not set and ${file} does not exist`);
  const created = { masterKey: randomBytes(32).toString('base64'), cursorSecret: randomBytes(32).toString('base64url') };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(created, null, 2), { mode: 0o600 });
  return created;
}
