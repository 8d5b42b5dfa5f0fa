/**
 * End-to-end tests of the admin dashboard in Debian's Chromium against the production build: the web
 * server script (e2e/support/server.ts) creates a fresh PostgreSQL database, seeds it, creates the test
 * accounts, runs `npm run build` and the production server (`node dist/server.js`) on a free port.
 * With E2E_SCREENSHOTS=1 the screenshots of every page land in test-results/screenshots.
 * Run: `npm run test:e2e -w @petstore/web` (E2E_SKIP_BUILD=1 reuses an existing build).
 */
import { defineConfig } from "@playwright/test";
import { e2e, ensureE2eEnv } from "./e2e/support/accounts";
import { CHROMIUM_LAUNCH } from "./e2e/support/browser";

ensureE2eEnv();

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results",
  // The tests share one server and database; each signs in with accounts and creates records of its own
  // (e2e/support/accounts.ts, `unique`), so two files run at once. Alone, one browser and the server wait on each
  // other for about a fifth of the time; a second file uses that, and the second core once vitest is done.
  workers: 2,
  fullyParallel: false,
  retries: 0,
  // Bounds for a 2-core machine that runs the vitest suites beside: a page can take seconds to render there.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  // Screenshots of every page and dialog are for looking at the dashboard, not assertions: taken on demand, as
  // rendering whole pages in software takes a share of the run's budget. A failing test always keeps its own.
  metadata: { screenshots: process.env.E2E_SCREENSHOTS === "1" },
  use: {
    baseURL: e2e.baseUrl,
    // A failed test keeps its trace (actions, network, sources) without the screencast, whose frames the
    // software renderer would draw for every test.
    trace: { mode: "retain-on-failure", screenshots: false, snapshots: false, sources: true },
    screenshot: "only-on-failure",
    launchOptions: CHROMIUM_LAUNCH,
    // As a person who asks for reduced motion: the dashboard then draws no transition or spinner frame by frame.
    reducedMotion: "reduce",
  },
  projects: [{ name: "chromium", use: { browserName: "chromium", viewport: { width: 1280, height: 800 } } }],
  webServer: {
    command: "npx tsx e2e/support/server.ts",
    url: `${e2e.baseUrl}/admin/sign-in`,
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
    env: { NEXT_TELEMETRY_DISABLED: "1" },
  },
});
