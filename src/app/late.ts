// A session part that others reach before it is built (the parts call each other at run time: the
// runner runs slash commands, /clear empties the runner's history). Reading one before it is set is
// a bug in the assembly, and says which part.
export interface Late<T> {
  get(): T;
  set(value: T): T;
}

export function late<T>(what: string): Late<T> {
  let value: T | undefined;
  let set = false;
  return {
    get() {
      if (!set) throw new Error(`internal: the session's ${what} was used before it was built`);
      return value as T;
    },
    set(v) {
      value = v;
      set = true;
      return v;
    },
  };
}
