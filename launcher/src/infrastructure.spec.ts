import { describe, expect, it } from '@jest/globals';
import { embeddedSwitch } from './infrastructure.js';

describe('embeddedSwitch (SWITCHYARD_EMBEDDED)', () => {
  it('is off when unset, empty or false, on only for true', () => {
    expect(embeddedSwitch({})).toBe(false);
    expect(embeddedSwitch({ SWITCHYARD_EMBEDDED: '' })).toBe(false);
    expect(embeddedSwitch({ SWITCHYARD_EMBEDDED: 'false' })).toBe(false);
    expect(embeddedSwitch({ SWITCHYARD_EMBEDDED: 'true' })).toBe(true);
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => embeddedSwitch({ SWITCHYARD_EMBEDDED: 'yes' })).toThrow('SWITCHYARD_EMBEDDED must be true or false, got "yes"');
  });
});
