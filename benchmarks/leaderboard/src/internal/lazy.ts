/**
 * A value built on first use. Schemas are compiled lazily so that loading the package (which the CLI does
 * for every command) does not pay for ajv compiling schemas that most commands never use.
 */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}
