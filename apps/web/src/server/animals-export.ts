/**
 * `GET /api/animals/export?status=&categoryId=&query=&sortBy=&sortDirection=` (docs/contract.md section 4
 * "Animals"): every animal the table's filters match, in its order, as a CSV download (csv-download.ts) for staff
 * and admins; more than MAX_ANIMALS_CSV matches are refused (400) before the file starts.
 */
import { PetExportQuery } from "@petstore/contracts";
import type { PetRow } from "@petstore/core";
import { z } from "zod";
import { type CsvTable, csvDownload } from "./csv-download";

export const ANIMALS_EXPORT = "/api/animals/export";

/** The animals CSV's shape: the table's columns, times in UTC (ISO 8601). */
export const ANIMALS_CSV: CsvTable<PetRow> = {
  columns: ["id", "name", "category id", "category", "status", "created (UTC)", "updated (UTC)"],
  row: (p) => [
    String(p.id),
    p.name,
    String(p.categoryId),
    p.categoryName,
    p.status ?? "",
    p.createdAt,
    p.updatedAt,
  ],
};

/** The answer to export request `req` on `rt`; `categoryId` arrives as text, an empty parameter means none. */
export const animalsExportResponse = csvDownload({
  staff: true,
  filter: z.preprocess((query: Record<string, string>) => {
    const given = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== ""));
    return given.categoryId === undefined ? given : { ...given, categoryId: Number(given.categoryId) };
  }, PetExportQuery),
  table: ANIMALS_CSV,
  batches: (rt, query) => rt.pets.exportBatches(query),
  filename: (_query, stamp) => `animals-${stamp}.csv`,
});
