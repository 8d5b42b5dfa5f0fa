/** Next.js start-up hook: configuration check, migrations, first-start seed and banner (src/server/bootstrap). */
export async function register(): Promise<void> {
  const { bootstrap } = await import("./src/server/bootstrap.ts");
  await bootstrap();
}
