// Files shipped with the package (the simulator's video, the demo job), found from this module wherever
// it runs: src/core, dist/core and dist/bundle all sit two levels below the package root.
import { fileURLToPath } from 'node:url';

export function packageFile(relative: string): string {
  return fileURLToPath(new URL(`../../${relative}`, import.meta.url));
}
