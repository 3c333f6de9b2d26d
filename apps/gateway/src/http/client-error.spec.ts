import { describe, expect, it } from '@jest/globals';
import { clientErrorAnswer, clientErrorResponse } from './client-error.js';

describe('answers to requests the HTTP parser refuses', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 'headers_too_large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 'request_timeout'],
    ['HPE_HEADERS_TIMEOUT', 'request_timeout'],
    ['HPE_INVALID_HEADER_TOKEN', 'malformed_request'],
    ['HPE_INVALID_METHOD', 'malformed_request'],
    [undefined, 'malformed_request'],
  ])('%s is %s', (code, expected) => {
    expect(clientErrorAnswer(code === undefined ? {} : { code }).code).toBe(expected);
  });

  it('writes a complete HTTP/1.1 answer in the contract shape that closes the connection', () => {
    const text = clientErrorResponse('request_timeout', 'rid-1');
    const [head, body] = text.split('\r\n\r\n');
    expect(head!.split('\r\n')).toEqual(['HTTP/1.1 408 Request Timeout', 'content-type: application/json; charset=utf-8', `content-length: ${body!.length}`, 'x-request-id: rid-1', 'connection: close']);
    expect(JSON.parse(body!)).toEqual({ error: 'request_timeout' });
    expect(clientErrorResponse('malformed_request', 'r', { in: 'request', reason: 'unparsable' })).toContain('\r\nswitchyard-error-detail: in=request, reason=unparsable\r\n');
  });
});
