// Cross-app system suites (pipelines, crash and scale-out, provider scenarios, gateway → context reads).
import { preset } from '../jest.preset.js';

export default preset(import.meta.dirname, 'system-tests');
