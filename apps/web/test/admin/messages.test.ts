/**
 * The dashboard's message catalogue: every problem the contract schemas report on a form's values is
 * worded for a person, never in zod's own words, and input length limits come from the schemas.
 */
import {
  ApiKeyCreate,
  ApiKeyPlanChange,
  CategoryName,
  Email,
  Password,
  PetName,
  PlanLimitsChange,
  RateLimitValue,
  UserName,
} from "@petstore/contracts";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { detailMessage, fieldMessages } from "../../src/ui/forms/messages";
import { maxLengthOf, numberValue } from "../../src/ui/forms/use-zod-form";

const RAW = /Too big|Too small|Invalid input|expected (number|int|string)|<=|>=/;

function messageOf(schema: z.ZodType, value: unknown): string | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? undefined : fieldMessages(parsed.error).form;
}

describe("message catalogue", () => {
  it.each([
    ["-5", "Enter a number of at least 1."],
    ["0", "Enter a number of at least 1."],
    ["1.5", "Enter a whole number, without decimals."],
    ["100000000000000000000000", "Enter a number no larger than 100,000,000."],
    ["100000001", "Enter a number no larger than 100,000,000."],
    ["", "Enter a number."],
  ])("a limit typed as %j: %s", (typed, words) => {
    expect(messageOf(RateLimitValue, numberValue(typed))).toBe(words);
  });

  it("words text limits, required fields, emails and custom rules in plain sentences", () => {
    expect(messageOf(PetName, "   ")).toBe("This cannot be empty.");
    expect(messageOf(CategoryName, "x".repeat(61))).toBe("Use at most 60 characters.");
    expect(messageOf(ApiKeyCreate.shape.name, "k".repeat(10_000))).toBe("Use at most 100 characters.");
    expect(messageOf(Email, "nope")).toBe("Enter an email address, like name@example.com.");
    expect(messageOf(Password, "short")).toBe("Use at least 12 characters.");
    const plan = PlanLimitsChange.safeParse({ plan: "pro", perMinute: 50, perDay: 10 });
    expect(plan.success || fieldMessages(plan.error)).toEqual({
      perMinute: "The per-minute limit cannot exceed the per-day limit.",
    });
    const enterprise = ApiKeyPlanChange.safeParse({
      id: "00000000-0000-4000-8000-000000000000",
      plan: "enterprise",
      perMinute: null,
      perDay: null,
    });
    expect(enterprise.success || fieldMessages(enterprise.error).perMinute).toBe(
      "Enterprise keys need custom per-minute and per-day limits.",
    );
  });

  it("never lets zod's wording through, whatever the form holds", () => {
    const values = [undefined, null, "", "x", -1, 0, 1.5, 1e30, Number.NaN, "x".repeat(500), [], {}];
    for (const schema of [
      RateLimitValue,
      PetName,
      CategoryName,
      Email,
      Password,
      UserName,
      PlanLimitsChange,
    ]) {
      for (const value of values) {
        const parsed = schema.safeParse(value);
        if (!parsed.success)
          for (const message of Object.values(fieldMessages(parsed.error))) expect(message).not.toMatch(RAW);
      }
    }
  });

  it("rewords server details in zod's English and turns domain phrases into sentences", () => {
    expect(detailMessage("Too big: expected string to have <=100 characters")).toBe(
      "Use at most 100 characters.",
    );
    expect(detailMessage("Invalid input: expected number, received undefined")).toBe("Enter a number.");
    expect(detailMessage("Too big: expected int to be <=9007199254740991")).toBe("This number is too large.");
    expect(detailMessage("is already taken")).toBe("This is already taken.");
    expect(detailMessage("must not be empty")).toBe("This must not be empty.");
  });
});

describe("maxLengthOf", () => {
  it("reads the schemas' limits, through optional wrappers and pipes", () => {
    expect(maxLengthOf(PetName)).toBe(100);
    expect(maxLengthOf(CategoryName)).toBe(60);
    expect(maxLengthOf(ApiKeyCreate.shape.name)).toBe(100);
    expect(maxLengthOf(UserName)).toBe(100);
    expect(maxLengthOf(Email)).toBe(200);
    expect(maxLengthOf(PetName.optional())).toBe(100);
    expect(
      maxLengthOf(
        z
          .string()
          .max(7)
          .transform((s) => s.normalize("NFC")),
      ),
    ).toBe(7);
    expect(maxLengthOf(z.number())).toBeUndefined();
  });
});
