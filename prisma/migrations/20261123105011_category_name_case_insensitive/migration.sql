-- Category names are unique regardless of letter case ("Hamsters" and "hamsters" are one name).
-- Existing names that differ only in case stop the migration with a message naming them: rename or merge
-- those categories first, then deploy again.
DO $$
DECLARE
  clashes text;
BEGIN
  SELECT string_agg(names, '; ') INTO clashes FROM (
    SELECT string_agg(format('%s (id %s)', "name", "id"), ', ' ORDER BY "id") AS names
    FROM "Category"
    GROUP BY lower("name")
    HAVING count(*) > 1
  ) AS groups;
  IF clashes IS NOT NULL THEN
    RAISE EXCEPTION 'Category names must be unique regardless of letter case, but these differ only in case: %. Rename or merge them, then run the migration again.', clashes;
  END IF;
END $$;

CREATE UNIQUE INDEX "Category_name_lower_key" ON "Category" (lower("name"));
