// What the UI bundle gives Ink for `import Yoga from 'yoga-layout'` (scripts/bundle.mjs). yoga's
// own entry instantiates its WebAssembly with a top-level await, which a CommonJS bundle cannot
// hold; the UI bundle is CommonJS so that it runs from a V8 code cache (src/util/cachedBundle.ts).
// Ink reads Yoga only when it lays out, so the object is filled before the first render:
// the bundle's `ready` waits for it.
import { loadYoga, type Yoga } from 'yoga-layout/load';

export * from 'yoga-layout/load';

const yoga = {} as Yoga;
export default yoga;

export const yogaReady: Promise<void> = loadYoga().then((loaded) => {
  Object.assign(yoga, loaded);
});
