import { expect, it } from '@jest/globals';
import { placeholder } from './index.js';
it('loads', () => expect(placeholder).toBe('libs/domain'));
