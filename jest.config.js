// Root jest config: every project's own config, so `jest` at the root runs unit, integration and e2e suites.
export default {
  projects: ['<rootDir>/libs/*/jest.config.js', '<rootDir>/apps/*/jest.config.js', '<rootDir>/sandbox/jest.config.js', '<rootDir>/launcher/jest.config.js', '<rootDir>/e2e/jest.config.js'],
};
