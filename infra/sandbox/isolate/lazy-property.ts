/**
 * `key` of `target` as an enumerable property made by `make` on first read (or replaced when written), and a plain
 * data property from then on, as the chain objects handlers receive hold what costs to build (a block's logs, an
 * event's extrinsic).
 *
 * The accessor pair is one per key, shared by every object, and each object's `make` waits in a WeakMap: a pair
 * made per object gives each object a shape of its own, and V8 then keeps such objects as dictionaries, slower for
 * every property a handler reads.
 */
export function lazyProperty(target: object, key: string, make: () => unknown): void {
  let shared = lazyKeys.get(key);
  if (shared === undefined) lazyKeys.set(key, (shared = sharedAccessor(key)));
  shared.makers.set(target, make);
  Object.defineProperty(target, key, shared.descriptor);
}

interface SharedAccessor {
  makers: WeakMap<object, () => unknown>;
  descriptor: PropertyDescriptor;
}

const lazyKeys = new Map<string, SharedAccessor>();

function sharedAccessor(key: string): SharedAccessor {
  const makers = new WeakMap<object, () => unknown>();
  const settle = (target: object, value: unknown) => {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  // the object the property was made lazy on: the receiver, or the prototype it is read through (Object.create)
  const holder = (receiver: object): object | undefined => {
    for (let o: object | null = receiver; o !== null; o = Object.getPrototypeOf(o)) if (makers.has(o)) return o;
    return undefined;
  };
  return {
    makers,
    descriptor: {
      get(this: object) {
        const at = holder(this);
        return at === undefined ? undefined : settle(at, makers.get(at)!());
      },
      set(this: object, value: unknown) {
        settle(holder(this) ?? this, value);
      },
      enumerable: true,
      configurable: true,
    },
  };
}
