import { describe, expect, it } from '@jest/globals';
import { parseMigrateOnStart } from './migrations.js';

describe('parseMigrateOnStart', () => {
  it('defaults to true so a single process migrates itself', () => {
    expect(parseMigrateOnStart(undefined)).toBe(true);
    expect(parseMigrateOnStart('')).toBe(true);
  });

  it('reads true/false/1/0 in any case', () => {
    expect(parseMigrateOnStart('FALSE')).toBe(false);
    expect(parseMigrateOnStart('0')).toBe(false);
    expect(parseMigrateOnStart(' true ')).toBe(true);
    expect(parseMigrateOnStart('1')).toBe(true);
  });

  it('rejects anything else instead of guessing', () => {
    expect(() => parseMigrateOnStart('no')).toThrow('MIGRATE_ON_START must be true or false, got "no"');
  });
});
