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

/** The stand-in's target: the maker and, once made, the schema. */
interface Lazy {
  make: () => object;
  real: object | undefined;
}

const made: Lazy[] = [];

const real = (t: Lazy): object => {
  t.real ??= t.make();
  return t.real;
};

/** One handler for every stand-in (a closure each would be eight more objects in the snapshot). */
const forward: ProxyHandler<Lazy> = {
  get: (t, k) => Reflect.get(real(t), k),
  set: (t, k, v) => Reflect.set(real(t), k, v),
  has: (t, k) => Reflect.has(real(t), k),
  ownKeys: (t) => Reflect.ownKeys(real(t)),
  getOwnPropertyDescriptor: (t, k) => {
    const d = Reflect.getOwnPropertyDescriptor(real(t), k);
    // A proxy may not report a property its target lacks as non-configurable.
    if (d) d.configurable = true;
    return d;
  },
  defineProperty: (t, k, d) => Reflect.defineProperty(real(t), k, d),
  deleteProperty: (t, k) => Reflect.deleteProperty(real(t), k),
  getPrototypeOf: (t) => Reflect.getPrototypeOf(real(t)),
};

export function lazySchema<T extends object>(make: () => T): T {
  const target: Lazy = { make, real: undefined };
  made.push(target);
  return new Proxy(target, forward) as unknown as T;
}

/** Forgets every lazy schema made so far (the snapshot builder's last step: see above). */
export function dropLazySchemas(): void {
  for (const t of made) t.real = undefined;
}
