/**
 * An expired invitation (docs/contract.md section 7, "Accounts, members and invitations") stays in "Open invitations"
 * labelled "expired", and "Send again" invites the same email with the same role: a new link, shown once.
 */
import { expect, test } from "@playwright/test";
import { e2e, readState } from "./support/accounts";
import { expectAccessible, openSignedIn } from "./support/helpers";

test("an expired invitation is labelled expired and sent again with a new link", async ({ page }) => {
  await openSignedIn(page, e2e.admin);
  await page.goto(`/admin/accounts/${readState().lapsedAccountId}`);
  const invitations = page.getByRole("region", { name: "Open invitations table" });
  const row = invitations.getByRole("row").filter({ hasText: "lapsed-owner@example.com" });
  await expect(row).toContainText("expired");
  await expect(row).toContainText("owner");
  await expectAccessible(page, "an account with an expired invitation");

  await row.getByRole("button", { name: "Send again to lapsed-owner@example.com" }).click();
  const dialog = page.getByRole("dialog", { name: "Invite a member" });
  await expect(dialog.getByRole("textbox", { name: /^Email/ })).toHaveValue("lapsed-owner@example.com");
  await dialog.getByRole("button", { name: "Invite" }).click();
  const link = page.getByRole("dialog", { name: "Send the invitation link" });
  await expect(link.getByRole("textbox", { name: "Invitation link" })).toHaveValue(
    /\/portal\/invitations\/[A-Za-z0-9_-]{43}$/,
  );
  await link.getByRole("button", { name: "Done" }).click();
  // The new invitation stands for the email: one row, open.
  await expect(row).toHaveCount(1);
  await expect(row).not.toContainText("expired");
  await expect(row.getByRole("button", { name: /^Send again/ })).toHaveCount(0);
});
