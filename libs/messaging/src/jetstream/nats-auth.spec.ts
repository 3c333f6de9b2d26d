import { describe, expect, it } from '@jest/globals';
import { credentialsInUrl, natsClientAuthOptions, serverLabel } from './nats-auth.js';

describe('NATS server URLs and credentials', () => {
  it('drops user:password@ and token@ from what is dialled and logged', () => {
    expect(serverLabel('nats://svc:p%40ss@nats.internal:4222')).toBe('nats://nats.internal:4222');
    expect(serverLabel('tok@127.0.0.1:4222')).toBe('127.0.0.1:4222');
    expect(serverLabel('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
  });

  it('reads user:password@ as user and password, token@ as a token', () => {
    expect(credentialsInUrl('nats://svc:p%40ss@nats.internal:4222')).toEqual({ user: 'svc', password: 'p@ss' });
    expect(credentialsInUrl('tok@127.0.0.1:4222')).toEqual({ token: 'tok' });
    expect(credentialsInUrl('nats://127.0.0.1:4222')).toBeUndefined();
  });

  it('prefers explicit credentials over the URL and passes TLS files and the inbox prefix', () => {
    expect(natsClientAuthOptions(['nats://a:b@h:4222'], { token: 't', tls: { caFile: '/ca.pem' }, inboxPrefix: 'svc.inbox' })).toEqual({
      servers: ['nats://h:4222'],
      token: 't',
      tls: { caFile: '/ca.pem' },
      inboxPrefix: 'svc.inbox',
    });
    expect(natsClientAuthOptions(['nats://a:b@h:4222'], { tls: {} })).toEqual({ servers: ['nats://h:4222'], user: 'a', pass: 'b' });
  });

  it('names a missing credentials file by its path', () => {
    expect(() => natsClientAuthOptions(['nats://h:4222'], { credsFile: '/nonexistent/svc.creds' })).toThrow('cannot read the NATS credentials file /nonexistent/svc.creds: ENOENT');
  });
});
