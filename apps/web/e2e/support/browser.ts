/**
 * How the browser tests and the console bench launch Chromium: Debian's package of Chromium's headless shell (the
 * build Playwright itself runs headless), which spends about a quarter less CPU than the full browser on the same
 * tests (docs/performance.md, "Test suite"), with no network beyond the loopback address.
 */
import type { LaunchOptions } from "@playwright/test";

export const CHROMIUM_LAUNCH: LaunchOptions = {
  executablePath: "/usr/bin/chromium-headless-shell",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
  ],
};
