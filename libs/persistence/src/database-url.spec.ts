import { describe, expect, it } from '@jest/globals';
import { DEFAULT_DATABASE_URL, maskUrl, resolveDatabaseUrl } from './database-url.js';

describe('resolveDatabaseUrl', () => {
  it('uses DATABASE_URL when set', () => {
    expect(resolveDatabaseUrl({ DATABASE_URL: 'postgres://app@db:5433/x' })).toBe('postgres://app@db:5433/x');
  });

  it('falls back to the local server when DATABASE_URL is unset or blank', () => {
    expect(resolveDatabaseUrl({})).toBe('postgres://postgres@127.0.0.1:5432/postgres');
    expect(resolveDatabaseUrl({ DATABASE_URL: '  ' })).toBe(DEFAULT_DATABASE_URL);
  });
});

describe('maskUrl', () => {
  it('hides the password and keeps everything else', () => {
    expect(maskUrl('postgres://app:s3cr%40t@db.internal:5432/switchyard?sslmode=require')).toBe(
      'postgres://app:***@db.internal:5432/switchyard?sslmode=require',
    );
  });

  it('leaves URLs without a password unchanged', () => {
    expect(maskUrl('postgres://postgres@127.0.0.1:5432/postgres')).toBe('postgres://postgres@127.0.0.1:5432/postgres');
  });

  it('hides the whole userinfo of a URL it cannot parse', () => {
    const masked = maskUrl('postgres://app:p@ss word@[bad/x');
    expect(masked).not.toContain('p@ss');
    expect(masked).not.toContain('word');
  });
});
