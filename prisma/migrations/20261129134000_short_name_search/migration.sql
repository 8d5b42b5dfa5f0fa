-- Name searches of one or two characters (packages/core/src/pets/search.ts) have no trigram to look up: the
-- animals' names by the characters and character pairs they contain (lower case) find such a search's matches
-- without reading every name (docs/performance.md "Search with a sort"). The function is plain PL/pgSQL, so the
-- index exists on every server, the embedded PGlite included. Its high cost tells the planner to look matches up in
-- the index rather than compute it row by row. schema.prisma cannot express an index on an expression.
CREATE FUNCTION pet_name_grams(name text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 100 AS $$
DECLARE
  l text := lower(name);
  n int := char_length(l);
  grams text[] := '{}';
BEGIN
  FOR i IN 1..n LOOP
    grams := grams || substr(l, i, 1);
    IF i < n THEN
      grams := grams || substr(l, i, 2);
    END IF;
  END LOOP;
  RETURN grams;
END
$$;

CREATE INDEX "Pet_name_grams_idx" ON "Pet" USING gin (pet_name_grams("name"));
