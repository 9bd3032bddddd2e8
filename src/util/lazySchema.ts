// A zod schema made at its first use. The start-up snapshot (scripts/snapshot.cjs) keeps every
// object the bundle made while it initialised, and a zod schema is dozens of objects (closures,
// contexts, shapes): 1,500 of them were most of the snapshot's heap, deserialised at every start.
// A schema a start does not use (a tool's input, a control request's, a hook's output) is written
// `lazySchema(() => z.object({…}))`: a stand-in that makes the schema when it is first touched and
// forwards everything to it, so callers and types see the schema itself.
//
// The builder makes some while it warms the start up (a tool's API definition is derived from its
// schema, and kept: tools/registry.ts), then calls `dropLazySchemas()` so that the snapshot keeps
// none of them; each is made again, once, in a process that uses it.

const made: Array<() => void> = [];

export function lazySchema<T extends object>(make: () => T): T {
  let real: T | undefined;
  const get = (): T => {
    real ??= make();
    return real;
  };
  made.push(() => {
    real = undefined;
  });
  return new Proxy({} as T, {
    get: (_t, k) => Reflect.get(get(), k),
    set: (_t, k, v) => Reflect.set(get(), k, v),
    has: (_t, k) => Reflect.has(get(), k),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (_t, k) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), k);
      // A proxy may not report a property its (empty) target lacks as non-configurable.
      if (d) d.configurable = true;
      return d;
    },
    defineProperty: (_t, k, d) => Reflect.defineProperty(get(), k, d),
    deleteProperty: (_t, k) => Reflect.deleteProperty(get(), k),
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
  });
}

/** Forgets every lazy schema made so far (the snapshot builder's last step: see above). */
export function dropLazySchemas(): void {
  for (const forget of made) forget();
}
