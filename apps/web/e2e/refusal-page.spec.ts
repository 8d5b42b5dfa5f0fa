/**
 * A page load the dashboard's protections refuse (docs/contract.md section 3, "Rate limits") shows a person a
 * page, never JSON: a title, the document's language, no accessibility violation, no policy violation, and it
 * loads the address asked for again by itself after Retry-After. Served by the router's own renderer
 * (http/unavailable-page.ts `answerRefusal`) on a server of the test's, as the e2e server's budgets are open.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { answerRefusal } from "../src/server/http/unavailable-page";
import { expectAccessible, watchViolations } from "./support/helpers";

test("a refused page load shows a page that passes axe and reloads the address by itself", async ({
  page,
}) => {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? "");
    // The first refusal asks for a minute, so axe reads a page that does not reload under it; the second asks
    // for one second and shows the reload.
    if (requests.length <= 2) {
      answerRefusal(
        req,
        res,
        { publicBaseUrl: "http://127.0.0.1" },
        {
          status: 429,
          retryAfter: requests.length === 1 ? 60 : 1,
          message: "Too many requests.",
          reason: "The site is busy serving other visitors right now.",
        },
      );
      return;
    }
    res
      .writeHead(200, { "Content-Type": "text/html; charset=utf-8" })
      .end('<!doctype html><html lang="en"><title>Signed out</title><main><h1>Sign in</h1></main></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}/portal/sign-in?next=%2Fportal`;
    const violations = await watchViolations(page);
    const response = await page.goto(address);
    expect(response?.status()).toBe(429);
    expect(response?.headers()["retry-after"]).toBe("60");
    await expect(page).toHaveTitle("Too many requests · Pet Store");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Please wait a moment");
    await expect(page.getByRole("link", { name: "try again now" })).toHaveAttribute(
      "href",
      "/portal/sign-in?next=%2Fportal",
    );
    await expectAccessible(page, "the refusal page");
    expect(await violations()).toEqual([]);
    // Reloaded by itself after Retry-After, at the same address.
    const shortRefusal = await page.reload();
    expect(shortRefusal?.headers()["retry-after"]).toBe("1");
    await expect(page).toHaveTitle("Signed out", { timeout: 10_000 });
    expect(page.url()).toBe(address);
    expect(requests).toEqual(Array(3).fill("/portal/sign-in?next=%2Fportal"));
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
