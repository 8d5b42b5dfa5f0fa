// Empties dist/ before a build, so that no file of an earlier build (a renamed or removed module) is packed.
import fs from "node:fs";

fs.rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
