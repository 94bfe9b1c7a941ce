import { configDefaults, defineConfig } from 'vitest/config';

/** Folders whose tests run in-process on the sources alone: they need no build. */
const IN_PROCESS = ['test/unit/**/*.test.ts', 'test/cross-check/**/*.test.ts', 'test/lint/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end tests spawn the CLI; two cores, so keep the pool small.
    maxWorkers: 2,
    // test/unit may neither listen on a socket nor spawn a process (the file says why); other folders are untouched.
    setupFiles: ['test/helpers/unit-purity.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: IN_PROCESS } },
      {
        extends: true,
        test: {
          name: 'built',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...IN_PROCESS],
          // These run bin/textgen.js (or may): build dist/ first, once per run, so no run tests a stale build. The
          // build is skipped when only the in-process folders are selected.
          globalSetup: ['test/helpers/build-dist.ts'],
        },
      },
    ],
  },
});
