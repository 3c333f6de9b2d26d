// Root jest config: every project's own config, so `jest` at the root runs unit, integration and e2e suites.
// testTimeout is a global option (ignored inside `projects`), so it is set here as well as in the preset.
export default {
  testTimeout: 30_000,
  projects: ['<rootDir>/libs/*/jest.config.js', '<rootDir>/apps/*/jest.config.js', '<rootDir>/sandbox/jest.config.js', '<rootDir>/launcher/jest.config.js', '<rootDir>/e2e/jest.config.js', '<rootDir>/system-tests/jest.config.js'],
};
