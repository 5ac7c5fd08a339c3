import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores here and in CI: pty-driven tests are timing-sensitive, so do not oversubscribe.
    maxWorkers: 2,
  },
});
