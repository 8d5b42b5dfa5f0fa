/**
 * Inputs for dashboard users and sign-in (docs/contract.md section 4): used by the tRPC procedures, the CLI's
 * `users create` and the sign-in form, so every surface shows the same validation messages.
 */
import { z } from "zod";
import { Email, Password, UserRole } from "./admin.ts";
import { humanText } from "./text.ts";

export const UserId = z.uuid({ error: "must be a user id" });

export const UserName = humanText({ max: 100 });

/** A new staff member or admin; the password is hashed by the users service and never stored as is. */
export const UserCreate = z.strictObject({
  email: Email,
  name: UserName,
  role: UserRole,
  password: Password,
});
export type UserCreate = z.infer<typeof UserCreate>;

export const UserRoleChange = z.strictObject({ id: UserId, role: UserRole });

export const UserActiveChange = z.strictObject({ id: UserId, active: z.boolean() });

/** The columns the admin's Users list sorts by. */
export const UserSort = z.enum(["name", "email", "role", "state", "sessions", "createdAt"]);
export type UserSort = z.infer<typeof UserSort>;

/**
 * The admin's Users list: one column's sort, by default the role ascending (admins first). Role and state sort
 * by their meaning (admin before staff, active before deactivated), not by their text.
 */
export const UserListSort = z.object({
  sortBy: UserSort.default("role"),
  sortDirection: z.enum(["asc", "desc"]).default("asc"),
});
export type UserListSort = z.infer<typeof UserListSort>;

/**
 * Sign-in form. The password is only checked for presence: its rules apply when it is set, and a message
 * about them here would tell a guesser something.
 */
export const SignIn = z.strictObject({
  email: Email,
  password: z
    .string()
    .min(1, { error: "must not be empty" })
    .max(200, { error: "must be at most 200 characters" }),
});
export type SignIn = z.infer<typeof SignIn>;

/** "Forgot password": the email to send a reset link to (the answer is the same whether it has a sign-in). */
export const PasswordResetRequest = z.strictObject({ email: Email });
export type PasswordResetRequest = z.infer<typeof PasswordResetRequest>;

/** The secret of a reset link: 32 random bytes as base64url. */
export const PasswordResetToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, { error: "This password reset link is not valid." });

/** A new password set with a reset link. */
export const PasswordResetSet = z.strictObject({ token: PasswordResetToken, password: Password });
export type PasswordResetSet = z.infer<typeof PasswordResetSet>;

/** A password change: the current password (checked) and the new one. */
export const PasswordChange = z.strictObject({
  currentPassword: z.string().min(1, { error: "must not be empty" }).max(200),
  newPassword: Password,
});
export type PasswordChange = z.infer<typeof PasswordChange>;

/** A second-factor code: 6 digits from the authenticator app, or a recovery code (`xxxxx-xxxxx`). */
export const SecondFactorCode = z.strictObject({
  code: z.string().trim().min(6, { error: "must be the 6-digit code or a recovery code" }).max(20),
});
export type SecondFactorCode = z.infer<typeof SecondFactorCode>;

/** Turning the second factor off: the password or a current code. */
export const TwoFactorDisable = z
  .strictObject({ password: z.string().max(200).optional(), code: z.string().max(20).optional() })
  .refine((v) => v.password !== undefined || v.code !== undefined, {
    error: "needs the password or a code",
  });
export type TwoFactorDisable = z.infer<typeof TwoFactorDisable>;

/** Whether a second factor is required (of staff, or of an account's members). */
export const TwoFactorRequirement = z.strictObject({ required: z.boolean() });
