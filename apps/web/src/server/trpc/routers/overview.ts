/** Overview page: animals by status (staff), key and traffic figures (admins; the usage service's numbers). */
import { adminProcedure, router, staffProcedure } from "../init";

export const overviewRouter = router({
  animals: staffProcedure.query(({ ctx }) => ctx.rt.usage.animalsByStatus()),
  keys: adminProcedure.query(({ ctx }) => ctx.rt.usage.keyOverview()),
});
