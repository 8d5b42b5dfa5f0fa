/**
 * The sweep of lapsed holds (docs/contract.md section 1, "Holds that lapse"; docs/architecture.md "Orders"): once a
 * second and at start, one bounded `SKIP LOCKED` statement per tick, then the inventory's fold.
 */
import type { CoreDeps } from "../deps.ts";
import { isDatabaseUnavailable } from "../error-translator.ts";
import { foldInventory } from "../pets/inventory.ts";
import type { OrdersService } from "./service.ts";

/** How often each instance sweeps. */
export const SWEEP_INTERVAL_MS = 1_000;
/** Most holds one tick expires: a backlog takes a few ticks, never one long statement. */
export const SWEEP_LIMIT = 1_000;

/**
 * The sweeper of one instance: `start()` ticks now and every `intervalMs`, `stop()` ends it. A failing tick is
 * logged once until one succeeds (a database outage through the dependency status) and never throws.
 */
export function createOrderSweeper(
  deps: Pick<CoreDeps, "prisma" | "logger" | "dependencies">,
  orders: Pick<OrdersService, "sweep">,
  intervalMs = SWEEP_INTERVAL_MS,
) {
  const { prisma, logger, dependencies } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let failing = false;

  async function round(): Promise<void> {
    try {
      const expired = await orders.sweep(SWEEP_LIMIT);
      await foldInventory(prisma);
      if (expired > 0) logger.info({ expired }, "order holds expired");
      if (failing) logger.info("order sweep works again");
      failing = false;
      dependencies?.up("database");
    } catch (err) {
      if (isDatabaseUnavailable(err) && dependencies) dependencies.down("database", err);
      else if (!failing) logger.warn({ err }, "order sweep failed; retrying every second");
      failing = true;
    }
  }

  /** One tick unless one is under way (then that one). */
  const tick = (): Promise<void> => {
    running ??= round().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    /** Sweeps now, then every `intervalMs` until `stop`. @returns the first tick (it never rejects). */
    start(): Promise<void> {
      if (!timer) {
        timer = setInterval(() => void tick(), intervalMs);
        timer.unref();
      }
      return tick();
    },
    /** One tick now (what the timer runs; tests call it). */
    tick,
    /** Stops the ticks and waits for one under way. */
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

export type OrderSweeper = ReturnType<typeof createOrderSweeper>;
